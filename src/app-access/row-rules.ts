import type { CompareOp, Condition, ModelColumn } from '../datasources/core/dialect';
import type { ModelTable } from '../platform/version-definition';
import type { UserAttributes } from './app-users.service';

/** One role's rules: a `where` per model table (CONTRACT.md §4). */
export interface RoleRules {
  tables: Record<string, { where: Record<string, unknown> }>;
}

/** Row rules of a version, by role name; kept in the version document's `permissions`. */
export type Permissions = Record<string, RoleRules>;

/** The built-in role of callers with no credentials (CONTRACT.md §4). */
export const ANONYMOUS_ROLE = 'anonymous';
/** The built-in role of callers with an API key (CONTRACT.md §4). */
export const API_KEY_ROLE = 'api_key';

/** Who a rule is evaluated for: `$user.id` and `$user.<attribute>` read it. */
export interface RuleSubject {
  id: string;
  attributes: UserAttributes;
}

/** A rule that cannot be planned: it names something unknown. The rule then denies (fails closed). */
export class RuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuleError';
  }
}

const COMPARE = new Set<string>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte']);
const LIKE = new Set<string>(['contains', 'startsWith', 'endsWith']);
const USER_VALUE = /^\$user\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** Binds a rule value for a column, as the dialect takes it (the caller supplies the dialect's rule). */
export type BindValue = (column: ModelColumn, value: unknown) => unknown;

/**
 * A rule value: a literal, or `"$user.id"` / `"$user.<attribute>"` read from the subject. A user
 * value is always bound as a parameter, never pasted into SQL text.
 * @throws RuleError for a `$user.<attribute>` the subject lacks, or any `$user` value without a
 * subject (a key or an anonymous caller).
 */
function resolveValue(value: unknown, subject: RuleSubject | null): unknown {
  if (typeof value !== 'string') return value;
  const match = USER_VALUE.exec(value);
  if (!match) {
    if (value.startsWith('$user'))
      throw new RuleError(`"${value}" is not $user.id or $user.<attribute>`);
    return value;
  }
  if (!subject) throw new RuleError(`${value} needs an app user`);
  if (match[1] === 'id') return subject.id;
  if (!Object.prototype.hasOwnProperty.call(subject.attributes, match[1])) {
    throw new RuleError(`the user has no attribute ${match[1]}`);
  }
  return subject.attributes[match[1]];
}

/**
 * Plans a rule's `where` (the contract's filter language, CONTRACT.md §6) against every column of
 * the table (not the API's included ones): keys at one level combine with AND, `and: []` is true,
 * `or: []` false, `eq: null`/`neq: null` test emptiness. Strict where a caller's filter is lenient:
 * an unknown column, operator or value shape is a {@link RuleError}, never dropped.
 * @param subject the app user, or null for keys and anonymous callers.
 * @throws RuleError naming what it did not understand.
 */
export function planRule(
  table: ModelTable,
  where: unknown,
  subject: RuleSubject | null,
  bind: BindValue,
): Condition {
  if (!where || typeof where !== 'object' || Array.isArray(where)) {
    throw new RuleError('a rule is an object of column conditions');
  }
  const items: Condition[] = [];
  for (const [key, value] of Object.entries(where as Record<string, unknown>)) {
    if (key === 'and' || key === 'or') {
      if (!Array.isArray(value)) throw new RuleError(`${key} takes a list of conditions`);
      items.push({ kind: key, items: value.map((v) => planRule(table, v, subject, bind)) });
      continue;
    }
    const column = table.columns.find((c) => c.name === key);
    if (!column) throw new RuleError(`table ${table.name} has no column ${key}`);
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      throw new RuleError(`${key} takes operators, e.g. {"eq": "$user.id"}`);
    }
    for (const [op, raw] of Object.entries(value as Record<string, unknown>)) {
      items.push(columnRule(column, op, raw, subject, bind));
    }
  }
  return items.length === 1 ? items[0] : { kind: 'and', items };
}

function columnRule(
  column: ModelColumn,
  op: string,
  raw: unknown,
  subject: RuleSubject | null,
  bind: BindValue,
): Condition {
  if (op === 'in' || op === 'nin') {
    if (!Array.isArray(raw)) throw new RuleError(`${op} on ${column.name} takes a list`);
    const values = raw.map((v) => resolveValue(v, subject));
    if (values.some((v) => v === null || typeof v === 'object')) {
      throw new RuleError(`${op} on ${column.name} takes plain values`);
    }
    return {
      kind: 'in',
      column: column.name,
      values: values.map((v) => bind(column, v)),
      negated: op === 'nin',
    };
  }
  const value = resolveValue(raw, subject);
  if (value !== null && typeof value === 'object') {
    throw new RuleError(`${op} on ${column.name} takes a plain value`);
  }
  if ((op === 'eq' || op === 'neq') && value === null) {
    return { kind: 'null', column: column.name, negated: op === 'neq' };
  }
  // A comparison with an empty value is never true (CONTRACT.md §6), here as in filters.
  if (value === null && (COMPARE.has(op) || LIKE.has(op))) return { kind: 'or', items: [] };
  if (COMPARE.has(op)) {
    return {
      kind: 'compare',
      column: column.name,
      op: op as CompareOp,
      value: bind(column, value),
    };
  }
  if (LIKE.has(op)) {
    return { kind: 'like', column: column.name, mode: op as 'contains', value: String(value) };
  }
  throw new RuleError(`unknown operator ${op} on ${column.name}`);
}

/** What {@link rowScope} reports when a rule had to deny (logged once per rule by the caller). */
export interface DeniedRule {
  role: string;
  table: string;
  reason: string;
}

/**
 * The rows of `table` a caller with `roles` may see and change (CONTRACT.md §4): the union (OR)
 * of each role's rule. A role with no rule for the table sees every row, so the union is then
 * every row. A rule that cannot be planned (a column that left the model, an attribute the user
 * lacks, anything unknown) denies that role every row, and is reported through `denied`. A caller
 * with no role sees nothing.
 */
export function rowScope(
  permissions: Permissions | undefined,
  roles: readonly string[],
  table: ModelTable,
  subject: RuleSubject | null,
  bind: BindValue,
  denied: (rule: DeniedRule) => void,
): Condition {
  const union: Condition[] = [];
  for (const role of roles) {
    const rule = permissions?.[role]?.tables?.[table.name];
    if (!rule) return { kind: 'and', items: [] };
    try {
      union.push(planRule(table, rule.where, subject, bind));
    } catch (error) {
      if (!(error instanceof RuleError)) throw error;
      denied({ role, table: table.name, reason: error.message });
    }
  }
  return union.length === 1 ? union[0] : { kind: 'or', items: union };
}
