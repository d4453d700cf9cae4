import type { StatementRunner } from '../core/dialect';

/**
 * What the login of a connection may write, for a datasource's read-only login (README
 * "Datasources"): the INSERT, UPDATE and DELETE privileges granted to the connection's account
 * (`CURRENT_USER()`, as `'user'@'host'` in the `GRANTEE` columns) globally, on a database or on a
 * table (MySQL "INFORMATION_SCHEMA USER_PRIVILEGES / SCHEMA_PRIVILEGES / TABLE_PRIVILEGES", the
 * same on MariaDB), at most ten rows. Privileges a role brings are not followed: there the
 * read-only transaction (`START TRANSACTION READ ONLY`, error 1792) still refuses a write.
 */
export const MYSQL_LOGIN_WRITES_SQL = `SELECT p.PRIVILEGE_TYPE AS privilege, p.scope AS scope FROM (
    SELECT GRANTEE, PRIVILEGE_TYPE, '*.*' AS scope FROM information_schema.USER_PRIVILEGES
    UNION ALL SELECT GRANTEE, PRIVILEGE_TYPE, CONCAT(TABLE_SCHEMA, '.*') FROM information_schema.SCHEMA_PRIVILEGES
    UNION ALL SELECT GRANTEE, PRIVILEGE_TYPE, CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) FROM information_schema.TABLE_PRIVILEGES
  ) p
  WHERE p.GRANTEE = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')
    AND p.PRIVILEGE_TYPE IN ('INSERT', 'UPDATE', 'DELETE')
  ORDER BY p.scope, p.PRIVILEGE_TYPE
  LIMIT 10`;

/**
 * `Dialect.loginWrites` on MySQL/MariaDB ({@link MYSQL_LOGIN_WRITES_SQL}): empty when the
 * account holds no write privilege, else one sentence naming the first ones.
 * @throws the driver's error when the catalog cannot be read.
 */
export async function mysqlLoginWrites(run: StatementRunner): Promise<string[]> {
  const { rows } = await run({ sql: MYSQL_LOGIN_WRITES_SQL, params: [] });
  if (!rows.length) return [];
  const grants = rows.map((r) => `${String(r.privilege)} on ${String(r.scope)}`);
  return [`the login holds ${grants.join(', ')}${rows.length === 10 ? ', …' : ''}`];
}
