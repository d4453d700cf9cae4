import type { ColumnKind, ModelColumn } from '../datasources/core/dialect';
import { integerRange, isUuidText, outsideRange } from './value-ranges';

const column = (dbType: string, kind: ColumnKind = 'int'): ModelColumn => ({
  name: 'n',
  dbType,
  kind,
  nullable: true,
  hasDefault: false,
  generated: false,
  maxLength: null,
});

describe('integerRange (each database documentation’s integer types)', () => {
  it.each([
    ['postgres', 'smallint', -32768n, 32767n],
    ['postgres', 'integer', -2147483648n, 2147483647n],
    ['postgres', 'bigint', -9223372036854775808n, 9223372036854775807n],
    ['mysql', 'tinyint(4)', -128n, 127n],
    ['mysql', 'tinyint(3) unsigned', 0n, 255n],
    ['mysql', 'mediumint(9)', -8388608n, 8388607n],
    ['mysql', 'int(10) unsigned', 0n, 4294967295n],
    ['mysql', 'bigint(20) unsigned', 0n, 18446744073709551615n],
    ['mysql', 'year(4)', 0n, 2155n],
    ['mysql', 'bit(3)', 0n, 7n],
    ['mssql', 'tinyint', 0n, 255n],
    ['mssql', 'int', -2147483648n, 2147483647n],
    ['sqlite', 'SMALLINT', -9223372036854775808n, 9223372036854775807n],
  ] as const)('%s %s', (type, dbType, min, max) => {
    expect(integerRange(type, column(dbType))).toEqual({ min, max });
  });

  it('has none for other kinds or unknown types', () => {
    expect(integerRange('postgres', column('numeric', 'decimal'))).toBeNull();
    expect(integerRange('postgres', column('oid'))).toBeNull();
  });
});

describe('outsideRange', () => {
  const small = column('smallint');
  it('places whole numbers (numbers or text) against the range', () => {
    expect(outsideRange('postgres', small, 32767)).toBeNull();
    expect(outsideRange('postgres', small, 32768)).toBe('above');
    expect(outsideRange('postgres', small, '-32769')).toBe('below');
    expect(outsideRange('postgres', column('bigint', 'bigint'), '9223372036854775808')).toBe(
      'above',
    );
  });
  it('leaves what is not a whole number to the database', () => {
    expect(outsideRange('postgres', small, 1.5)).toBeNull();
    expect(outsideRange('postgres', small, 'abc')).toBeNull();
  });
});

describe('outsideRange of a MySQL/MariaDB TIME (issue 22, item 16: -838:59:59 to 838:59:59)', () => {
  const time = column('time(6)', 'duration');
  it.each([
    ['838:59:59', null],
    ['838:59:59.000000', null],
    ['-838:59:59', null],
    ['-838:59:59.000000', null],
    ['00:00:00', null],
    ['-01:30:00', null],
    ['100:00:00', null],
    ['838:59', null],
    ['838:59:59.000001', 'above'],
    ['838:59:59.5', 'above'],
    ['839:00:00', 'above'],
    ['999:59:59', 'above'],
    ['-838:59:59.000001', 'below'],
    ['-839:00', 'below'],
  ] as const)('%s', (value, side) => {
    expect(outsideRange('mysql', time, value)).toBe(side);
  });
  it('leaves text of another shape to the database, whatever the column', () => {
    expect(outsideRange('mysql', time, '1000:00:00')).toBeNull();
    expect(outsideRange('mysql', time, 3600)).toBeNull();
    expect(outsideRange('mysql', column('time', 'time'), '839:00:00')).toBeNull();
  });
});

describe('isUuidText', () => {
  it('takes 8-4-4-4-12 hexadecimal digits only', () => {
    expect(isUuidText('3F2504E0-4F89-11D3-9A0C-0305E82C3301')).toBe(true);
    expect(isUuidText('3f2504e0-4f89-11d3-9a0c-0305e82c330')).toBe(false);
    expect(isUuidText(42)).toBe(false);
  });
});
