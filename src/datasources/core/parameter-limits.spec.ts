import { DomainError, ErrorCode } from '../../common/domain-error';
import { ALL_ROWS } from './dialect';
import type { Condition, Dialect, SelectPlan } from './dialect';
import { MssqlDialect } from '../mssql/dialect';
import { MysqlDialect } from '../mysql/dialect';
import { PostgresDialect } from '../postgres/dialect';
import { PARAMETER_LIMITS } from './sql-compiler';
import { SqliteDialect } from '../sqlite/dialect';

/**
 * Issue 22 item 10 (b): a statement is refused while it is compiled, before any SQL is sent, when
 * it would bind more parameters than its database takes (PostgreSQL and MySQL/MariaDB 65,535, SQL
 * Server 2,100, SQLite 32,766), with INVALID_INPUT (BAD_USER_INPUT on the GraphQL endpoint)
 * naming the limit and what to change; a statement at the limit compiles.
 */

const CASES: [Dialect, string, number][] = [
  [new PostgresDialect(), 'PostgreSQL', 65_535],
  [new MysqlDialect(), 'MySQL/MariaDB', 65_535],
  [new MssqlDialect(), 'SQL Server', 2_100],
  [new SqliteDialect(), 'SQLite', 32_766],
];

/** A read of `orders` whose filter is an `in` list of `count` ids (no page: no other parameter). */
function select(count: number, where?: Condition): SelectPlan {
  return {
    table: { schema: null, name: 'orders' },
    columns: ['id'],
    where: where ?? {
      kind: 'in',
      column: 'id',
      values: Array.from({ length: count }, (_, i) => i + 1),
      negated: false,
    },
    scope: ALL_ROWS,
    order: [{ column: 'id', direction: 'ASC', nullable: false }],
    take: null,
    skip: 0,
  };
}

function refusal(compile: () => unknown): DomainError {
  try {
    compile();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('compiled');
}

describe('bound parameters per statement', () => {
  it.each(CASES)('%#: %s limit on the dialect type', (dialect, database, max) => {
    expect(PARAMETER_LIMITS[dialect.type]).toEqual({ database, max });
  });

  it('SQL Server takes 2,100 parameters per statement', () => {
    expect(PARAMETER_LIMITS.mssql.max).toBe(2_100);
  });

  it.each(CASES)('%#: compiles a statement at the %s limit', (dialect, _database, max) => {
    expect(dialect.compileSelect(select(max)).params).toHaveLength(max);
  });

  it.each(CASES)(
    '%#: refuses one past the %s limit, naming it and what to change',
    (dialect, database, max) => {
      const error = refusal(() => dialect.compileSelect(select(max + 1)));
      expect(error.code).toBe(ErrorCode.InvalidInput);
      expect(error.message).toContain(`${max.toLocaleString('en-US')} bound values`);
      expect(error.message).toContain(database);
      expect(error.message).toContain('in/nin');
    },
  );

  it.each(CASES)('%#: counts every list of the statement together (%s)', (dialect, _d, max) => {
    const half = Math.ceil((max + 1) / 2);
    const list = (column: string): Condition => ({
      kind: 'in',
      column,
      values: Array.from({ length: half }, (_, i) => i),
      negated: false,
    });
    const where: Condition = { kind: 'or', items: [list('id'), list('customer_id')] };
    expect(refusal(() => dialect.compileCount({ ...select(0, where), where })).code).toBe(
      ErrorCode.InvalidInput,
    );
  });
});
