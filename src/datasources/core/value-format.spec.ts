import { arrayElement, effectiveKind, UnreadableValue } from './dialect';
import type { ColumnKind } from './dialect';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';
import {
  formatArrayElements,
  formatCommon,
  formatDate,
  formatExactNumber,
  formatInstant,
  formatLocalTimestamp,
} from './value-format';
import { modelColumn } from '../../../test/support/model-column';

/** Output forms of CONTRACT.md §6 "Values". */

const column = (kind: ColumnKind, name = `c_${kind}`) => modelColumn(name, kind);

describe('formatLocalTimestamp (timestamp without time zone: YYYY-MM-DDTHH:mm:ss[.fff], no offset)', () => {
  it.each([
    ['2024-01-02 03:04:05', '2024-01-02T03:04:05'],
    ['2024-01-02T03:04:05', '2024-01-02T03:04:05'],
    ['2024-01-02 03:04:05.1', '2024-01-02T03:04:05.100'],
    ['2024-01-02 03:04:05.12', '2024-01-02T03:04:05.120'],
    ['2024-01-02 03:04:05.123', '2024-01-02T03:04:05.123'],
    ['2024-01-02 03:04:05.1234', '2024-01-02T03:04:05.123'],
    ['2024-01-02 03:04:05.12345', '2024-01-02T03:04:05.123'],
    ['2024-01-02 03:04:05.123456', '2024-01-02T03:04:05.123'],
    ['1999-12-31 23:59:59.999999', '1999-12-31T23:59:59.999'],
    ['  2024-06-30 00:00:00  ', '2024-06-30T00:00:00'],
    ['12345-01-01 00:00:00', '12345-01-01T00:00:00'],
  ])('%j → %j', (input, expected) => {
    expect(formatLocalTimestamp(input)).toBe(expected);
  });

  it('keeps the stored wall-clock time whatever the process time zone', () => {
    // No Date is involved: the text is reshaped, not converted.
    expect(formatLocalTimestamp('2024-03-31 02:30:00')).toBe('2024-03-31T02:30:00');
  });

  it('returns text it does not recognise unchanged', () => {
    expect(formatLocalTimestamp('infinity')).toBe('infinity');
    expect(formatLocalTimestamp('-infinity')).toBe('-infinity');
    expect(formatLocalTimestamp('2024-01-02')).toBe('2024-01-02');
  });
});

describe('formatInstant (timestamp with time zone: YYYY-MM-DDTHH:mm:ss.sssZ)', () => {
  it.each([
    ['2024-01-02 03:04:05+00', '2024-01-02T03:04:05.000Z'],
    ['2024-01-02 03:04:05+00:00', '2024-01-02T03:04:05.000Z'],
    ['2024-01-02 03:04:05Z', '2024-01-02T03:04:05.000Z'],
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z'],
    ['2024-01-02 03:04:05.123456+05:30', '2024-01-01T21:34:05.123Z'],
    ['2024-01-02 03:04:05+0530', '2024-01-01T21:34:05.000Z'],
    ['2024-01-02 22:30:00-03', '2024-01-03T01:30:00.000Z'],
    ['2024-01-02 22:30:00.5-03:00', '2024-01-03T01:30:00.500Z'],
    ['2024-01-02 03:04:05 +01:00', '2024-01-02T02:04:05.000Z'],
    ['2024-01-02 03:04:05.123+05:45', '2024-01-01T21:19:05.123Z'],
    ['0099-01-01 00:00:00+00', '0099-01-01T00:00:00.000Z'],
    ['2024-12-31 23:30:00-01', '2025-01-01T00:30:00.000Z'],
    ['2024-01-02 03:04:05', '2024-01-02T03:04:05.000Z'],
    // Without seconds, as the DateTime scalar takes it (found by the where property test).
    ['2024-03-12T14:00+02:00', '2024-03-12T12:00:00.000Z'],
    ['2024-03-12T14:00Z', '2024-03-12T14:00:00.000Z'],
  ])('%j → %j', (input, expected) => {
    expect(formatInstant(input)).toBe(expected);
  });

  it.each([
    ['.1', '.100'],
    ['.12', '.120'],
    ['.123', '.123'],
    ['.1234', '.123'],
    ['.12345', '.123'],
    ['.123456', '.123'],
  ])('a fraction %j becomes milliseconds %j', (fraction, ms) => {
    expect(formatInstant(`2024-01-02 03:04:05${fraction}+00`)).toBe(`2024-01-02T03:04:05${ms}Z`);
    expect(formatInstant(`2024-01-02 03:04:05${fraction}Z`)).toBe(`2024-01-02T03:04:05${ms}Z`);
  });

  it('converts an offset with seconds (PostgreSQL prints local mean time offsets such as +00:19:32)', () => {
    // Before a zone adopted standard time PostgreSQL prints its local mean time offset with seconds
    // (session TimeZone America/Sao_Paulo before 1914: -03:06:28). The PostgreSQL dialect does not
    // pin the session time zone, so such text reaches formatInstant; CONTRACT.md §6 still wants
    // YYYY-MM-DDTHH:mm:ss.sssZ.
    expect(formatInstant('1900-01-01 00:00:00+00:19:32')).toBe('1899-12-31T23:40:28.000Z');
    expect(formatInstant('1900-01-01 12:00:00-03:06:28')).toBe('1900-01-01T15:06:28.000Z');
  });

  it('gives UTC text of every valid date the same answer as a Date of it would (the fast path)', () => {
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    // Month ends of leap and common years (2000 and 2024 leap; 1900 and 2023 not), the first
    // year the fast path takes (100), the last four-digit one, and a spread of ordinary times.
    const days: [number, number, number][] = [];
    for (const year of [100, 1900, 2000, 2023, 2024, 9999])
      for (let month = 1; month <= 12; month++)
        for (const day of [1, 28, 29, 30, 31]) days.push([year, month, day]);
    for (const [year, month, day] of days) {
      for (const [h, m, s, fraction] of [
        [0, 0, 0, ''],
        [23, 59, 59, '.999999'],
        [12, 5, 7, '.5'],
      ] as const) {
        const date = new Date(
          Date.UTC(2000, month - 1, day, h, m, s, Number(`0${fraction}`) * 1000),
        );
        date.setUTCFullYear(year, month - 1, day);
        // A day the month does not have rolls over, as the general path's Date.UTC does.
        const expected = date.toISOString();
        const text = `${pad(year, 4)}-${pad(month)}-${pad(day)} ${pad(h)}:${pad(m)}:${pad(s)}${fraction}+00`;
        expect([text, formatInstant(text)]).toEqual([text, expected]);
      }
    }
  });

  it('formats a Date as its UTC instant', () => {
    expect(formatInstant(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)))).toBe(
      '2024-01-02T03:04:05.006Z',
    );
  });

  it('returns unrecognised text and invalid dates unchanged', () => {
    expect(formatInstant('infinity')).toBe('infinity');
    expect(formatInstant('not a time')).toBe('not a time');
    expect(formatInstant(new Date(NaN))).toBe('Invalid Date');
  });
});

describe('formatDate (YYYY-MM-DD)', () => {
  it('keeps a date', () => {
    expect(formatDate('2024-02-29')).toBe('2024-02-29');
  });
  it('takes the date part of a longer text', () => {
    expect(formatDate('2024-02-29 00:00:00')).toBe('2024-02-29');
    expect(formatDate('2024-02-29T23:59:59.999Z')).toBe('2024-02-29');
  });
  it('formats a Date by its UTC day', () => {
    expect(formatDate(new Date(Date.UTC(2023, 11, 31)))).toBe('2023-12-31');
  });
  it('returns unrecognised text unchanged', () => {
    expect(formatDate('infinity')).toBe('infinity');
  });
});

describe('formatExactNumber (64-bit integers and decimals never lose digits)', () => {
  it('writes bigints beyond 2^53 exactly', () => {
    expect(formatExactNumber(2n ** 53n + 1n)).toBe('9007199254740993');
    expect(formatExactNumber(2n ** 63n - 1n)).toBe('9223372036854775807');
    expect(formatExactNumber(-(2n ** 63n))).toBe('-9223372036854775808');
  });
  it('keeps decimal text as it is', () => {
    expect(formatExactNumber('12345678901234567890.000001')).toBe('12345678901234567890.000001');
    expect(formatExactNumber('-0.10')).toBe('-0.10');
  });
  it('writes a small number as text', () => {
    expect(formatExactNumber(42)).toBe('42');
  });
});

describe('formatCommon for each column kind', () => {
  const everyKind: ColumnKind[] = [
    'text',
    'int',
    'float',
    'bigint',
    'decimal',
    'boolean',
    'date',
    'time',
    'timestamp',
    'timestamptz',
    'json',
    'uuid',
  ];

  it.each(everyKind)('%s: null and undefined are null', (kind) => {
    expect(formatCommon(column(kind), null)).toBeNull();
    expect(formatCommon(column(kind), undefined)).toBeNull();
  });

  it('text', () => {
    expect(formatCommon(column('text'), 'héllo')).toBe('héllo');
    expect(formatCommon(column('text'), 12)).toBe('12');
    expect(formatCommon(column('text'), Buffer.from('hi'))).toBe('aGk=');
    expect(formatCommon(column('text'), { a: 1 })).toBe('{"a":1}');
  });

  it('int', () => {
    expect(formatCommon(column('int'), 7)).toBe(7);
    expect(formatCommon(column('int'), 7n)).toBe(7);
    expect(formatCommon(column('int'), '-42')).toBe(-42);
  });

  it('float', () => {
    expect(formatCommon(column('float'), 1.5)).toBe(1.5);
    expect(formatCommon(column('float'), '2.25')).toBe(2.25);
  });

  it('bigint: exact text, also beyond 2^53', () => {
    expect(formatCommon(column('bigint'), 9007199254740993n)).toBe('9007199254740993');
    expect(formatCommon(column('bigint'), '9223372036854775807')).toBe('9223372036854775807');
    expect(formatCommon(column('bigint'), 5n)).toBe('5');
  });

  it('decimal: exact text', () => {
    expect(formatCommon(column('decimal'), '1234567890123456789.99')).toBe(
      '1234567890123456789.99',
    );
    expect(formatCommon(column('decimal'), '0.10')).toBe('0.10');
  });

  it.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    [1n, true],
    [0n, false],
    ['1', true],
    ['0', false],
    ['t', true],
    ['f', false],
    ['true', true],
    ['false', false],
  ])('boolean: %p → %p', (raw, expected) => {
    expect(formatCommon(column('boolean'), raw)).toBe(expected);
  });

  it('date', () => {
    expect(formatCommon(column('date'), '2024-02-29')).toBe('2024-02-29');
    expect(formatCommon(column('date'), new Date(Date.UTC(2024, 1, 29)))).toBe('2024-02-29');
  });

  it('time', () => {
    expect(formatCommon(column('time'), '12:34:56')).toBe('12:34:56');
  });

  it('timestamp: as stored, no offset', () => {
    expect(formatCommon(column('timestamp'), '2024-01-02 03:04:05.678901')).toBe(
      '2024-01-02T03:04:05.678',
    );
    expect(formatCommon(column('timestamp'), '2024-01-02 03:04:05')).toBe('2024-01-02T03:04:05');
  });

  it('timestamptz: UTC with milliseconds and Z', () => {
    expect(formatCommon(column('timestamptz'), '2024-01-02 03:04:05+02')).toBe(
      '2024-01-02T01:04:05.000Z',
    );
    expect(formatCommon(column('timestamptz'), new Date(Date.UTC(2024, 0, 2, 1, 4, 5)))).toBe(
      '2024-01-02T01:04:05.000Z',
    );
  });

  it('json: the JSON text parsed once (a JSON string stays a string), text that is not JSON kept', () => {
    expect(formatCommon(column('json'), '{"a":1,"b":[true,null],"c":{"d":"x"}}')).toEqual({
      a: 1,
      b: [true, null],
      c: { d: 'x' },
    });
    expect(formatCommon(column('json'), '[1,2]')).toEqual([1, 2]);
    expect(formatCommon(column('json'), '"123"')).toBe('123');
    expect(formatCommon(column('json'), '3')).toBe(3);
    expect(formatCommon(column('json'), 'false')).toBe(false);
    expect(formatCommon(column('json'), 'not json')).toBe('not json');
    // A value a driver already parsed passes as it is.
    expect(formatCommon(column('json'), { a: 1 })).toEqual({ a: 1 });
  });

  it('binary: bytes (a Buffer, or the Uint8Array a worker thread hands back) as standard base64', () => {
    expect(formatCommon(column('binary'), Buffer.from([0xde, 0xad, 0xbe, 0xef]))).toBe('3q2+7w==');
    expect(formatCommon(column('binary'), new Uint8Array([0, 255, 16]))).toBe('AP8Q');
  });

  it('uuid', () => {
    expect(formatCommon(column('uuid'), '3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(
      '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    );
  });

  it('both adapters format through formatCommon', () => {
    const samples: [ColumnKind, unknown][] = [
      ['boolean', 1n],
      ['bigint', 2n ** 60n],
      ['timestamptz', '2024-01-02 03:04:05+05:30'],
      ['json', { k: [1] }],
    ];
    for (const [kind, raw] of samples) {
      const expected = formatCommon(column(kind), raw);
      expect(new PostgresDialect().formatValue(column(kind), raw)).toEqual(expected);
      expect(new SqliteDialect().formatValue(column(kind), raw)).toEqual(expected);
    }
  });
});

describe('PostgreSQL arrays as lists (README "Values"; issue 11, item 1)', () => {
  const pg = new PostgresDialect();
  const array = (elementKind: ColumnKind, elementType: string, name = `a_${elementType}`) => ({
    ...column('array', name),
    dbType: 'ARRAY',
    elementKind,
    elementType,
  });

  it.each<[ColumnKind, string, string, unknown[]]>([
    [
      'text',
      'text',
      '{a,"b c",NULL,"","NULL","q\\"uote"}',
      ['a', 'b c', null, '', 'NULL', 'q"uote'],
    ],
    ['int', 'int4', '{1,NULL,-2147483648}', [1, null, -2147483648]],
    ['bigint', 'int8', '{9007199254740993,NULL}', ['9007199254740993', null]],
    ['decimal', 'numeric', '{12.30,-0.50,NaN}', ['12.30', '-0.50', 'NaN']],
    ['float', 'float8', '{1.5,-0,NULL}', [1.5, -0, null]],
    ['boolean', 'bool', '{t,f,NULL}', [true, false, null]],
    [
      'uuid',
      'uuid',
      '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}',
      ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    ],
    ['date', 'date', '{2024-02-29,infinity}', ['2024-02-29', 'infinity']],
    ['timestamp', 'timestamp', '{"2024-02-29 13:45:00.5"}', ['2024-02-29T13:45:00.500']],
    [
      'timestamptz',
      'timestamptz',
      '{"2024-02-29 13:45:00+02",NULL}',
      ['2024-02-29T11:45:00.000Z', null],
    ],
    ['time', 'timetz', '{13:45:00+02}', ['13:45:00+02']],
    ['int', 'int4', '{}', []],
    ['int', 'int4', '[0:1]={7,8}', [7, 8]],
  ])('%s[] %j → %j', (kind, type, text, expected) => {
    expect(pg.formatValue(array(kind, type), text)).toEqual(expected);
  });

  it('reads NULL as null, and a value of two dimensions as an UnreadableValue naming the column', () => {
    expect(pg.formatValue(array('int', 'int4'), null)).toBeNull();
    const nested = pg.formatValue(array('int', 'int4', 'grid'), '{{1,2},{3,4}}');
    expect(nested).toBeInstanceOf(UnreadableValue);
    expect((nested as Error).message).toBe(
      'grid holds an array of more than one dimension, which its list type cannot show',
    );
  });

  it('keeps the text form for columns of kind other (definitions saved before arrays were lists) and for an unknown element kind', () => {
    const old = { ...column('other', 'tags'), dbType: 'ARRAY' };
    expect(pg.formatValue(old, '{a,"b c"}')).toBe('{a,"b c"}');
    const unknown = { ...array('json', 'json'), elementKind: 'json' as ColumnKind };
    expect(arrayElement(unknown)).toBeNull();
    expect(effectiveKind(unknown)).toBe('other');
    expect(pg.formatValue(unknown, '{"{}"}')).toBe('{"{}"}');
    expect(effectiveKind(array('int', 'int4'))).toBe('array');
  });

  it('formats elements as a plain column of the element type, through arrayElement', () => {
    const ints = array('int', 'int2');
    expect(arrayElement(ints)).toMatchObject({ name: 'a_int2', kind: 'int', dbType: 'int2' });
    expect(arrayElement(ints)).toBe(arrayElement(ints));
    expect(formatArrayElements(ints, ['1', null])).toEqual([1, null]);
  });

  it('binds a list as it is: node-postgres writes it as one array parameter', () => {
    const list = ['9007199254740993', null];
    expect(pg.bindValue(array('bigint', 'int8'), list)).toBe(list);
  });
});
