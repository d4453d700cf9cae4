import { GraphQLError, Kind, parseValue, valueFromAST } from 'graphql';
import { DurationScalar, filterInputOf, scalarOf, TimeScalar } from './scalars';

/**
 * Issue 22, item 16: a MySQL/MariaDB `TIME` is a duration, -838:59:59.000000 to 838:59:59.000000
 * (MySQL docs, "The TIME Type"), typed `Duration`: `[-]H[HH]:MM[:SS[.ffffff]]` both ways, the text
 * the driver reads written back unchanged. `Time` stays a time of day. The column's range is
 * checked where the column is known (value-ranges.spec.ts), not by the scalar.
 */
describe('the Duration scalar', () => {
  const parse = (value: unknown) => DurationScalar.parseValue(value);
  const literal = (text: string) => valueFromAST(parseValue(text), DurationScalar);

  it.each([
    '-01:30:00',
    '100:00:00',
    '838:59:59',
    '838:59:59.000000',
    '-838:59:59.999999',
    '13:45:00',
    '13:45:00.25',
    '-00:00:00.000001',
    '0:00:00',
    '12:30',
    '-1:30',
    '999:59:59',
  ])('takes %s as it is, in variables and literals', (text) => {
    expect(parse(text)).toBe(text);
    expect(literal(JSON.stringify(text))).toBe(text);
  });

  it.each([
    '1000:00:00',
    '10:60:00',
    '10:00:60',
    '10:00:00.1234567',
    '10:00:00.',
    '-',
    '--01:00:00',
    '+01:00:00',
    '10',
    '1 10:00:00',
    '10:00:00+02',
    ' 10:00:00',
    '',
  ])('refuses %j', (text) => {
    expect(() => parse(text)).toThrow(GraphQLError);
    expect(() => parse(text)).toThrow(/Duration cannot represent/);
    expect(literal(JSON.stringify(text))).toBeUndefined();
  });

  it('refuses numbers and other non-text values', () => {
    for (const value of [3600, 1.5, true, null, ['10:00:00'], { h: 1 }]) {
      expect(() => parse(value)).toThrow(GraphQLError);
    }
    expect(valueFromAST({ kind: Kind.INT, value: '3600' }, DurationScalar)).toBeUndefined();
  });

  it('serializes the driver’s text unchanged', () => {
    for (const text of ['-01:30:00', '100:00:00', '838:59:59', '-01:30:00.5', '00:00:00']) {
      expect(DurationScalar.serialize(text)).toBe(text);
    }
  });

  it('types the duration kind, with the operators of times; Time stays a time of day', () => {
    expect(scalarOf('duration')).toBe(DurationScalar);
    const ops = Object.keys(filterInputOf('duration', false).getFields());
    expect(ops).toEqual(Object.keys(filterInputOf('time', false).getFields()));
    expect(filterInputOf('duration', false).name).toBe('DurationFilter');
    expect(() => TimeScalar.parseValue('-01:30:00')).toThrow(GraphQLError);
    expect(() => TimeScalar.parseValue('100:00:00')).toThrow(GraphQLError);
  });
});
