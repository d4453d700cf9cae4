import { buildSchema, parse, print, validate } from 'graphql';
import { argumentsAsVariables } from './graphql-form';

/** The e2e harness's `variables` form: every argument literal becomes a declared variable. */

const schema = buildSchema(`
  type Query { getOrders(where: OrderFilter, take: Int, order: [OrderOrder!]): [Order!]! }
  type Mutation { updateOrders(id: ID!, status: Status): Order }
  input OrderFilter { status: StatusOps, and: [OrderFilter!] }
  input StatusOps { eq: Status, in: [Status!] }
  input OrderOrder { id: Direction }
  enum Direction { ASC DESC }
  enum Status { PAID OPEN }
  type Order { id: ID! status: Status lines(take: Int): [Int!]! }
`);

describe('argumentsAsVariables', () => {
  it('declares a variable of the argument type for each literal, in operations and fragments', () => {
    const sent = argumentsAsVariables(schema, {
      query: `query A($t: Int) { getOrders(where: {and: [{status: {in: [PAID]}}]}, take: $t) { ...F } }
        query B { x: getOrders(order: [{id: DESC}]) { ...F @include(if: true) } }
        fragment F on Order { id lines(take: 2) }`,
      variables: { t: 3 },
      operationName: 'A',
    });
    expect(validate(schema, parse(sent.query))).toEqual([]);
    expect(print(parse(sent.query))).toBe(
      print(
        parse(`query A($t: Int, $_a1: OrderFilter, $_a4: Int) { getOrders(where: $_a1, take: $t) { ...F } }
        query B($_a2: [OrderOrder!], $_a3: Boolean!, $_a4: Int) { x: getOrders(order: $_a2) { ...F @include(if: $_a3) } }
        fragment F on Order { id lines(take: $_a4) }`),
      ),
    );
    expect(sent.variables).toEqual({
      t: 3,
      _a1: { and: [{ status: { in: ['PAID'] } }] },
      _a2: [{ id: 'DESC' }],
      _a3: true,
      _a4: 2,
    });
    expect(sent.operationName).toBe('A');
  });

  it('leaves arguments holding a variable, unknown arguments and unparsable texts as written', () => {
    const mixed = {
      query: 'mutation($s: Status) { updateOrders(id: 1, status: $s) { id } nope(x: 1) }',
      variables: { s: 'OPEN' },
    };
    const sent = argumentsAsVariables(schema, mixed);
    expect(print(parse(sent.query))).toBe(
      print(
        parse(
          'mutation($s: Status, $_a1: ID!) { updateOrders(id: $_a1, status: $s) { id } nope(x: 1) }',
        ),
      ),
    );
    expect(sent.variables).toEqual({ s: 'OPEN', _a1: 1 });
    const broken = { query: '{ getOrders(take: 1 }' };
    expect(argumentsAsVariables(schema, broken)).toBe(broken);
    const none = { query: '{ getOrders { id } }' };
    expect(argumentsAsVariables(schema, none)).toBe(none);
  });
});
