import DataLoader from 'dataloader';
import type { GraphQLFieldResolver } from 'graphql';
import type { DatasourceConnection } from '../datasources/datasource-pools.service';
import type {
  Capabilities,
  ColumnValue,
  CompiledQuery,
  Condition,
  StatementResult,
  WriteContext,
} from '../datasources/dialect';
import type { NavigationNode, RowNode } from './api-tree';
import type { GatewayContext } from './gateway-context';
import { DatabaseRefusalError } from './graphql-errors';
import {
  columnKinds,
  FilterInput,
  planOrder,
  planPage,
  planWhere,
  selectColumns,
  shapeRows,
  tableRef,
} from './query-planner';
import { planValues, primaryKeyCondition, writableColumns } from './write-planner';

/** Arguments of `get<Base>` and of one-to-many navigation fields. */
export interface ListArgs {
  where?: FilterInput | null;
  order?: Record<string, 'ASC' | 'DESC'>[] | null;
  take?: number | null;
  skip?: number | null;
}

type Row = Record<string, unknown>;

/** Parent keys per batch: bounded so the IN list stays within every database's parameter limit. */
const MAX_BATCH = 1000;

/** `get<Base>`: one SELECT with the filter, order and page, reading only the requested columns. */
export function getResolver(
  node: RowNode,
): GraphQLFieldResolver<unknown, GatewayContext, ListArgs> {
  return async (_source, args, ctx, info) => {
    const page = planPage(args.take, args.skip);
    const conn = await ctx.connection(node.table.datasourceId);
    const where = planWhere(node, args.where, conn.dialect);
    if (page.take === 0) return [];
    const columns = selectColumns(node, info.fieldNodes, info.fragments);
    const query = conn.dialect.compileSelect({
      table: tableRef(node.table),
      columns,
      kinds: columnKinds(node.table, columns),
      where,
      order: planOrder(node, args.order),
      ...page,
    });
    return shapeRows(node.table, columns, (await conn.run(query)).rows, conn.dialect);
  };
}

/** `count<Base>`: one `SELECT COUNT(*)` with the same filter as `get<Base>`. */
export function countResolver(
  node: RowNode,
): GraphQLFieldResolver<unknown, GatewayContext, { where?: FilterInput | null }> {
  return async (_source, args, ctx) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const { rows } = await conn.run(
      conn.dialect.compileCount({
        table: tableRef(node.table),
        where: planWhere(node, args.where, conn.dialect),
      }),
    );
    return Number(rows[0]?.count ?? 0);
  };
}

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
  return async (row, args, ctx, info) => {
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
          const where: Condition = many
            ? { kind: 'and', items: [inKeys, planWhere(node, args.where, conn.dialect)] }
            : inKeys;
          const query = conn.dialect.compileSelect({
            table: tableRef(node.table),
            columns,
            kinds: columnKinds(node.table, columns),
            where,
            order: planOrder(node, many ? args.order : null),
            take: page ? page.take : null,
            skip: page ? page.skip : 0,
            ...(many ? { partition: { column: toColumn.name } } : {}),
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
  };
}

/**
 * Runs a write; a driver error that is a refusal of the contract's kinds becomes a
 * {@link DatabaseRefusalError} (the statement failed whole, so the database is unchanged).
 */
async function runWrite(
  conn: DatasourceConnection,
  node: RowNode,
  operation: WriteContext['operation'],
  query: CompiledQuery,
  written: ColumnValue[] = [],
): Promise<StatementResult> {
  try {
    return await conn.run(query);
  } catch (error) {
    const refusal = conn.dialect.translateError(error, {
      table: tableRef(node.table),
      columns: node.table.columns,
      primaryKey: node.table.primaryKey,
      operation,
    });
    if (!refusal) throw error;
    // Some databases (SQLite, SQL Server) do not say which foreign key failed: when an insert set
    // exactly one foreign-key column, that is the one. (An update may instead have hit rows that
    // depend on this one, so it is left as the database said.)
    if (
      refusal.code === 'FOREIGN_KEY_VIOLATION' &&
      refusal.field === null &&
      operation === 'insert'
    ) {
      const fks = written.filter((v) =>
        node.table.foreignKeys.some((fk) => fk.columns.includes(v.column)),
      );
      if (fks.length === 1) {
        refusal.field = fks[0].column;
        refusal.message = `${fks[0].column} refers to a row that does not exist`;
      }
    }
    throw new DatabaseRefusalError(refusal);
  }
}

type Args = Record<string, unknown>;

/**
 * `add<Base>`: one INSERT that reads the row back (`RETURNING`/`OUTPUT`) with the requested
 * columns; `true` where the database cannot return the row in the same statement (MySQL).
 */
export function addResolver(
  node: RowNode,
  capabilities: Capabilities,
): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  const columns = writableColumns(node, 'insert');
  return async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const values = planValues(node, columns, args, conn.dialect);
    const returning = capabilities.insertReturning
      ? selectColumns(node, info.fieldNodes, info.fragments)
      : [];
    const { rows } = await runWrite(
      conn,
      node,
      'insert',
      conn.dialect.compileInsert({
        table: tableRef(node.table),
        values,
        returning,
        kinds: columnKinds(node.table, returning),
      }),
      values,
    );
    if (!capabilities.insertReturning) return true;
    return shapeRows(node.table, returning, rows, conn.dialect)[0] ?? null;
  };
}

/**
 * `update<Base>`: changes only the columns sent (null empties one) of the row with the given
 * primary key; the row, or null when no row has that key (CONTRACT.md §6).
 */
export function updateResolver(
  node: RowNode,
  capabilities: Capabilities,
): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  const key = new Set(node.table.primaryKey);
  const columns = writableColumns(node, 'update').filter((c) => !key.has(c.name));
  return async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const where = primaryKeyCondition(node, args, conn.dialect);
    const set = planValues(node, columns, args, conn.dialect);
    const returning = selectColumns(node, info.fieldNodes, info.fragments);
    const table = tableRef(node.table);
    const kinds = columnKinds(node.table, returning);
    const readBack = conn.dialect.compileSelect({
      table,
      columns: returning,
      kinds,
      where,
      order: planOrder(node, null),
      take: 1,
      skip: 0,
    });
    let rows: Record<string, unknown>[];
    if (set.length === 0) {
      rows = (await conn.run(readBack)).rows;
    } else if (capabilities.updateReturning) {
      rows = (
        await runWrite(
          conn,
          node,
          'update',
          conn.dialect.compileUpdate({ table, set, where, returning, kinds }),
          set,
        )
      ).rows;
    } else {
      // No UPDATE … RETURNING (MySQL, MariaDB): the row is read back by its key (which an update
      // never changes) when the UPDATE found it.
      const { affected } = await runWrite(
        conn,
        node,
        'update',
        conn.dialect.compileUpdate({ table, set, where, returning: [] }),
        set,
      );
      rows = (affected ?? 0) > 0 ? (await conn.run(readBack)).rows : [];
    }
    return shapeRows(node.table, returning, rows, conn.dialect)[0] ?? null;
  };
}

/** `delete<Base>`: true when a row with that primary key was deleted, false when none had it. */
export function deleteResolver(node: RowNode): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  return async (_source, args, ctx) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const where = primaryKeyCondition(node, args, conn.dialect);
    const { affected } = await runWrite(
      conn,
      node,
      'delete',
      conn.dialect.compileDelete({ table: tableRef(node.table), where }),
    );
    return (affected ?? 0) > 0;
  };
}
