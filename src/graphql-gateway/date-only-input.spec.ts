import {
  execute,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
  validate,
} from 'graphql';
import { coerceRequest, startOfDay } from './input-coercion';
import {
  DateScalar,
  DateTimeScalar,
  filterInputOf,
  LocalDateTimeScalar,
  TimeScalar,
} from './scalars';

/**
 * Issue 22 item 23: a date alone where a date and time is expected is that day's start, midnight
 * UTC for `DateTime` and midnight as stored for `LocalDateTime`, in literals and in variables,
 * in filters and in write arguments; other text stays for the scalar to refuse.
 */

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      echo: {
        type: GraphQLString,
        args: {
          at: { type: DateTimeScalar },
          local: { type: LocalDateTimeScalar },
          day: { type: DateScalar },
          time: { type: TimeScalar },
          stamps: { type: new GraphQLList(new GraphQLNonNull(LocalDateTimeScalar)) },
          placed: { type: filterInputOf('timestamptz', false) },
          created: { type: filterInputOf('timestamp', false) },
        },
        resolve: (_root, args) => JSON.stringify(args),
      },
    },
  }),
});

/** Coerces, validates and executes `query`; the arguments `echo` received, or the errors. */
async function echo(
  query: string,
  variables?: Record<string, unknown>,
): Promise<{ args?: Record<string, unknown>; errors?: string[] }> {
  const coerced = coerceRequest(schema, parse(query), variables);
  const invalid = validate(schema, coerced.document).map((e) => e.message);
  if (invalid.length) return { errors: invalid };
  const result = await execute({
    schema,
    document: coerced.document,
    variableValues: coerced.variables,
  });
  if (result.errors) return { errors: result.errors.map((e) => e.message) };
  return { args: JSON.parse((result.data as { echo: string }).echo) };
}

describe('a date alone where a date and time is expected (issue 22 item 23)', () => {
  it('is the start of that day: UTC for DateTime, as stored for LocalDateTime', () => {
    expect(startOfDay('2024-03-05', 'DateTime')).toBe('2024-03-05T00:00:00Z');
    expect(startOfDay('2024-03-05', 'LocalDateTime')).toBe('2024-03-05T00:00:00');
    expect(startOfDay('2024-03-05', 'Date')).toBeUndefined();
    expect(startOfDay('2024-03-05T10:00:00Z', 'DateTime')).toBeUndefined();
    expect(startOfDay('2024-3-5', 'DateTime')).toBeUndefined();
  });

  it('is taken in literals, filter operators and list items included', async () => {
    expect(
      await echo(
        '{ echo(at: "2024-03-05", local: "2024-03-05", stamps: ["2024-03-05", "2024-03-06 10:00"], placed: {gte: "2024-03-05", in: ["2024-03-06"]}, created: {lt: "2024-01-09"}) }',
      ),
    ).toEqual({
      args: {
        at: '2024-03-05T00:00:00Z',
        local: '2024-03-05T00:00:00',
        stamps: ['2024-03-05T00:00:00', '2024-03-06 10:00'],
        placed: { gte: '2024-03-05T00:00:00Z', in: ['2024-03-06T00:00:00Z'] },
        created: { lt: '2024-01-09T00:00:00' },
      },
    });
  });

  it('is taken in variables, through input objects and lists', async () => {
    const r = await echo(
      'query($at: DateTime, $placed: DateTimeFilter, $created: LocalDateTimeFilter) { echo(at: $at, placed: $placed, created: $created) }',
      {
        at: '2024-03-05',
        placed: { gte: '2024-03-05', nin: ['2024-03-06'] },
        created: { eq: '2024-01-09' },
      },
    );
    expect(r).toEqual({
      args: {
        at: '2024-03-05T00:00:00Z',
        placed: { gte: '2024-03-05T00:00:00Z', nin: ['2024-03-06T00:00:00Z'] },
        created: { eq: '2024-01-09T00:00:00' },
      },
    });
  });

  it('changes nothing else: a Date stays a date, other text is still refused', async () => {
    expect(await echo('{ echo(day: "2024-03-05", at: "2024-03-05T10:00:00+02:00") }')).toEqual({
      args: { day: '2024-03-05', at: '2024-03-05T10:00:00+02:00' },
    });
    const refused = await echo('{ echo(at: "2024-03-05T10:00") }');
    expect(refused.errors?.[0]).toContain('DateTime cannot represent');
    const time = await echo('query($t: Time) { echo(time: $t) }', { t: '2024-03-05' });
    expect(time.errors?.[0]).toContain('Time cannot represent');
  });
});
