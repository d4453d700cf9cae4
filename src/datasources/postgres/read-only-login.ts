import type { StatementRunner } from '../core/dialect';

/**
 * What the login of a connection may write, for a datasource's read-only login (README
 * "Datasources"): whether it is a superuser (`pg_roles.rolsuper`, which bypasses every privilege
 * check), and the tables, views and foreign tables outside the system schemas on which it holds
 * INSERT, UPDATE, DELETE or TRUNCATE, directly, through a role it inherits or through PUBLIC
 * (`has_table_privilege`, PostgreSQL docs "System Information Functions"; an owner holds them
 * all): how many, and the first three by name.
 */
export const POSTGRES_LOGIN_WRITES_SQL = `SELECT
    (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) AS superuser,
    count(*)::int AS writable,
    array_to_string((array_agg(format('%I.%I', n.nspname, c.relname)
      ORDER BY n.nspname, c.relname))[1:3], ', ') AS examples
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'f')
    AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
    AND (has_table_privilege(c.oid, 'INSERT') OR has_table_privilege(c.oid, 'UPDATE')
      OR has_table_privilege(c.oid, 'DELETE') OR has_table_privilege(c.oid, 'TRUNCATE'))`;

/**
 * `Dialect.loginWrites` on PostgreSQL ({@link POSTGRES_LOGIN_WRITES_SQL}): empty when the login
 * writes nothing, else one sentence per reason. A function marked SECURITY DEFINER could still
 * write with its owner's rights; the read-only transaction refuses that (SQLSTATE 25006).
 * @throws the driver's error when the catalog cannot be read.
 */
export async function postgresLoginWrites(run: StatementRunner): Promise<string[]> {
  const { rows } = await run({ sql: POSTGRES_LOGIN_WRITES_SQL, params: [] });
  const row = rows[0] ?? {};
  const problems: string[] = [];
  if (row.superuser === true) problems.push('the login is a superuser');
  const writable = Number(row.writable ?? 0);
  if (writable > 0) {
    const examples = typeof row.examples === 'string' ? row.examples : '';
    problems.push(
      `the login may write ${writable} table${writable === 1 ? '' : 's'} (${examples}${writable > 3 ? ', …' : ''})`,
    );
  }
  return problems;
}
