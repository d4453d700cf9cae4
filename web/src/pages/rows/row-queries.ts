import { graphqlName, sendGraphQL } from './graphql';
import type { Column, RowSchema, WriteOperation } from './row-schema';
import { parseValue, ValueError } from './values';

/**
 * The GraphQL documents of the row browser, built from a {@link RowSchema}: the text holds only
 * names read from the schema; every value is a variable (CONTRACT.md §6: "every value reaches the
 * database as a bound parameter", and nothing typed is ever written into query text).
 */

/** A row as the API answers it: column name → value. */
export type Row = Record<string, unknown>;

/** One filter condition as the page holds it. */
export interface Condition {
  column: string;
  /** An operator of the column's filter input, or `isEmpty` / `isFilled` (`eq`/`neq: null`). */
  operator: string;
  value: string;
}

/** Operators for people, in the order the page offers them. */
export const OPERATOR_LABELS: Record<string, string> = {
  eq: 'equals',
  neq: 'does not equal',
  contains: 'contains',
  startsWith: 'starts with',
  endsWith: 'ends with',
  gt: 'greater than',
  gte: 'greater than or equal to',
  lt: 'less than',
  lte: 'less than or equal to',
  in: 'is one of',
  nin: 'is none of',
  isEmpty: 'is empty',
  isFilled: 'is filled',
};

/** Operators that take literal text whatever the column's type. */
const TEXT_MATCH = new Set(['contains', 'startsWith', 'endsWith']);

/** Whether an operator needs a value typed in. */
export const takesValue = (operator: string) => operator !== 'isEmpty' && operator !== 'isFilled';

/**
 * The operators the page offers on a column: those of its filter input, with `eq: null` and
 * `neq: null` as "is empty" / "is filled", and for JSON (whose filter takes only null) those two
 * alone.
 */
export function operatorsOf(column: Column): string[] {
  if (column.operators.length === 0) return [];
  const ops = column.type === 'JSON' ? [] : column.operators.filter((o) => o in OPERATOR_LABELS);
  const empties = column.operators.includes('eq') ? ['isEmpty', 'isFilled'] : [];
  return [...ops, ...empties];
}

/** The value of one condition, as its operator's input takes it. */
function conditionValue(column: Column, condition: Condition): unknown {
  if (condition.operator === 'isEmpty' || condition.operator === 'isFilled') return null;
  if (condition.value.trim() === '')
    throw new ValueError(
      `Type a value for “${column.name} ${OPERATOR_LABELS[condition.operator]}”`,
    );
  if (TEXT_MATCH.has(condition.operator)) return condition.value;
  const single = { ...column, nullable: false, list: false };
  if (condition.operator === 'in' || condition.operator === 'nin')
    return condition.value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '')
      .map((v) => parseValue(single, v));
  return parseValue(column.list ? column : single, condition.value);
}

/**
 * The `where` of the conditions: each `{<column>: {<operator>: value}}`, combined with AND (in
 * `and: [...]` when the filter has it, so two conditions on one column both hold).
 * @throws ValueError for a value its column cannot take.
 */
export function whereOf(
  schema: RowSchema,
  conditions: Condition[],
): Record<string, unknown> | null {
  const parts = conditions.map((c) => {
    const column = schema.columns.find((col) => col.name === c.column);
    if (!column) throw new ValueError(`No column ${c.column}`);
    const operator =
      c.operator === 'isEmpty' ? 'eq' : c.operator === 'isFilled' ? 'neq' : c.operator;
    return { [column.name]: { [operator]: conditionValue(column, c) } };
  });
  if (parts.length === 0) return null;
  if (parts.length === 1) return parts[0]!;
  if (schema.filterHasAnd) return { and: parts };
  const merged: Record<string, Record<string, unknown>> = {};
  for (const part of parts)
    for (const [col, ops] of Object.entries(part)) merged[col] = { ...merged[col], ...ops };
  return merged;
}

/** A sort by one column. */
export interface Sort {
  column: string;
  direction: 'ASC' | 'DESC';
}

/** A page of rows and, when the API counts, how many rows match. */
export interface RowsPage {
  rows: Row[];
  total: number | null;
  /** Whether a row follows this page (known without a count by reading one row more). */
  more: boolean;
  /** What was sent, shown to the builder. */
  query: string;
  variables: Record<string, unknown>;
}

/** The selection of a row: every column of the row type. */
const selectionOf = (schema: RowSchema) =>
  schema.columns.length ? schema.columns.map((c) => c.name).join(' ') : '__typename';

/**
 * Reads one page: `get<Base>(where, order, take, skip)` and `count<Base>(where)` in one request.
 * @throws GraphQLRequestError for the endpoint's refusal.
 */
export async function readRows(
  address: string,
  schema: RowSchema,
  where: Record<string, unknown> | null,
  sort: Sort | null,
  take: number,
  skip: number,
): Promise<RowsPage> {
  const defs = ['$take: Int', '$skip: Int'];
  const args = ['take: $take', 'skip: $skip'];
  const variables: Record<string, unknown> = { take: schema.count ? take : take + 1, skip };
  if (where && schema.filterType) {
    defs.push(`$where: ${schema.filterType}`);
    args.unshift('where: $where');
    variables.where = where;
  }
  if (sort && schema.orderType) {
    defs.push(`$order: [${schema.orderType}!]`);
    args.splice(args.length - 2, 0, 'order: $order');
    variables.order = [{ [sort.column]: sort.direction }];
  }
  const count =
    schema.count && (where ? `total: ${schema.count}(where: $where)` : `total: ${schema.count}`);
  const query =
    `query BrowseRows(${defs.join(', ')}) {\n  rows: ${schema.get}(${args.join(', ')}) { ${selectionOf(schema)} }` +
    (count ? `\n  ${count}` : '') +
    '\n}';
  const data = await sendGraphQL<{ rows: Row[]; total?: number }>(address, query, variables);
  const more = schema.count ? skip + data.rows.length < (data.total ?? 0) : data.rows.length > take;
  return {
    rows: data.rows.slice(0, take),
    total: data.total ?? null,
    more,
    query,
    variables,
  };
}

/**
 * Sends a write operation with `values` (argument name → value, every one a variable) and answers
 * its result field. The arguments left out of `values` are not sent (`update`: unchanged).
 * @throws GraphQLRequestError for the endpoint's refusal (a duplicate key names its field).
 */
export async function write<T>(
  address: string,
  schema: RowSchema,
  operation: WriteOperation,
  values: Record<string, unknown>,
  selectRow: boolean,
): Promise<T> {
  const sent = operation.args.filter((a) => a.name in values);
  const defs = sent.map((a, i) => `$v${i}: ${a.typeText}`);
  const args = sent.map((a, i) => `${graphqlName(a.name)}: $v${i}`);
  const variables = Object.fromEntries(sent.map((a, i) => [`v${i}`, values[a.name]]));
  const call = `${operation.name}${args.length ? `(${args.join(', ')})` : ''}`;
  const query = `mutation WriteRow${defs.length ? `(${defs.join(', ')})` : ''} { result: ${call}${
    selectRow ? ` { ${selectionOf(schema)} }` : ''
  } }`;
  const data = await sendGraphQL<{ result: T }>(address, query, variables);
  return data.result;
}

/** The key of a row (`delete`/`update` arguments), or null when the row type leaves one out. */
export function keyOf(schema: RowSchema, row: Row): Record<string, unknown> | null {
  if (schema.key.length === 0) return null;
  const key: Record<string, unknown> = {};
  for (const k of schema.key) {
    if (!schema.columns.some((c) => c.name === k) || row[k] === undefined) return null;
    key[k] = row[k];
  }
  return key;
}

/** A row's key for people: `3`, or `order_id 3, line 2` for a key of several columns. */
export function keyLabel(key: Record<string, unknown>): string {
  const entries = Object.entries(key);
  if (entries.length === 1) return String(entries[0]![1]);
  return entries.map(([k, v]) => `${k} ${String(v)}`).join(', ');
}
