import { DomainError } from '../../common/domain-error';
import { StatementRefusal } from '../datasources.errors';
import {
  isReadDenied,
  isReadOnlyWrite,
  readOnlyRefusal,
  statementRefusal,
} from './statement-refusals';

/**
 * The one mapping of a write refused inside a query kind's read-only transaction (issue 26 item
 * 4; README "SQL APIs: statements"), by each database's own error shape as its driver raises it:
 * pg `code`, mysql2 `errno`, better-sqlite3 `code`, mssql (tedious) `number`. The live specs
 * (`sql-statements.live.spec.ts`) raise them on the real PostgreSQL, MariaDB and SQLite.
 */
describe('isReadOnlyWrite: a write a read-only transaction or login refused, on every database', () => {
  const refused = [
    [
      'PostgreSQL 25006',
      { code: '25006', message: 'cannot execute INSERT in a read-only transaction' },
    ],
    [
      'MySQL/MariaDB 1792',
      {
        errno: 1792,
        code: 'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION',
        message: 'Cannot execute statement in a READ ONLY transaction',
      },
    ],
    [
      'SQLite query_only',
      { code: 'SQLITE_READONLY', message: 'attempt to write a readonly database' },
    ],
    [
      'SQL Server 229 on INSERT',
      {
        number: 229,
        message:
          "The INSERT permission was denied on the object 'orders', database 'shop', schema 'dbo'.",
      },
    ],
    [
      'SQL Server 229 on DELETE',
      {
        number: 229,
        message:
          "The DELETE permission was denied on the object 'orders', database 'shop', schema 'dbo'.",
      },
    ],
    [
      'SQL Server 262',
      { number: 262, message: "CREATE TABLE permission denied in database 'shop'." },
    ],
    [
      'SQL Server 3906',
      {
        number: 3906,
        message: 'Failed to update database "shop" because the database is read-only.',
      },
    ],
  ] as const;
  it.each(refused)(
    '%s is a refused write, answered READ_ONLY naming the mutation kind',
    (_, error) => {
      expect(isReadOnlyWrite(error)).toBe(true);
      const answer = readOnlyRefusal(error) as StatementRefusal;
      expect(answer).toBeInstanceOf(StatementRefusal);
      expect(answer.reason).toBe('READ_ONLY');
      expect(answer.code).toBe('INVALID_INPUT');
      expect(answer.message).toMatch(
        /^The statement tried to write.*make it a mutation-kind SQL API/,
      );
    },
  );

  const others = [
    ['PostgreSQL syntax error', { code: '42601', message: 'syntax error' }],
    ['PostgreSQL unique violation', { code: '23505', message: 'duplicate key' }],
    ['MySQL unknown table', { errno: 1146, message: "Table 'shop.nope' doesn't exist" }],
    ['SQLite busy', { code: 'SQLITE_BUSY', message: 'database is locked' }],
    [
      'SQL Server 229 on SELECT (a read the login may not make)',
      {
        number: 229,
        message:
          "The SELECT permission was denied on the object 'secrets', database 'shop', schema 'dbo'.",
      },
    ],
    ['SQL Server 208', { number: 208, message: "Invalid object name 'nope'." }],
    ['a plain Error', new Error('boom')],
    ['a string', '25006'],
    ['null', null],
  ] as const;
  it.each(others)('%s is not one, and passes through as it came', (_, error) => {
    expect(isReadOnlyWrite(error)).toBe(false);
    expect(readOnlyRefusal(error)).toBe(error);
  });
});

describe('statementRefusal: what describing a statement answers', () => {
  const anyRefusal = () => true;

  it('answers a write refused while describing (MariaDB prepares a SELECT of a writing function so) as READ_ONLY, not INVALID_STATEMENT', () => {
    const error = Object.assign(new Error('Cannot execute statement in a READ ONLY transaction'), {
      errno: 1792,
    });
    const answer = statementRefusal(error, anyRefusal) as StatementRefusal;
    expect(answer.reason).toBe('READ_ONLY');
    expect(answer.message).toBe((readOnlyRefusal({ code: '25006' }) as StatementRefusal).message);
  });

  it('answers another refusal as INVALID_STATEMENT with its first line, SQL stripped', () => {
    const error = new Error("You have an error near 'SELECT secret' at line 1\nmore");
    const answer = statementRefusal(error, anyRefusal, (m) =>
      m.replace(/ near '.*' at/, ' at'),
    ) as StatementRefusal;
    expect(answer.reason).toBe('INVALID_STATEMENT');
    expect(answer.message).toBe('The database refused the statement: You have an error at line 1');
  });

  it('passes a DomainError and an unrecognised error through', () => {
    const domain = new DomainError('TIMEOUT' as never, 'late');
    expect(statementRefusal(domain, anyRefusal)).toBe(domain);
    const internal = new Error('driver bug');
    expect(statementRefusal(internal, () => false)).toBe(internal);
  });
});

describe('isReadDenied: a read the login may not make', () => {
  it('is PostgreSQL 42501, MySQL/MariaDB 1142 and SQL Server 229 on SELECT, nothing else', () => {
    expect(isReadDenied({ code: '42501', message: 'permission denied for table t' })).toBe(true);
    expect(isReadDenied({ errno: 1142, message: "SELECT command denied to user 'r'@'%'" })).toBe(
      true,
    );
    expect(
      isReadDenied({ number: 229, message: "The SELECT permission was denied on the object 't'" }),
    ).toBe(true);
    expect(
      isReadDenied({ number: 229, message: "The INSERT permission was denied on the object 't'" }),
    ).toBe(false);
    expect(isReadDenied({ code: '25006' })).toBe(false);
    expect(isReadDenied(null)).toBe(false);
  });
});
