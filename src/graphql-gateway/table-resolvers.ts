import type { GraphQLFieldResolver } from 'graphql';
import type { Capabilities, Condition, Dialect } from '../datasources/core/dialect';
import type { RowNode } from './api-tree';
import type { GatewayContext } from './gateway-context';
import { columnKinds, planOrder, selectColumns, shapeRows, tableRef } from './query-planner';
import { admitsEveryRow } from './request/row-scopes';
import { type Args, withGraphQLArguments } from './operations/arguments';
import {
  byColumn,
  guardedReferences,
  hiddenReference,
  outsideRule,
  readRow,
  refuseHiddenReferences,
  type Run,
  runWrite,
} from './operations/writes';
import { planValues, primaryKeyCondition, Reference, writableColumns } from './write-planner';

/** The row of `node`'s table with these primary key values (as the driver gave or took them). */
function keyCondition(node: RowNode, key: Record<string, unknown>): Condition {
  return {
    kind: 'and',
    items: node.table.primaryKey.map((column) => ({
      kind: 'compare',
      column,
      op: 'eq',
      value: key[column],
    })),
  };
}

/** Whether the row with these key values is inside `scope` (read in the write's transaction). */
async function insideScope(
  run: Run,
  dialect: Dialect,
  node: RowNode,
  key: Record<string, unknown>,
  scope: Condition,
): Promise<boolean> {
  const where = keyCondition(node, key);
  return (await readRow(run, dialect, node, where, node.table.primaryKey, scope)) !== null;
}

/**
 * `add<Base>`: one INSERT that reads the row back (`RETURNING`/`OUTPUT`) with the requested
 * columns; `true` where the database cannot return the row in the same statement (MySQL). When a
 * row rule bounds the caller, the INSERT and a read of the new row under the rule run in one
 * transaction, rolled back when the row is outside it (CONTRACT.md §4); a foreign key set to a
 * row outside the caller's rule on the referenced table is refused in that transaction before the
 * INSERT ({@link refuseHiddenReferences}; a composite key the INSERT sets only partly is checked
 * after it, on the row's own values, the others being defaults).
 * @param references the table's foreign keys to model tables (`referencesOf`).
 */
export function addResolver(
  node: RowNode,
  capabilities: Capabilities,
  references: readonly Reference[] = [],
): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  const columns = writableColumns(node, 'insert');
  const key = node.table.primaryKey;
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const values = planValues(node, columns, args, conn.dialect);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const checked = !admitsEveryRow(scope);
    const sent = byColumn(values);
    const guarded = guardedReferences(references, values, ctx.scopes, conn.dialect);
    const before = guarded.filter((r) => r.columns.every((c) => c in sent));
    const after = guarded.filter((r) => !before.includes(r));
    const readsRow = checked || after.length > 0;
    const requested = capabilities.insertReturning
      ? selectColumns(node, info.fieldNodes, info.fragments)
      : [];
    const returning =
      readsRow && capabilities.insertReturning
        ? [...new Set([...requested, ...key, ...after.flatMap((r) => r.columns)])]
        : requested;
    const insert = conn.dialect.compileInsert({
      table: tableRef(node.table),
      values,
      returning,
      kinds: columnKinds(node.table),
    });
    const write = async (run: Run) => {
      await refuseHiddenReferences(run, conn.dialect, before, sent);
      const result = await runWrite(run, conn.dialect, node, 'insert', insert, values, checked);
      if (readsRow) {
        const written: Record<string, unknown> = { ...result.rows[0] };
        for (const v of values) if (!(v.column in written)) written[v.column] = v.value;
        if (!(key[0] in written) && result.insertId !== undefined)
          written[key[0]] = result.insertId;
        const known = key.length > 0 && key.every((c) => written[c] !== undefined);
        if (after.length > 0) {
          const row = capabilities.insertReturning
            ? written
            : known
              ? await readRow(
                  run,
                  conn.dialect,
                  node,
                  keyCondition(node, written),
                  after.flatMap((r) => r.columns),
                )
              : null;
          // A row that cannot be read back cannot be checked: refused (fails closed).
          if (!row) throw hiddenReference(after[0]);
          await refuseHiddenReferences(run, conn.dialect, after, { ...row, ...sent });
        }
        if (checked && (!known || !(await insideScope(run, conn.dialect, node, written, scope)))) {
          throw outsideRule(node.table.name);
        }
      }
      return result;
    };
    const { rows } =
      checked || guarded.length > 0 ? await conn.transaction(write) : await write(conn.run);
    if (!capabilities.insertReturning) return true;
    return shapeRows(node.table, requested, rows, conn.dialect)[0] ?? null;
  });
}

/**
 * `update<Base>`: changes only the columns sent (null empties one) of the row with the given
 * primary key; the row, or null when no row has that key or the row is outside the caller's
 * rule (CONTRACT.md §6, §4). A change that would move the row outside the rule is rolled back.
 * Where the database has no `UPDATE … RETURNING` (MySQL, MariaDB) the UPDATE and the read-back
 * by key run in one transaction. A foreign key set to a row outside the caller's rule on the
 * referenced table is refused in that transaction before the UPDATE
 * ({@link refuseHiddenReferences}; the other columns of a composite key it sets only partly are
 * the row's own, read first).
 * @param references the table's foreign keys to model tables (`referencesOf`).
 */
export function updateResolver(
  node: RowNode,
  capabilities: Capabilities,
  references: readonly Reference[] = [],
): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  const key = new Set(node.table.primaryKey);
  const columns = writableColumns(node, 'update').filter((c) => !key.has(c.name));
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const where = primaryKeyCondition(node, args, conn.dialect);
    const set = planValues(node, columns, args, conn.dialect);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const returning = selectColumns(node, info.fieldNodes, info.fragments);
    const table = tableRef(node.table);
    const kinds = columnKinds(node.table);
    const readBack = conn.dialect.compileSelect({
      table,
      columns: returning,
      kinds,
      where,
      scope,
      order: planOrder(node, null),
      take: 1,
      skip: 0,
    });
    const underRule = !admitsEveryRow(scope);
    const guarded = guardedReferences(references, set, ctx.scopes, conn.dialect);
    let rows: Record<string, unknown>[];
    if (set.length === 0) {
      rows = (await conn.run(readBack)).rows;
    } else if (capabilities.updateReturning && !underRule && guarded.length === 0) {
      const update = conn.dialect.compileUpdate({ table, set, where, scope, returning, kinds });
      rows = (await runWrite(conn.run, conn.dialect, node, 'update', update, set)).rows;
    } else {
      // The UPDATE (of a row inside the rule) and the read-back under the rule in one
      // transaction: a row the change moved outside the rule is no row to return, so the change
      // is rolled back. The key never changes, so the row is read back by it.
      rows = await conn.transaction(async (run) => {
        const sent = byColumn(set);
        const kept = guarded.flatMap((r) => r.columns).filter((c) => !(c in sent));
        const row =
          kept.length > 0 ? await readRow(run, conn.dialect, node, where, kept, scope) : {};
        // No row inside the rule has that key: the UPDATE changes nothing, there is nothing to check.
        if (!row) return [];
        await refuseHiddenReferences(run, conn.dialect, guarded, { ...row, ...sent });
        const update = conn.dialect.compileUpdate({
          table,
          set,
          where,
          scope,
          returning: [],
          kinds,
        });
        const { affected } = await runWrite(
          run,
          conn.dialect,
          node,
          'update',
          update,
          set,
          underRule,
        );
        if ((affected ?? 0) === 0) return [];
        const back = (await run(readBack)).rows;
        if (back.length === 0) throw outsideRule(node.table.name);
        return back;
      });
    }
    return shapeRows(node.table, returning, rows, conn.dialect)[0] ?? null;
  });
}
