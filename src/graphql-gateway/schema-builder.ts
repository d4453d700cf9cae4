import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLInputType,
  GraphQLFieldConfig,
  GraphQLFieldConfigArgumentMap,
  GraphQLFieldConfigMap,
  GraphQLFieldResolver,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLOutputType,
  GraphQLSchema,
} from 'graphql';
import { arrayElement, effectiveKind } from '../datasources/core/dialect';
import type { Capabilities, DatabaseEnum, ModelColumn } from '../datasources/core/dialect';
import type {
  ModelEnum,
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';
import type { Permissions } from '../app-access/row-rules';
import {
  baseName,
  buildApiTrees,
  databaseEnumKey,
  databaseEnumOf,
  enumValueNames,
  nameDatabaseEnums,
  RowNode,
} from './api-tree';
import type { AudienceView } from './request/audience';
import type { GatewayContext } from './gateway-context';
import {
  enumFilterInput,
  filterInputOf,
  isOrderable,
  listOf,
  scalarOf,
  SHARED_TYPE_NAMES,
  SortDirection,
} from './scalars';
import { DatabaseRefusalError } from './graphql-errors';
import { navigationResolver } from './navigation-resolver';
import {
  navigationAggregateField,
  navigationAggregateName,
} from './operations/navigation-aggregate';
import { navigationRowEstimate } from './request/operation-cost';
import { OPERATION_KINDS } from './operations';
import type { ApiAction, OperationContext, OperationTypes } from './operations/operation-kind';
import { sqlApiReservedNames, SqlApiTypes } from './sql-api-schema';
import {
  CHANGE_EVENT_NAME,
  changeSubscriptionField,
  changeTypeName,
  subscriptionFieldName,
} from '../subscriptions/subscription-field';

/** What the endpoint-scope step needs to know of a root field (CONTRACT.md §6). */
export interface RootFieldInfo {
  apiId: string;
  action: ApiAction;
  public: boolean;
  /** The datasource the field's API reads and writes: a request's mutations write to one. */
  datasourceId: string;
}

/** A schema ready to execute, with its root-field index. */
export interface BuiltSchema {
  schema: GraphQLSchema;
  rootFields: Map<string, RootFieldInfo>;
  /** The version's row rules per role (CONTRACT.md §4), read by each request's table access. */
  permissions: Permissions;
  /**
   * The version's model tables, every one (not only those an API includes): where a row rule's
   * navigation keys lead (README "App users and row rules").
   */
  model: readonly ModelTable[];
}

/** What a datasource can do when nothing else is known (PostgreSQL, SQLite, SQL Server). */
const FULL_CAPABILITIES: Capabilities = { insertReturning: true, updateReturning: true };

/**
 * A mutation root field's resolver inside the request's transaction (`request-transaction.ts`):
 * not run once an earlier mutation field of the request failed, and marking the transaction
 * failed when it fails, so the later ones are not run either.
 */
function inRequestTransaction(
  resolve: GraphQLFieldResolver<unknown, GatewayContext>,
): GraphQLFieldResolver<unknown, GatewayContext> {
  return async (source, args, ctx, info) => {
    ctx.transaction?.refuseAfterFailure();
    try {
      return await resolve(source, args, ctx, info);
    } catch (error) {
      ctx.transaction?.fail(info.path.key as string);
      throw error;
    }
  };
}

/** Description of a draft API's operations in a builder's schema (CONTRACT.md §6). */
export const DRAFT_DESCRIPTION = 'RASCUNHO';

type RootField = GraphQLFieldConfig<unknown, GatewayContext> & {
  action: ApiAction;
  /** Whether anonymous callers may call it (`OperationKind.isPublic`, else the action's switch). */
  isPublic: boolean;
};

interface ApiTypes {
  api: TableApiDefinition;
  datasourceId: string;
  queries: Record<string, RootField>;
  mutations: Record<string, RootField>;
  /** `on<Base>Changed` of an API with the select action (README "Subscriptions"). */
  subscriptions: Record<string, RootField>;
}

/** A model enum as a GraphQL enum of the same name; each value's label is its description. */
export function enumType(e: ModelEnum): GraphQLEnumType {
  return new GraphQLEnumType({
    name: e.name,
    description: e.description ?? undefined,
    values: Object.fromEntries(
      e.values.map((v) => [v.value, { value: v.value, description: v.label ?? undefined }]),
    ),
  });
}

/**
 * A database enum as a GraphQL enum named `name` (README "Enums", "Database enum types"): one
 * value per database value, named by {@link enumValueNames} and holding the stored text as its
 * internal value, so output serializes what the database holds to its name and input parses a
 * name back to the stored text. A value whose name differs from its text says the text in its
 * description.
 */
export function databaseEnumType(name: string, dbEnum: DatabaseEnum): GraphQLEnumType {
  const names = enumValueNames(dbEnum.values);
  return new GraphQLEnumType({
    name,
    description: `Values of the database enum ${dbEnum.name}.`,
    values: Object.fromEntries(
      dbEnum.values.map((value, i) => [
        names[i],
        {
          value,
          description: names[i] === value ? undefined : `Database value: ${JSON.stringify(value)}.`,
        },
      ]),
    ),
  });
}

/** The longest comment a description carries, in characters; a longer one is cut with `…`. */
const COMMENT_LIMIT = 1000;

/** A catalog comment as description text: trimmed, cut at {@link COMMENT_LIMIT}, ending a sentence. */
function commentSentence(comment: string | null | undefined): string | null {
  const text = typeof comment === 'string' ? comment.trim() : '';
  if (!text) return null;
  const chars = [...text];
  const cut = chars.length > COMMENT_LIMIT ? `${chars.slice(0, COMMENT_LIMIT).join('')}…` : text;
  return /[.!?…]$/.test(cut) ? cut : `${cut}.`;
}

/**
 * The database type a column's description names: the full declared type where the model has it
 * (PostgreSQL `format_type`), else `dbType` (MySQL/MariaDB `COLUMN_TYPE`, SQL Server's type
 * name, SQLite's declared type). A MySQL `ENUM(…)` reads `enum`: its values are the GraphQL
 * enum's, and would make the description long.
 */
export function databaseTypeText(column: ModelColumn): string {
  const full = column.declaredType ?? column.dbType;
  return column.dbEnum && /^enum\s*\(/i.test(full) ? 'enum' : full;
}

/**
 * A column field's description (README "Values"): the column's catalog comment, when it has one,
 * then its database type: `The customer's e-mail. Database type: character varying(200).`, or
 * `Database type: integer.` Nothing else is added.
 */
export function columnDescription(column: ModelColumn): string {
  const comment = commentSentence(column.comment);
  const type = `Database type: ${databaseTypeText(column)}.`;
  return comment ? `${comment} ${type}` : type;
}

/** A row type's description: the table's catalog comment, else `A row of <table>.` */
export function rowDescription(table: ModelTable): string {
  return commentSentence(table.comment) ?? `A row of ${table.name}.`;
}

/**
 * Two parts of a definition would mint the same GraphQL name (CONTRACT.md §3: refused with 409
 * naming both sides). Thrown while a version's types are built.
 */
export class DefinitionClash extends Error {
  constructor(
    readonly typeName: string,
    readonly first: string,
    readonly second: string,
  ) {
    super(
      `${second} would generate the GraphQL name ${typeName}, which ${first} already generates; rename one of them`,
    );
    this.name = 'DefinitionClash';
  }
}

/** Names the schema holds whatever the definition: root types, standard scalars. */
export const BUILT_IN_NAMES = [
  'Query',
  'Mutation',
  'Subscription',
  'String',
  'Int',
  'Float',
  'Boolean',
  'ID',
  'SortDirection',
  CHANGE_EVENT_NAME,
];

/**
 * The row, filter and order types of the row nodes, built once and shared by every audience.
 * Types are cached by `node.typeName`: the nodes of one name have one shape (`api-tree.ts`,
 * `nameRowTypes()`), so they share one row, filter and order type. Each type is claimed by its
 * kind and shape (`row <shape>`), so nodes sharing a type never clash with each other, while a
 * root `<Base>` minted by a part of another kind or shape (an enum, a built-in, another API's
 * filter) does. Two APIs of one `<Base>` clash earlier, on their operation names.
 */
class TypeFactory implements OperationTypes {
  /** Who minted each GraphQL name: a name minted twice by different parts is a clash. */
  private readonly owners = new Map<string, { owner: unknown; label: string }>();

  constructor(
    private readonly enums: Map<string, GraphQLEnumType>,
    /** How to name a row node in a clash message (`API "x", nested a.b`). */
    private readonly labelOf: (node: RowNode) => string,
    /** The database enums' types and filters, by `databaseEnumKey` (`nameDatabaseEnums`). */
    private readonly dbEnums: Map<
      string,
      { type: GraphQLEnumType; filter: GraphQLInputObjectType; label: string }
    > = new Map(),
  ) {
    for (const name of BUILT_IN_NAMES) this.claim(name, 'builtin', `the built-in type ${name}`);
    for (const name of enums.keys()) this.claim(name, `enum:${name}`, `enum "${name}"`);
    // Named to avoid every other name (api-tree.ts): a claim can only fail on a bug, as a 409.
    for (const [key, { type, filter, label }] of dbEnums) {
      this.claim(type.name, `dbenum:${key}`, label);
      this.claim(filter.name, `dbenum:${key}`, `the filter of ${label}`);
    }
  }

  /** Records that `owner` mints `name`. @throws DefinitionClash when another part minted it. */
  claim(name: string, owner: unknown, label: string): void {
    const known = this.owners.get(name);
    if (known && known.owner !== owner) throw new DefinitionClash(name, known.label, label);
    if (!known) this.owners.set(name, { owner, label });
  }

  private readonly objects = new Map<string, GraphQLObjectType>();
  private readonly filters = new Map<string, GraphQLInputObjectType>();
  private readonly orders = new Map<string, GraphQLInputObjectType>();

  /**
   * A column's type in output and in `add`/`update` arguments: `ID` for keys, the model enum for
   * an enum column (text again once the enum is deleted), else the GraphQL enum of its database
   * enum type, else `[Element]` for a PostgreSQL array column (`listOf`), else the kind's scalar
   * (`effectiveKind`: an array column without a known element kind is text form).
   */
  column(node: RowNode, c: ModelColumn): GraphQLInputType & GraphQLOutputType {
    if (node.isKey(c.name)) return GraphQLID;
    const appEnum = c.enum && this.enums.get(c.enum);
    if (appEnum) return appEnum;
    const element = arrayElement(c);
    if (element) return listOf(element.kind);
    return this.databaseEnum(node, c)?.type ?? scalarOf(effectiveKind(c));
  }

  /**
   * A column's operator input: its database enum's, else its kind's (`filterInputOf`; an array
   * column's by its element kind, `IntListFilter`).
   */
  filterInput(node: RowNode, c: ModelColumn): GraphQLInputObjectType {
    if (node.isKey(c.name)) return filterInputOf(effectiveKind(c), true);
    return (
      this.databaseEnum(node, c)?.filter ??
      filterInputOf(effectiveKind(c), false, arrayElement(c)?.kind)
    );
  }

  /** The database enum types typing a column (`databaseEnumOf`), when there is one. */
  private databaseEnum(
    node: RowNode,
    c: ModelColumn,
  ): { type: GraphQLEnumType; filter: GraphQLInputObjectType } | undefined {
    const dbEnum = databaseEnumOf(node.table, c, this.enums);
    return dbEnum ? this.dbEnums.get(databaseEnumKey(dbEnum)) : undefined;
  }

  filter(node: RowNode): GraphQLInputObjectType {
    let type = this.filters.get(node.typeName);
    if (!type) {
      this.claim(
        `${node.typeName}Filter`,
        `filter ${node.shape}`,
        `the filter of ${this.labelOf(node)}`,
      );
      const self: GraphQLInputObjectType = new GraphQLInputObjectType({
        name: `${node.typeName}Filter`,
        description: `Conditions on ${node.typeName}; keys at one level combine with AND.`,
        fields: () => ({
          ...Object.fromEntries(
            node.columns.map((c) => [c.name, { type: this.filterInput(node, c) }]),
          ),
          ...Object.fromEntries(
            node.navigations
              .filter(({ navigation }) => !node.columns.some((c) => c.name === navigation.name))
              .map(({ navigation, node: sub }) => [
                navigation.name,
                navigation.kind === 'manyToOne'
                  ? {
                      type: this.filter(sub),
                      description: `Holds when the related ${sub.typeName} exists, is visible to the caller and matches.`,
                      extensions: { relationFilter: { counts: true } },
                    }
                  : {
                      type: this.relation(sub),
                      description: `Conditions on the related ${sub.typeName} rows the caller can see.`,
                      extensions: { relationFilter: { counts: false } },
                    },
              ]),
          ),
          and: {
            type: new GraphQLList(new GraphQLNonNull(self)),
            description: 'All must hold; [] is true.',
          },
          or: {
            type: new GraphQLList(new GraphQLNonNull(self)),
            description: 'One must hold; [] is false.',
          },
        }),
      });
      type = self;
      this.filters.set(node.typeName, type);
    }
    return type;
  }

  private readonly relations = new Map<string, GraphQLInputObjectType>();

  /**
   * `<Row>Relation`, the value of a one-to-many navigation key of a filter (README "Relation
   * filters"): `some`, `none` and `every`, each taking the child's `<Row>Filter` (the columns and
   * navigations of the navigation's subtree only). Shared by the nodes of one type name, as the
   * filter is; the name is minted with the row's (`rowTypeNames`), so it never clashes.
   */
  relation(node: RowNode): GraphQLInputObjectType {
    let type = this.relations.get(node.typeName);
    if (!type) {
      const name = `${node.typeName}Relation`;
      this.claim(name, `relation ${node.shape}`, `the relation filter of ${this.labelOf(node)}`);
      const filter = () => this.filter(node);
      // Each quantifier is one subquery: one and/or item (`operation-cost.ts`).
      const extensions = { relationFilter: { counts: true } };
      type = new GraphQLInputObjectType({
        name,
        description: `Conditions on related ${node.typeName} rows, among those the caller can see; given together, all must hold.`,
        fields: () => ({
          some: { type: filter(), description: 'At least one visible row matches.', extensions },
          none: { type: filter(), description: 'No visible row matches.', extensions },
          every: {
            type: filter(),
            extensions,
            description:
              'Every visible row matches: true with no visible row; a row whose condition is unknown (an empty field) does not match.',
          },
        }),
      });
      this.relations.set(node.typeName, type);
    }
    return type;
  }

  /**
   * `<Row>Order` (README "Order and pages"): one `SortDirection` key per orderable column
   * ({@link orderableColumns}); per many-to-one navigation of the node's subtree the related
   * level's `<Row>Order` (`{customer: {name: ASC}}`, nesting as deep as the fields tree), per
   * one-to-many navigation its `<Row>AggregateOrder` (`{order_lines: {count: DESC}}`). A
   * navigation named like a column is left out, as in the filter; a many-to-one navigation whose
   * level offers nothing to order by ({@link hasOrderKeys}) too, since an input type needs a
   * field. Navigation keys carry `extensions.relationOrder`, which the cost walk counts as
   * relation filters (`operation-cost.ts`).
   */
  order(node: RowNode): GraphQLInputObjectType {
    let type = this.orders.get(node.typeName);
    if (!type) {
      this.claim(
        `${node.typeName}Order`,
        `order ${node.shape}`,
        `the order input of ${this.labelOf(node)}`,
      );
      const extensions = { relationOrder: true };
      type = new GraphQLInputObjectType({
        name: `${node.typeName}Order`,
        description:
          'Names one column, or one relation with one column of it or its count, per list element; the primary key completes every order.',
        fields: () => ({
          ...Object.fromEntries(
            orderableColumns(node).map((c) => [c.name, { type: SortDirection }]),
          ),
          ...Object.fromEntries(
            node.navigations
              .filter(({ navigation }) => !node.columns.some((c) => c.name === navigation.name))
              .filter(({ navigation, node: sub }) =>
                navigation.kind === 'oneToMany' ? true : hasOrderKeys(sub),
              )
              .map(({ navigation, node: sub }) => [
                navigation.name,
                navigation.kind === 'manyToOne'
                  ? {
                      type: this.order(sub),
                      description: `Sorts by a column of the related ${sub.typeName}; empty (NULL) when there is none or the caller cannot see it.`,
                      extensions,
                    }
                  : {
                      type: this.aggregateOrder(sub),
                      description: `Sorts by the related ${sub.typeName} rows the caller can see.`,
                      extensions,
                    },
              ]),
          ),
        }),
      });
      this.orders.set(node.typeName, type);
    }
    return type;
  }

  private readonly aggregateOrders = new Map<string, GraphQLInputObjectType>();

  /**
   * `<Row>AggregateOrder` `{count: SortDirection}`, the value of a one-to-many navigation key of
   * an order (README "Order and pages"): the number of related rows the caller can see. Shared by
   * the nodes of one type name; the name is minted with the row's (`rowTypeNames`), so a nested
   * one never clashes.
   */
  aggregateOrder(node: RowNode): GraphQLInputObjectType {
    let type = this.aggregateOrders.get(node.typeName);
    if (!type) {
      const name = `${node.typeName}AggregateOrder`;
      this.claim(name, `aggregate order ${node.shape}`, `the count order of ${this.labelOf(node)}`);
      type = new GraphQLInputObjectType({
        name,
        description: `Sorts by an aggregate of related ${node.typeName} rows, among those the caller can see.`,
        fields: {
          count: { type: SortDirection, description: 'The number of visible related rows.' },
        },
      });
      this.aggregateOrders.set(node.typeName, type);
    }
    return type;
  }

  /**
   * The arguments of a list of rows (`get<Base>`, a one-to-many navigation): `where`, `order`,
   * `take`, `skip`. A level whose `<Row>Order` would have no key (no column, and no navigation
   * offering one: {@link hasOrderKeys}) has no `order`, since an input type needs a field
   * (issue 27); the primary key alone orders it.
   */
  listArgs(node: RowNode): GraphQLFieldConfigArgumentMap {
    return {
      where: { type: this.filter(node) },
      ...(hasOrderKeys(node) && {
        order: { type: new GraphQLList(new GraphQLNonNull(this.order(node))) },
      }),
      take: { type: GraphQLInt, description: 'At most 10,000 rows (the default).' },
      skip: { type: GraphQLInt, description: 'Rows to skip; default 0.' },
    };
  }

  row(node: RowNode): GraphQLObjectType {
    this.claim(node.typeName, `row ${node.shape}`, `the row type of ${this.labelOf(node)}`);
    let type = this.objects.get(node.typeName);
    if (!type) {
      type = new GraphQLObjectType<Record<string, unknown>, GatewayContext>({
        name: node.typeName,
        description: rowDescription(node.table),
        fields: () => {
          const fields: GraphQLFieldConfigMap<Record<string, unknown>, GatewayContext> = {};
          for (const c of node.columns) {
            const type = this.column(node, c);
            fields[c.name] = {
              type: c.nullable ? type : new GraphQLNonNull(type),
              description: columnDescription(c),
              ...(type === GraphQLFloat && { resolve: finiteFloat(c.name) }),
            };
          }
          for (const nav of node.navigations) {
            const target = this.row(nav.node);
            const many = nav.navigation.kind === 'oneToMany';
            const type: GraphQLOutputType = many
              ? new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(target)))
              : target;
            fields[nav.navigation.name] = {
              type,
              args: many ? this.listArgs(nav.node) : undefined,
              resolve: navigationResolver(nav) as never,
              extensions: navigationRowEstimate(nav),
            };
          }
          // `<navigation>Aggregate` per one-to-many navigation of an API with the aggregate
          // action (README "Aggregates"); a column or navigation of that name keeps it.
          for (const nav of node.aggregates ? node.navigations : []) {
            const name = navigationAggregateName(nav.navigation.name);
            if (nav.navigation.kind !== 'oneToMany' || name in fields) continue;
            fields[name] = navigationAggregateField(nav, this);
          }
          return fields;
        },
      });
      this.objects.set(node.typeName, type);
    }
    return type;
  }
}

/**
 * Every API's GraphQL types and operations for one version's definition, built once per
 * (version, revision) and shared by the audiences' schemas (docs/architecture.md).
 */
export class VersionTypes {
  private readonly apis: ApiTypes[] = [];
  /** The version's SQL APIs (README "SQL APIs", `sql-api-schema.ts`). */
  private readonly sqlApis: SqlApiTypes;

  /**
   * @param capabilities what each datasource can do in one statement, by id; a datasource
   * without RETURNING gets `add<Base>: Boolean` (CONTRACT.md §6).
   */
  private readonly permissions: Permissions;
  private readonly model: readonly ModelTable[];

  constructor(def: VersionDefinition, capabilities: Map<string, Capabilities> = new Map()) {
    this.permissions = (def.permissions ?? {}) as Permissions;
    this.model = def.tables;
    const labels = new Map<RowNode, string>();
    const enums = new Map(def.enums.map((e) => [e.name, enumType(e)]));
    const reserved = [...BUILT_IN_NAMES, ...SHARED_TYPE_NAMES, ...enums.keys()];
    // Database enums yield to every name the builder chose; nested rows then yield to them.
    const dbEnums = new Map(
      [...nameDatabaseEnums(def, reserved)].map(([key, named]) => {
        const type = databaseEnumType(named.typeName, named.dbEnum);
        const label = `the database enum ${named.dbEnum.name}`;
        return [key, { type, filter: enumFilterInput(named.filterName, type), label }] as const;
      }),
    );
    const factory = new TypeFactory(
      enums,
      (node) => labels.get(node) ?? `table ${node.table.name}`,
      dbEnums,
    );
    // Who mints each operation name. Compared by API, not by name: two APIs of one name (a
    // definition no REST change can save) clash here, before any of their types is built.
    const operations = new Map<string, TableApiDefinition>();
    const operation = (name: string, api: TableApiDefinition) => {
      const other = operations.get(name);
      if (other && other !== api) {
        throw new DefinitionClash(name, `API "${other.name}"`, `API "${api.name}"`);
      }
      operations.set(name, api);
    };
    // Every API's tree, named together: nested nodes share the types of equal shapes, and their
    // names avoid every name the schema may hold (api-tree.ts, nameRowTypes()).
    const trees = buildApiTrees(def, [
      ...reserved,
      ...[...dbEnums.values()].flatMap((e) => [e.type.name, e.filter.name]),
      ...sqlApiReservedNames(def),
      ...def.apis.map((a) => changeTypeName(baseName(a.name))),
    ]);
    for (const { api, node } of trees) {
      const label = (n: RowNode, path: string) => {
        labels.set(n, path ? `API "${api.name}", nested ${path}` : `API "${api.name}"`);
        for (const nav of n.navigations) {
          label(nav.node, path ? `${path}.${nav.navigation.name}` : nav.navigation.name);
        }
      };
      label(node, '');
      const base = baseName(api.name);
      for (const kind of OPERATION_KINDS) operation(kind.rootFieldName(base), api);
      const queries: ApiTypes['queries'] = {};
      const mutations: ApiTypes['mutations'] = {};
      // One decision per datasource shapes both the operation's type and what its resolver runs.
      const can = capabilities.get(node.table.datasourceId) ?? FULL_CAPABILITIES;
      const ctx: OperationContext = { node, types: factory, capabilities: can, tables: def.tables };
      // Each kind the API offers adds its root field, in the kinds' order (operations/index.ts).
      for (const kind of OPERATION_KINDS) {
        if (!kind.offered(api, node, can)) continue;
        const into = kind.root === 'query' ? queries : mutations;
        const isPublic = kind.isPublic?.(api) ?? api.public[kind.action] === true;
        into[kind.rootFieldName(base)] = { action: kind.action, isPublic, ...kind.field(ctx) };
      }
      const subscriptions: ApiTypes['subscriptions'] = {};
      if (api.actions.select) {
        operation(subscriptionFieldName(base), api);
        factory.claim(
          changeTypeName(base),
          `change ${api.id}`,
          `the change type of API "${api.name}"`,
        );
        const field = changeSubscriptionField(
          api,
          node,
          base,
          factory.row(node),
          factory.filter(node),
        );
        subscriptions[subscriptionFieldName(base)] = {
          action: 'select',
          isPublic: api.public.select === true,
          ...(field as GraphQLFieldConfig<unknown, GatewayContext>),
        };
      }
      this.apis.push({
        api,
        datasourceId: node.table.datasourceId,
        queries,
        mutations,
        subscriptions,
      });
    }
    this.sqlApis = new SqlApiTypes(def, factory, operations, capabilities);
  }

  /**
   * The schema an audience sees (CONTRACT.md §6 "Sees is literal"): the root fields its view
   * includes; drafts (only builders see them) are described RASCUNHO.
   */
  schemaFor(audience: AudienceView): BuiltSchema {
    const rootFields = new Map<string, RootFieldInfo>();
    const query: GraphQLFieldConfigMap<unknown, GatewayContext> = {};
    const mutation: GraphQLFieldConfigMap<unknown, GatewayContext> = {};
    const subscription: GraphQLFieldConfigMap<unknown, GatewayContext> = {};
    for (const { api, datasourceId, queries, mutations, subscriptions } of this.apis) {
      for (const [into, fields] of [
        [query, queries],
        [mutation, mutations],
        [subscription, subscriptions],
      ] as const) {
        for (const [name, { action, isPublic, ...field }] of Object.entries(fields)) {
          const facts = {
            apiId: api.id,
            action,
            published: api.status === 'published',
            public: isPublic,
          };
          if (!audience.includes(facts)) continue;
          into[name] = {
            ...field,
            ...(into === mutation && { resolve: inRequestTransaction(field.resolve!) }),
            description:
              api.status === 'draft'
                ? DRAFT_DESCRIPTION
                : `${action} on ${api.table} (API ${api.name})`,
          };
          rootFields.set(name, {
            apiId: api.id,
            action,
            public: isPublic,
            datasourceId,
          });
        }
      }
    }
    const roots = { query, mutation };
    this.sqlApis.addTo(audience, roots, rootFields, DRAFT_DESCRIPTION, inRequestTransaction);
    if (Object.keys(query).length === 0) {
      query._noOperations = {
        type: GraphQLBoolean,
        description: 'This app exposes no operations yet.',
        resolve: () => null,
      };
    }
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: query }),
      mutation: Object.keys(mutation).length
        ? new GraphQLObjectType({ name: 'Mutation', fields: mutation })
        : undefined,
      subscription: Object.keys(subscription).length
        ? new GraphQLObjectType({ name: 'Subscription', fields: subscription })
        : undefined,
    });
    return { schema, rootFields, permissions: this.permissions, model: this.model };
  }
}

/**
 * Whether `<Row>Order` of a node has a key ({@link TypeFactory.order}): a column, a one-to-many
 * navigation, or a many-to-one navigation whose level has one. Recursion ends with the fields
 * tree, which is finite.
 */
function hasOrderKeys(node: RowNode): boolean {
  return (
    node.columns.length > 0 ||
    node.navigations.some(
      ({ navigation, node: sub }) =>
        !node.columns.some((c) => c.name === navigation.name) &&
        (navigation.kind === 'oneToMany' || hasOrderKeys(sub)),
    )
  );
}

/**
 * The columns an order may name: those every database can sort ({@link isOrderable}); all of
 * them when none is (an input type needs a field; the database then refuses what it cannot sort).
 */
function orderableColumns(node: RowNode): RowNode['columns'] {
  const sortable = node.columns.filter((c) => isOrderable(effectiveKind(c)));
  return sortable.length ? sortable : node.columns;
}

/**
 * The resolver of a `Float` column's field: its value, unless it is NaN or an infinity (a
 * PostgreSQL `real`/`double precision` may hold `NaN`, `Infinity` and `-Infinity`, an SQLite REAL
 * an infinity), which neither GraphQL's `Float` nor JSON can carry. Such a value is refused for
 * this field alone, `INVALID_VALUE` naming the column, rather than GraphQL's own error, which has
 * no code (README "Values").
 * @throws DatabaseRefusalError INVALID_VALUE for NaN, Infinity and -Infinity.
 */
export function finiteFloat(
  column: string,
): GraphQLFieldResolver<Record<string, unknown>, unknown> {
  return (row) => {
    const value = row[column];
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new DatabaseRefusalError({
        code: 'INVALID_VALUE',
        field: column,
        message: `${column} holds ${value}, which a GraphQL Float cannot carry (JSON has no NaN or Infinity)`,
      });
    }
    return value;
  };
}
