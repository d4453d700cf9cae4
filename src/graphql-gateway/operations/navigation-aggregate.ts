import DataLoader from 'dataloader';
import {
  type FieldNode,
  type GraphQLFieldConfig,
  type GraphQLFieldResolver,
  GraphQLNonNull,
} from 'graphql';
import { type Condition, type Dialect, effectiveKind } from '../../datasources/core/dialect';
import type { NavigationNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import { type FilterInput, planWhere, tableRef } from '../query-planner';
import { navigationRowEstimate } from '../request/operation-cost';
import {
  addSelectedAggregates,
  aggregateTypes,
  type GroupShape,
  selectionOf,
  shapeGroup,
} from './aggregate';
import { withGraphQLArguments } from './arguments';
import type { OperationTypes } from './operation-kind';

type Row = Record<string, unknown>;

/** Parent keys per batch, as for navigation rows: the IN list stays within every parameter limit. */
const MAX_BATCH = 1000;

/** The alias of the foreign key a batch groups by. */
const PARENT_KEY = '__tg_k0';

/** The name of a one-to-many navigation's aggregate field: `orders` → `ordersAggregate`. */
export function navigationAggregateName(navigation: string): string {
  return `${navigation}Aggregate`;
}

/**
 * `<navigation>Aggregate(where): <Child>Group!` of a one-to-many navigation (README "Aggregates";
 * PEERS.md §A5): the aggregates of the parent's visible children matching `where`, one group per
 * parent, no `groupBy`. All parents of one level share one DataLoader, so a level costs one
 * statement, `SELECT fk, <aggregates> FROM child WHERE fk IN (…) AND <where> AND <row rule> GROUP
 * BY fk`, however many parents it has; a parent with no matching child gets count 0 and null
 * sums. The child's row rule applies (CONTRACT.md §4), as for the navigation's rows. The cost
 * walk counts it as one statement and one row per parent, and charges the rows it scans (parents ×
 * the foreign key's fan-out) against `LIMIT_SCANNED_ROWS`.
 */
export function navigationAggregateField(
  nav: NavigationNode,
  types: OperationTypes,
): GraphQLFieldConfig<Row, GatewayContext> {
  const { group } = aggregateTypes(nav.node, types);
  return {
    type: new GraphQLNonNull(group),
    description: `Aggregates of the ${nav.navigation.name} rows the caller can see, per parent.`,
    args: { where: { type: types.filter(nav.node) } },
    resolve: navigationAggregateResolver(nav) as never,
    extensions: { scanEstimate: navigationRowEstimate(nav)?.rowEstimate ?? { rows: null } },
  };
}

function navigationAggregateResolver(
  nav: NavigationNode,
): GraphQLFieldResolver<Row, GatewayContext, { where?: FilterInput | null }> {
  const { navigation, node } = nav;
  const byName = new Map(node.columns.map((c) => [c.name, c]));
  const toColumn = node.table.columns.find((c) => c.name === navigation.toColumn)!;
  // The aggregates a field occurrence selects, planned once per cached document.
  const shapes = new WeakMap<readonly FieldNode[], GroupShape>();
  return withGraphQLArguments(async (row, args, ctx, info) => {
    let shape = shapes.get(info.fieldNodes);
    if (!shape) {
      shape = { keys: [], items: [], avgs: [] };
      addSelectedAggregates(shape, selectionOf(info.fieldNodes, info.fragments), byName);
      shapes.set(info.fieldNodes, shape);
    }
    const selected = shape;
    // A parent without a matching visible child: count 0, every other aggregate empty.
    const none = (dialect: Dialect) =>
      shapeGroup(
        Object.fromEntries(selected.items.map((i) => [i.item.alias, null])),
        selected,
        dialect,
      );
    const key = row[navigation.fromColumn];
    if (key === null || key === undefined) {
      return none((await ctx.connection(node.table.datasourceId)).dialect);
    }
    let loader = ctx.loaders.get(info.fieldNodes);
    if (!loader) {
      loader = new DataLoader<unknown, unknown>(
        async (keys) => {
          const conn = await ctx.connection(node.table.datasourceId);
          const inKeys: Condition = {
            kind: 'in',
            column: toColumn.name,
            values: keys.map((k) => conn.dialect.bindValue(toColumn, k)),
            negated: false,
          };
          const query = conn.dialect.compileAggregate({
            table: tableRef(node.table),
            where: {
              kind: 'and',
              items: [inKeys, planWhere(node, args.where, conn.dialect, ctx.scopes)],
            },
            // Rows outside the caller's rule are not aggregated (CONTRACT.md §4).
            scope: ctx.scopes.of(node.table, conn.dialect),
            groupBy: [
              {
                column: toColumn.name,
                kind: effectiveKind(toColumn),
                nullable: toColumn.nullable,
                alias: PARENT_KEY,
              },
            ],
            aggregates: selected.items.map((i) => i.item),
            take: null,
            skip: 0,
          });
          const groups = new Map<string, unknown>();
          for (const r of (await conn.run(query)).rows) {
            const parent = conn.dialect.formatValue(toColumn, r[PARENT_KEY]);
            groups.set(String(parent), shapeGroup(r, selected, conn.dialect));
          }
          return keys.map((k) => groups.get(String(k)) ?? none(conn.dialect));
        },
        { cacheKeyFn: (k) => String(k), maxBatchSize: MAX_BATCH },
      );
      ctx.loaders.set(info.fieldNodes, loader);
    }
    return loader.load(key);
  });
}
