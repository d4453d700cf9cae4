import {
  GraphQLBoolean,
  GraphQLFieldConfig,
  GraphQLFieldConfigArgumentMap,
  GraphQLFieldConfigMap,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLOutputType,
  GraphQLSchema,
} from 'graphql';
import type { TableApiDefinition, VersionDefinition } from '../platform/version-definition';
import { baseName, buildApiTree, RowNode } from './api-tree';
import type { GatewayContext } from './gateway-context';
import { filterInputOf, scalarOf, SortDirection } from './scalars';
import { countResolver, getResolver, navigationResolver } from './table-resolvers';

/** Who a schema is for: published APIs (keys, app users, anonymous callers) or a builder's view (all APIs). */
export type Audience = 'published' | 'builder';

/** The Table API action behind a root field. */
export type ApiAction = 'select' | 'insert' | 'update' | 'delete';

/** What the endpoint-scope step needs to know of a root field (CONTRACT.md §6). */
export interface RootFieldInfo {
  apiId: string;
  action: ApiAction;
  public: boolean;
}

/** A schema ready to execute, with its root-field index. */
export interface BuiltSchema {
  schema: GraphQLSchema;
  rootFields: Map<string, RootFieldInfo>;
}

/** Description of a draft API's operations in a builder's schema (CONTRACT.md §6). */
export const DRAFT_DESCRIPTION = 'RASCUNHO';

interface ApiTypes {
  api: TableApiDefinition;
  queries: Record<string, GraphQLFieldConfig<unknown, GatewayContext> & { action: ApiAction }>;
}

/** The row, filter and order types of one row node, built once and shared by every audience. */
class TypeFactory {
  private readonly objects = new Map<string, GraphQLObjectType>();
  private readonly filters = new Map<string, GraphQLInputObjectType>();
  private readonly orders = new Map<string, GraphQLInputObjectType>();

  filter(node: RowNode): GraphQLInputObjectType {
    let type = this.filters.get(node.typeName);
    if (!type) {
      const self: GraphQLInputObjectType = new GraphQLInputObjectType({
        name: `${node.typeName}Filter`,
        description: `Conditions on ${node.typeName}; keys at one level combine with AND.`,
        fields: () => ({
          ...Object.fromEntries(node.columns.map((c) => [c.name, { type: filterInputOf(c.kind, node.isKey(c.name)) }])),
          and: { type: new GraphQLList(new GraphQLNonNull(self)), description: 'All must hold; [] is true.' },
          or: { type: new GraphQLList(new GraphQLNonNull(self)), description: 'One must hold; [] is false.' },
        }),
      });
      type = self;
      this.filters.set(node.typeName, type);
    }
    return type;
  }

  order(node: RowNode): GraphQLInputObjectType {
    let type = this.orders.get(node.typeName);
    if (!type) {
      type = new GraphQLInputObjectType({
        name: `${node.typeName}Order`,
        description: 'Names one column per list element; the primary key completes every order.',
        fields: Object.fromEntries(node.columns.map((c) => [c.name, { type: SortDirection }])),
      });
      this.orders.set(node.typeName, type);
    }
    return type;
  }

  listArgs(node: RowNode): GraphQLFieldConfigArgumentMap {
    return {
      where: { type: this.filter(node) },
      order: { type: new GraphQLList(new GraphQLNonNull(this.order(node))) },
      take: { type: GraphQLInt, description: 'At most 10,000 rows (the default).' },
      skip: { type: GraphQLInt, description: 'Rows to skip; default 0.' },
    };
  }

  row(node: RowNode): GraphQLObjectType {
    let type = this.objects.get(node.typeName);
    if (!type) {
      type = new GraphQLObjectType<Record<string, unknown>, GatewayContext>({
        name: node.typeName,
        description: `A row of ${node.table.name}.`,
        fields: () => {
          const fields: GraphQLFieldConfigMap<Record<string, unknown>, GatewayContext> = {};
          for (const c of node.columns) {
            const scalar = node.isKey(c.name) ? GraphQLID : scalarOf(c.kind);
            fields[c.name] = { type: c.nullable ? scalar : new GraphQLNonNull(scalar) };
          }
          for (const nav of node.navigations) {
            const target = this.row(nav.node);
            const many = nav.navigation.kind === 'oneToMany';
            const type: GraphQLOutputType = many ? new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(target))) : target;
            fields[nav.navigation.name] = {
              type,
              args: many ? this.listArgs(nav.node) : undefined,
              resolve: navigationResolver(nav) as never,
            };
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

  constructor(def: VersionDefinition) {
    const factory = new TypeFactory();
    for (const api of def.apis) {
      const node = buildApiTree(def, api);
      if (!node) continue;
      const base = baseName(api.name);
      const queries: ApiTypes['queries'] = {};
      if (api.actions.select) {
        queries[`get${base}`] = {
          action: 'select',
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(factory.row(node)))),
          args: factory.listArgs(node),
          resolve: getResolver(node) as never,
        };
        queries[`count${base}`] = {
          action: 'select',
          type: new GraphQLNonNull(GraphQLInt),
          args: { where: { type: factory.filter(node) } },
          resolve: countResolver(node) as never,
        };
      }
      this.apis.push({ api, queries });
    }
  }

  /** The schema an audience sees: builders every API (drafts marked RASCUNHO), others published ones. */
  schemaFor(audience: Audience): BuiltSchema {
    const rootFields = new Map<string, RootFieldInfo>();
    const query: GraphQLFieldConfigMap<unknown, GatewayContext> = {};
    for (const { api, queries } of this.apis) {
      if (audience !== 'builder' && api.status !== 'published') continue;
      for (const [name, { action, ...field }] of Object.entries(queries)) {
        query[name] = { ...field, description: api.status === 'draft' ? DRAFT_DESCRIPTION : `${action} on ${api.table} (API ${api.name})` };
        rootFields.set(name, { apiId: api.id, action, public: api.public[action] });
      }
    }
    if (Object.keys(query).length === 0) {
      query._noOperations = { type: GraphQLBoolean, description: 'This app exposes no operations yet.', resolve: () => null };
    }
    return { schema: new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: query }) }), rootFields };
  }
}
