import {
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
} from 'graphql';
import type { SqlApiDefinition, VersionDefinition } from '../platform/version-definition';
import { sqlApiTypeNames, sqlTypeBase, typingProblems } from '../sql-apis/sql-api-rules';
import type { GatewayContext } from './gateway-context';
import type { OperationTypes } from './operations/operation-kind';
import { sqlMutationResolver } from './operations/sql-mutation';
import { sqlQueryResolver } from './operations/sql-query';
import type { AudienceView } from './request/audience';
import type { RootFieldInfo } from './schema-builder';
import { DefinitionClash } from './schema-builder';
import { sqlApiPlan, type SqlApiPlan } from './sql-api-values';

/*
 * The GraphQL part of SQL APIs (issue 26 item 3, README "SQL APIs"), built once per version with
 * the Table APIs' types (`VersionTypes` in `schema-builder.ts` calls it):
 * - a query kind: `<name>(args…, take): [<Name>Row!]!`, and `where`, `order`, `skip` when it is
 *   filterable (the `<Name>RowFilter` and `<Name>RowOrder` of its columns);
 * - a mutation kind: `<name>(args…): <Name>Result`, `{ affected, rows }` (`rows` only when the
 *   statement returns columns).
 * Each argument is non-null unless confirmed nullable; an enum-typed one is the model enum's
 * GraphQL enum, bound as its stored value. An SQL API whose arguments or columns are not all
 * typed yet has no field (it cannot be published either).
 */

/** One SQL API's root field, before an audience picks it. */
interface SqlRootField {
  api: SqlApiDefinition;
  root: 'query' | 'mutation';
  field: GraphQLFieldConfig<unknown, GatewayContext>;
}

/**
 * The type names SQL APIs mint, for the names nested Table API rows avoid (`buildApiTrees`), so
 * only a root name the builder chose can clash with them.
 */
export function sqlApiReservedNames(def: VersionDefinition): string[] {
  return (def.sqlApis ?? []).flatMap(sqlApiTypeNames);
}

/** Where `VersionTypes` reads a datasource's time zone: its capabilities entry (default UTC). */
function timeZoneOf(capabilities: ReadonlyMap<string, unknown>, datasourceId: string): string {
  const entry = capabilities.get(datasourceId) as { timeZone?: unknown } | undefined;
  return typeof entry?.timeZone === 'string' ? entry.timeZone : 'UTC';
}

/** The GraphQL arguments of a plan's statement parameters (implicit ones left out). */
function statementArgs(plan: SqlApiPlan, types: OperationTypes): GraphQLFieldConfigArgumentMap {
  const args: GraphQLFieldConfigArgumentMap = {};
  for (const column of plan.arguments) {
    const type = types.column(plan.node, column);
    args[column.name] = {
      type: column.nullable ? type : new GraphQLNonNull(type),
      description: `The statement's :${column.name}.`,
    };
  }
  return args;
}

/** Every SQL API's root field for one version, shared by the audiences' schemas. */
export class SqlApiTypes {
  private readonly fields: SqlRootField[] = [];

  /**
   * @param operations the Table API operation names already minted, with their API: an SQL API
   * of such a name clashes (409, CONTRACT.md §3).
   * @param capabilities per datasource id; a `timeZone` there is the zone dates without zone are
   * read in (default UTC).
   * @throws DefinitionClash when an SQL API's field or type name is minted by another part.
   */
  constructor(
    def: VersionDefinition,
    types: OperationTypes,
    operations: ReadonlyMap<string, { name: string }>,
    capabilities: ReadonlyMap<string, unknown>,
  ) {
    const names = new Map<string, string>();
    for (const api of def.sqlApis ?? []) {
      const table = operations.get(api.name);
      if (table)
        throw new DefinitionClash(api.name, `API "${table.name}"`, `SQL API "${api.name}"`);
      const other = names.get(api.name);
      if (other) throw new DefinitionClash(api.name, `SQL API "${other}"`, `SQL API "${api.name}"`);
      names.set(api.name, api.name);
      if (typingProblems(def, api).some((p) => / needs a (type|kind) /.test(p))) continue;
      const known = new Set(def.enums.map((e) => e.name));
      const served: SqlApiDefinition = {
        ...api,
        arguments: api.arguments.map((a) =>
          a.enum !== undefined && !known.has(a.enum) ? { ...a, enum: undefined } : a,
        ),
        columns: api.columns.map((c) =>
          c.enum !== undefined && !known.has(c.enum) ? { ...c, enum: undefined } : c,
        ),
      };
      const base = sqlTypeBase(api.name);
      const plan = sqlApiPlan(served, `${base}Row`, timeZoneOf(capabilities, api.datasourceId));
      this.fields.push({
        api,
        root: api.kind,
        field: api.kind === 'query' ? queryField(plan, types) : mutationField(plan, types, base),
      });
    }
  }

  /**
   * Adds the SQL API fields `audience` sees to a schema's root fields (drafts described
   * RASCUNHO, as Table APIs), with what the endpoint-scope step needs of each: a key's scope
   * names the SQL API's id, as it names a Table API's.
   * @param inTransaction wraps a mutation field's resolver in the request's transaction.
   */
  addTo(
    audience: AudienceView,
    roots: {
      query: GraphQLFieldConfigMap<unknown, GatewayContext>;
      mutation: GraphQLFieldConfigMap<unknown, GatewayContext>;
    },
    rootFields: Map<string, RootFieldInfo>,
    draftDescription: string,
    inTransaction: (
      resolve: GraphQLFieldResolver<unknown, GatewayContext>,
    ) => GraphQLFieldResolver<unknown, GatewayContext>,
  ): void {
    for (const { api, root, field } of this.fields) {
      const action = root === 'query' ? 'select' : 'update';
      const published = api.status === 'published';
      if (!audience.includes({ apiId: api.id, action, published, public: api.public })) continue;
      roots[root][api.name] = {
        ...field,
        ...(root === 'mutation' && { resolve: inTransaction(field.resolve!) }),
        description: published ? field.description : draftDescription,
      };
      rootFields.set(api.name, {
        apiId: api.id,
        action,
        public: api.public,
        datasourceId: api.datasourceId,
      });
    }
  }
}

/** `<name>(args…, take[, where, order, skip]): [<Name>Row!]!`. */
function queryField(
  plan: SqlApiPlan,
  types: OperationTypes,
): GraphQLFieldConfig<unknown, GatewayContext> {
  const page: GraphQLFieldConfigArgumentMap = plan.api.filterable
    ? types.listArgs(plan.node)
    : { take: { type: GraphQLInt, description: 'At most 10,000 rows (the default).' } };
  return {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(types.row(plan.node)))),
    args: { ...statementArgs(plan, types), ...page },
    resolve: sqlQueryResolver(plan) as never,
    description: `SQL API ${plan.api.name}: a read.`,
  };
}

/** `<name>(args…): <Name>Result`. */
function mutationField(
  plan: SqlApiPlan,
  types: OperationTypes,
  base: string,
): GraphQLFieldConfig<unknown, GatewayContext> {
  const name = `${base}Result`;
  types.claim(name, `sql-result:${plan.api.id}`, `the result of SQL API "${plan.api.name}"`);
  const row = plan.columns.length ? types.row(plan.node) : null;
  const result = new GraphQLObjectType({
    name,
    description: `What SQL API ${plan.api.name} did.`,
    fields: {
      affected: {
        type: new GraphQLNonNull(GraphQLInt),
        description:
          'Rows the statement inserted, updated or deleted, as the database counts them.',
      },
      ...(row && {
        rows: {
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(row))),
          description: 'The rows the statement returned (RETURNING).',
        },
      }),
    },
  });
  // Nullable, as every mutation field: a request rolled back answers null (CONTRACT.md §11).
  return {
    type: result,
    args: statementArgs(plan, types),
    resolve: sqlMutationResolver(plan) as never,
    description: `SQL API ${plan.api.name}: a write.`,
  };
}
