import type { ModelField } from '../../shared/types';
import type { Where } from './access-types';

/**
 * The row rule editor's model (CONTRACT.md §4, README "App users and row rules"): a rule as a
 * list of conditions "column operator value" joined by AND or OR, where a value is fixed text or
 * the user's id or one of their attributes (`$user.id`, `$user.<attribute>`); and a rule in words.
 * Rules the list cannot hold (navigations, nested and/or, null comparisons) are edited as JSON.
 */

/** The operators of the `where` language a condition may use, with their words. */
export const OPERATORS = [
  { op: 'eq', words: 'is' },
  { op: 'neq', words: 'is not' },
  { op: 'gt', words: 'is greater than' },
  { op: 'gte', words: 'is at least' },
  { op: 'lt', words: 'is less than' },
  { op: 'lte', words: 'is at most' },
  { op: 'contains', words: 'contains' },
  { op: 'startsWith', words: 'starts with' },
  { op: 'endsWith', words: 'ends with' },
  { op: 'in', words: 'is one of' },
  { op: 'nin', words: 'is none of' },
] as const;

/** An operator name. */
export type Operator = (typeof OPERATORS)[number]['op'];

/** Where a condition's value comes from. */
export type ValueSource = 'fixed' | 'user-id' | 'user-attribute';

/** One condition: `column op value`; `value` is the fixed text (comma-separated for in/nin) or the attribute's name. */
export interface Condition {
  column: string;
  op: Operator;
  source: ValueSource;
  value: string;
}

/** A rule the editor's list holds: conditions joined by AND (`all`) or OR (`any`). */
export interface SimpleRule {
  join: 'all' | 'any';
  conditions: Condition[];
}

const OPS = new Set<string>(OPERATORS.map((o) => o.op));
const USER_VALUE = /^\$user\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** One stored value as a condition's source and text, or null when it is no plain value. */
function valueOf(value: unknown): { source: ValueSource; value: string } | null {
  if (typeof value === 'string') {
    const user = USER_VALUE.exec(value);
    if (user)
      return user[1] === 'id'
        ? { source: 'user-id', value: '' }
        : { source: 'user-attribute', value: user[1] };
    return { source: 'fixed', value };
  }
  if (typeof value === 'number' || typeof value === 'boolean')
    return { source: 'fixed', value: String(value) };
  return null;
}

/** The conditions of one `{column: {op: value, …}}` object, or null when it holds anything else. */
function conditionsOf(where: Where, columns: Set<string>): Condition[] | null {
  const out: Condition[] = [];
  for (const [column, test] of Object.entries(where)) {
    if (!columns.has(column) || !test || typeof test !== 'object' || Array.isArray(test))
      return null;
    for (const [op, raw] of Object.entries(test as Record<string, unknown>)) {
      if (!OPS.has(op)) return null;
      if (op === 'in' || op === 'nin') {
        if (!Array.isArray(raw) || raw.some((v) => valueOf(v)?.source !== 'fixed')) return null;
        out.push({
          column,
          op: op as Operator,
          source: 'fixed',
          value: raw.map(String).join(', '),
        });
        continue;
      }
      const value = valueOf(raw);
      if (!value) return null;
      out.push({ column, op: op as Operator, ...value });
    }
  }
  return out;
}

/**
 * A stored rule as the editor's list, or null when the list cannot hold it (navigation keys,
 * nested `and`/`or`, `null` values): such a rule is edited as JSON.
 */
export function fromWhere(where: Where | undefined, columnNames: string[]): SimpleRule | null {
  if (!where) return { join: 'all', conditions: [] };
  const columns = new Set(columnNames);
  const keys = Object.keys(where);
  if (keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or')) {
    const items = where[keys[0]];
    if (!Array.isArray(items)) return null;
    const conditions: Condition[] = [];
    for (const item of items) {
      if (!item || typeof item !== 'object') return null;
      const part = conditionsOf(item as Where, columns);
      if (!part || part.length !== 1) return null;
      conditions.push(part[0]);
    }
    return { join: keys[0] === 'and' ? 'all' : 'any', conditions };
  }
  const conditions = conditionsOf(where, columns);
  return conditions ? { join: 'all', conditions } : null;
}

/** A fixed text as the value its column takes: numbers for numeric columns, booleans for boolean ones. */
function typed(text: string, field: ModelField | undefined): unknown {
  const t = text.trim();
  if (field?.kind === 'boolean' && (t === 'true' || t === 'false')) return t === 'true';
  if ((field?.kind === 'int' || field?.kind === 'float') && t !== '' && Number.isFinite(Number(t)))
    return Number(t);
  return text;
}

/** One condition as a `where` object. */
function conditionWhere(c: Condition, fields: Map<string, ModelField>): Where {
  const field = fields.get(c.column);
  let value: unknown;
  if (c.source === 'user-id') value = '$user.id';
  else if (c.source === 'user-attribute') value = `$user.${c.value.trim()}`;
  else if (c.op === 'in' || c.op === 'nin')
    value = c.value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '')
      .map((v) => typed(v, field));
  else value = typed(c.value, field);
  return { [c.column]: { [c.op]: value } };
}

/**
 * The editor's list as a stored rule, or null for no conditions (no rule: every row). The
 * service checks what it is sent and lists every problem (an unknown attribute name, a value its
 * column cannot hold), so this only shapes it.
 */
export function toWhere(rule: SimpleRule, fields: ModelField[]): Where | null {
  if (rule.conditions.length === 0) return null;
  const byName = new Map(fields.map((f) => [f.name, f]));
  const parts = rule.conditions.map((c) => conditionWhere(c, byName));
  if (parts.length === 1) return parts[0];
  return { [rule.join === 'all' ? 'and' : 'or']: parts };
}

const WORDS = new Map<string, string>(OPERATORS.map((o) => [o.op, o.words]));

/** A stored value in words: `the user's id`, `the user's region`, `"EU"`, `3`. */
function valueWords(value: unknown): string {
  if (typeof value === 'string') {
    const user = USER_VALUE.exec(value);
    if (user) return user[1] === 'id' ? 'the user’s id' : `the user’s ${user[1]}`;
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `(${value.map(valueWords).join(', ')})`;
  return value === null ? 'empty' : String(value);
}

/** A rule in words, e.g. `customer_id is the user’s customerId and total is at least 10`. */
export function ruleInWords(where: unknown): string {
  if (!where || typeof where !== 'object' || Array.isArray(where)) return JSON.stringify(where);
  const parts: string[] = [];
  for (const [key, test] of Object.entries(where as Where)) {
    if ((key === 'and' || key === 'or') && Array.isArray(test)) {
      if (test.length === 0) parts.push(key === 'and' ? 'every row' : 'no row');
      else parts.push(`(${test.map(ruleInWords).join(key === 'and' ? ' and ' : ' or ')})`);
      continue;
    }
    if (!test || typeof test !== 'object' || Array.isArray(test)) {
      parts.push(`${key}: ${JSON.stringify(test)}`);
      continue;
    }
    const entries = Object.entries(test as Where);
    if (entries.length > 0 && entries.every(([op]) => OPS.has(op))) {
      for (const [op, value] of entries) parts.push(`${key} ${WORDS.get(op)} ${valueWords(value)}`);
    } else if (entries.some(([q]) => q === 'some' || q === 'none' || q === 'every')) {
      for (const [q, inner] of entries)
        parts.push(`${q} of ${key} where ${ruleInWords(inner) || 'any'}`);
    } else {
      parts.push(`${key} where ${entries.length ? ruleInWords(test) : 'it exists'}`);
    }
  }
  return parts.length === 0 ? 'every row' : parts.join(' and ');
}
