import { GraphQLInt, GraphQLNonNull } from 'graphql';
import { invalidInput } from '../../common/domain-error';
import type { Condition, Dialect, TableRef } from '../../datasources/core/dialect';
import { PARAMETER_LIMITS } from '../../datasources/core/sql-compiler';
import type { RowNode } from '../api-tree';
import { DatabaseRefusalError } from '../graphql-errors';
import { columnKinds, planOrder, shapeRows, tableRef } from '../query-planner';
import type { Run } from './writes';
import { primaryKeyCondition } from '../write-planner';

/*
 * What `updateMany<Base>` and `deleteMany<Base>` share (issue 24 item 3, README "Writing rows"):
 * the `atMost` guard and its refusal, the primary keys of the rows a statement is about, and the
 * selection of the result's `rows`.
 */

/** The largest `atMost` (README "Writing rows"): the most rows one updateMany/deleteMany changes. */
export const AT_MOST_LIMIT = 10_000;

/** The code of a refusal for changing more rows than `atMost` (README "When the database refuses"). */
export const TOO_MANY_ROWS = 'TOO_MANY_ROWS';

/** `atMost: Int!`: the blast-radius guard every updateMany/deleteMany must give. */
export const AT_MOST_ARG = {
  type: new GraphQLNonNull(GraphQLInt),
  description: `The most rows the statement may change, 1 to ${AT_MOST_LIMIT.toLocaleString('en-US')}; more changes nothing and answers TOO_MANY_ROWS.`,
};

/**
 * `atMost` checked: a whole number from 1 to {@link AT_MOST_LIMIT}.
 * @throws DomainError INVALID_INPUT (BAD_USER_INPUT) naming the field and the bounds.
 */
export function checkAtMost(field: string, atMost: unknown): number {
  if (typeof atMost !== 'number' || !Number.isInteger(atMost) || atMost < 1) {
    throw invalidInput(`${field}: atMost must be 1 or more`);
  }
  if (atMost > AT_MOST_LIMIT) {
    throw invalidInput(
      `${field}: atMost exceeds the limit of ${AT_MOST_LIMIT.toLocaleString('en-US')} rows; change the rows in several requests`,
    );
  }
  return atMost;
}

/**
 * The refusal of a statement that would change `count` rows, more than `atMost` (README "When
 * the database refuses", code {@link TOO_MANY_ROWS}, field `atMost`). Thrown inside the request's
 * transaction, it rolls back whatever the request wrote (README "A request is one transaction"),
 * so nothing is changed.
 * @param verb `change` (updateMany) or `delete` (deleteMany).
 */
export function tooManyRows(count: number, atMost: number, verb: string): DatabaseRefusalError {
  const n = (v: number) => v.toLocaleString('en-US');
  return new DatabaseRefusalError({
    code: TOO_MANY_ROWS as never,
    field: 'atMost',
    message: `Nothing was changed: this would ${verb} ${n(count)} rows; atMost is ${n(atMost)}: narrow where or raise atMost`,
  });
}

/**
 * The rows whose primary keys `keys` holds (raw rows as the database answered them, one per row),
 * in slices whose key values stay well inside the database's bound-parameter limit
 * (`PARAMETER_LIMITS`: SQL Server takes 2,100), leaving room for the values of `where`, `set` and
 * the row rule. Each key is read back through the API's own formatting and bound as a filter
 * value is (`primaryKeyCondition`), so a key of any kind finds its row.
 */
export function keySlices(
  node: RowNode,
  keys: readonly Record<string, unknown>[],
  dialect: Dialect,
): Condition[] {
  const key = node.table.primaryKey;
  const perSlice = Math.max(
    1,
    Math.floor(Math.min(1_000, PARAMETER_LIMITS[dialect.type].max / 2) / key.length),
  );
  const formatted = shapeRows(node.table, key, [...keys], dialect);
  const slices: Condition[] = [];
  for (let start = 0; start < formatted.length; start += perSlice) {
    const items = formatted
      .slice(start, start + perSlice)
      .map((row) => primaryKeyCondition(node, row, dialect));
    slices.push({ kind: 'or', items });
  }
  return slices;
}

/**
 * Rows ordered by their primary key (numbers as numbers, the rest as text): the order of a
 * result's `rows`, whatever order the database's `RETURNING` gave them in.
 */
export function byPrimaryKey(
  node: RowNode,
  rows: Record<string, unknown>[],
): Record<string, unknown>[] {
  const key = node.table.primaryKey;
  const numeric = (v: unknown) =>
    typeof v === 'number' ||
    typeof v === 'bigint' ||
    (typeof v === 'string' && /^-?\d{1,15}$/.test(v));
  return [...rows].sort((a, b) => {
    for (const c of key) {
      const x = a[c];
      const y = b[c];
      if (x === y) continue;
      if (numeric(x) && numeric(y)) return Number(x) < Number(y) ? -1 : 1;
      return String(x) < String(y) ? -1 : 1;
    }
    return 0;
  });
}

/** Whether `condition` reads `table` in a relation filter (`exists`), at any depth. */
export function readsTable(condition: Condition, table: TableRef): boolean {
  switch (condition.kind) {
    case 'and':
    case 'or':
      return condition.items.some((item) => readsTable(item, table));
    case 'untrue':
      return readsTable(condition.item, table);
    case 'exists':
      return (
        (condition.table.name === table.name &&
          (condition.table.schema ?? null) === (table.schema ?? null)) ||
        readsTable(condition.where, table) ||
        readsTable(condition.scope, table)
      );
    default:
      return false;
  }
}

/**
 * Whether an UPDATE or DELETE of `node`'s table by `where` inside `scope` must go by primary key
 * ({@link keysFirst}): on MySQL, whose UPDATE and DELETE refuse a subquery that reads the table
 * they change ("You can't specify target table … for update in FROM clause", error 1093; MySQL
 * docs, "UPDATE Statement": "you cannot update a table and select directly from the same table
 * in a subquery"), when the filter or the row rule reaches the table itself through a relation
 * (`employees.manager`). MariaDB lifted that limit in 10.3.2; the same path serves both.
 */
export function mustGoByKey(
  node: RowNode,
  dialect: Dialect,
  where: Condition,
  scope: Condition,
): boolean {
  if (dialect.type !== 'mysql') return false;
  const table = tableRef(node.table);
  return readsTable(where, table) || readsTable(scope, table);
}

/**
 * The primary keys of the rows `where` matches inside `scope`, locked (`FOR UPDATE`) in the
 * request's transaction, in key slices ({@link keySlices}): at most `atMost + 1` keys are read;
 * more than `atMost` throws TOO_MANY_ROWS with the count (`SELECT COUNT(*)`), before anything is
 * written. Each slice is then read again `FOR UPDATE` (the key list bounds it) and only the rows
 * still matching are kept and locked, so an UPDATE or DELETE by these keys alone changes exactly
 * the rows the filter matched. Every statement is a SELECT, which may read the table a relation
 * filter reaches (see {@link mustGoByKey}).
 * @param verb `change` (updateMany) or `delete` (deleteMany), for the refusal.
 * @throws DatabaseRefusalError TOO_MANY_ROWS.
 */
export async function keysFirst(
  run: Run,
  node: RowNode,
  dialect: Dialect,
  where: Condition,
  scope: Condition,
  atMost: number,
  verb: string,
): Promise<Condition[]> {
  const table = tableRef(node.table);
  const columns = node.table.primaryKey;
  const kinds = columnKinds(node.table);
  const { rows: found } = await run(
    dialect.compileSelect({
      table,
      columns,
      kinds,
      where,
      scope,
      order: planOrder(node, null),
      take: atMost + 1,
      skip: 0,
    }),
  );
  if (found.length > atMost) {
    const { rows } = await run(dialect.compileCount({ table, where, scope }));
    throw tooManyRows(Number(rows[0]?.count ?? found.length), atMost, verb);
  }
  const locked: Record<string, unknown>[] = [];
  for (const slice of keySlices(node, found, dialect)) {
    const { rows } = await run(
      dialect.compileSelectForUpdate({
        table,
        columns,
        kinds,
        where: { kind: 'and', items: [slice, where] },
        scope,
        order: planOrder(node, null),
        take: null,
        skip: 0,
      }),
    );
    locked.push(...rows);
  }
  return keySlices(node, locked, dialect);
}
