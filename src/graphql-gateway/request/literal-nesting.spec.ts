import { buildSchema } from 'graphql';
import {
  compileDocument,
  MAX_LITERAL_DEPTH,
  MAX_SELECTION_DEPTH,
  RequestRefusal,
  selectOperation,
  textNestingProblem,
} from './compiled-operation';
import { coerceRequestVariables, MAX_VARIABLE_DEPTH } from './execute-operation';
import { CONTRACT_LIMITS } from '../../../test/support/request-limits';

/**
 * Issue 22 item 14: a literal nested deeper than graphql-js's recursive parser can follow is
 * refused before anything parses, naming the limit, and a value is refused or not the same
 * whether it is written in the query or sent as a variable (CONTRACT.md §6 Limits).
 */

const schema = buildSchema(`
  type Query { countOrders(where: OrderFilter, ids: [[[ID]]]): Int! }
  input OrderFilter { id: IDOps, and: [OrderFilter!], or: [OrderFilter!] }
  input IDOps { eq: ID, in: [ID!] }
`);

const LIMITS = {
  ...CONTRACT_LIMITS,
  queryBytes: 1_000_000,
  queryTokens: 100_000,
  booleanItems: 100_000,
};

/** A filter `{and: [{and: [… {id: {eq: 1}} …]}]}` of `levels` objects and lists in all. */
function deepFilter(levels: number): unknown {
  // {id: {eq: 1}} is two levels; each {and: [ … ]} adds two.
  let value: unknown = levels % 2 === 0 ? { id: { eq: 1 } } : { id: { in: [1] } };
  for (let depth = levels % 2 === 0 ? 2 : 3; depth < levels; depth += 2) value = { and: [value] };
  return value;
}

/** A value as a GraphQL literal. */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).map(([k, v]) => `${k}: ${literal(v)}`);
    return `{${fields.join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** The refusal of compiling `text`, or null when it compiles. */
function compileRefusal(text: string): RequestRefusal | null {
  try {
    compileDocument(schema, text, LIMITS, false);
    return null;
  } catch (error) {
    if (error instanceof RequestRefusal) return error;
    throw error;
  }
}

/** The refusal of the same filter sent as a variable, or null when it is taken. */
function variableRefusal(value: unknown): RequestRefusal | null {
  const compiled = compileDocument(
    schema,
    'query($w: OrderFilter) { countOrders(where: $w) }',
    LIMITS,
    false,
  );
  try {
    coerceRequestVariables(schema, selectOperation(compiled, undefined), { w: value });
    return null;
  } catch (error) {
    if (error instanceof RequestRefusal) return error;
    throw error;
  }
}

describe('nesting of the query text (issue 22 item 14)', () => {
  it('refuses a filter written 1,000 levels deep naming the limit, not a stack overflow', () => {
    const text = `{ countOrders(where: ${'{and: ['.repeat(1000)}{id: {eq: 1}}${']}'.repeat(1000)}) }`;
    const refused = compileRefusal(text);
    expect(refused).not.toBeNull();
    expect(refused!.status).toBe(400);
    expect(refused!.errors).toEqual([
      {
        message: `A value in the query text nests objects and lists more than ${MAX_LITERAL_DEPTH} levels deep; the limit is ${MAX_LITERAL_DEPTH}`,
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      },
    ]);
  });

  it('refuses lists 5,000 deep and selection sets 5,000 deep the same way', () => {
    const lists = compileRefusal(`{ countOrders(ids: ${'['.repeat(5000)}1${']'.repeat(5000)}) }`);
    expect(lists!.errors[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(lists!.errors[0].message).toContain(`the limit is ${MAX_LITERAL_DEPTH}`);
    const selections = compileRefusal(`${'{ a '.repeat(5000)}${'}'.repeat(5000)}`);
    expect(selections!.errors).toEqual([
      {
        message: `Selection sets in the query text nest more than ${MAX_SELECTION_DEPTH} levels deep; the limit is ${MAX_SELECTION_DEPTH}`,
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      },
    ]);
  });

  it('takes or refuses a value the same written in the query and sent as a variable', () => {
    expect(MAX_LITERAL_DEPTH).toBe(MAX_VARIABLE_DEPTH);
    // The argument list counts as one level, as the variables object does.
    for (const levels of [2, 100, MAX_LITERAL_DEPTH - 1]) {
      const value = deepFilter(levels);
      expect(compileRefusal(`{ countOrders(where: ${literal(value)}) }`)).toBeNull();
      expect(variableRefusal(value)).toBeNull();
    }
    for (const levels of [MAX_LITERAL_DEPTH, MAX_LITERAL_DEPTH + 1, 600]) {
      const value = deepFilter(levels);
      const written = compileRefusal(`{ countOrders(where: ${literal(value)}) }`);
      expect(written!.errors[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(written!.errors[0].message).toContain(`the limit is ${MAX_LITERAL_DEPTH}`);
      const sent = variableRefusal(value);
      expect(sent!.errors[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(sent!.errors[0].message).toContain(`the limit is ${MAX_VARIABLE_DEPTH}`);
    }
  });

  it('counts a variable default value as a literal', () => {
    const value = literal(deepFilter(MAX_LITERAL_DEPTH + 10));
    const refused = compileRefusal(`query($w: OrderFilter = ${value}) { countOrders(where: $w) }`);
    expect(refused!.errors[0].message).toContain(`the limit is ${MAX_LITERAL_DEPTH}`);
  });

  it('ignores brackets in strings, block strings and comments', () => {
    const deep = '{['.repeat(400);
    const text = [
      `{ countOrders(where: {id: {eq: "${deep}\\"${deep}"}})`,
      `  # ${deep}`,
      `  other: countOrders(where: {id: {in: ["""${deep} \\""" ${deep}""", "]]"]}}) }`,
    ].join('\n');
    expect(textNestingProblem(text)).toBeNull();
    expect(compileRefusal(text)).toBeNull();
  });

  it('counts brackets of unbalanced text as they come, never more than both limits together', () => {
    expect(textNestingProblem(')))' + '['.repeat(300), 256, 256)).toContain('Selection sets');
    expect(textNestingProblem('{ f(' + '('.repeat(300), 256, 256)).toContain('A value');
    expect(textNestingProblem('{ f(a: [[]]) ' + '{'.repeat(10) + ' }', 2, 20)).toContain('A value');
    expect(textNestingProblem('{ f(a: [1]) { g(b: [2]) } }', 2, 2)).toBeNull();
  });
});
