import {
  buildSchema,
  DocumentNode,
  GraphQLError,
  Kind,
  OperationDefinitionNode,
  parse,
  specifiedRules,
  validate,
  ValidationRule,
} from 'graphql';
import {
  ALIAS_LIMIT,
  AliasLimitRule,
  checkPageArguments,
  NESTING_LIMIT,
  NestingLimitRule,
  rootFieldsOf,
} from './request-limits';

/** Limits of CONTRACT.md §6: nesting 12, aliases 100, take 10,000; checked before any SQL. */

const schema = buildSchema(`
  type Query {
    getOrders(take: Int, skip: Int): [Order!]!
    getCustomers(take: Int, skip: Int): [Customer!]!
  }
  type Order {
    id: ID!
    total: Float
    customer: Customer
  }
  type Customer {
    id: ID!
    name: String
    orders(take: Int, skip: Int): [Order!]!
  }
`);

/** Messages of the given rule alone, and with every standard rule (so the documents are valid GraphQL). */
function errors(query: string, rule: ValidationRule): string[] {
  const document = parse(query);
  const standard = validate(schema, document, specifiedRules);
  expect(standard.map((e) => e.message)).toEqual([]);
  return validate(schema, document, [rule]).map((e) => e.message);
}

/** `getOrders { customer { orders { customer … { id } } } }` with `depth` navigation fields. */
function nested(depth: number): string {
  let body = 'id';
  for (let i = depth; i >= 1; i--) body = `${i % 2 === 1 ? 'customer' : 'orders'} { id ${body} }`;
  return `{ getOrders { ${body} } }`;
}

function operationOf(document: DocumentNode): OperationDefinitionNode {
  return document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
}

describe('NestingLimitRule', () => {
  it('the limit is 12', () => {
    expect(NESTING_LIMIT).toBe(12);
  });

  it('counts navigation fields below the root field (the contract example has 2)', () => {
    expect(errors('{ getOrders { customer { orders { id } } } }', NestingLimitRule)).toEqual([]);
    // Scalar fields and the root field itself do not count: 13 navigation fields report 13.
    const [error] = validate(schema, parse(nested(13)), [NestingLimitRule]);
    expect(error.message).toContain('nests 13 relations');
  });

  it('passes 12 levels', () => {
    expect(errors(nested(12), NestingLimitRule)).toEqual([]);
  });

  it('refuses 13 levels with a message naming the limit and the root field', () => {
    const messages = errors(nested(13), NestingLimitRule);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('Nesting limit exceeded');
    expect(messages[0]).toContain('"getOrders"');
    expect(messages[0]).toContain('13');
    expect(messages[0]).toContain('the limit is 12');
  });

  it('reports a GraphQLError naming the depth it found', () => {
    const [error] = validate(schema, parse(nested(14)), [NestingLimitRule]);
    expect(error).toBeInstanceOf(GraphQLError);
    expect(error.message).toContain('nests 14 relations');
  });

  it('measures each root field on its own', () => {
    const deep = nested(13).slice(1, -1); // the root field without the outer braces
    const messages = errors(`{ getCustomers { orders { id } } ${deep} }`, NestingLimitRule);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('"getOrders"');
  });

  it('counts levels reached through named fragments', () => {
    // 6 levels in the operation + 6 in fragment A + 1 in fragment B = 13.
    const query = `
      { getOrders { customer { orders { customer { orders { customer { orders { ...A } } } } } } } }
      fragment A on Order { customer { orders { customer { orders { customer { orders { ...B } } } } } } }
      fragment B on Order { customer { id } }
    `;
    expect(errors(query, NestingLimitRule)).toEqual([
      expect.stringContaining('nests 13 relations'),
    ]);
    const twelve = query.replace(
      'fragment B on Order { customer { id } }',
      'fragment B on Order { id }',
    );
    expect(twelve).not.toBe(query);
    expect(errors(twelve, NestingLimitRule)).toEqual([]);
  });

  it('counts levels reached through inline fragments, without counting the fragment itself', () => {
    const inline13 = nested(13)
      .replace('{ getOrders { ', '{ getOrders { ... on Order { ')
      .replace(/ } }$/, ' } } }');
    expect(errors(inline13, NestingLimitRule)).toEqual([
      expect.stringContaining('nests 13 relations'),
    ]);
    const inline12 = nested(12)
      .replace('{ getOrders { ', '{ getOrders { ... on Order { ')
      .replace(/ } }$/, ' } } }');
    expect(errors(inline12, NestingLimitRule)).toEqual([]);
  });

  it('counts a fragment spread at the root of the operation', () => {
    const deep = nested(13).slice(1, -1);
    const query = `query { ...Root } fragment Root on Query { ${deep} }`;
    expect(errors(query, NestingLimitRule)).toEqual([expect.stringContaining('"getOrders"')]);
  });

  it('does not count introspection fields', () => {
    let inner = 'name';
    for (let i = 0; i < 14; i++) inner = `ofType { ${inner} }`;
    const introspection = `{ __schema { types { fields { type { ${inner} } } } } }`;
    expect(errors(introspection, NestingLimitRule)).toEqual([]);
    // __typename next to a 12-level selection adds nothing.
    const withTypename = nested(12).replace('{ id id }', '{ id id __typename }');
    expect(withTypename).toContain('__typename');
    expect(errors(withTypename, NestingLimitRule)).toEqual([]);
  });

  it('does not loop on a fragment that spreads itself', () => {
    const query = `{ getOrders { ...Loop } } fragment Loop on Order { customer { orders { ...Loop } } }`;
    const result = validate(schema, parse(query), [NestingLimitRule]);
    expect(result).toEqual([]);
  });
});

describe('rootFieldsOf', () => {
  it('expands fragments and inline fragments at the root', () => {
    const document = parse(
      `query { a: getOrders { id } ... on Query { getCustomers { id } } ...F } fragment F on Query { getOrders { id } }`,
    );
    expect(
      rootFieldsOf(operationOf(document), document).map((f) => f.alias?.value ?? f.name.value),
    ).toEqual(['a', 'getCustomers', 'getOrders']);
  });
});

describe('AliasLimitRule', () => {
  function aliased(count: number): string {
    const fields = Array.from({ length: count }, (_, i) => `a${i}: id`).join(' ');
    return `{ getOrders { ${fields} } }`;
  }

  it('the limit is 100', () => {
    expect(ALIAS_LIMIT).toBe(100);
  });

  it('passes 100 aliases', () => {
    expect(errors(aliased(100), AliasLimitRule)).toEqual([]);
  });

  it('refuses 101 aliases with a message naming the limit', () => {
    const result = validate(schema, parse(aliased(101)), [AliasLimitRule]);
    expect(result).toHaveLength(1);
    expect(result[0].message).toBe(
      'Alias limit exceeded: the request has 101 aliases; the limit is 100',
    );
  });

  it('counts aliases at every level and in fragments', () => {
    const half = Array.from({ length: 50 }, (_, i) => `b${i}: name`).join(' ');
    const rest = Array.from({ length: 50 }, (_, i) => `c${i}: id`).join(' ');
    const query = `{ root: getOrders { customer { ...C } ${rest} } } fragment C on Customer { ${half} }`;
    // 1 + 50 + 50 = 101
    expect(errors(query, AliasLimitRule)).toEqual([
      'Alias limit exceeded: the request has 101 aliases; the limit is 100',
    ]);
    expect(errors(query.replace('root: ', ''), AliasLimitRule)).toEqual([]);
  });
});

describe('checkPageArguments', () => {
  function check(query: string, variables: Record<string, unknown> = {}): void {
    const document = parse(query);
    checkPageArguments(operationOf(document), document, variables);
  }

  function refusal(query: string, variables: Record<string, unknown> = {}): GraphQLError {
    try {
      check(query, variables);
    } catch (error) {
      expect(error).toBeInstanceOf(GraphQLError);
      return error as GraphQLError;
    }
    throw new Error('expected a refusal');
  }

  it('accepts literals within the limits and absent arguments', () => {
    expect(() => check('{ getOrders(take: 10000, skip: 0) { id } }')).not.toThrow();
    expect(() => check('{ getOrders { id customer { orders(take: 0) { id } } } }')).not.toThrow();
  });

  it('refuses a literal take above 10,000, naming the field and the limit, as HTTP 400', () => {
    const error = refusal('{ getOrders(take: 10001) { id } }');
    expect(error.message).toBe('getOrders: take exceeds the limit of 10,000 rows');
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.extensions.http).toEqual({ status: 400 });
  });

  it('refuses negative literals', () => {
    expect(refusal('{ getOrders(take: -1) { id } }').message).toBe(
      'getOrders: take must be 0 or more',
    );
    expect(refusal('{ getOrders(skip: -5) { id } }').message).toBe(
      'getOrders: skip must be 0 or more',
    );
  });

  it('reads take and skip from variables', () => {
    const query = 'query Q($t: Int, $s: Int) { getOrders(take: $t, skip: $s) { id } }';
    expect(() => check(query, { t: 10000, s: 3 })).not.toThrow();
    expect(() => check(query, {})).not.toThrow();
    expect(() => check(query, { t: null, s: null })).not.toThrow();
    expect(refusal(query, { t: 20000 }).message).toBe(
      'getOrders: take exceeds the limit of 10,000 rows',
    );
    expect(refusal(query, { t: 5, s: -1 }).message).toBe('getOrders: skip must be 0 or more');
  });

  it('checks nested one-to-many arguments, also inside fragments', () => {
    expect(refusal('{ getCustomers { orders(take: 10001) { id } } }').message).toBe(
      'orders: take exceeds the limit of 10,000 rows',
    );
    const viaFragment = `
      query Q($n: Int) { getCustomers { ...F } }
      fragment F on Customer { ... on Customer { orders(take: $n) { id } } }
    `;
    expect(refusal(viaFragment, { n: 10001 }).message).toBe(
      'orders: take exceeds the limit of 10,000 rows',
    );
    expect(() => check(viaFragment, { n: 50 })).not.toThrow();
  });
});
