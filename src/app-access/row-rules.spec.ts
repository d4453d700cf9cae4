import { ALL_ROWS, ModelColumn, SelectPlan } from '../datasources/core/dialect';
import type { ModelTable } from '../platform/version-definition';
import { planRule, RuleError, rowScope } from './row-rules';

/** Row rules (CONTRACT.md §4): planned strictly against the table's columns, failing closed. */

const column = (name: string, kind: ModelColumn['kind'] = 'text'): ModelColumn => ({
  name,
  dbType: kind,
  kind,
  nullable: true,
  hasDefault: false,
  generated: false,
  maxLength: null,
});

const orders: ModelTable = {
  name: 'orders',
  schema: null,
  dbName: 'orders',
  datasourceId: 'ds',
  active: true,
  columns: [column('id', 'int'), column('owner'), column('status'), column('region')],
  primaryKey: ['id'],
  foreignKeys: [],
};

const bind = (_c: ModelColumn, v: unknown) => v;
const alice = { id: 'u1', attributes: { region: 'north' } };

describe('planRule', () => {
  it('binds $user.id and $user.<attribute> as values, never as SQL text', () => {
    expect(
      planRule(
        orders,
        { owner: { eq: '$user.id' }, region: { in: ['$user.region', 'south'] } },
        alice,
        bind,
      ),
    ).toEqual({
      kind: 'and',
      items: [
        { kind: 'compare', column: 'owner', op: 'eq', value: 'u1' },
        { kind: 'in', column: 'region', values: ['north', 'south'], negated: false },
      ],
    });
  });

  it('plans against every column of the table, with and/or and emptiness tests', () => {
    expect(
      planRule(orders, { or: [{ status: { eq: null } }, { status: { neq: 'X' } }] }, null, bind),
    ).toEqual({
      kind: 'or',
      items: [
        { kind: 'null', column: 'status', negated: false },
        { kind: 'compare', column: 'status', op: 'neq', value: 'X' },
      ],
    });
  });

  it('refuses unknown columns, operators, value shapes and attributes', () => {
    expect(() => planRule(orders, { nope: { eq: 1 } }, alice, bind)).toThrow(RuleError);
    expect(() => planRule(orders, { status: { like: 'x' } }, alice, bind)).toThrow(
      /unknown operator like/,
    );
    expect(() => planRule(orders, { status: 'x' }, alice, bind)).toThrow(RuleError);
    expect(() => planRule(orders, { region: { eq: '$user.team' } }, alice, bind)).toThrow(
      /no attribute team/,
    );
    expect(() => planRule(orders, { owner: { eq: '$user.id' } }, null, bind)).toThrow(
      /needs an app user/,
    );
    expect(() => planRule(orders, { and: { status: { eq: 'x' } } }, alice, bind)).toThrow(
      /takes a list/,
    );
  });
});

describe('rowScope', () => {
  const permissions = {
    own: { tables: { orders: { where: { owner: { eq: '$user.id' } } } } },
    regional: { tables: { orders: { where: { region: { eq: '$user.region' } } } } },
    broken: { tables: { orders: { where: { gone: { eq: 1 } } } } },
    other: { tables: { customers: { where: { id: { eq: 1 } } } } },
  };

  it('unites the rules of several roles', () => {
    const scope = rowScope(permissions, ['own', 'regional'], orders, alice, bind, () => undefined);
    expect(scope).toEqual({
      kind: 'or',
      items: [
        { kind: 'compare', column: 'owner', op: 'eq', value: 'u1' },
        { kind: 'compare', column: 'region', op: 'eq', value: 'north' },
      ],
    });
  });

  it('lets a role with no rule for the table see every row', () => {
    expect(rowScope(permissions, ['own', 'other'], orders, alice, bind, () => undefined)).toEqual(
      ALL_ROWS,
    );
  });

  it('denies a rule it cannot plan, and reports it', () => {
    const denied: string[] = [];
    const scope = rowScope(permissions, ['broken'], orders, alice, bind, (d) =>
      denied.push(d.reason),
    );
    expect(scope).toEqual({ kind: 'or', items: [] });
    expect(denied).toEqual(['table orders has no column or navigation gone']);
  });

  it('gives a caller with no role nothing', () => {
    expect(rowScope(permissions, [], orders, alice, bind, () => undefined)).toEqual({
      kind: 'or',
      items: [],
    });
  });
});

describe('the scope is a required part of every plan', () => {
  it('does not compile a select plan without a scope', () => {
    // @ts-expect-error -- `scope` is required: a path that forgot the caller's rule does not compile.
    const unscoped: SelectPlan = {
      table: { schema: null, name: 'orders' },
      columns: ['id'],
      where: ALL_ROWS,
      order: [],
      take: 1,
      skip: 0,
    };
    const scoped: SelectPlan = { ...unscoped, scope: ALL_ROWS };
    expect(scoped.scope).toBe(ALL_ROWS);
  });
});
