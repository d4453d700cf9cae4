import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorCode } from '../common/domain-error';

/**
 * JSON Schemas of what the REST routes answer (CONTRACT.md §2–§5), for the OpenAPI document.
 * Request bodies are described by the DTO classes' own `@ApiProperty` decorators; answers are
 * plain interfaces in the services (they vanish at run time), so their shapes are written here,
 * once, next to nothing else.
 */

const str = (description?: string): SchemaObject => ({ type: 'string', description });
const nullableStr = (description?: string): SchemaObject => ({
  type: 'string',
  nullable: true,
  description,
});
const bool = (description?: string): SchemaObject => ({ type: 'boolean', description });
const object = (properties: Record<string, SchemaObject>, description?: string): SchemaObject => ({
  type: 'object',
  description,
  required: Object.keys(properties).filter((name) => !properties[name].nullable),
  properties,
});
const list = (items: SchemaObject): SchemaObject => ({ type: 'array', items });

/** Every REST refusal (`HttpErrorFilter`). */
export const ERROR_BODY = object({
  statusCode: { type: 'integer', description: 'The HTTP status again' },
  code: {
    type: 'string',
    enum: Object.values(ErrorCode),
    description: 'Stable machine-readable code; absent on framework-level refusals',
  },
  message: str('What went wrong and what to change, in plain words'),
  details: { ...list(str()), description: 'Every problem, one per entry (e.g. each bad field)' },
});
ERROR_BODY.required = ['statusCode', 'message'];

/** The actions of a Table API; `aggregate` is optional (absent: off). */
const actions = (description: string): SchemaObject => ({
  ...object(
    { select: bool(), insert: bool(), update: bool(), delete: bool(), aggregate: bool() },
    description,
  ),
  required: ['select', 'insert', 'update', 'delete'],
});

/** An argument (`kind` key `type`) or column (`kind`) of an SQL API: confirmed values and the proposal. */
const sqlApiPart = (kindKey: string, description: string): SchemaObject => {
  const proposal = object({
    databaseType: nullableStr('The type the database named, or null'),
    kind: nullableStr('The kind it stands for, or null when the database could not tell'),
    nullable: { type: 'boolean', nullable: true, description: 'Null when unknown' },
  });
  const schema = object(
    {
      name: str(),
      [kindKey]: nullableStr('The kind in use (null: needs one before publishing)'),
      nullable: bool(),
      enum: str('A model enum typing it (absent: none)'),
      proposed: proposal,
      confirmed: bool('The builder confirmed it; kept when the statement is saved again'),
    },
    description,
  );
  schema.required = ['name', kindKey, 'nullable', 'proposed'];
  return schema;
};

/** Named schemas, registered as `components.schemas` and referenced as `#/components/schemas/<name>`. */
/** A webhook as the builder REST answers it (README "Webhooks"). */
function webhook(): SchemaObject & { properties: Record<string, SchemaObject> } {
  return object({
    id: str(),
    name: str(),
    url: str('Where events are POSTed'),
    apis: list(str('A Table API id')),
    events: list({ type: 'string', enum: ['inserted', 'updated', 'deleted'] }),
    enabled: bool('Fires once the version is main'),
    suspended: {
      ...object({ at: str(), reason: str('A 410 answer, or 3 days of failures') }),
      nullable: true,
      description: 'Set when deliveries stopped by themselves',
    },
    failingSince: nullableStr('Since when every attempt failed'),
    createdAt: str(),
    updatedAt: str(),
  }) as SchemaObject & { properties: Record<string, SchemaObject> };
}

export const SCHEMAS: Record<string, SchemaObject> = {
  Error: ERROR_BODY,
  Account: object({
    id: str(),
    email: str(),
    role: { type: 'string', enum: ['admin', 'builder'] },
  }),
  Session: object({
    token: str(
      'Platform session token: send as `Authorization: Bearer <token>` (or use the cookie)',
    ),
    account: { $ref: '#/components/schemas/Account' } as SchemaObject,
  }),
  App: object({
    id: str(),
    name: str(),
    address: str('`/api/graphql/<address>`'),
    domain: nullableStr("The app's own host name, or null"),
  }),
  Datasource: object({
    id: str(),
    name: str(),
    type: { type: 'string', enum: ['postgres', 'mysql', 'mssql', 'sqlite'] },
    createdAt: str('When it was registered (ISO 8601, UTC)'),
    timeZone: str(
      'IANA zone its dates and times without zone are read in where an SQL API declares a zoned instant (default UTC)',
    ),
    readOnlyLogin: {
      type: 'boolean',
      description:
        'Whether a read-only login is set: query-kind SQL APIs run with it (required for them on SQL Server). Its user name and password are never answered',
    } as SchemaObject,
  }),
  ConnectionTest: object({
    serverVersion: str("The database server's version text"),
  }),
  TableRef: object({
    schema: nullableStr('null on SQLite and MySQL/MariaDB'),
    name: str(),
    kind: {
      type: 'string',
      enum: ['table', 'view'],
      description: 'Views (and PostgreSQL materialized views) import read-only: select only',
    },
  }),
  ModelField: object({
    name: str(),
    dbType: str("The database's own type, as declared"),
    kind: str(
      'How the service treats the value (text, int, bigint, decimal, date, json, binary, …)',
    ),
    nullable: bool(),
    hasDefault: bool(),
    generated: bool(),
    computed: bool(),
    maxLength: { type: 'integer', nullable: true },
    enum: nullableStr('The app enum assigned to the field, or null'),
    primaryKey: bool(),
    graphqlType: str(
      'Its GraphQL type name in output and write arguments: ID for keys, an enum, [Int] for an array, or the scalar (Int, DateTime, …)',
    ),
    elementKind: nullableStr(
      'For a PostgreSQL array read as a list (kind array): the kind of its elements; absent otherwise',
    ),
    elementType: nullableStr(
      'For a PostgreSQL array: its element type (e.g. int4); absent otherwise',
    ),
    declaredType: nullableStr(
      "PostgreSQL's full type text (e.g. character varying(200)); absent elsewhere",
    ),
    comment: nullableStr("The column's comment in the database catalog; absent when none"),
    dbEnum: {
      type: 'object',
      nullable: true,
      description:
        'The database enum type of the column (PostgreSQL enum, MySQL ENUM); absent when none',
      properties: { name: str(), values: list(str()) },
    },
  }),
  Relation: object({
    name: str('The navigation field name'),
    kind: { type: 'string', enum: ['manyToOne', 'oneToMany'] },
    from: str(),
    to: str(),
    fromColumn: str(),
    toColumn: str(),
    fkColumn: str(),
  }),
  ModelTable: object({
    name: str('Model name: the table name, or `<schema>_<table>` when two share it'),
    schema: nullableStr(),
    dbName: str(),
    active: bool('Deactivated tables leave the GraphQL schema'),
    comment: nullableStr("The table's comment in the database catalog; absent when none"),
    readOnly: bool('A view: its Table APIs may only select'),
    primaryKeyChosen: bool(
      'The key was chosen by a builder (a view, or a table the database gives no key)',
    ),
    primaryKey: list(str()),
    fields: list({ $ref: '#/components/schemas/ModelField' } as SchemaObject),
    relations: list({ $ref: '#/components/schemas/Relation' } as SchemaObject),
  }),
  ModelGroup: object({
    datasource: object({ id: str(), name: str() }),
    tables: list({ $ref: '#/components/schemas/ModelTable' } as SchemaObject),
  }),
  Enum: object({
    name: str(),
    description: nullableStr(),
    values: list(object({ value: str(), label: nullableStr(), color: nullableStr() })),
  }),
  TableApi: object({
    id: str(),
    name: str(
      'Base name: operations are get<Base>, count<Base>, add<Base>, update<Base>, delete<Base>, aggregate<Base>',
    ),
    table: str('Model table name'),
    actions: actions('Which operations exist'),
    public: actions('Which operations anonymous callers may use'),
    fields: {
      type: 'object',
      nullable: true,
      additionalProperties: true,
      description:
        'Included-fields tree: `{"<column>": true, "<navigation>": {<tree>}}`, to any depth; null = every column, no navigation',
    },
    status: { type: 'string', enum: ['draft', 'published'] },
    createdAt: str(),
    updatedAt: str(),
    notices: {
      ...list(str()),
      nullable: true,
      description:
        'Only in the answer of a save, when there is something to say: what the actions would offer but the table cannot give (README "Writing rows"), e.g. why upsert is left out on MySQL/MariaDB',
    },
  }),
  SqlApi: object({
    id: str('What a key scope names to unlock it'),
    name: str('Its GraphQL field; its types are <Name>Row (and <Name>Result for a mutation)'),
    datasourceId: str(),
    statement: str('One SQL statement with :name placeholders'),
    kind: { type: 'string', enum: ['query', 'mutation'] },
    arguments: list(sqlApiPart('type', 'The :name parameters, in first-appearance order')),
    columns: list(sqlApiPart('kind', 'The result columns, in order')),
    filterable: bool('A query kind also takes where, order and skip'),
    public: bool('Anonymous callers may call it once published'),
    status: { type: 'string', enum: ['draft', 'published'] },
    createdAt: str(),
    updatedAt: str(),
  }),
  Webhook: webhook(),
  CreatedWebhook: object({
    ...webhook().properties,
    secret: str(
      'The signing secret, whsec_ + base64 (Standard Webhooks); shown in this answer only',
    ),
  }),
  WebhookSecret: object({
    secret: str('The new signing secret, shown in this answer only'),
    previousExpiresAt: str('Until when the previous secret signs too (24 hours)'),
  }),
  WebhookDelivery: object({
    id: str('The webhook-id header: the same on every attempt of this event'),
    type: str('<API name>.inserted|updated|deleted'),
    status: { type: 'string', enum: ['pending', 'sending', 'delivered', 'failed', 'cancelled'] },
    attempts: { type: 'integer' },
    nextAttemptAt: nullableStr('While pending'),
    lastStatusCode: { type: 'integer', nullable: true },
    lastError: nullableStr('Why the last attempt failed (never the URL)'),
    createdAt: str(),
    deliveredAt: nullableStr(),
  }),
  RetriedDelivery: object({ status: { type: 'string', enum: ['queued'] } }),
  ApiKey: object({
    id: str(),
    name: str(),
    prefix: str('The first 12 characters; the key itself is shown once, at creation'),
    scope: list(
      object({
        appId: str(),
        endpoints: {
          oneOf: [{ type: 'string', enum: ['all'] }, list(str('Table API id'))],
        } as SchemaObject,
      }),
    ),
    status: { type: 'string', enum: ['active', 'revoked'] },
    lastUsedAt: nullableStr('Accurate to within a minute; null when never used'),
    rateLimitPerMinute: { type: 'integer' },
    pointsPerMinute: {
      type: 'integer',
      description: 'Cost points per minute (README "Cost budgets")',
    },
    mcpDeletes: bool('Whether MCP delete_row may be called with the key (README "Agents (MCP)")'),
    expiresAt: nullableStr(),
  }),
  CreatedApiKey: {
    allOf: [
      { $ref: '#/components/schemas/ApiKey' },
      object({ key: str('The whole key: shown in this answer only, never again') }),
    ],
  } as SchemaObject,
  AppUser: object({
    id: str(),
    email: str(),
    roles: list(str()),
    attributes: { type: 'object', additionalProperties: true },
    disabled: bool(),
  }),
  AppUserSession: object({
    token: str("Send as `Authorization: Bearer <token>` to this app's GraphQL endpoint only"),
  }),
  Permissions: {
    type: 'object',
    description: 'Row rules by role: `{"<role>": {"tables": {"<table>": {"where": <filter>}}}}`',
    additionalProperties: true,
  },
  Revision: object({ revision: { type: 'integer' } }),
  Published: object({ status: { type: 'string', enum: ['published'] } }),
  Revoked: object({ status: { type: 'string', enum: ['revoked'] } }),
  Health: object({
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    checks: object({
      metadata: { type: 'string', enum: ['ok', 'down'] },
      redis: { type: 'string', enum: ['ok', 'down'], nullable: true },
    }),
  }),
};

/** A reference to one of {@link SCHEMAS}, or a list of them with `[name]`. */
export function schemaRef(name: string | [string]): SchemaObject {
  const one = (n: string) => {
    if (!SCHEMAS[n]) throw new TypeError(`No OpenAPI schema named ${n}`);
    return { $ref: `#/components/schemas/${n}` } as SchemaObject;
  };
  return typeof name === 'string' ? one(name) : list(one(name[0]));
}
