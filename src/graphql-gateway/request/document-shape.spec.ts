import { parse } from 'graphql';
import {
  ALIAS_LIMIT,
  countFragmentSpreads,
  NESTING_LIMIT,
  operationShapes,
  SHAPE_CAP,
  shapeViolations,
} from './document-shape';

/** Document shape limits of CONTRACT.md §6, measured with fragments expanded, in linear time. */

const LIMITS = { fragmentSpreads: 1000, queryTokens: 10_000 };

function shape(query: string) {
  return [...operationShapes(parse(query)).values()][0];
}

/** `getOrders { customer { orders { customer … { id } } } }` with `depth` navigation fields. */
function nested(depth: number): string {
  let body = 'id';
  for (let i = depth; i >= 1; i--) body = `${i % 2 === 1 ? 'customer' : 'orders'} { id ${body} }`;
  return `{ getOrders { ${body} } }`;
}

/** Fragments F0…F(n-1), each spreading the next one twice under two aliases. */
function doubling(n: number): string {
  const fragments = Array.from({ length: n }, (_, i) =>
    i === n - 1
      ? `fragment F${i} on Order { id }`
      : `fragment F${i} on Order { a: customer { orders { ...F${i + 1} } } b: customer { orders { ...F${i + 1} } } }`,
  );
  return `{ getOrders { ...F0 } } ${fragments.join(' ')}`;
}

describe('nesting (CONTRACT.md §6: 12 navigation fields below the root field)', () => {
  it('the limit is 12', () => expect(NESTING_LIMIT).toBe(12));

  it('counts navigation fields below the root field; the contract example has 2', () => {
    expect(shape('{ getOrders { customer { orders { id } } } }').depth).toBe(2);
    expect(shape(nested(13)).depth).toBe(13);
  });

  it('passes 12 levels and refuses 13 with a message naming the limit', () => {
    expect(shapeViolations(parse(nested(12)), LIMITS)).toEqual([]);
    expect(shapeViolations(parse(nested(13)), LIMITS)).toEqual([
      expect.stringMatching(/Nesting limit exceeded: .* nests 13 relations; the limit is 12/),
    ]);
  });

  it('counts levels reached through named fragments, inline fragments and root spreads', () => {
    const query = `
      { getOrders { customer { orders { customer { orders { customer { orders { ...A } } } } } } } }
      fragment A on Order { customer { orders { customer { orders { customer { orders { ...B } } } } } } }
      fragment B on Order { customer { id } }`;
    expect(shape(query).depth).toBe(13);
    expect(
      shape(nested(5).replace('{ getOrders { ', '{ getOrders { ... on Order { ') + ' }').depth,
    ).toBe(5);
    expect(
      shape('query { ...R } fragment R on Query { getOrders { customer { id } } }').depth,
    ).toBe(1);
  });

  it('does not count introspection fields, and does not loop on a fragment that spreads itself', () => {
    expect(shape('{ __schema { types { fields { name } } } getOrders { id } }').depth).toBe(0);
    expect(shape('{ getOrders { ...A } } fragment A on Order { customer { ...A } }').depth).toBe(1);
  });
});

describe('aliases (CONTRACT.md §6: 100, counted with fragments expanded)', () => {
  it('the limit is 100', () => expect(ALIAS_LIMIT).toBe(100));

  it('counts aliases at every level and once per spread of a fragment', () => {
    const sixty = Array.from({ length: 60 }, (_, i) => `a${i}: id`).join(' ');
    const query = `{ x: getOrders { ...F } y: getOrders { ...F } } fragment F on Order { ${sixty} }`;
    expect(shape(query).aliases).toBe(122);
    expect(shapeViolations(parse(query), LIMITS)).toEqual([
      expect.stringContaining('122 aliases with fragments expanded; the limit is 100'),
    ]);
  });

  it('passes 100 aliases', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `a${i}: countOrders`).join(' ');
    expect(shapeViolations(parse(`{ ${hundred} }`), LIMITS)).toEqual([]);
  });
});

describe('linear time whatever the fragments', () => {
  it('measures a document whose fragments each spread the next twice without walking the expansion', () => {
    // 60 levels expand to ~2^61 fields: a walk would never end; the meter measures each fragment once.
    const measured = shape(doubling(60));
    expect(measured.fields).toBe(SHAPE_CAP);
    expect(measured.aliases).toBe(SHAPE_CAP);
    const problems = shapeViolations(parse(doubling(60)), LIMITS);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('Alias limit exceeded'),
        expect.stringContaining('Nesting limit exceeded'),
        expect.stringContaining('Field limit exceeded'),
      ]),
    );
  });

  it('counts exactly where the expansion is small', () => {
    // F2 = {id}: 1 field; F1 = 2 × (customer, orders, F2) = 6; F0 = 2 × (customer, orders, F1) = 16.
    expect(shape(doubling(3))).toEqual({ fields: 1 + 16, aliases: 2 + 2 * 2, depth: 4 });
  });
});

describe('fragment spreads (CONTRACT.md §6: 1,000 by default)', () => {
  it('counts spreads as written', () => {
    expect(countFragmentSpreads(parse(doubling(4)))).toBe(1 + 3 * 2);
  });

  it('refuses more spreads than the ceiling, naming it', () => {
    expect(shapeViolations(parse(doubling(4)), { ...LIMITS, fragmentSpreads: 6 })).toEqual([
      'Fragment spread limit exceeded: the document has 7 fragment spreads; the limit is 6',
    ]);
  });
});
