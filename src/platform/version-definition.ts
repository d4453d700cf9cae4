import type { ColumnKind, IntrospectedTable } from '../datasources/core/dialect';

/**
 * A table or view imported into an app's model (CONTRACT.md §3). The introspected `kind` is not
 * kept: a view is stored as `readOnly: true`. Definitions saved before views could be imported
 * have neither `readOnly` nor `primaryKeyChosen`; absent means false. `comment` (the table's) and,
 * on columns, `comment`, `dbEnum` and `declaredType` are stored only when the database gave them,
 * and are absent from definitions saved before they were read (README "Values"): such a table
 * reads as it did (enum columns as `String`, no comments) until it is imported again. The same
 * holds for the statistics read at import, `estimatedRows` and a foreign key's `fanOut`: absent,
 * the cost estimate counts the worst case (README "Limits").
 */
export interface ModelTable extends Omit<IntrospectedTable, 'kind'> {
  /** Model name: the database table's name, or `<schema>_<table>` when two imported tables share it. */
  name: string;
  datasourceId: string;
  /** Deactivated tables leave the GraphQL schema. */
  active: boolean;
  /**
   * A view or materialized view: its Table APIs may offer select only (CONTRACT.md §3). Absent
   * (or false) on tables.
   */
  readOnly?: boolean;
  /**
   * `primaryKey` was named by the builder (`PATCH …/model/tables/:table` `{primaryKey}`), since
   * the database declares none (a view, or a table without a key). Absent (or false) when
   * `primaryKey` is the database's own, or empty. A re-import keeps a chosen key while its
   * columns exist and the database still declares none.
   */
  primaryKeyChosen?: boolean;
}

/** An app enum (CONTRACT.md §3); becomes a GraphQL enum of the same name. */
export interface ModelEnum {
  name: string;
  description: string | null;
  values: { value: string; label: string | null; color: string | null }[];
}

/**
 * Which actions a Table API exposes (or switches public). `aggregate` (issue 23 item 2) is absent
 * from definitions saved before it existed: absent means off.
 */
export interface ApiActions {
  select: boolean;
  insert: boolean;
  update: boolean;
  delete: boolean;
  aggregate?: boolean;
}

/** The included-fields tree: `true` for a column, a nested tree for a navigation field. */
export interface FieldsTree {
  [field: string]: true | FieldsTree;
}

/** A Table API: one table exposed as GraphQL operations named after `name` (CONTRACT.md §3, §6). */
export interface TableApiDefinition {
  id: string;
  name: string;
  table: string;
  actions: ApiActions;
  public: ApiActions;
  /** Null: every column of the table, no navigation. */
  fields: FieldsTree | null;
  status: 'draft' | 'published';
  createdAt: string;
  updatedAt: string;
}

/**
 * What the database said of one argument or result column of an SQL API's statement when it was
 * last saved (`Dialect.describeStatement`): its type name and kind when it could tell (MySQL,
 * MariaDB and SQLite do not type parameters; expressions have no nullability), kept beside the
 * builder's confirmation so a page can show both.
 */
export interface SqlApiProposal {
  databaseType: string | null;
  kind: ColumnKind | null;
  nullable: boolean | null;
}

/**
 * One `:name` parameter of an SQL API (README "SQL APIs"): `type` null until the database
 * proposed one or the builder confirmed it (an SQL API is published only when every argument and
 * column has one). `enum`: a model enum typing the argument (a GraphQL enum bound as its stored
 * value). `nullable`: the argument may be left out or null (then SQL NULL is bound).
 */
export interface SqlApiArgument {
  name: string;
  type: ColumnKind | null;
  nullable: boolean;
  enum?: string;
  proposed: SqlApiProposal;
  /** The builder confirmed or overrode it: kept when the statement is saved again. */
  confirmed?: boolean;
}

/** One result column of an SQL API's statement: as {@link SqlApiArgument}, `kind` for `type`. */
export interface SqlApiColumn {
  name: string;
  kind: ColumnKind | null;
  nullable: boolean;
  enum?: string;
  proposed: SqlApiProposal;
  /** The builder confirmed or overrode it: kept when the statement is saved again. */
  confirmed?: boolean;
}

/**
 * An SQL API (issue 26, CONTRACT.md §11, README "SQL APIs"): one SQL statement with `:name`
 * placeholders on one datasource, typed by the database and confirmed by the builder. A `query`
 * kind is a read run in a read-only transaction that is rolled back; a `mutation` kind runs in the
 * request's transaction. Drafted and published with the version as Table APIs are; its `id` is
 * what a key's scope names.
 */
export interface SqlApiDefinition {
  id: string;
  name: string;
  datasourceId: string;
  statement: string;
  kind: 'query' | 'mutation';
  arguments: SqlApiArgument[];
  columns: SqlApiColumn[];
  /** A query kind also takes `where`, `order` and `skip`, applied around the statement. */
  filterable: boolean;
  /** Anonymous callers may call it once published. */
  public: boolean;
  status: 'draft' | 'published';
  createdAt: string;
  updatedAt: string;
}

/** A change of a Table API's row a webhook may listen to (README "Webhooks"). */
export type WebhookEvent = 'inserted' | 'updated' | 'deleted';

/**
 * A committed call of a mutation-kind SQL API, the one event a webhook naming that SQL API
 * receives (README "Webhooks": its statement is opaque, so no row event is claimed).
 */
export type SqlApiEvent = 'executed';

/**
 * A webhook (issue 28 item 1, README "Webhooks"): committed changes of the rows of its Table APIs,
 * and committed calls of its mutation-kind SQL APIs, POSTed to `url`, signed per Standard
 * Webhooks. Versioned like Table APIs and fired only from the main version; its secret and delivery state are kept outside the document
 * (`webhook_endpoint`), so a version never holds a secret.
 */
export interface WebhookDefinition {
  id: string;
  name: string;
  /** `https://…` (or `http://…`); its host must resolve to public addresses only. */
  url: string;
  /** Table API ids whose rows' changes it receives; mutation-kind SQL API ids, whose calls. */
  apis: string[];
  /** Row events for its Table APIs; `executed` for its SQL APIs. */
  events: (WebhookEvent | SqlApiEvent)[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * The definitions of one app version, kept as one JSON document whose revision grows with every
 * change (docs/adr/0003-versioned-definition-document.md).
 */
export interface VersionDefinition {
  tables: ModelTable[];
  enums: ModelEnum[];
  apis: TableApiDefinition[];
  /** SQL APIs (README "SQL APIs"); absent in documents saved before they existed: none. */
  sqlApis?: SqlApiDefinition[];
  /** Webhooks (README "Webhooks"); absent in documents saved before they existed: none. */
  webhooks?: WebhookDefinition[];
  /** Row rules per role (CONTRACT.md §4); filled by the app-access module. */
  permissions: Record<string, unknown>;
}

/** The definition of a new app's first main version. */
export function emptyDefinition(): VersionDefinition {
  return { tables: [], enums: [], apis: [], permissions: {} };
}

/** A version as the request path addresses it: the cache key's first two parts. */
export interface VersionHead {
  appId: string;
  versionId: string;
  revision: number;
}
