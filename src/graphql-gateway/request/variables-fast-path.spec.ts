import { buildSchema, type GraphQLFieldResolver } from 'graphql';
import type { Condition } from '../../datasources/core/dialect';
import { DomainError } from '../../common/domain-error';
import { CONTRACT_LIMITS } from '../../../test/support/request-limits';
import type { GatewayContext } from '../gateway-context';
import { withGraphQLArguments } from '../operations/arguments';
import { type PlannedRead, plannedRead } from '../operations/planned-read';
import {
  CompiledDocument,
  compileDocument,
  JIT_MAX_FIELDS,
  RequestRefusal,
  selectOperation,
} from './compiled-operation';
import { coerceRequestVariables, executeOperation } from './execute-operation';
import * as operationCost from './operation-cost';
import { sameVariablesAs, valueKey, variablesKey } from './value-key';

/**
 * Issue 25 item 3: operations with variables run as literal ones do. Variables are coerced once
 * (by graphql-js; the contract's rewriting only for values it refuses), and what is derived from
 * them alone (a root read's statement, the request's cost) is remembered per distinct values: a
 * variable that changes the statement (a filter key present, absent or null, a list's length, a
 * page) never finds another values' statement.
 */

const EVERY_ROW: Condition = { kind: 'and', items: [] };
const LIMITS = CONTRACT_LIMITS;

const schema = buildSchema(`
  type Query {
    getOrders(where: OrderFilter, take: Int, skip: Int): [Order!]!
    other(n: Int, s: String, b: Boolean): Int
  }
  input OrderFilter { status: TextOps, id: IdOps, and: [OrderFilter!], or: [OrderFilter!] }
  input TextOps { eq: String, in: [String!] }
  input IdOps { eq: ID, in: [ID!] }
  enum Status { NEW PAID }
  type Order { statement: String! }
`);

/** What each request planned: the arguments `plan()` saw, in order. */
let planned: Record<string, unknown>[] = [];
/** The scope the resolver reads under (a row rule makes it bounded). */
let scope: Condition = EVERY_ROW;

/**
 * A root read as `get<Base>` plans one: the statement is the arguments' own text, so an answer
 * shows which arguments its statement was planned from.
 */
const kept = new WeakMap();
const resolve: GraphQLFieldResolver<
  unknown,
  GatewayContext,
  Record<string, unknown>
> = withGraphQLArguments((_source, args, _ctx, info) => {
  const read = plannedRead(
    kept,
    info,
    scope,
    (): PlannedRead => {
      planned.push(args);
      return { query: { sql: valueKey(args)!, params: [] }, columns: [] };
    },
    () => EVERY_ROW,
  );
  return [{ statement: read.query!.sql }];
});
schema.getQueryType()!.getFields().getOrders.resolve = resolve as never;
schema.getQueryType()!.getFields().other.resolve = (_s, args: { n?: number }) => args.n ?? null;

const context = { budget: {} } as unknown as GatewayContext;

/** Compiled documents by text, as the endpoint's document cache keeps them. */
const documents = new Map<string, CompiledDocument>();

/** One request of `text` with `variables`, as the endpoint runs it (graphql-jit unless too large). */
async function request(text: string, variables: Record<string, unknown> = {}) {
  let compiled = documents.get(text);
  if (!compiled) documents.set(text, (compiled = compileDocument(schema, text, LIMITS, false)));
  const operation = selectOperation(compiled, undefined);
  const coerced = coerceRequestVariables(schema, operation, variables);
  return executeOperation(schema, compiled, operation, coerced, context);
}

/** The statement the literal form of the same arguments plans (the arguments' own text). */
async function literal(args: string): Promise<string> {
  const answer = await request(`{ getOrders${args} { statement } }`);
  return (answer.data as { getOrders: { statement: string }[] }).getOrders[0].statement;
}

async function statementOf(text: string, variables: Record<string, unknown>): Promise<string> {
  const answer = await request(text, variables);
  expect(answer.errors).toBeUndefined();
  return (answer.data as { getOrders: { statement: string }[] }).getOrders[0].statement;
}

beforeEach(() => {
  planned = [];
  scope = EVERY_ROW;
});

describe('valueKey', () => {
  it('gives equal values one key and tells every kind and shape apart', () => {
    expect(valueKey({ a: [1, 'x'], b: null })).toBe(valueKey({ a: [1, 'x'], b: null }));
    const distinct = [
      undefined,
      null,
      {},
      [],
      [null],
      0,
      -0,
      '0',
      1,
      '1',
      true,
      'true',
      BigInt(1),
      [1, 2],
      [1, 2, 3],
      [[1, 2]],
      [[1], 2],
      { a: 1 },
      { a: 1, b: null },
      { a: 1, b: undefined },
      { a: '1' },
      { a: { eq: 1 } },
      { 'a"': 1 },
      { a: '",' },
      { a: '', '': 'a' },
      ['a,b'],
      ['a', 'b'],
      Buffer.from('ab'),
      'ab',
      new Date(0),
      'D0',
    ];
    const keys = distinct.map((v) => valueKey(v));
    expect(keys.every((k) => typeof k === 'string')).toBe(true);
    expect(new Set(keys).size).toBe(distinct.length);
  });

  it('has no key for a value over the length, too deep, or of a kind it does not know', () => {
    expect(valueKey('x'.repeat(100), 50)).toBeUndefined();
    expect(
      valueKey(
        Array.from({ length: 100 }, () => 1),
        50,
      ),
    ).toBeUndefined();
    expect(valueKey({ ['k'.repeat(100)]: 1 }, 50)).toBeUndefined();
    let deep: unknown = 1;
    for (let i = 0; i < 400; i++) deep = [deep];
    expect(valueKey(deep, 1e6)).toBeUndefined();
    expect(valueKey({ a: new Map() })).toBeUndefined();
    expect(valueKey({ a: () => 1 })).toBeUndefined();
    expect(valueKey(Symbol('s'))).toBeUndefined();
  });
});

describe('sameVariablesAs', () => {
  it('gives a copy holding the same values the original’s key, and nothing else', () => {
    const where = { status: { eq: 'x' } };
    const original = { where, take: 5 };
    const copy = { where, take: 5 };
    sameVariablesAs(copy, original);
    expect(variablesKey(copy)).toBe(variablesKey(original));
    // Equal but not the same objects, or another value: the copy is keyed by its own walk.
    const lookalike = { where: { status: { eq: 'y' } }, take: 5 };
    sameVariablesAs(lookalike, original);
    expect(variablesKey(lookalike)).toBe(valueKey(lookalike));
    const more = { where, take: 5, skip: 1 };
    sameVariablesAs(more, original);
    expect(variablesKey(more)).toBe(valueKey(more));
    const fewer = { where };
    sameVariablesAs(fewer, original);
    expect(variablesKey(fewer)).toBe(valueKey(fewer));
  });
});

describe('coerceRequestVariables: one coercion', () => {
  const text = `query($w: OrderFilter, $t: Int, $s: String, $b: Boolean) {
    other(n: $t, s: $s, b: $b) getOrders(where: $w) { statement }
  }`;
  const operation = () => selectOperation(compileDocument(schema, text, LIMITS, false), undefined);

  it('hands typed variables to graphql-js as sent, without rewriting them first', () => {
    const sent = { w: { status: { eq: 'x' } }, t: 5 };
    const coerced = coerceRequestVariables(schema, operation(), sent);
    expect(coerced.inputs).toBe(sent);
    expect(coerced.values).toEqual(sent);
  });

  it('still applies the contract’s coercion to values graphql-js refuses', () => {
    const coerced = coerceRequestVariables(schema, operation(), {
      t: '42',
      s: 42,
      b: 'true',
      w: { status: { eq: 7, in: [1, 'a'] } },
    });
    expect(coerced.values).toEqual({
      t: 42,
      s: '42',
      b: true,
      w: { status: { eq: '7', in: ['1', 'a'] } },
    });
  });

  it('refuses what neither takes, with graphql-js’s messages', () => {
    let refusal: RequestRefusal | undefined;
    try {
      coerceRequestVariables(schema, operation(), { t: '4.5', b: 'yes' });
    } catch (error) {
      refusal = error as RequestRefusal;
    }
    expect(refusal).toBeInstanceOf(RequestRefusal);
    expect(refusal!.status).toBe(400);
    expect(refusal!.errors.map((e) => e.extensions?.code)).toEqual([
      'BAD_USER_INPUT',
      'BAD_USER_INPUT',
    ]);
    expect(refusal!.errors[0].message).toContain('$t');
    expect(refusal!.errors[1].message).toContain('$b');
  });

  it('coerces the same values sent again once per operation, and never keeps a refusal', () => {
    const op = operation();
    const first = coerceRequestVariables(schema, op, { t: '42', w: { status: { eq: 'x' } } });
    const again = coerceRequestVariables(schema, op, { t: '42', w: { status: { eq: 'x' } } });
    expect(again).toBe(first);
    expect(coerceRequestVariables(schema, op, { t: 43 }).values).toEqual({ t: 43 });
    // Another operation of the same text coerces on its own.
    expect(coerceRequestVariables(schema, operation(), { t: '42' })).not.toBe(first);
    for (let i = 0; i < 2; i++) {
      expect(() => coerceRequestVariables(schema, op, { t: 'x' })).toThrow(RequestRefusal);
    }
    // Another schema (an operation is compiled for one) is never handed another's values.
    const other = buildSchema(
      'type Query { other(n: Int, s: String, b: Boolean): Int getOrders(where: OrderFilter): [Order!]! } input OrderFilter { status: TextOps, id: IdOps } input TextOps { eq: String, in: [String!] } input IdOps { eq: ID, in: [ID!] } type Order { statement: String! }',
    );
    expect(coerceRequestVariables(other, op, { t: '42' }).values).toEqual({ t: 42 });
  });

  it('takes no variables for an operation that declares none', () => {
    const op = selectOperation(compileDocument(schema, '{ other }', LIMITS, false), undefined);
    expect(coerceRequestVariables(schema, op, { t: 1 })).toEqual({ inputs: {}, values: {} });
  });

  it('keeps the nesting bound before any coercion', () => {
    let deep: unknown = { status: { eq: 'x' } };
    for (let i = 0; i < 300; i++) deep = { and: [deep] };
    expect(() => coerceRequestVariables(schema, operation(), { w: deep })).toThrow(
      /nest more than 256 levels/,
    );
  });
});

describe('a root read with variables is planned once per distinct values', () => {
  const text =
    'query($where: OrderFilter, $take: Int, $skip: Int) { getOrders(where: $where, take: $take, skip: $skip) { statement } }';

  it('plans once for the same values, and the statement is the literal form’s', async () => {
    const variables = { where: { status: { eq: 'shipped' } }, take: 50, skip: 100 };
    const first = await statementOf(text, variables);
    const again = await statementOf(text, { ...variables });
    expect(planned).toHaveLength(1);
    expect(again).toBe(first);
    expect(first).toBe(await literal('(where: {status: {eq: "shipped"}}, take: 50, skip: 100)'));
  });

  it('plans again whenever a variable changes the statement, never reusing another’s', async () => {
    const forms: [Record<string, unknown>, string][] = [
      [{}, ''],
      [{ where: null }, '(where: null)'],
      [{ where: {} }, '(where: {})'],
      [{ where: { status: { eq: 'a' } } }, '(where: {status: {eq: "a"}})'],
      [{ where: { status: { eq: null } } }, '(where: {status: {eq: null}})'],
      [
        { where: { status: { eq: 'a' }, id: { eq: '1' } } },
        '(where: {status: {eq: "a"}, id: {eq: "1"}})',
      ],
      [{ where: { status: { in: ['a'] } } }, '(where: {status: {in: ["a"]}})'],
      [{ where: { status: { in: ['a', 'b'] } } }, '(where: {status: {in: ["a", "b"]}})'],
      [{ where: { status: { in: ['a', 'b', 'c'] } } }, '(where: {status: {in: ["a", "b", "c"]}})'],
      [{ where: { status: { in: [] } } }, '(where: {status: {in: []}})'],
      [{ where: { or: [{ status: { eq: 'a' } }] } }, '(where: {or: [{status: {eq: "a"}}]})'],
      [{ take: 5 }, '(take: 5)'],
      [{ take: 6 }, '(take: 6)'],
      [{ take: null }, '(take: null)'],
      [{ take: 5, skip: 10 }, '(take: 5, skip: 10)'],
    ];
    // Twice over, so every form is also found again after the others.
    const statements: string[] = [];
    for (const [variables] of forms) statements.push(await statementOf(text, variables));
    expect(planned).toHaveLength(forms.length);
    for (const [i, [variables]] of forms.entries()) {
      expect(await statementOf(text, variables)).toBe(statements[i]);
    }
    expect(planned).toHaveLength(forms.length);
    expect(new Set(statements).size).toBe(forms.length);
    for (const [i, [, args]] of forms.entries()) expect(statements[i]).toBe(await literal(args));
  });

  it('tells a list variable’s length apart inside a literal filter', async () => {
    const inList = 'query($ids: [ID!]) { getOrders(where: {id: {in: $ids}}) { statement } }';
    const one = await statementOf(inList, { ids: ['1'] });
    const two = await statementOf(inList, { ids: ['1', '2'] });
    const none = await statementOf(inList, {});
    expect(new Set([one, two, none]).size).toBe(3);
    expect(await statementOf(inList, { ids: ['1'] })).toBe(one);
    expect(one).toBe(await literal('(where: {id: {in: ["1"]}})'));
    expect(two).toBe(await literal('(where: {id: {in: ["1", "2"]}})'));
    expect(none).toBe(await literal('(where: {id: {}})'));
  });

  it('plans per request under a row rule that bounds the caller', async () => {
    scope = { kind: 'compare', column: 'owner', op: 'eq', value: 1 };
    await statementOf(text, { take: 7 });
    await statementOf(text, { take: 7 });
    expect(planned).toHaveLength(2);
  });

  it('plans per request where graphql-js executes (its field nodes are new each time)', async () => {
    // 90 reads of 12 fields each: over JIT_MAX_FIELDS expanded fields.
    const fragment = `fragment F on Order { ${'statement '.repeat(12)} }`;
    const aliases = Array.from({ length: 90 }, (_, i) => `a${i}: getOrders(take: $take) { ...F }`);
    const big = `query($take: Int) { ${aliases.join(' ')} } ${fragment}`;
    expect(90 * 13).toBeGreaterThan(JIT_MAX_FIELDS);
    await request(big, { take: 3 });
    await request(big, { take: 3 });
    expect(planned).toHaveLength(2 * 90);
  });
});

describe('the cost of an operation with variables', () => {
  const text =
    'query($where: OrderFilter, $take: Int) { getOrders(where: $where, take: $take) { statement } }';

  afterEach(() => jest.restoreAllMocks());

  it('is checked once per distinct values, refusals included', () => {
    const check = jest.spyOn(operationCost, 'checkRequestCost');
    const operation = selectOperation(compileDocument(schema, text, LIMITS, false), undefined);
    const cost = (variables: Record<string, unknown>) =>
      operation.cost(coerceRequestVariables(schema, operation, variables).values, LIMITS);
    const ten = cost({ take: 10 });
    expect(cost({ take: 10 })).toEqual(ten);
    expect(check).toHaveBeenCalledTimes(1);
    expect(cost({ take: 20 }).rows).toBe(20);
    expect(check).toHaveBeenCalledTimes(2);
    for (let i = 0; i < 2; i++) {
      expect(() => cost({ take: -1 })).toThrow(DomainError);
      expect(() => cost({ where: { status: { in: new Array(1001).fill('a') } } })).toThrow(
        DomainError,
      );
    }
    // The long list has no key: it is checked every time.
    expect(check).toHaveBeenCalledTimes(5);
    // Other limits are checked again.
    expect(() =>
      operation.cost(coerceRequestVariables(schema, operation, { take: 10 }).values, {
        ...LIMITS,
        rows: 5,
      }),
    ).toThrow(DomainError);
  });
});
