import DataLoader from 'dataloader';
import type { GraphQLFieldResolver } from 'graphql';
import type { Condition, ModelColumn, PagePerKey } from '../datasources/core/dialect';
import type { ModelTable } from '../platform/version-definition';
import type { NavigationNode } from './api-tree';
import type { GatewayContext } from './gateway-context';
import { type ListArgs, withGraphQLArguments } from './operations/arguments';
import {
  columnKinds,
  planOrder,
  planPage,
  planWhere,
  selectColumns,
  shapeRows,
  tableRef,
} from './query-planner';

type Row = Record<string, unknown>;

/** A declared SQL type as `format_type` prints it: words, digits, spaces, `(n, m)`, `[]`. */
const PLAIN_TYPE = /^[A-Za-z_][A-Za-z0-9_ ]*(\(\d+(, ?\d+)?\))?( [A-Za-z ]+)?$/;

/**
 * The keys of a one-to-many batch as a per-key page (ADR 0015), when the child's foreign key on
 * `column` leads an index (`ModelForeignKey.indexed`, read at import on PostgreSQL) and its
 * declared type is a plain type name; else undefined (the `ROW_NUMBER()` read).
 */
function pagePerKey(
  table: ModelTable,
  column: ModelColumn,
  keys: unknown[],
): PagePerKey | undefined {
  const indexed = table.foreignKeys.some(
    (k) => k.indexed && k.columns.length === 1 && k.columns[0] === column.name,
  );
  const type = column.declaredType ?? column.dbType;
  return indexed && PLAIN_TYPE.test(type) ? { keys, type } : undefined;
}

/** Parent keys per batch: bounded so the IN list stays within every database's parameter limit. */
const MAX_BATCH = 1000;

/**
 * A navigation field. All parent rows of one level share one DataLoader, so a level costs one
 * query however many parents it has (`WHERE key IN (…)`; one-to-many pages per parent with
 * `ROW_NUMBER() OVER (PARTITION BY …)`).
 */
export function navigationResolver(
  nav: NavigationNode,
): GraphQLFieldResolver<Row, GatewayContext, ListArgs> {
  const { navigation, node } = nav;
  const many = navigation.kind === 'oneToMany';
  return withGraphQLArguments(async (row, args, ctx, info) => {
    const key = row[navigation.fromColumn];
    if (key === null || key === undefined) return many ? [] : null;
    const page = many ? planPage(args.take, args.skip) : null;
    let loader = ctx.loaders.get(info.fieldNodes);
    if (!loader) {
      // Built once per field occurrence; every parent row of the level then shares it.
      const columns = selectColumns(node, info.fieldNodes, info.fragments, [navigation.toColumn]);
      loader = new DataLoader<unknown, unknown>(
        async (keys) => {
          const conn = await ctx.connection(node.table.datasourceId);
          const toColumn = node.table.columns.find((c) => c.name === navigation.toColumn)!;
          const inKeys: Condition = {
            kind: 'in',
            column: toColumn.name,
            values: keys.map((k) => conn.dialect.bindValue(toColumn, k)),
            negated: false,
          };
          const perKey = many ? pagePerKey(node.table, toColumn, inKeys.values) : undefined;
          const filter = many ? planWhere(node, args.where, conn.dialect, ctx.scopes) : inKeys;
          // Read per key, the plan leaves the keys out of `where` (`PagePerKey`).
          const where: Condition =
            !many || perKey ? filter : { kind: 'and', items: [inKeys, filter] };
          const query = conn.dialect.compileSelect({
            table: tableRef(node.table),
            columns,
            kinds: columnKinds(node.table),
            where,
            // Rows outside the caller's rule are invisible through navigation too: a many-to-one
            // field gives null, a one-to-many one leaves them out (CONTRACT.md §4).
            scope: ctx.scopes.of(node.table, conn.dialect),
            order: planOrder(node, many ? args.order : null, conn.dialect, ctx.scopes),
            take: page ? page.take : null,
            skip: page ? page.skip : 0,
            ...(many ? { partition: { column: toColumn.name, ...(perKey && { perKey }) } } : {}),
          });
          const rows = shapeRows(node.table, columns, (await conn.run(query)).rows, conn.dialect);
          const groups = new Map<string, Row[]>();
          for (const r of rows) {
            const k = String(r[toColumn.name]);
            const group = groups.get(k);
            if (group) group.push(r);
            else groups.set(k, [r]);
          }
          return keys.map((k) =>
            many ? (groups.get(String(k)) ?? []) : (groups.get(String(k))?.[0] ?? null),
          );
        },
        { cacheKeyFn: (k) => String(k), maxBatchSize: MAX_BATCH },
      );
      ctx.loaders.set(info.fieldNodes, loader);
    }
    if (page && page.take === 0) return [];
    return loader.load(key);
  });
}
