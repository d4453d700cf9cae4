import { DomainError, ErrorCode } from '../../common/domain-error';
import { ALL_ROWS } from '../../datasources/core/dialect';
import type {
  ColumnValue,
  CompiledQuery,
  Condition,
  DatabaseRefusal,
  Dialect,
  StatementResult,
  WriteContext,
} from '../../datasources/core/dialect';
import { isInvalidValueError } from '../../datasources/core/invalid-value';
import { invalidValue, nameInvalidValue, wordList } from '../../datasources/core/refusal-helpers';
import type { RowNode } from '../api-tree';
import { DatabaseRefusalError } from '../graphql-errors';
import { planOrder, tableRef } from '../query-planner';
import { admitsEveryRow, type RowScopes } from '../request/row-scopes';
import type { Reference } from '../write-planner';

/*
 * What the writing kinds (`add`, `update`, `delete`) share: running a write with its refusals
 * translated, reading the written row back, and the checks under the caller's row rules (hidden
 * references, hidden conflicts, rows outside the rule).
 */

/** Runs one statement: the connection's `run`, or a transaction's. */
export type Run = (query: CompiledQuery) => Promise<StatementResult>;

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
export async function runWrite(
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
export interface GuardedReference extends Reference {
  scope: Condition;
}

/**
 * The references among `references` a write of `written` columns must check: those it sets at
 * least one column of, to a table a row rule bounds the caller on.
 */
export function guardedReferences(
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
export async function refuseHiddenReferences(
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
export function hiddenReference(reference: Reference): DatabaseRefusalError {
  const verb = reference.columns.length === 1 ? 'refers' : 'refer';
  return new DatabaseRefusalError({
    code: 'FOREIGN_KEY_VIOLATION',
    field: reference.columns[0],
    message: `${wordList(reference.columns)} ${verb} to a row that does not exist`,
  });
}

/**
 * `columns` of the write's own row (`where`: its primary key) within `scope`, read inside the
 * write's transaction; null when no such row is there.
 */
export async function readRow(
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
export function byColumn(values: readonly ColumnValue[]): Record<string, unknown> {
  return Object.fromEntries(values.map((v) => [v.column, v.value]));
}

/** A written row outside the caller's rule: the write is rolled back (CONTRACT.md §4). */
export function outsideRule(table: string): DomainError {
  return new DomainError(
    ErrorCode.Forbidden,
    `The row would be outside the rows your role may write in ${table}; nothing was written`,
  );
}
