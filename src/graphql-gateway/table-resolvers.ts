import type { GraphQLFieldResolver } from 'graphql';
import { DomainError, ErrorCode } from '../common/domain-error';
import { ALL_ROWS } from '../datasources/core/dialect';
import type {
  Capabilities,
  ColumnValue,
  CompiledQuery,
  Condition,
  DatabaseRefusal,
  Dialect,
  StatementResult,
  WriteContext,
} from '../datasources/core/dialect';
import { isInvalidValueError } from '../datasources/core/invalid-value';
import { invalidValue, nameInvalidValue, wordList } from '../datasources/core/refusal-helpers';
import type { RowNode } from './api-tree';
import type { GatewayContext } from './gateway-context';
import { DatabaseRefusalError } from './graphql-errors';
import { columnKinds, planOrder, selectColumns, shapeRows, tableRef } from './query-planner';
import { admitsEveryRow, type RowScopes } from './request/row-scopes';
import { type Args, withGraphQLArguments } from './operations/arguments';
import { planValues, primaryKeyCondition, Reference, writableColumns } from './write-planner';

type Run = (query: CompiledQuery) => Promise<StatementResult>;

/**
 * Runs a write; a driver error that is a refusal of the contract's kinds becomes a
 * {@link DatabaseRefusalError} (the statement failed whole, so the database is unchanged).
 * The request's statement guard answers a bad value with a field-less INVALID_VALUE carrying the
 * driver's error as `cause`; the write translates that driver error again with the dialect's
 * `translateError`, which knows the table and may name the column; one the translation does not
 * know but {@link isInvalidValueError} does stays INVALID_VALUE. An INVALID_VALUE the database
 * did not tie to a column (a CHECK constraint with its own name, PostgreSQL's data exceptions,
 * SQL Server's conversion errors) names the column the write set, when it set exactly one outside
 * the primary key (issue 11, item 2). When `underRule` (a row rule bounds the caller on the
 * written table), a unique-key conflict answers {@link HIDDEN_CONFLICT}, whichever row it was with.
 */
async function runWrite(
  run: Run,
  dialect: Dialect,
  node: RowNode,
  operation: WriteContext['operation'],
  query: CompiledQuery,
  written: ColumnValue[] = [],
  underRule = false,
): Promise<StatementResult> {
  try {
    return await run(query);
  } catch (thrown) {
    const error =
      thrown instanceof DatabaseRefusalError && thrown.cause !== undefined ? thrown.cause : thrown;
    let refusal =
      dialect.translateError(error, {
        table: tableRef(node.table),
        columns: node.table.columns,
        primaryKey: node.table.primaryKey,
        operation,
      }) ??
      (isInvalidValueError(dialect.type, error)
        ? invalidValue(null, 'it is out of range or malformed for its type')
        : null);
    if (!refusal) throw thrown;
    if (refusal.code === 'UNIQUE_VIOLATION' && underRule) refusal = { ...HIDDEN_CONFLICT };
    if (refusal.code === 'INVALID_VALUE' && refusal.field === null && operation !== 'delete') {
      const key = new Set(node.table.primaryKey);
      const set = written.length > 1 ? written.filter((v) => !key.has(v.column)) : written;
      if (set.length === 1) refusal = nameInvalidValue(refusal, set[0].column);
    }
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

/**
 * A unique-key conflict of a caller a row rule bounds on the written table (issue 22 item 8, README
 * "Row rules"). The database's unique keys span every row, so the refusal itself cannot be
 * avoided; the answer is the same whether the other row is inside the caller's rule or not, and
 * names neither the field nor the value, so it tells nothing of the rows outside the rule.
 * Code UNIQUE_VIOLATION as any conflict (CONTRACT.md §6 "Database refusals"), field null.
 */
export const HIDDEN_CONFLICT: Readonly<DatabaseRefusal> = {
  code: 'UNIQUE_VIOLATION',
  field: null,
  message: 'Nothing was written: a value that must be unique is already taken',
};

/** The foreign keys a write must check, each with the caller's rule on its referenced table. */
interface GuardedReference extends Reference {
  scope: Condition;
}

/**
 * The references among `references` a write of `written` columns must check: those it sets at
 * least one column of, to a table a row rule bounds the caller on.
 */
function guardedReferences(
  references: readonly Reference[],
  written: readonly ColumnValue[],
  scopes: RowScopes,
  dialect: Dialect,
): GuardedReference[] {
  const set = new Set(written.map((v) => v.column));
  const guarded: GuardedReference[] = [];
  for (const reference of references) {
    if (!reference.columns.some((c) => set.has(c))) continue;
    const scope = scopes.of(reference.table, dialect);
    if (!admitsEveryRow(scope)) guarded.push({ ...reference, scope });
  }
  return guarded;
}

/**
 * Refuses a foreign key that points at a row outside the caller's rule on the referenced table,
 * with the answer a key pointing nowhere gets (FOREIGN_KEY_VIOLATION naming the first column,
 * CONTRACT.md §6; issue 22 item 8): the caller cannot tell a hidden row from a missing one, nor
 * attach a row to one. Reads the referenced row under the rule with `run`, inside the write's
 * transaction, before the write. A key with an empty part is left alone, as the database leaves
 * it (SQL's default `MATCH SIMPLE`).
 * @param row each referencing column's value: written, or the row's own for the columns of a
 * composite key the write leaves as they are.
 * @throws DatabaseRefusalError FOREIGN_KEY_VIOLATION.
 */
async function refuseHiddenReferences(
  run: Run,
  dialect: Dialect,
  references: readonly GuardedReference[],
  row: Readonly<Record<string, unknown>>,
): Promise<void> {
  for (const reference of references) {
    const values = reference.columns.map((c) => row[c]);
    if (values.some((v) => v === null || v === undefined)) continue;
    const { rows } = await run(
      dialect.compileSelect({
        table: tableRef(reference.table),
        columns: reference.referencedColumns.slice(0, 1),
        where: {
          kind: 'and',
          items: reference.referencedColumns.map((column, i) => ({
            kind: 'compare',
            column,
            op: 'eq',
            value: values[i],
          })),
        },
        scope: reference.scope,
        order: reference.referencedColumns.map((column) => ({ column, direction: 'ASC' })),
        take: 1,
        skip: 0,
      }),
    );
    if (rows.length === 0) throw hiddenReference(reference);
  }
}

/** The refusal of a key pointing nowhere, as the caller's rule lets them see (CONTRACT.md §6). */
function hiddenReference(reference: Reference): DatabaseRefusalError {
  const verb = reference.columns.length === 1 ? 'refers' : 'refer';
  return new DatabaseRefusalError({
    code: 'FOREIGN_KEY_VIOLATION',
    field: reference.columns[0],
    message: `${wordList(reference.columns)} ${verb} to a row that does not exist`,
  });
}

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

/**
 * `columns` of the write's own row (`where`: its primary key) within `scope`, read inside the
 * write's transaction; null when no such row is there.
 */
async function readRow(
  run: Run,
  dialect: Dialect,
  node: RowNode,
  where: Condition,
  columns: string[],
  scope: Condition = ALL_ROWS,
): Promise<Record<string, unknown> | null> {
  const { rows } = await run(
    dialect.compileSelect({
      table: tableRef(node.table),
      columns,
      where,
      scope,
      order: planOrder(node, null),
      take: 1,
      skip: 0,
    }),
  );
  return rows[0] ?? null;
}

/** The written values by column. */
function byColumn(values: readonly ColumnValue[]): Record<string, unknown> {
  return Object.fromEntries(values.map((v) => [v.column, v.value]));
}

/** A written row outside the caller's rule: the write is rolled back (CONTRACT.md §4). */
function outsideRule(table: string): DomainError {
  return new DomainError(
    ErrorCode.Forbidden,
    `The row would be outside the rows your role may write in ${table}; nothing was written`,
  );
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

/**
 * `delete<Base>`: true when a row with that primary key, inside the caller's rule, was deleted;
 * false when none was (CONTRACT.md §6, §4).
 */
export function deleteResolver(node: RowNode): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  return withGraphQLArguments(async (_source, args, ctx) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const where = primaryKeyCondition(node, args, conn.dialect);
    const { affected } = await runWrite(
      conn.run,
      conn.dialect,
      node,
      'delete',
      conn.dialect.compileDelete({
        table: tableRef(node.table),
        where,
        scope: ctx.scopes.of(node.table, conn.dialect),
      }),
    );
    return (affected ?? 0) > 0;
  });
}
