import { buildSchema, execute } from 'graphql';
import { DomainError, ErrorCode } from '../../common/domain-error';
import {
  compileDocument,
  JIT_MAX_FIELDS,
  DocumentCache,
  RequestRefusal,
  selectOperation,
} from './compiled-operation';
import type { GatewayContext } from '../gateway-context';
import { coerceRequestVariables, executeOperation } from './execute-operation';
import { CONTRACT_LIMITS } from '../../../test/support/request-limits';

/** Request step 6: compile once per (schema, text), refuse before paying, cache only what compiled. */

const schema = buildSchema(`
  type Query {
    getOrders(where: OrderFilter, take: Int, skip: Int): [Order!]!
    countOrders(where: OrderFilter): Int!
    getCustomers(take: Int, skip: Int): [Customer!]!
  }
  type Mutation { deleteOrders(id: ID!): Boolean! }
  input OrderFilter { id: IDOps, total: FloatOps, and: [OrderFilter!], or: [OrderFilter!] }
  input IDOps { eq: ID, in: [ID!], nin: [ID!] }
  input FloatOps { gt: Float, in: [Float!] }
  type Order { id: ID! total: Float customer: Customer }
  type Customer { id: ID! name: String orders(take: Int, skip: Int, where: OrderFilter): [Order!]! }
`);

const LIMITS = CONTRACT_LIMITS;

function refusal(fn: () => unknown): RequestRefusal {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RequestRefusal);
    return error as RequestRefusal;
  }
  throw new Error('expected a refusal');
}

function domainError(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError');
}

/** The cost check of a text with variables, as the controller runs it. */
function cost(text: string, variables: Record<string, unknown> = {}, limits = LIMITS) {
  const compiled = compileDocument(schema, text, limits, false);
  const operation = selectOperation(compiled, undefined);
  return operation.cost(coerceRequestVariables(schema, operation, variables).values, limits);
}

describe('compileDocument', () => {
  it('refuses a text over the byte ceiling before parsing it', () => {
    const r = refusal(() =>
      compileDocument(
        schema,
        `{ countOrders } #${'x'.repeat(200)}`,
        { ...LIMITS, queryBytes: 100 },
        false,
      ),
    );
    expect(r.status).toBe(400);
    expect(r.errors[0].extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(r.errors[0].message).toContain('the limit is 100');
  });

  it('refuses a text over the token ceiling', () => {
    const text = `{ ${Array.from({ length: 60 }, (_, i) => `a${i}: countOrders`).join(' ')} }`;
    const r = refusal(() => compileDocument(schema, text, { ...LIMITS, queryTokens: 50 }, false));
    expect(r.errors[0].extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(r.errors[0].message).toMatch(/token limit of 50/);
  });

  it('keeps no location in the parsed document', () => {
    expect(compileDocument(schema, '{ countOrders }', LIMITS, false).document.loc).toBeUndefined();
  });

  it('answers validation errors with GRAPHQL_VALIDATION_FAILED, suggesting names only to builders', () => {
    const outsider = refusal(() => compileDocument(schema, '{ getOrder { id } }', LIMITS, false));
    expect(outsider.errors[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(outsider.errors[0].message).toBe('Cannot query field "getOrder" on type "Query".');
    const builder = refusal(() => compileDocument(schema, '{ getOrder { id } }', LIMITS, true));
    expect(builder.errors[0].message).toContain('Did you mean "getOrders"');
  });

  it('coerces literals before validating (CONTRACT.md §6 Values)', () => {
    expect(() =>
      compileDocument(schema, '{ getOrders(take: "5") { id } }', LIMITS, false),
    ).not.toThrow();
  });

  it('lists the root fields of each operation, fragments expanded', () => {
    const compiled = compileDocument(
      schema,
      'query A { ...R countOrders } query B { getCustomers { id } } fragment R on Query { getOrders { id } }',
      LIMITS,
      false,
    );
    expect(selectOperation(compiled, 'A').rootFieldNames.sort()).toEqual([
      'countOrders',
      'getOrders',
    ]);
    expect(refusal(() => selectOperation(compiled, undefined)).errors[0].message).toContain(
      'operation name',
    );
    expect(refusal(() => selectOperation(compiled, 'C')).status).toBe(400);
  });
});

describe('DocumentCache', () => {
  it('keeps only documents that compiled, and is bounded by bytes', () => {
    const cache = new DocumentCache(60_000);
    const compile = (text: string) => () => compileDocument(schema, text, LIMITS, false);
    expect(() => cache.compile('s1', compile('{ nope }'), '{ nope }')).toThrow(RequestRefusal);
    expect(cache.size).toBe(0);
    const first = cache.compile('s1', compile('{ countOrders }'), '{ countOrders }');
    expect(
      cache.compile(
        's1',
        () => {
          throw new Error('not compiled again');
        },
        '{ countOrders }',
      ),
    ).toBe(first);
    for (let i = 0; i < 50; i++) {
      const text = `{ a${i}: countOrders }`;
      cache.compile('s1', compile(text), text);
    }
    // 60,000 bytes hold six such entries (8 KB + 32 bytes per character + 256 bytes per expanded
    // field each, ~9 KB) before graphql-jit compiles any.
    expect(cache.size).toBe(6);
    cache.dropSchema('s1');
    expect(cache.size).toBe(0);
  });
});

describe('the worst-case rows estimate (CONTRACT.md §6 Limits)', () => {
  it('multiplies take along every path and sums over fields, 10,000 by default', () => {
    expect(cost('{ getOrders(take: 50) { id customer { id } } }').rows).toBe(50 + 50);
    expect(cost('{ getCustomers(take: 10) { orders(take: 5) { id } } countOrders }').rows).toBe(
      10 + 50,
    );
    expect(cost('{ getOrders { id } }').rows).toBe(10_000);
  });

  it('expands fragments and counts aliases separately', () => {
    const text =
      '{ a: getCustomers(take: 10) { ...O } b: getCustomers(take: 10) { ...O } } fragment O on Customer { orders(take: 3) { id } }';
    expect(cost(text).rows).toBe(2 * (10 + 30));
  });

  it('refuses a request over the ceiling with QUERY_TOO_COMPLEX naming the estimate and the ceiling', () => {
    const e = domainError(() => cost('{ getCustomers { orders { id } } }'));
    expect(e.code).toBe(ErrorCode.QueryTooComplex);
    expect(e.message).toContain('100,010,000 rows; the limit is 100,000');
  });

  it('reads take from variables, including variable defaults', () => {
    const text = 'query($t: Int = 20000) { getOrders(take: $t) { id } }';
    expect(domainError(() => cost(text)).message).toContain('take exceeds the limit of 10,000');
    expect(cost(text, { t: 7 }).rows).toBe(7);
  });

  it('refuses negative page values, a skip over its ceiling, long in lists and too many and/or items', () => {
    expect(domainError(() => cost('{ getOrders(take: -1) { id } }')).message).toContain(
      'take must be 0 or more',
    );
    expect(
      domainError(() => cost('{ getCustomers(take: 1) { orders(skip: -1) { id } } }')).message,
    ).toContain('orders: skip');
    expect(
      domainError(() => cost('{ getOrders(take: 1, skip: 100001) { id } }')).message,
    ).toContain('skip exceeds the limit of 100,000');
    const ids = JSON.stringify(Array.from({ length: 1001 }, (_, i) => String(i)));
    const inList = domainError(() =>
      cost(`query($ids: [ID!]) { countOrders(where: {id: {in: $ids}}) }`, { ids: JSON.parse(ids) }),
    );
    expect(inList.message).toContain('1001 items; the limit is 1,000');
    const ors = Array.from({ length: 101 }, () => '{total: {gt: 1}}').join(', ');
    expect(domainError(() => cost(`{ countOrders(where: {or: [${ors}]}) }`)).message).toContain(
      'the limit is 100',
    );
  });

  it('counts one statement per root field and per navigation occurrence, fragments expanded', () => {
    expect(cost('{ countOrders }').statements).toBe(1);
    expect(cost('{ a: countOrders b: countOrders getOrders(take: 1) { id } }').statements).toBe(3);
    expect(
      cost('{ getOrders(take: 1) { id total customer { id orders(take: 1) { id } } } }').statements,
    ).toBe(3);
    const text =
      '{ a: getCustomers(take: 1) { ...O } b: getCustomers(take: 1) { ...O } } fragment O on Customer { orders(take: 1) { customer { id } } }';
    expect(cost(text).statements).toBe(2 * 3);
  });

  it('refuses more statements than the ceiling with QUERY_TOO_COMPLEX naming both', () => {
    const counts = Array.from({ length: 4 }, (_, i) => `c${i}: countOrders`).join(' ');
    const e = domainError(() => cost(`{ ${counts} }`, {}, { ...LIMITS, statements: 3 }));
    expect(e.code).toBe(ErrorCode.QueryTooComplex);
    expect(e.message).toContain('runs 4 SQL statements');
    expect(e.message).toContain('the limit is 3');
  });

  it('computes the cost of an operation without variables once', () => {
    const compiled = compileDocument(schema, '{ getOrders(take: 5) { id } }', LIMITS, false);
    const operation = selectOperation(compiled, undefined);
    const first = operation.cost({}, LIMITS);
    expect(operation.cost({}, LIMITS)).toBe(first);
  });
});

describe('executeOperation with graphql-jit', () => {
  const rows = [
    { id: '1', total: 5 },
    { id: '2', total: null },
  ];
  const jitSchema = buildSchema(`
    type Query { getOrders: [Order] }
    type Order { id: ID! total: Float! }
  `);
  jitSchema.getQueryType()!.getFields().getOrders.resolve = () => rows;
  const context = { budget: {} } as unknown as GatewayContext;

  async function run(text: string, operationName?: string, variables = {}) {
    const compiled = compileDocument(jitSchema, text, LIMITS, false);
    const operation = selectOperation(compiled, operationName);
    const coerced = coerceRequestVariables(jitSchema, operation, variables);
    const ours = await executeOperation(jitSchema, compiled, operation, coerced, context);
    const theirs = await execute({
      schema: jitSchema,
      document: compiled.document,
      operationName,
      variableValues: coerced.inputs,
    });
    return { ours, theirs };
  }

  it('keeps @skip of a fragment spread to its own spread and operation', async () => {
    const text = `
      query A($s: Boolean!) { getOrders { ...F @skip(if: $s) } b: getOrders { ...F } }
      query B { getOrders { ...F } }
      fragment F on Order { id }`;
    for (const name of ['A', 'B']) {
      const { ours, theirs } = await run(text, name, { s: true });
      expect(ours.data).toEqual(theirs.data);
    }
    expect((await run(text, 'B')).ours.data).toEqual({ getOrders: [{ id: '1' }, { id: '2' }] });
  });

  it('runs an operation over JIT_MAX_FIELDS expanded fields with graphql-js', async () => {
    const fragment = `fragment F on Order { ${'id total '.repeat(6)} }`;
    const aliases = Array.from({ length: 90 }, (_, i) => `a${i}: getOrders { ...F }`).join(' ');
    const large = `{ ${aliases} } ${fragment}`;
    const compiled = compileDocument(jitSchema, large, LIMITS, false);
    const [big] = compiled.operations;
    expect(big.expandedFields).toBe(90 * 13);
    expect(big.expandedFields).toBeGreaterThan(JIT_MAX_FIELDS);
    expect(big.jitEligible).toBe(false);
    const { ours, theirs } = await run(large);
    expect(ours.data).toEqual(theirs.data);
    // graphql-js's null in a non-null field is answered with its message, as graphql-jit's is.
    expect(ours.errors).toHaveLength(90);
    expect(ours.errors![0]).toEqual({
      message: 'Cannot return null for non-nullable field Order.total.',
      path: ['a0', 1, 'total'],
    });
    expect(compiled.compiledQuery(jitSchema, big)).toBeNull();
    expect(big.jitRefused).toBe(false);
    expect(big.codeBytes).toBe(0);
  });

  it('charges graphql-jit code to the cached document as it is compiled, and the cache weighs it again', () => {
    const fields = 'id total '.repeat(20);
    const text = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: getOrders { ${fields} }`).join(' ')} }`;
    const compile = (n: number) => () => compileDocument(jitSchema, text(n), LIMITS, false);
    // What the two documents hold once compiled, measured on copies outside the cache.
    const [smallCopy, bigCopy] = [compile(2)(), compile(24)()];
    const planned = smallCopy.bytes + bigCopy.bytes;
    smallCopy.compiledQuery(jitSchema, smallCopy.operations[0]);
    bigCopy.compiledQuery(jitSchema, bigCopy.operations[0]);
    // graphql-jit's generated code, three bytes a character (measured up to two).
    expect(smallCopy.operations[0].codeBytes).toBeGreaterThan(1_000);
    // A bound that holds both planned, and each compiled, but not both compiled.
    const cache = new DocumentCache(smallCopy.bytes + bigCopy.bytes - 1);
    expect(planned).toBeLessThan(smallCopy.bytes + bigCopy.bytes - 1);
    const small = cache.compile('s', compile(2), 'a');
    const before = small.bytes;
    small.compiledQuery(jitSchema, small.operations[0]);
    expect(small.bytes).toBe(before + small.operations[0].codeBytes);
    const big = cache.compile('s', compile(24), 'b');
    expect(cache.size).toBe(2);
    big.compiledQuery(jitSchema, big.operations[0]);
    // Compiling the big one made the cache drop the least recently used (the small one).
    expect(cache.size).toBe(1);
    expect(
      cache.compile(
        's',
        () => {
          throw new Error('b was dropped');
        },
        'b',
      ),
    ).toBe(big);
  });

  it('runs operations whose variables are of a self-referencing input type (graphql-jit issues 81 and 175)', async () => {
    const recursive = buildSchema(`
      type Query { echo(where: Filter, take: Int = 7, ids: [ID!]): String }
      input Filter { id: IDOps, and: [Filter!], or: [Filter!], not: Filter }
      input IDOps { eq: ID, in: [ID!] }
    `);
    recursive.getQueryType()!.getFields().echo.resolve = (_s, _a, _c, info) =>
      JSON.stringify(info.variableValues);
    const text = `query Q($w: Filter, $v: Filter!, $t: Int = 3, $ids: [ID!], $skip: Boolean!) {
      echo(where: $w, take: $t, ids: $ids) @skip(if: $skip)
      again: echo(where: {or: [$v, {id: {eq: 9}}]})
    }`;
    const compiled = compileDocument(recursive, text, LIMITS, false);
    const operation = selectOperation(compiled, undefined);
    const variables = coerceRequestVariables(recursive, operation, {
      w: { and: [{ id: { eq: 5 } }, { not: { id: { in: [1, '2'] } } }] },
      v: { id: { eq: 6 } },
      ids: 4,
      skip: false,
    });
    const answer = await executeOperation(recursive, compiled, operation, variables, context);
    // graphql-jit compiled it (no fallback) and saw the values graphql-js coerced, defaults applied.
    expect(operation.jitRefused).toBe(false);
    expect(operation.codeBytes).toBeGreaterThan(0);
    const seen = {
      w: { and: [{ id: { eq: '5' } }, { not: { id: { in: ['1', '2'] } } }] },
      v: { id: { eq: '6' } },
      t: 3,
      ids: ['4'],
      skip: false,
    };
    expect(answer).toEqual({ data: { echo: JSON.stringify(seen), again: JSON.stringify(seen) } });
    const skipped = coerceRequestVariables(recursive, operation, { v: {}, skip: true });
    expect(await executeOperation(recursive, compiled, operation, skipped, context)).toEqual({
      data: { again: JSON.stringify({ v: {}, t: 3, skip: true }) },
    });
  });

  it('runs introspection of the schema with graphql-js, so it lists the schema’s own types only', async () => {
    const text = '{ __schema { types { name } } __type(name: "Order") { name } }';
    const { ours, theirs } = await run(text);
    expect(ours.data).toEqual(theirs.data);
    const names = (ours.data!.__schema as { types: { name: string }[] }).types.map((t) => t.name);
    expect(names).toContain('Order');
    expect(names).not.toContain('__CoercedVariable');
    const [operation] = compileDocument(jitSchema, text, LIMITS, false).operations;
    expect(operation.jitEligible).toBe(false);
    // __typename is no introspection of the schema: graphql-jit runs it.
    expect(
      compileDocument(jitSchema, '{ __typename }', LIMITS, false).operations[0].jitEligible,
    ).toBe(true);
  });

  it('answers errors as graphql-js does: path, null propagation, no empty locations', async () => {
    const { ours, theirs } = await run('{ getOrders { id total } }');
    expect(ours.data).toEqual(theirs.data);
    expect(ours.errors).toEqual([
      {
        message: 'Cannot return null for non-nullable field Order.total.',
        path: ['getOrders', 1, 'total'],
      },
    ]);
    expect(ours.errors).toEqual(theirs.errors?.map((e) => e.toJSON()));
  });
});
