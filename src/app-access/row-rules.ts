import {
  ALL_ROWS,
  type CompareOp,
  type Condition,
  type ModelColumn,
} from '../datasources/core/dialect';
import { type Navigation, navigationsOf } from '../data-model/model-graph';
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
  /**
   * @param path where in the rule, from its root: column and navigation keys, `and[i]`/`or[i]`
   * and quantifiers joined by dots (`customer`, `orders.some`); empty at the root.
   */
  constructor(
    message: string,
    readonly path = '',
  ) {
    super(message);
    this.name = 'RuleError';
  }

  /** The message after its path (`orders.some: table orders has no column x`), as logs show it. */
  get located(): string {
    return this.path ? `${this.path}: ${this.message}` : this.message;
  }
}

/**
 * A rule whose navigation keys, with the rules of the tables they reach, lead back to a table whose
 * rule is being planned (a cycle, e.g. customers → orders → customers, or a table related to
 * itself) or nest more than {@link RULE_NESTING_LIMIT} relation subqueries (README "App users and
 * row rules"). Refused at save when one role's own rules form it ({@link checkRoleRules}); at
 * request time it fails closed as every {@link RuleError} does.
 */
export class RuleNestingError extends RuleError {
  constructor(message: string, path = '') {
    super(message, path);
    this.name = 'RuleNestingError';
  }
}

/**
 * Most relation subqueries a row rule nests, counting those of the rules of the tables it reaches
 * (README "App users and row rules"): each applies inside the statement's every read and write of
 * the table, and correlated subqueries cost the databases' planners dearly (README "Limits").
 */
export const RULE_NESTING_LIMIT = 4;

const COMPARE = new Set<string>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte']);
const LIKE = new Set<string>(['contains', 'startsWith', 'endsWith']);
const USER_VALUE = /^\$user\.([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * Binds a rule value for a column of `table` (the rule's own table, or the table a navigation key
 * leads to), as the dialect takes it (the caller supplies the dialect's rule).
 */
export type BindValue = (column: ModelColumn, value: unknown, table: ModelTable) => unknown;

/**
 * Where a rule, or a part of one, is planned: what a navigation key needs to plan its subquery
 * and to refuse a cycle or a nesting too deep.
 */
export interface RuleSite {
  /** Tables whose rules are being planned, the outermost first (a navigation to one is a cycle). */
  trail: readonly string[];
  /**
   * Every table from the outermost rule's to this part's, through each navigation and related
   * rule, for messages (`t1 → t2 → t3`).
   */
  route: readonly string[];
  /** Relation subqueries around this part: 0 in the rule's own statement. */
  depth: number;
  /**
   * Whether more rows in this part's subqueries can admit more outer rows: inside `none`, and the
   * children of `every`, an odd number of times. A related rule that cannot be planned there makes
   * the rule fail (more rows would widen it); elsewhere it only admits no row (README).
   */
  negative: boolean;
  /** This part's place in the outermost rule being planned ({@link RuleError.path}). */
  path: string;
}

/**
 * How a rule's navigation keys are planned ({@link planRule}): the model they lead through, and the
 * rows of a related table the rule may see inside its subquery.
 */
export interface RuleRelations {
  /** The version's model tables: navigations are named as `navigationsOf` (the GraphQL) names them. */
  tables: readonly ModelTable[];
  /**
   * The scope of `table` inside a rule's subquery at `site` (`site.trail` already ends with
   * `table`): the caller's row rule of that table, or {@link ALL_ROWS}.
   * @throws RuleError when it cannot be planned there and the rule must fail (see {@link RuleSite}).
   */
  scopeOf(table: ModelTable, site: RuleSite): Condition;
}

/** The site of a rule of `table` planned on its own (the top of a statement). */
export function rootSite(table: ModelTable): RuleSite {
  return { trail: [table.name], route: [table.name], depth: 0, negative: false, path: '' };
}

const joinPath = (path: string, part: string) => (path ? `${path}.${part}` : part);

/** Navigations by table name, per model (model tables live as long as their definition). */
const NAVIGATIONS = new WeakMap<readonly ModelTable[], Map<string, Navigation[]>>();

/**
 * Navigation `name` of `table` in the model and the active table it leads to: the names the
 * generated GraphQL gives navigation fields (`navigationsOf`: many-to-one the foreign key without
 * `_id`, one-to-many the referencing table's name, `_by_<fk column>` on a clash).
 */
function navigationOf(
  tables: readonly ModelTable[],
  table: ModelTable,
  name: string,
): { navigation: Navigation; target: ModelTable } | null {
  let byTable = NAVIGATIONS.get(tables);
  if (!byTable) NAVIGATIONS.set(tables, (byTable = new Map()));
  let navigations = byTable.get(table.name);
  if (!navigations) byTable.set(table.name, (navigations = navigationsOf([...tables], table.name)));
  const navigation = navigations.find((n) => n.name === name);
  const target = navigation && tables.find((t) => t.name === navigation.to && t.active);
  return navigation && target ? { navigation, target } : null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value);

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
 * an unknown column, navigation, operator or value shape is a {@link RuleError}, never dropped.
 *
 * With `relations`, a key may also be a navigation of the table in the model (README "App users
 * and row rules", the semantics of README "Relation filters"): many-to-one (`customer`) takes the
 * related table's rule and holds when the related row exists, is in the caller's scope of its
 * table and matches; one-to-many (`orders`) takes `{some, none, every}` (at least one), each a rule
 * of the child table, over the children in the caller's scope of theirs (`every` holds with no
 * child and fails a child whose condition is unknown). Each is a correlated EXISTS whose scope
 * `relations.scopeOf` gives, so a rule never admits a row by one the caller cannot see.
 * @param subject the app user, or null for keys and anonymous callers.
 * @param relations the model and related scopes; without it a navigation key is unknown.
 * @param site where this rule is planned (default: a rule of `table` on its own).
 * @throws RuleError naming what it did not understand, with its path; RuleNestingError for a
 * navigation leading back to a table in `site.trail` or past {@link RULE_NESTING_LIMIT}.
 */
export function planRule(
  table: ModelTable,
  where: unknown,
  subject: RuleSubject | null,
  bind: BindValue,
  relations?: RuleRelations,
  site: RuleSite = rootSite(table),
): Condition {
  if (!isObject(where)) {
    throw new RuleError('a rule is an object of column conditions', site.path);
  }
  const items: Condition[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === 'and' || key === 'or') {
      if (!Array.isArray(value))
        throw new RuleError(`${key} takes a list of conditions`, site.path);
      items.push({
        kind: key,
        items: value.map((v, i) =>
          planRule(table, v, subject, bind, relations, {
            ...site,
            path: joinPath(site.path, `${key}[${i}]`),
          }),
        ),
      });
      continue;
    }
    const column = table.columns.find((c) => c.name === key);
    if (column) {
      if (!isObject(value)) {
        throw new RuleError(`${key} takes operators, e.g. {"eq": "$user.id"}`, site.path);
      }
      for (const [op, raw] of Object.entries(value)) {
        items.push(columnRule(table, column, op, raw, subject, bind, site.path));
      }
      continue;
    }
    const related = relations && navigationOf(relations.tables, table, key);
    if (!related) {
      throw new RuleError(`table ${table.name} has no column or navigation ${key}`, site.path);
    }
    items.push(
      navigationRule(related.navigation, related.target, value, subject, bind, relations, {
        ...site,
        path: joinPath(site.path, key),
      }),
    );
  }
  return items.length === 1 ? items[0] : { kind: 'and', items };
}

/** The one-to-many quantifiers of a rule, as of a relation filter (README "Relation filters"). */
const QUANTIFIERS = ['some', 'none', 'every'] as const;

const isEveryRow = (c: Condition) => c.kind === 'and' && c.items.length === 0;

/**
 * A navigation key of a rule (see {@link planRule}) at `site` (its path ends with the key): a
 * correlated EXISTS over `target` inside the scope `relations.scopeOf` gives for it, the value
 * planned as a rule of `target` one subquery deeper.
 * @throws RuleNestingError for a target in `site.trail` (a cycle) or a subquery past
 * {@link RULE_NESTING_LIMIT}; RuleError for a value of the wrong shape.
 */
function navigationRule(
  navigation: Navigation,
  target: ModelTable,
  value: unknown,
  subject: RuleSubject | null,
  bind: BindValue,
  relations: RuleRelations,
  site: RuleSite,
): Condition {
  const key = navigation.name;
  const route = [...site.route, target.name];
  const chain = route.join(' → ');
  if (site.trail.includes(target.name)) {
    throw new RuleNestingError(
      `${key} leads to ${target.name}, whose rule is being planned (${chain}): a rule may not ` +
        `depend on itself, directly or through the rules of the tables it reaches; remove one of ` +
        `these navigations from the role's rules`,
      site.path,
    );
  }
  const depth = site.depth + 1;
  if (depth > RULE_NESTING_LIMIT) {
    throw new RuleNestingError(
      `${key} nests more than ${RULE_NESTING_LIMIT} relations, counting those of the rules of ` +
        `the tables it reaches (${chain}); the limit is ${RULE_NESTING_LIMIT}: name fewer ` +
        `navigations one inside another, or compare a key column of a nearer table instead`,
      site.path,
    );
  }
  const exists = (
    where: Condition,
    negated: boolean,
    negative: boolean,
    path: string,
  ): Condition => ({
    kind: 'exists',
    table: { schema: target.schema, name: target.dbName },
    on: [{ inner: navigation.toColumn, outer: navigation.fromColumn }],
    scope: relations.scopeOf(target, {
      trail: [...site.trail, target.name],
      route,
      depth,
      negative,
      path,
    }),
    where,
    negated,
  });
  const inner = (rule: unknown, path: string, negative: boolean) =>
    planRule(target, rule, subject, bind, relations, {
      trail: site.trail,
      route,
      depth,
      negative,
      path,
    });
  if (navigation.kind === 'manyToOne') {
    if (!isObject(value)) {
      throw new RuleError(
        `${key} takes a rule of ${target.name} (an object of its columns and navigations)`,
        site.path,
      );
    }
    return exists(inner(value, site.path, site.negative), false, site.negative, site.path);
  }
  const quantifiers = isObject(value) ? Object.keys(value) : [];
  const unknown = quantifiers.filter((q) => !(QUANTIFIERS as readonly string[]).includes(q));
  if (!isObject(value) || quantifiers.length === 0 || unknown.length > 0) {
    throw new RuleError(
      `${key} takes {"some"|"none"|"every": <a rule of ${target.name}>}, at least one` +
        (unknown.length ? `; ${unknown.join(', ')} is none of them` : ''),
      site.path,
    );
  }
  const items: Condition[] = [];
  for (const quantifier of QUANTIFIERS) {
    if (!(quantifier in value)) continue;
    const path = joinPath(site.path, quantifier);
    const rule = value[quantifier];
    if (quantifier === 'some') {
      items.push(exists(inner(rule, path, site.negative), false, site.negative, path));
    } else if (quantifier === 'none') {
      items.push(exists(inner(rule, path, !site.negative), true, !site.negative, path));
    } else {
      // NOT EXISTS (a visible child AND NOT rule): fewer visible children admit more parents,
      // while the rule itself keeps its side (negated twice).
      const condition = inner(rule, path, site.negative);
      if (!isEveryRow(condition)) {
        items.push(exists({ kind: 'untrue', item: condition }, true, !site.negative, path));
      }
    }
  }
  return items.length === 1 ? items[0] : { kind: 'and', items };
}

/**
 * The conditions of one operator of a column key, its values bound by `bind` for `table`.
 * @throws RuleError at `path` for an unknown operator, a value of the wrong shape, a `$user` value
 * the subject cannot give, or one `bind` refuses.
 */
function columnRule(
  table: ModelTable,
  column: ModelColumn,
  op: string,
  raw: unknown,
  subject: RuleSubject | null,
  bind: BindValue,
  path: string,
): Condition {
  try {
    return columnCondition(table, column, op, raw, subject, bind);
  } catch (error) {
    if (error instanceof RuleError && !error.path && path) throw new RuleError(error.message, path);
    throw error;
  }
}

function columnCondition(
  table: ModelTable,
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
      values: values.map((v) => bind(column, v, table)),
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
      value: bind(column, value, table),
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
  /** The {@link RuleError}'s message after its path. */
  reason: string;
  /**
   * Set when the rule was planned inside another rule's subquery (`orders → customers`, the
   * outer tables first), where it admits no row; absent for a rule planned on its own.
   */
  within?: string;
}

/**
 * The roles' rules for a table, or null when one of the roles has none (it sees every row, so the
 * union is every row, CONTRACT.md §4).
 */
function rulesOf(
  permissions: Permissions | undefined,
  roles: readonly string[],
  table: ModelTable,
): { role: string; where: unknown }[] | null {
  const rules: { role: string; where: unknown }[] = [];
  for (const role of roles) {
    const rule = permissions?.[role]?.tables?.[table.name];
    if (!rule) return null;
    rules.push({ role, where: rule.where });
  }
  return rules;
}

/**
 * One caller's rules across tables ({@link RuleRelations} at request time): a related table's
 * scope inside a rule's subquery is the union of the caller's roles' rules of it, planned one
 * level deeper. A related role's rule that cannot be planned there (an attribute the user lacks, a
 * cycle formed by the rules of several roles, a nesting too deep) admits no row where fewer rows
 * narrow the rule (many-to-one, `some`), and is reported; where fewer rows would widen it (`none`,
 * `every`) the rule being planned fails with it. So a rule never admits more rows because another
 * could not be planned.
 */
class CallerRules implements RuleRelations {
  constructor(
    private readonly permissions: Permissions | undefined,
    private readonly roles: readonly string[],
    private readonly subject: RuleSubject | null,
    private readonly bind: BindValue,
    private readonly denied: (rule: DeniedRule) => void,
    readonly tables: readonly ModelTable[],
  ) {}

  /** The scope of `table` planned on its own: see {@link rowScope}. */
  scope(table: ModelTable): Condition {
    const rules = rulesOf(this.permissions, this.roles, table);
    if (!rules) return ALL_ROWS;
    const union: Condition[] = [];
    for (const { role, where } of rules) {
      try {
        union.push(planRule(table, where, this.subject, this.bind, this, rootSite(table)));
      } catch (error) {
        if (!(error instanceof RuleError)) throw error;
        this.denied({ role, table: table.name, reason: error.located });
      }
    }
    return union.length === 1 ? union[0] : { kind: 'or', items: union };
  }

  scopeOf(table: ModelTable, site: RuleSite): Condition {
    const rules = rulesOf(this.permissions, this.roles, table);
    if (!rules) return ALL_ROWS;
    const union: Condition[] = [];
    for (const { role, where } of rules) {
      try {
        union.push(planRule(table, where, this.subject, this.bind, this, { ...site, path: '' }));
      } catch (error) {
        if (!(error instanceof RuleError)) throw error;
        if (site.negative) {
          throw new RuleError(
            `reads ${table.name} inside none or every, where the rule of role ${role} on ` +
              `${table.name} cannot be planned (${error.located})`,
            site.path,
          );
        }
        this.denied({
          role,
          table: table.name,
          reason: error.located,
          within: site.trail.slice(0, -1).join(' → '),
        });
      }
    }
    return union.length === 1 ? union[0] : { kind: 'or', items: union };
  }
}

/**
 * The rows of `table` a caller with `roles` may see and change (CONTRACT.md §4): the union (OR)
 * of each role's rule. A role with no rule for the table sees every row, so the union is then
 * every row. A rule that cannot be planned (a column that left the model, an attribute the user
 * lacks, a navigation cycle, anything unknown) denies that role every row, and is reported through
 * `denied`. A caller with no role sees nothing. A rule's navigation keys (`tables` given) apply
 * the caller's scope of each related table inside their subqueries ({@link CallerRules}).
 * @param tables the version's model tables; without them a navigation key is unknown (denies).
 */
export function rowScope(
  permissions: Permissions | undefined,
  roles: readonly string[],
  table: ModelTable,
  subject: RuleSubject | null,
  bind: BindValue,
  denied: (rule: DeniedRule) => void,
  tables: readonly ModelTable[] = [],
): Condition {
  return new CallerRules(permissions, roles, subject, bind, denied, tables).scope(table);
}

/**
 * Checks one role's rules against the model before they are saved (`PUT …/permissions/:role`),
 * planning each as a request of a user holding only that role would: every table, column,
 * navigation, operator and value shape must be known, and a rule must neither lead back to a
 * table whose rule is being planned through the role's own rules (customers → orders → customers)
 * nor nest more than {@link RULE_NESTING_LIMIT} relation subqueries with them. A related table's
 * rule that is wrong for another reason is reported under that table only.
 * @param subject stands for any user (every `$user.<attribute>` resolves).
 * @returns the problems, each `tables.<table>[.where[.<path>]]: <what is wrong>`; empty when the
 * rules can be saved.
 */
export function checkRoleRules(
  rules: RoleRules,
  tables: readonly ModelTable[],
  subject: RuleSubject,
): string[] {
  const identity: BindValue = (_column, value) => value;
  const relations: RuleRelations = {
    tables,
    scopeOf(table, site) {
      const rule = rules.tables[table.name];
      if (!rule) return ALL_ROWS;
      try {
        return planRule(table, rule.where, subject, identity, relations, { ...site, path: '' });
      } catch (error) {
        if (!(error instanceof RuleNestingError)) {
          if (error instanceof RuleError) return ALL_ROWS;
          throw error;
        }
        const at = error.path ? `at its key ${error.path}: ` : '';
        throw new RuleNestingError(
          `the rule of ${table.name} applies inside this subquery; ${at}${error.message}`,
          site.path,
        );
      }
    },
  };
  const problems: string[] = [];
  for (const [name, rule] of Object.entries(rules.tables)) {
    const table = tables.find((t) => t.name === name);
    if (!table) {
      problems.push(`tables.${name}: no model table is named ${name}`);
      continue;
    }
    try {
      planRule(table, rule?.where, subject, identity, relations);
    } catch (error) {
      if (!(error instanceof RuleError)) throw error;
      problems.push(`tables.${name}.where${error.path ? `.${error.path}` : ''}: ${error.message}`);
    }
  }
  return problems;
}
