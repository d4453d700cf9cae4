import { isInvalidValueError } from './invalid-value';

/** Driver errors that are a caller's bad value, per database, and those that are not. */
describe('isInvalidValueError', () => {
  it('PostgreSQL: SQLSTATE class 22 but the string-too-long refusal', () => {
    expect(isInvalidValueError('postgres', { code: '22003' })).toBe(true); // integer out of range
    expect(isInvalidValueError('postgres', { code: '22021' })).toBe(true); // NUL byte
    expect(isInvalidValueError('postgres', { code: '22P02' })).toBe(true); // invalid text representation
    expect(isInvalidValueError('postgres', { code: '22001' })).toBe(false);
    expect(isInvalidValueError('postgres', { code: '23505' })).toBe(false);
    expect(isInvalidValueError('postgres', new Error('boom'))).toBe(false);
  });

  it('PostgreSQL: a syntax error only when a bound parameter’s type refused it (tsvector, tsquery)', () => {
    const where = "unnamed portal parameter $1 = '...'";
    expect(isInvalidValueError('postgres', { code: '42601', where })).toBe(true);
    expect(isInvalidValueError('postgres', { code: '42601' })).toBe(false);
    expect(isInvalidValueError('postgres', { code: '42601', where: 'SQL function "f"' })).toBe(
      false,
    );
  });

  it('MySQL/MariaDB: out of range, wrong value, invalid JSON', () => {
    expect(isInvalidValueError('mysql', { errno: 1264 })).toBe(true);
    expect(isInvalidValueError('mysql', { errno: 3140 })).toBe(true);
    expect(isInvalidValueError('mysql', { errno: 1406 })).toBe(false); // VALUE_TOO_LONG refusal
    expect(isInvalidValueError('mysql', { errno: 1062 })).toBe(false);
  });

  it('SQL Server: conversion and overflow; 547 only in its CHECK form', () => {
    expect(isInvalidValueError('mssql', { number: 8115 })).toBe(true);
    expect(
      isInvalidValueError('mssql', {
        number: 547,
        message: 'conflicted with the CHECK constraint',
      }),
    ).toBe(true);
    expect(
      isInvalidValueError('mssql', {
        number: 547,
        message: 'conflicted with the FOREIGN KEY constraint',
      }),
    ).toBe(false);
  });

  it('SQLite: type mismatch', () => {
    expect(isInvalidValueError('sqlite', { code: 'SQLITE_MISMATCH' })).toBe(true);
    expect(isInvalidValueError('sqlite', { code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBe(false);
  });
});
