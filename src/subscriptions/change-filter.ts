import type { Condition, ModelColumn } from '../datasources/core/dialect';
import type { ModelTable } from '../platform/version-definition';

/**
 * A condition this process cannot decide the way the database would (a relation, a JSON or
 * database-text comparison, a value of the wrong shape). Subscriptions refuse such a `where`
 * when they open, and deny the event when a row rule meets one: an event is never sent on a guess
 * (README "Subscriptions").
 */
export class Unevaluable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Unevaluable';
  }
}

/** Three-valued truth, as SQL has it: `null` is unknown (a comparison with an empty field). */
type Truth = boolean | null;

/** Column kinds compared as text, exactly (the database may fold case under its collation). */
const TEXT_KINDS = new Set(['text', 'uuid', 'date', 'time', 'timestamp']);

/**
 * A value of `column` as this process compares it: numbers for int and float, `bigint` for
 * 64-bit integers, a scaled `bigint` pair for decimals, epoch milliseconds for `timestamptz`,
 * text for the text-like kinds (a local timestamp with `T` between date and time, a UUID in
 * lower case), a boolean for booleans. Values follow CONTRACT.md §6 "Values" (what `shapeRows`
 * gives and what filter inputs take).
 * @throws Unevaluable for kinds without an order this process knows (JSON, binary, arrays,
 * database text forms) or a value not of the column's form.
 */
function comparable(column: ModelColumn, value: unknown): number | bigint | string | boolean {
  const fail = () =>
    new Unevaluable(`${column.name}: ${JSON.stringify(value)} cannot be compared here`);
  switch (column.kind) {
    case 'int':
    case 'float': {
      const n = typeof value === 'number' ? value : Number(value);
      if (typeof value === 'boolean' || value === '' || Number.isNaN(n)) throw fail();
      return n;
    }
    case 'bigint':
      if (typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'bigint')
        throw fail();
      try {
        return BigInt(value);
      } catch {
        throw fail();
      }
    case 'decimal':
      return decimalKey(value, fail);
    case 'boolean':
      if (typeof value !== 'boolean') throw fail();
      return value;
    case 'timestamptz': {
      const ms = typeof value === 'string' ? Date.parse(value) : NaN;
      if (Number.isNaN(ms)) throw fail();
      return ms;
    }
    default:
      if (!TEXT_KINDS.has(column.kind) || (typeof value !== 'string' && typeof value !== 'number'))
        throw fail();
      if (column.kind === 'uuid') return String(value).toLowerCase();
      if (column.kind === 'timestamp') return String(value).replace(' ', 'T');
      return String(value);
  }
}

/** Digits after the point a decimal is compared with (finer digits are cut). */
const DECIMAL_SCALE = 30;

/** A decimal (text or number) as an integer scaled by 10^{@link DECIMAL_SCALE}. */
function decimalKey(value: unknown, fail: () => Unevaluable): bigint {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') throw fail();
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[2] === '' && !m[3])) throw fail();
  const fraction = (m[3] ?? '').slice(0, DECIMAL_SCALE).padEnd(DECIMAL_SCALE, '0');
  const scaled = BigInt(`${m[2] || '0'}${fraction}`);
  return m[1] === '-' ? -scaled : scaled;
}

function compare(a: number | bigint | string | boolean, b: typeof a): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether `row` (every column of `table`, CONTRACT.md §6 value forms) satisfies `condition`, in
 * SQL's three-valued logic: a comparison with an empty field is unknown, which a row rule or a
 * `where` does not admit. `like` matches ignoring case, as the filters do (README "Filters").
 * @throws Unevaluable for a relation (`exists`), a column `table` lacks, or a comparison this
 * process cannot make ({@link comparable}).
 */
export function evaluate(
  condition: Condition,
  table: ModelTable,
  row: Record<string, unknown>,
): Truth {
  switch (condition.kind) {
    case 'and': {
      let result: Truth = true;
      for (const item of condition.items) {
        const t = evaluate(item, table, row);
        if (t === false) return false;
        if (t === null) result = null;
      }
      return result;
    }
    case 'or': {
      let result: Truth = false;
      for (const item of condition.items) {
        const t = evaluate(item, table, row);
        if (t === true) return true;
        if (t === null) result = null;
      }
      return result;
    }
    case 'untrue':
      return evaluate(condition.item, table, row) !== true;
    case 'null': {
      const value = columnOf(table, condition.column, row);
      const empty = value === null || value === undefined;
      return condition.negated ? !empty : empty;
    }
    case 'compare': {
      const column = modelColumn(table, condition.column);
      const value = row[column.name];
      if (value === null || value === undefined || condition.value === null) return null;
      const order = compare(comparable(column, value), comparable(column, condition.value));
      switch (condition.op) {
        case 'eq':
          return order === 0;
        case 'neq':
          return order !== 0;
        case 'gt':
          return order > 0;
        case 'gte':
          return order >= 0;
        case 'lt':
          return order < 0;
        default:
          return order <= 0;
      }
    }
    case 'in': {
      const column = modelColumn(table, condition.column);
      const value = row[column.name];
      if (value === null || value === undefined) return null;
      const mine = comparable(column, value);
      let sawNull = false;
      for (const v of condition.values) {
        if (v === null || v === undefined) sawNull = true;
        else if (compare(mine, comparable(column, v)) === 0) return !condition.negated;
      }
      // SQL: `x NOT IN (…, NULL)` is never true; `x IN (…, NULL)` without a match is unknown.
      return sawNull ? null : condition.negated;
    }
    case 'like': {
      const column = modelColumn(table, condition.column);
      const value = row[column.name];
      if (value === null || value === undefined) return null;
      if (typeof value !== 'string') throw new Unevaluable(`${column.name} is not text`);
      const text = value.toLowerCase();
      const part = condition.value.toLowerCase();
      if (condition.mode === 'contains') return text.includes(part);
      if (condition.mode === 'startsWith') return text.startsWith(part);
      return text.endsWith(part);
    }
    default:
      throw new Unevaluable('a condition on related rows cannot be checked on a change');
  }
}

/** Whether `condition` holds for `row` (unknown counts as not); see {@link evaluate}. */
export function admits(
  condition: Condition,
  table: ModelTable,
  row: Record<string, unknown>,
): boolean {
  return evaluate(condition, table, row) === true;
}

/**
 * Throws {@link Unevaluable} when `condition` holds a part {@link evaluate} never decides (a
 * relation), so a subscription can refuse it when it opens rather than deny every event.
 */
export function checkEvaluable(condition: Condition): void {
  if (condition.kind === 'and' || condition.kind === 'or')
    condition.items.forEach((item) => checkEvaluable(item));
  else if (condition.kind === 'untrue') checkEvaluable(condition.item);
  else if (condition.kind === 'exists')
    throw new Unevaluable('a condition on related rows cannot be checked on a change');
}

function modelColumn(table: ModelTable, name: string): ModelColumn {
  const column = table.columns.find((c) => c.name === name);
  if (!column) throw new Unevaluable(`${table.name} has no column ${name}`);
  return column;
}

function columnOf(table: ModelTable, name: string, row: Record<string, unknown>): unknown {
  return row[modelColumn(table, name).name];
}

/** The filter operators of a column (`<Kind>Filter`, README "Filters") subscriptions evaluate. */
const OPS = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin']);
const LIKES = new Set(['contains', 'startsWith', 'endsWith']);

/** A filter input after GraphQL coercion: column keys to operator objects, `and`, `or`. */
export type FilterInput = Readonly<Record<string, unknown>>;

/**
 * A `<Base>Filter` (CONTRACT.md §6 `where`) as a {@link Condition} over `table`'s columns with the
 * values as sent, for {@link evaluate}: keys of one level combine with AND, `and: []` is true and
 * `or: []` false; `eq: null`/`neq: null` test for an empty/filled field; another comparison with
 * null is never true.
 * @param columns the filter's columns (the API's included ones).
 * @throws Unevaluable for a relation key, an operator it does not know, or a comparison of a
 * column this process cannot order (JSON, binary, arrays, database text forms) other than with
 * null.
 */
export function filterCondition(
  table: ModelTable,
  columns: readonly ModelColumn[],
  where: FilterInput | null | undefined,
): Condition {
  const items: Condition[] = [];
  for (const [key, value] of Object.entries(where ?? {})) {
    if (value === undefined || value === null) continue;
    if (key === 'and' || key === 'or') {
      const parts = (value as FilterInput[]).map((f) => filterCondition(table, columns, f));
      items.push({ kind: key, items: parts });
      continue;
    }
    const column = columns.find((c) => c.name === key);
    if (!column)
      throw new Unevaluable(
        `${key} filters on related rows, which subscriptions cannot check on a change: filter on the row's own columns`,
      );
    for (const [op, operand] of Object.entries(value as Record<string, unknown>)) {
      if (operand === undefined) continue;
      if ((op === 'eq' || op === 'neq') && operand === null) {
        items.push({ kind: 'null', column: key, negated: op === 'neq' });
        continue;
      }
      if (operand === null) {
        items.push({ kind: 'or', items: [] });
        continue;
      }
      // Fails now, when the subscription opens, for a value or a kind it cannot compare.
      const values = Array.isArray(operand) ? operand : [operand];
      if (!LIKES.has(op)) for (const v of values) if (v !== null) comparable(column, v);
      if (op === 'in' || op === 'nin') {
        items.push({ kind: 'in', column: key, values, negated: op === 'nin' });
      } else if (OPS.has(op)) {
        items.push({ kind: 'compare', column: key, op: op as 'eq', value: operand });
      } else if (LIKES.has(op) && typeof operand === 'string') {
        items.push({ kind: 'like', column: key, mode: op as 'contains', value: operand });
      } else {
        throw new Unevaluable(`${key}: ${op} cannot be checked on a change`);
      }
    }
  }
  return items.length === 1 ? items[0] : { kind: 'and', items };
}
