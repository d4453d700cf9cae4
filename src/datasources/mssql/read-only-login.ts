import type { StatementRunner } from '../core/dialect';

/** A write permission on the object named `w.[name]` (SQL Server docs, "HAS_PERMS_BY_NAME"). */
const writes = ['INSERT', 'UPDATE', 'DELETE']
  .map((p) => `HAS_PERMS_BY_NAME(w.[name], N'OBJECT', N'${p}') = 1`)
  .join(' OR ');

/**
 * What the login of a connection may write, for a datasource's read-only login (README
 * "Datasources"; on SQL Server the only thing that keeps a query-kind SQL API from writing, as
 * SQL Server has no read-only transaction): membership of `sysadmin` (`IS_SRVROLEMEMBER`),
 * `db_owner` or `db_datawriter` (`IS_ROLEMEMBER`), and the user tables and views on which it
 * holds INSERT, UPDATE or DELETE however granted (`HAS_PERMS_BY_NAME`, SQL Server docs; an
 * object the login holds no permission on is not even listed in `sys.objects`): how many, and the
 * first three by name.
 */
export const MSSQL_LOGIN_WRITES_SQL =
  "WITH w AS (SELECT QUOTENAME(SCHEMA_NAME(o.schema_id)) + N'.' + QUOTENAME(o.name) AS [name] " +
  "FROM sys.objects o WHERE o.type IN ('U', 'V') AND o.is_ms_shipped = 0), " +
  `writable AS (SELECT w.[name] FROM w WHERE ${writes}) ` +
  "SELECT CAST(ISNULL(IS_SRVROLEMEMBER('sysadmin'), 0) AS INT) AS [sysadmin], " +
  "CAST(ISNULL(IS_ROLEMEMBER('db_owner'), 0) AS INT) AS [db_owner], " +
  "CAST(ISNULL(IS_ROLEMEMBER('db_datawriter'), 0) AS INT) AS [db_datawriter], " +
  '(SELECT COUNT(*) FROM writable) AS [writable], ' +
  "STUFF((SELECT TOP 3 N', ' + x.[name] FROM writable x ORDER BY x.[name] " +
  "FOR XML PATH(''), TYPE).value('.', 'NVARCHAR(MAX)'), 1, 2, N'') AS [examples]";

/**
 * `Dialect.loginWrites` on SQL Server ({@link MSSQL_LOGIN_WRITES_SQL}): empty when the login
 * writes nothing, else one sentence per reason.
 * @throws the driver's error when the catalog cannot be read.
 */
export async function mssqlLoginWrites(run: StatementRunner): Promise<string[]> {
  const { rows } = await run({ sql: MSSQL_LOGIN_WRITES_SQL, params: [] });
  const row = rows[0] ?? {};
  const problems: string[] = [];
  for (const role of ['sysadmin', 'db_owner', 'db_datawriter'])
    if (Number(row[role]) === 1) problems.push(`the login is a member of ${role}`);
  const writable = Number(row.writable ?? 0);
  if (writable > 0) {
    const examples = typeof row.examples === 'string' ? row.examples : '';
    problems.push(
      `the login may write ${writable} table${writable === 1 ? '' : 's'} (${examples}${writable > 3 ? ', …' : ''})`,
    );
  }
  return problems;
}
