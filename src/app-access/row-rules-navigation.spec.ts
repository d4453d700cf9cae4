import { modelColumn } from '../../test/support/model-column';
import { ALL_ROWS, type Condition, type ModelColumn } from '../datasources/core/dialect';
import { PostgresDialect } from '../datasources/postgres/dialect';
import type { ModelTable } from '../platform/version-definition';
import {
  type BindValue,
  checkRoleRules,
  type DeniedRule,
  planRule,
  RULE_NESTING_LIMIT,
  RuleError,
  RuleNestingError,
  type RuleRelations,
  type RuleSite,
  rowScope,
} from './row-rules';

/**
 * Row rules with navigation keys (issue 23 item 3, README "App users and row rules"): a key per
 * many-to-one navigation and `{some, none, every}` per one-to-many one, named as the GraphQL names
 * navigation fields, planned as correlated EXISTS with the caller's scope of the related table
 * inside; cycles and nesting past RULE_NESTING_LIMIT refused at save and failing closed at
 * request time.
 */

const fk = (column: string, referencedTable: string) => ({
  columns: [column],
  referencedSchema: null,
  referencedTable,
  referencedColumns: ['id'],
});

const table = (
  name: string,
  columns: ModelColumn[],
  foreignKeys: ModelTable['foreignKeys'] = [],
): ModelTable => ({
  name,
  schema: null,
  dbName: name,
  datasourceId: 'ds',
  active: true,
  columns: [modelColumn('id'), ...columns],
  primaryKey: ['id'],
  foreignKeys,
});

const customers = table('customers', [modelColumn('city', 'text'), modelColumn('region', 'text')]);
const orders = table(
  'orders',
  [modelColumn('customer_id'), modelColumn('status', 'text')],
  [fk('customer_id', 'customers')],
);
const lines = table(
  'order_lines',
  [modelColumn('order_id'), modelColumn('product', 'text')],
  [fk('order_id', 'orders')],
);
const employees = table('employees', [modelColumn('manager_id')], [fk('manager_id', 'employees')]);
/** t1 → t2 → … → t6, each many-to-one to the next through `next_id` (navigation `next`). */
const chain = Array.from({ length: 6 }, (_, i) =>
  table(
    `t${i + 1}`,
    [modelColumn('next_id'), modelColumn('v', 'text')],
    [fk('next_id', `t${i + 2}`)],
  ),
);
const TABLES = [customers, orders, lines, employees, ...chain];

const ana = { id: 'u1', attributes: { city: 'Lisboa', status: 'PAID' } };
const bound: { table: string; column: string; value: unknown }[] = [];
const bind: BindValue = (column, value, of) => {
  bound.push({ table: of.name, column: column.name, value });
  return value;
};

/** Relations whose related scopes are markers naming the table, recording each site asked. */
function markers(): RuleRelations & { sites: (RuleSite & { table: string })[] } {
  const sites: (RuleSite & { table: string })[] = [];
  return {
    tables: TABLES,
    sites,
    scopeOf(of, site) {
      sites.push({ ...site, table: of.name });
      return { kind: 'null', column: `scope of ${of.name}`, negated: false };
    },
  };
}
const scopeMarker = (name: string): Condition => ({
  kind: 'null',
  column: `scope of ${name}`,
  negated: false,
});

const thrown = (f: () => unknown): RuleError => {
  try {
    f();
  } catch (error) {
    if (error instanceof RuleError) return error;
    throw error;
  }
  throw new Error('expected a RuleError');
};

describe('planRule with navigation keys', () => {
  beforeEach(() => (bound.length = 0));

  it('plans a many-to-one key as EXISTS over the related table, its scope inside, values bound for that table', () => {
    const relations = markers();
    expect(
      planRule(orders, { customer: { city: { eq: '$user.city' } } }, ana, bind, relations),
    ).toEqual({
      kind: 'exists',
      table: { schema: null, name: 'customers' },
      on: [{ inner: 'id', outer: 'customer_id' }],
      scope: scopeMarker('customers'),
      where: { kind: 'compare', column: 'city', op: 'eq', value: 'Lisboa' },
      negated: false,
    });
    expect(bound).toEqual([{ table: 'customers', column: 'city', value: 'Lisboa' }]);
    expect(relations.sites).toEqual([
      {
        table: 'customers',
        trail: ['orders', 'customers'],
        route: ['orders', 'customers'],
        depth: 1,
        negative: false,
        path: 'customer',
      },
    ]);
  });

  it('plans some, none and every as relation filters do: every through untrue, the sides of none and every negative', () => {
    const relations = markers();
    const paid: Condition = { kind: 'compare', column: 'status', op: 'eq', value: 'PAID' };
    const rule = {
      orders: {
        some: { status: { eq: '$user.status' } },
        none: { status: { eq: 'PAID' } },
        every: { status: { eq: 'PAID' } },
      },
    };
    const exists = (where: Condition, negated: boolean): Condition => ({
      kind: 'exists',
      table: { schema: null, name: 'orders' },
      on: [{ inner: 'customer_id', outer: 'id' }],
      scope: scopeMarker('orders'),
      where,
      negated,
    });
    expect(planRule(customers, rule, ana, bind, relations)).toEqual({
      kind: 'and',
      items: [
        exists(paid, false),
        exists(paid, true),
        exists({ kind: 'untrue', item: paid }, true),
      ],
    });
    expect(relations.sites.map((s) => [s.path, s.negative])).toEqual([
      ['orders.some', false],
      ['orders.none', true],
      ['orders.every', true],
    ]);
  });

  it('nests navigations, each one subquery deeper, and keeps `every: {}` out (it holds for every parent)', () => {
    const relations = markers();
    const planned = planRule(
      customers,
      { orders: { some: { order_lines: { some: { product: { eq: 'P3' } } } }, every: {} } },
      null,
      bind,
      relations,
    );
    expect(planned).toMatchObject({
      kind: 'exists',
      table: { name: 'orders' },
      where: {
        kind: 'exists',
        table: { name: 'order_lines' },
        on: [{ inner: 'order_id', outer: 'id' }],
        where: { kind: 'compare', column: 'product', value: 'P3' },
      },
    });
    expect(relations.sites.map((s) => [s.table, s.depth, s.trail.join('>')])).toEqual([
      ['order_lines', 2, 'customers>order_lines'],
      ['orders', 1, 'customers>orders'],
    ]);
  });

  it('names the path of what it does not understand', () => {
    const relations = markers();
    const at = (rule: unknown, of: ModelTable = orders) =>
      thrown(() => planRule(of, rule, ana, bind, relations));
    expect(at({ custom: { city: { eq: 'x' } } })).toMatchObject({
      path: '',
      message: 'table orders has no column or navigation custom',
    });
    expect(at({ customer: { nope: { eq: 1 } } })).toMatchObject({
      path: 'customer',
      message: 'table customers has no column or navigation nope',
    });
    expect(at({ and: [{}, { customer: { city: { like: 'x' } } }] }).located).toBe(
      'and[1].customer: unknown operator like on city',
    );
    expect(at({ orders: { some: { status: { eq: '$user.team' } } } }, customers).located).toBe(
      'orders.some: the user has no attribute team',
    );
    expect(at({ orders: { any: {} } }, customers).message).toMatch(
      /orders takes \{"some"\|"none"\|"every": <a rule of orders>\}, at least one; any is none of them/,
    );
    expect(at({ orders: {} }, customers).message).toMatch(/at least one/);
    expect(at({ customer: 'x' }).message).toBe(
      'customer takes a rule of customers (an object of its columns and navigations)',
    );
    expect(at({ orders: { some: [] } }, customers).located).toBe(
      'orders.some: a rule is an object of column conditions',
    );
  });

  it('treats a navigation key as unknown without the model', () => {
    expect(() => planRule(orders, { customer: {} }, ana, bind)).toThrow(
      'table orders has no column or navigation customer',
    );
  });

  it('refuses a navigation back to a table whose rule is being planned: itself, or through another table', () => {
    const relations = markers();
    const self = thrown(() => planRule(employees, { manager: {} }, ana, bind, relations));
    expect(self).toBeInstanceOf(RuleNestingError);
    expect(self.located).toMatch(
      /^manager: manager leads to employees, whose rule is being planned \(employees → employees\)/,
    );
    const back = thrown(() =>
      planRule(orders, { customer: { orders: { some: {} } } }, ana, bind, relations),
    );
    expect(back).toBeInstanceOf(RuleNestingError);
    expect(back.path).toBe('customer.orders');
  });

  it(`refuses more than ${RULE_NESTING_LIMIT} nested relations, saying what to change`, () => {
    const relations = markers();
    const nested = (levels: number): Record<string, unknown> =>
      levels === 0 ? { v: { eq: 'x' } } : { next: nested(levels - 1) };
    expect(() =>
      planRule(chain[0], nested(RULE_NESTING_LIMIT), ana, bind, relations),
    ).not.toThrow();
    const deep = thrown(() =>
      planRule(chain[0], nested(RULE_NESTING_LIMIT + 1), ana, bind, relations),
    );
    expect(deep).toBeInstanceOf(RuleNestingError);
    expect(deep.located).toBe(
      'next.next.next.next.next: next nests more than 4 relations, counting those of the rules of the tables it reaches (t1 → t2 → t3 → t4 → t5 → t6); the limit is 4: name fewer navigations one inside another, or compare a key column of a nearer table instead',
    );
  });
});

describe('rowScope with navigation keys (request time)', () => {
  const denied: DeniedRule[] = [];
  const scope = (permissions: Record<string, unknown>, roles: string[], of: ModelTable) =>
    rowScope(
      permissions as never,
      roles,
      of,
      ana,
      (_c, v) => v,
      (d) => denied.push(d),
      TABLES,
    );
  beforeEach(() => (denied.length = 0));

  const lisboa: Condition = { kind: 'compare', column: 'city', op: 'eq', value: 'Lisboa' };
  const viaCustomer = (inner: Condition, where: Condition = lisboa): Condition => ({
    kind: 'exists',
    table: { schema: null, name: 'customers' },
    on: [{ inner: 'id', outer: 'customer_id' }],
    scope: inner,
    where,
    negated: false,
  });

  it("applies the caller's rule of the related table inside the subquery, or none when a role has no rule there", () => {
    const permissions = {
      regional: {
        tables: {
          orders: { where: { customer: { city: { eq: '$user.city' } } } },
          customers: { where: { region: { eq: 'south' } } },
        },
      },
      open: { tables: { orders: { where: { status: { eq: 'PAID' } } } } },
    };
    const south: Condition = { kind: 'compare', column: 'region', op: 'eq', value: 'south' };
    expect(scope(permissions, ['regional'], orders)).toEqual(viaCustomer(south));
    // `open` has no rule on customers: with it, the union sees every customer.
    expect(scope(permissions, ['regional', 'open'], orders)).toEqual({
      kind: 'or',
      items: [
        viaCustomer(ALL_ROWS),
        { kind: 'compare', column: 'status', op: 'eq', value: 'PAID' },
      ],
    });
    expect(denied).toEqual([]);
  });

  it('lets a related rule that cannot be planned admit no row under many-to-one and some, and reports it', () => {
    const permissions = {
      r: {
        tables: {
          orders: { where: { customer: { city: { eq: '$user.city' } } } },
          customers: { where: { region: { eq: '$user.region' } } },
        },
      },
    };
    expect(scope(permissions, ['r'], orders)).toEqual(viaCustomer({ kind: 'or', items: [] }));
    expect(denied).toEqual([
      {
        role: 'r',
        table: 'customers',
        reason: 'the user has no attribute region',
        within: 'orders',
      },
    ]);
  });

  it('denies the rule when a related rule that cannot be planned sits under none or every (fewer rows would widen it)', () => {
    for (const quantifier of ['none', 'every']) {
      denied.length = 0;
      const permissions = {
        r: {
          tables: {
            customers: { where: { orders: { [quantifier]: { status: { eq: 'BLOCKED' } } } } },
            orders: { where: { status: { eq: '$user.missing' } } },
          },
        },
      };
      expect(scope(permissions, ['r'], customers)).toEqual({ kind: 'or', items: [] });
      expect(denied).toEqual([
        {
          role: 'r',
          table: 'customers',
          reason: `orders.${quantifier}: reads orders inside none or every, where the rule of role r on orders cannot be planned (the user has no attribute missing)`,
        },
      ]);
    }
  });

  it('breaks a cycle formed by the rules of two roles failing closed: the rule closing it admits no row', () => {
    const permissions = {
      a: {
        tables: {
          orders: { where: { customer: { city: { eq: '$user.city' } } } },
          customers: { where: { city: { neq: null } } },
        },
      },
      b: {
        tables: {
          customers: { where: { orders: { some: { status: { eq: 'PAID' } } } } },
          orders: { where: { status: { neq: 'HELD' } } },
        },
      },
    };
    const filled: Condition = { kind: 'null', column: 'city', negated: true };
    const notHeld: Condition = { kind: 'compare', column: 'status', op: 'neq', value: 'HELD' };
    // Inside a's rule on orders, b's rule on customers would read orders again: left out.
    expect(scope(permissions, ['a', 'b'], orders)).toEqual({
      kind: 'or',
      items: [viaCustomer(filled), notHeld],
    });
    expect(denied).toEqual([
      expect.objectContaining({
        role: 'b',
        table: 'customers',
        within: 'orders',
        reason: expect.stringContaining('(orders → customers → orders)'),
      }),
    ]);
  });

  it('compiles to nested correlated subqueries, each scope qualified by its own alias (PostgreSQL)', () => {
    const permissions = {
      r: {
        tables: {
          orders: { where: { customer: { city: { eq: '$user.city' } } } },
          customers: { where: { region: { eq: 'south' } } },
        },
      },
    };
    const ruleOf = scope(permissions, ['r'], orders);
    const query = new PostgresDialect().compileCount({
      table: { schema: null, name: 'orders' },
      where: ALL_ROWS,
      scope: ruleOf,
    });
    expect(query.sql).toBe(
      'SELECT COUNT(*) AS "count" FROM "orders" WHERE (1=1 AND EXISTS (SELECT 1 FROM "customers" "__tg_r1" WHERE "__tg_r1"."id" = "orders"."customer_id" AND "__tg_r1"."region" = $1 AND "__tg_r1"."city" = $2))',
    );
    expect(query.params).toEqual(['south', 'Lisboa']);
  });
});

describe('checkRoleRules (at save)', () => {
  const anyone = { id: 'u', attributes: { city: 'x', status: 'x' } };

  it('accepts navigation keys through the role rules of the tables they reach', () => {
    expect(
      checkRoleRules(
        {
          tables: {
            orders: { where: { customer: { city: { eq: '$user.city' } } } },
            customers: { where: { city: { neq: null } } },
            order_lines: { where: { order: { customer: { city: { eq: '$user.city' } } } } },
          },
        },
        TABLES,
        anyone,
      ),
    ).toEqual([]);
  });

  it('refuses a cycle through the role’s own rules, naming the path and the tables for each rule in it', () => {
    const problems = checkRoleRules(
      {
        tables: {
          orders: { where: { customer: { city: { eq: '$user.city' } } } },
          customers: { where: { orders: { some: { status: { eq: 'PAID' } } } } },
        },
      },
      TABLES,
      anyone,
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /^tables\.orders\.where\.customer: the rule of customers applies inside this subquery; at its key orders: orders leads to orders, whose rule is being planned \(orders → customers → orders\): a rule may not depend on itself/,
    );
    expect(problems[1]).toMatch(
      /^tables\.customers\.where\.orders\.some: the rule of orders applies inside this subquery; at its key customer: customer leads to customers, whose rule is being planned \(customers → orders → customers\)/,
    );
  });

  it('refuses nesting past the limit counted with the related rules, and reports a related rule’s own mistake under that rule only', () => {
    const rules = {
      tables: {
        t1: { where: { next: { next: { v: { eq: 'a' } } } } },
        t3: { where: { next: { next: { next: { v: { eq: 'b' } } } } } },
        orders: { where: { customer: { city: { eq: 'x' } } } },
        customers: { where: { nope: { eq: 1 } } },
      },
    };
    expect(checkRoleRules(rules, TABLES, anyone)).toEqual([
      expect.stringMatching(
        /^tables\.t1\.where\.next\.next: the rule of t3 applies inside this subquery; at its key next\.next\.next: next nests more than 4 relations, counting those of the rules of the tables it reaches \(t1 → t2 → t3 → t4 → t5 → t6\)/,
      ),
      'tables.customers.where: table customers has no column or navigation nope',
    ]);
  });

  it('names an unknown table, and an unknown key by its path', () => {
    expect(
      checkRoleRules(
        { tables: { ghosts: { where: {} }, orders: { where: { or: [{ customer: { x: {} } }] } } } },
        TABLES,
        anyone,
      ),
    ).toEqual([
      'tables.ghosts: no model table is named ghosts',
      'tables.orders.where.or[0].customer: table customers has no column or navigation x',
    ]);
  });
});
