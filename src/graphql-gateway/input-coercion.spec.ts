import {
  buildSchema,
  DocumentNode,
  execute,
  ExecutionResult,
  Kind,
  parse,
  print,
  validate,
  visit,
} from 'graphql';
import { coerceRequest } from './input-coercion';

/**
 * Input coercion of CONTRACT.md §6 "Values": numeric text into Int/Float, numbers into String,
 * "true"/"false" into Boolean, quoted enum values; in literals and variables; never guessing.
 */

const schema = buildSchema(`
  enum OrderStatus { PENDING PAID }
  scalar BigInt

  input OrderFilter {
    status: OrderStatus
    statuses: [OrderStatus!]
    ids: [Int!]
    total: Float
    note: String
    paid: Boolean
    and: [OrderFilter!]
  }

  type Query {
    echo(i: Int, f: Float, s: String, b: Boolean, id: ID, status: OrderStatus, ints: [Int!], big: BigInt, filter: OrderFilter): String
  }

  type Mutation {
    addOrder(quantity: Int!, price: Float!, note: String!, paid: Boolean!, status: OrderStatus!, tags: [String!]!): String
  }
`);

/** Root resolvers echo their arguments as JSON, so a test sees exactly what execution received. */
const rootValue = {
  echo: (args: Record<string, unknown>) => JSON.stringify(args),
  addOrder: (args: Record<string, unknown>) => JSON.stringify(args),
};

interface Run {
  document: DocumentNode;
  coerced: ReturnType<typeof coerceRequest>;
  errors: string[];
  result: ExecutionResult | undefined;
}

/** Parse, coerce, validate with every standard rule and, when valid, execute. */
async function run(
  query: string,
  variables?: Record<string, unknown>,
  operationName?: string,
): Promise<Run> {
  const document = parse(query);
  const coerced = coerceRequest(schema, document, variables, operationName);
  const errors = validate(schema, coerced.document).map((e) => e.message);
  const result = errors.length
    ? undefined
    : await execute({
        schema,
        document: coerced.document,
        rootValue,
        variableValues: coerced.variables,
        operationName,
      });
  return { document, coerced, errors, result };
}

/** The arguments a root field received, after checking the request succeeded. */
function received(r: Run, field = 'echo'): Record<string, unknown> {
  expect(r.errors).toEqual([]);
  expect(r.result?.errors).toBeUndefined();
  return JSON.parse((r.result?.data as Record<string, string>)[field]);
}

/** Kinds of every argument value in the document, in order (to show which AST nodes were rewritten). */
function valueKinds(document: DocumentNode): string[] {
  const kinds: string[] = [];
  visit(document, {
    Argument(node) {
      kinds.push(node.value.kind);
    },
  });
  return kinds;
}

/** A coerced document prints to text that parses back to the same document (the caller re-prints it). */
function expectReprintable(document: DocumentNode): void {
  const text = print(document);
  expect(print(parse(text))).toBe(text);
}

describe('coerceRequest: literals', () => {
  it('turns whole-number text into Int', async () => {
    const r = await run('{ echo(i: "42") }');
    expect(r.coerced.changed).toBe(true);
    expect(valueKinds(r.coerced.document)).toEqual([Kind.INT]);
    expect(received(r)).toEqual({ i: 42 });
  });

  it.each([
    ['-7', -7],
    ['0', 0],
    ['-0', 0],
    ['007', 7],
    ['2147483647', 2147483647],
    ['-2147483648', -2147483648],
  ])('Int from %p gives %p and prints as valid GraphQL', async (text, value) => {
    const r = await run(`{ echo(i: "${text}") }`);
    expect(received(r)).toEqual({ i: value });
    expect(print(r.coerced.document)).toContain(`echo(i: ${value})`);
    expectReprintable(r.coerced.document);
  });

  it.each([
    ['12.5', Kind.FLOAT, '12.5', 12.5],
    ['12.50', Kind.FLOAT, '12.50', 12.5],
    ['1e3', Kind.FLOAT, '1e3', 1000],
    ['-2.5E-2', Kind.FLOAT, '-2.5E-2', -0.025],
    ['42', Kind.INT, '42', 42],
    ['.5', Kind.FLOAT, '0.5', 0.5],
    ['-3.', Kind.INT, '-3', -3],
    ['0012.5', Kind.FLOAT, '12.5', 12.5],
  ])('Float from %p becomes a %s literal %p (value %p)', async (text, kind, token, value) => {
    const r = await run(`{ echo(f: "${text}") }`);
    expect(valueKinds(r.coerced.document)).toEqual([kind]);
    expect(print(r.coerced.document)).toContain(`echo(f: ${token})`);
    expectReprintable(r.coerced.document);
    expect(received(r)).toEqual({ f: value });
  });

  it('turns Int and Float literals into String with the same text', async () => {
    const r = await run('{ echo(s: 42) other: echo(s: 12.50) neg: echo(s: -1e3) }');
    expect(valueKinds(r.coerced.document)).toEqual([Kind.STRING, Kind.STRING, Kind.STRING]);
    expect(received(r)).toEqual({ s: '42' });
    expect(received(r, 'other')).toEqual({ s: '12.50' });
    expect(received(r, 'neg')).toEqual({ s: '-1e3' });
  });

  it('turns "true" and "false" into Boolean', async () => {
    const r = await run('{ yes: echo(b: "true") no: echo(b: "false") }');
    expect(valueKinds(r.coerced.document)).toEqual([Kind.BOOLEAN, Kind.BOOLEAN]);
    expect(received(r, 'yes')).toEqual({ b: true });
    expect(received(r, 'no')).toEqual({ b: false });
  });

  it('turns a quoted enum value name into the enum value, next to the bare form', async () => {
    const r = await run('{ quoted: echo(status: "PAID") bare: echo(status: PENDING) }');
    expect(valueKinds(r.coerced.document)).toEqual([Kind.ENUM, Kind.ENUM]);
    expect(received(r, 'quoted')).toEqual({ status: 'PAID' });
    expect(received(r, 'bare')).toEqual({ status: 'PENDING' });
  });

  it('coerces inside lists, nested input objects, lists of enums and single values where a list is expected', async () => {
    const r = await run(`{
      echo(
        ints: ["1", 2, "-3"]
        filter: {
          status: "PAID"
          statuses: ["PENDING", PAID]
          ids: ["10", 11]
          total: "9.99"
          note: 5
          paid: "false"
          and: [{ ids: "12", statuses: "PAID", and: { total: "1" } }]
        }
      )
    }`);
    expect(r.coerced.changed).toBe(true);
    expectReprintable(r.coerced.document);
    expect(received(r)).toEqual({
      ints: [1, 2, -3],
      filter: {
        status: 'PAID',
        statuses: ['PENDING', 'PAID'],
        ids: [10, 11],
        total: 9.99,
        note: '5',
        paid: false,
        and: [{ ids: [12], statuses: ['PAID'], and: [{ total: 1 }] }],
      },
    });
  });

  it('coerces the non-null arguments of a mutation', async () => {
    const r = await run(
      'mutation { addOrder(quantity: "3", price: "19.90", note: 7, paid: "true", status: "PENDING", tags: [1, "a", 2.5]) }',
    );
    expect(received(r, 'addOrder')).toEqual({
      quantity: 3,
      price: 19.9,
      note: '7',
      paid: true,
      status: 'PENDING',
      tags: ['1', 'a', '2.5'],
    });
  });

  it('coerces variable default values', async () => {
    const r = await run(
      'query ($i: Int = "5", $b: Boolean! = "true", $s: String = 12, $ints: [Int!] = ["1", 2]) { echo(i: $i, b: $b, s: $s, ints: $ints) }',
    );
    expect(
      print(r.coerced.document).startsWith(
        'query ($i: Int = 5, $b: Boolean! = true, $s: String = "12", $ints: [Int!] = [1, 2])',
      ),
    ).toBe(true);
    expect(received(r)).toEqual({ i: 5, b: true, s: '12', ints: [1, 2] });
  });

  it('coerces directive arguments', async () => {
    const r = await run(
      '{ shown: echo(i: 1) @include(if: "true") hidden: echo(i: 2) @skip(if: "true") }',
    );
    expect(r.errors).toEqual([]);
    expect(r.result).toEqual({ data: { shown: JSON.stringify({ i: 1 }) } });
  });

  it('coerces inside fragments and inline fragments', async () => {
    const r = await run(`
      query { ...Echoes ... on Query { inline: echo(b: "false") } }
      fragment Echoes on Query { echo(i: "1", status: "PAID") }
    `);
    expect(received(r)).toEqual({ i: 1, status: 'PAID' });
    expect(received(r, 'inline')).toEqual({ b: false });
  });

  it('coerces every operation of a document, whichever one runs', async () => {
    const query = `
      query Read { echo(i: "1") }
      mutation Write { addOrder(quantity: "2", price: 3, note: 4, paid: "false", status: "PAID", tags: []) }
    `;
    const read = await run(query, undefined, 'Read');
    const write = await run(query, undefined, 'Write');
    expect(print(read.coerced.document)).toBe(print(write.coerced.document));
    expect(received(read)).toEqual({ i: 1 });
    expect(received(write, 'addOrder')).toEqual({
      quantity: 2,
      price: 3,
      note: '4',
      paid: false,
      status: 'PAID',
      tags: [],
    });
  });

  it('does not mutate the document it was given', async () => {
    const r = await run('{ echo(i: "42", filter: { ids: ["1"] }) }');
    expect(r.coerced.document).not.toBe(r.document);
    expect(print(r.document)).toBe('{\n  echo(i: "42", filter: {ids: ["1"]})\n}');
  });
});

describe('coerceRequest: variables', () => {
  const query =
    'query ($i: Int, $f: Float, $s: String, $b: Boolean, $status: OrderStatus) { echo(i: $i, f: $f, s: $s, b: $b, status: $status) }';

  it('coerces numeric text, numbers and boolean text; leaves enum names (already strings)', async () => {
    const variables = { i: '42', f: '12.5', s: 42, b: 'true', status: 'PAID' };
    const r = await run(query, variables);
    expect(r.coerced.changed).toBe(false);
    expect(r.coerced.document).toBe(r.document);
    expect(r.coerced.variables).toEqual({ i: 42, f: 12.5, s: '42', b: true, status: 'PAID' });
    expect(variables).toEqual({ i: '42', f: '12.5', s: 42, b: 'true', status: 'PAID' });
    expect(received(r)).toEqual({ i: 42, f: 12.5, s: '42', b: true, status: 'PAID' });
  });

  it.each([
    ['f', '1e3', 1000],
    ['f', '.5', 0.5],
    ['f', '7', 7],
    ['i', '-2147483648', -2147483648],
    ['i', '007', 7],
    ['s', 12.5, '12.5'],
    ['s', 0, '0'],
    ['b', 'false', false],
  ])('$%s = %p becomes %p', async (name, value, expected) => {
    const r = await run(query, { [name]: value });
    expect(r.coerced.variables).toEqual({ [name]: expected });
    expect(received(r)).toEqual({ [name]: expected });
  });

  it('coerces through input objects, lists and single values where a list is expected', async () => {
    const filter = {
      status: 'PAID',
      statuses: ['PENDING', 'PAID'],
      ids: ['10', 11],
      total: '9.99',
      note: 5,
      paid: 'false',
      and: [{ ids: '12', and: { total: '1' } }],
    };
    const r = await run(
      'query ($filter: OrderFilter, $ints: [Int!]!) { echo(filter: $filter, ints: $ints) }',
      { filter, ints: '7' },
    );
    expect(r.coerced.variables).toEqual({
      filter: {
        status: 'PAID',
        statuses: ['PENDING', 'PAID'],
        ids: [10, 11],
        total: 9.99,
        note: '5',
        paid: false,
        and: [{ ids: 12, and: { total: 1 } }],
      },
      ints: 7,
    });
    expect(filter.ids).toEqual(['10', 11]);
    expect(received(r)).toEqual({
      filter: {
        status: 'PAID',
        statuses: ['PENDING', 'PAID'],
        ids: [10, 11],
        total: 9.99,
        note: '5',
        paid: false,
        and: [{ ids: [12], and: [{ total: 1 }] }],
      },
      ints: [7],
    });
  });

  it('coerces the non-null variables of a mutation', async () => {
    const r = await run(
      'mutation ($q: Int!, $p: Float!, $n: String!, $paid: Boolean!, $st: OrderStatus!, $tags: [String!]!) { addOrder(quantity: $q, price: $p, note: $n, paid: $paid, status: $st, tags: $tags) }',
      { q: '3', p: '19.90', n: 7, paid: 'true', st: 'PENDING', tags: [1, 'a', 2.5] },
    );
    expect(received(r, 'addOrder')).toEqual({
      quantity: 3,
      price: 19.9,
      note: '7',
      paid: true,
      status: 'PENDING',
      tags: ['1', 'a', '2.5'],
    });
  });

  it('coerces variables used inside fragments by their operation declaration', async () => {
    const r = await run('query ($i: Int) { ...F } fragment F on Query { echo(i: $i) }', { i: '9' });
    expect(received(r)).toEqual({ i: 9 });
  });

  it('follows the declarations of the operation named by operationName', async () => {
    const query2 = 'query AsInt($x: Int) { echo(i: $x) } query AsText($x: String) { echo(s: $x) }';
    const asInt = await run(query2, { x: '5' }, 'AsInt');
    expect(asInt.coerced.variables).toEqual({ x: 5 });
    expect(received(asInt)).toEqual({ i: 5 });
    const asText = await run(query2, { x: 5 }, 'AsText');
    expect(asText.coerced.variables).toEqual({ x: '5' });
    expect(received(asText)).toEqual({ s: '5' });
  });

  it('leaves variables alone when the operation to run is ambiguous (execution refuses it anyway)', async () => {
    const variables = { x: '5' };
    const r = await run(
      'query A($x: Int) { echo(i: $x) } query B($x: Int) { echo(i: $x) }',
      variables,
    );
    expect(r.coerced.variables).toBe(variables);
    expect(r.result?.errors?.map((e) => e.message)).toEqual([
      'Must provide operation name if query contains multiple operations.',
    ]);
    const unknown = await run('query A($x: Int) { echo(i: $x) }', variables, 'Missing');
    expect(unknown.coerced.variables).toBe(variables);
    expect(unknown.result?.errors?.map((e) => e.message)).toEqual([
      'Unknown operation named "Missing".',
    ]);
  });

  it('leaves undeclared variables and unknown input fields as sent', () => {
    const document = parse('query ($filter: OrderFilter) { echo(filter: $filter) }');
    const variables = { filter: { ids: ['1'], nope: '2' }, extra: '3' };
    const coerced = coerceRequest(schema, document, variables);
    expect(coerced.variables).toEqual({ filter: { ids: [1], nope: '2' }, extra: '3' });
    expect(variables.filter.ids).toEqual(['1']);
  });

  it('does not add variables that were not sent', () => {
    const coerced = coerceRequest(
      schema,
      parse('query ($i: Int, $s: String) { echo(i: $i, s: $s) }'),
      { i: '1' },
    );
    expect(coerced.variables).toEqual({ i: 1 });
    expect(Object.keys(coerced.variables)).toEqual(['i']);
  });
});

describe('coerceRequest: nothing to coerce', () => {
  it('returns the very same document (and variables) when nothing needs coercion', async () => {
    const document = parse(
      'query ($i: Int, $status: OrderStatus) { echo(i: $i, f: 1.5, s: "x", b: true, status: PAID, id: 7, filter: { ids: [1], status: $status }) other: echo(status: $status) }',
    );
    const variables = { i: 1, status: 'PAID' };
    const coerced = coerceRequest(schema, document, variables);
    expect(coerced.changed).toBe(false);
    expect(coerced.document).toBe(document);
    expect(coerced.variables).toBe(variables);
    expect(validate(schema, coerced.document)).toEqual([]);
  });

  it('returns empty variables when none were sent', () => {
    const document = parse('{ echo(i: 1) }');
    expect(coerceRequest(schema, document, undefined)).toEqual({
      document,
      variables: {},
      changed: false,
    });
    expect(coerceRequest(schema, document, undefined).document).toBe(document);
  });

  it('leaves ID and custom scalars, which take numbers or text themselves', async () => {
    const r = await run(
      'query ($id: ID, $big: BigInt) { a: echo(id: 7, big: 12) b: echo(id: "7", big: "12") c: echo(id: $id, big: $big) }',
      { id: 8, big: '13' },
    );
    expect(r.coerced.document).toBe(r.document);
    expect(r.coerced.variables).toEqual({ id: 8, big: '13' });
    expect(received(r, 'a')).toEqual({ id: '7', big: 12 });
    expect(received(r, 'b')).toEqual({ id: '7', big: '12' });
    expect(received(r, 'c')).toEqual({ id: '8', big: '13' });
  });
});

describe('coerceRequest: never guesses', () => {
  it.each([
    ['i', '"12.5"', 'Int cannot represent non-integer value: "12.5"'],
    ['i', '"1e3"', 'Int cannot represent non-integer value: "1e3"'],
    ['i', '" 12"', 'Int cannot represent non-integer value: " 12"'],
    ['i', '"12abc"', 'Int cannot represent non-integer value: "12abc"'],
    ['i', '""', 'Int cannot represent non-integer value: ""'],
    ['i', '"2147483648"', 'Int cannot represent non-integer value: "2147483648"'],
    ['i', 'true', 'Int cannot represent non-integer value: true'],
    ['f', '"abc"', 'Float cannot represent non numeric value: "abc"'],
    ['f', '"12,5"', 'Float cannot represent non numeric value: "12,5"'],
    ['f', '"1e999"', 'Float cannot represent non numeric value: "1e999"'],
    ['f', '""', 'Float cannot represent non numeric value: ""'],
    ['s', 'true', 'String cannot represent a non string value: true'],
    ['b', '"TRUE"', 'Boolean cannot represent a non boolean value: "TRUE"'],
    ['b', '"yes"', 'Boolean cannot represent a non boolean value: "yes"'],
    ['b', '"1"', 'Boolean cannot represent a non boolean value: "1"'],
    ['b', '1', 'Boolean cannot represent a non boolean value: 1'],
    ['status', '"SHIPPED"', 'Enum "OrderStatus" cannot represent non-enum value: "SHIPPED".'],
    [
      'status',
      '"paid"',
      'Enum "OrderStatus" cannot represent non-enum value: "paid". Did you mean the enum value "PAID"?',
    ],
  ])('literal %s: %s stays and fails validation', async (name, literal, message) => {
    const r = await run(`{ echo(${name}: ${literal}) }`);
    expect(r.coerced.changed).toBe(false);
    expect(r.coerced.document).toBe(r.document);
    expect(r.errors).toEqual([message]);
  });

  it('leaves ambiguous values inside lists and input objects', async () => {
    const r = await run(
      '{ echo(ints: ["1", "1.5"], filter: { ids: ["x"], statuses: ["SHIPPED", "PAID"], paid: "yes" }) }',
    );
    expect(print(r.coerced.document)).toBe(
      print(
        parse(
          '{ echo(ints: [1, "1.5"], filter: { ids: ["x"], statuses: ["SHIPPED", PAID], paid: "yes" }) }',
        ),
      ),
    );
    expect(r.errors).toEqual([
      'Int cannot represent non-integer value: "1.5"',
      'Int cannot represent non-integer value: "x"',
      'Enum "OrderStatus" cannot represent non-enum value: "SHIPPED".',
      'Boolean cannot represent a non boolean value: "yes"',
    ]);
  });

  it('leaves values with no expected type (unknown argument, unknown input field)', async () => {
    const r = await run('{ echo(nope: "1", filter: { missing: "2", ids: ["3"] }) }');
    expect(print(r.coerced.document)).toBe(
      print(parse('{ echo(nope: "1", filter: { missing: "2", ids: [3] }) }')),
    );
    expect(r.errors).toEqual([
      'Unknown argument "nope" on field "Query.echo".',
      'Field "missing" is not defined by type "OrderFilter".',
    ]);
  });

  it.each([
    ['i', 'Int', '12.5', 'Int cannot represent non-integer value: "12.5"'],
    ['i', 'Int', '1e3', 'Int cannot represent non-integer value: "1e3"'],
    ['i', 'Int', ' 12', 'Int cannot represent non-integer value: " 12"'],
    ['i', 'Int', '12abc', 'Int cannot represent non-integer value: "12abc"'],
    ['i', 'Int', '', 'Int cannot represent non-integer value: ""'],
    ['i', 'Int', '2147483648', 'Int cannot represent non-integer value: "2147483648"'],
    ['f', 'Float', 'abc', 'Float cannot represent non numeric value: "abc"'],
    ['f', 'Float', '1e999', 'Float cannot represent non numeric value: "1e999"'],
    ['s', 'String', true, 'String cannot represent a non string value: true'],
    ['b', 'Boolean', 'TRUE', 'Boolean cannot represent a non boolean value: "TRUE"'],
    ['b', 'Boolean', 'yes', 'Boolean cannot represent a non boolean value: "yes"'],
    ['b', 'Boolean', '1', 'Boolean cannot represent a non boolean value: "1"'],
    ['b', 'Boolean', 1, 'Boolean cannot represent a non boolean value: 1'],
    ['status', 'OrderStatus', 'SHIPPED', 'Value "SHIPPED" does not exist in "OrderStatus" enum.'],
  ])('variable $%s: %s = %p stays and fails execution', async (name, type, value, message) => {
    const variables = { [name]: value };
    const r = await run(`query ($${name}: ${type}) { echo(${name}: $${name}) }`, variables);
    expect(r.coerced.variables).toBe(variables);
    expect(r.result?.errors?.map((e) => e.message)).toEqual([
      `Variable "$${name}" got invalid value ${JSON.stringify(value)}; ${message}`,
    ]);
  });

  it('leaves ambiguous values inside variable lists and input objects', async () => {
    const variables = { filter: { ids: ['1', '1.5'], paid: 'yes' } };
    const r = await run('query ($filter: OrderFilter) { echo(filter: $filter) }', variables);
    expect(r.coerced.variables).toEqual({ filter: { ids: [1, '1.5'], paid: 'yes' } });
    expect(r.result?.errors?.map((e) => e.message)).toEqual([
      'Variable "$filter" got invalid value "1.5" at "filter.ids[1]"; Int cannot represent non-integer value: "1.5"',
      'Variable "$filter" got invalid value "yes" at "filter.paid"; Boolean cannot represent a non boolean value: "yes"',
    ]);
  });
});

describe('coerceRequest: PostgreSQL array arguments (lists with nullable elements, issue 11 item 1)', () => {
  const lists = buildSchema(`
    scalar BigInt
    type Query { ok: Boolean }
    type Mutation {
      addLists(counts: [Int], tags: [String], flags: [Boolean], ratios: [Float], bigs: [BigInt]): String
    }
  `);
  const echo = { addLists: (args: Record<string, unknown>) => JSON.stringify(args) };
  const runLists = async (query: string, variables?: Record<string, unknown>) => {
    const coerced = coerceRequest(lists, parse(query), variables);
    expect(validate(lists, coerced.document).map((e) => e.message)).toEqual([]);
    const result = await execute({
      schema: lists,
      document: coerced.document,
      rootValue: echo,
      variableValues: coerced.variables,
    });
    expect(result.errors).toBeUndefined();
    return JSON.parse((result.data as Record<string, string>).addLists) as Record<string, unknown>;
  };

  it('coerces each element of a literal list as the element scalar, keeping null elements', async () => {
    expect(
      await runLists(
        'mutation { addLists(counts: ["1", null, 2], tags: [12, null, "x"], flags: ["true", null], ratios: ["1.5", 2], bigs: [5, "9007199254740993"]) }',
      ),
    ).toEqual({
      counts: [1, null, 2],
      tags: ['12', null, 'x'],
      flags: [true, null],
      ratios: [1.5, 2],
      bigs: [5, '9007199254740993'],
    });
  });

  it('coerces each element of a variable list the same way; an empty list stays empty', async () => {
    expect(
      await runLists(
        'mutation ($c: [Int], $t: [String], $f: [Boolean]) { addLists(counts: $c, tags: $t, flags: $f) }',
        { c: ['7', null], t: [], f: ['false'] },
      ),
    ).toEqual({ counts: [7, null], tags: [], flags: [false] });
  });

  it('leaves an element it cannot convert exactly for validation to refuse', () => {
    const coerced = coerceRequest(lists, parse('mutation { addLists(counts: ["x", "1.5"]) }'), {});
    expect(validate(lists, coerced.document).map((e) => e.message)).toEqual([
      'Int cannot represent non-integer value: "x"',
      'Int cannot represent non-integer value: "1.5"',
    ]);
  });
});
