import type { SqlPool, StatementDescription } from '../core/dialect';
import type { ParsedStatement } from '../core/sql-statement';
import { statementRefusal } from '../core/statement-refusals';
import { mssqlKind } from './introspection';

/**
 * The parameters SQL Server deduces for a batch whose `@p<n>` are undeclared (SQL Server docs,
 * "sp_describe_undeclared_parameters"): one row each, `name` (`@p1`) and
 * `suggested_system_type_name` (`int`, `nvarchar(4000)`). `@p1`: the statement's text.
 */
export const MSSQL_DESCRIBE_PARAMETERS_SQL =
  'EXEC sys.sp_describe_undeclared_parameters @tsql = @p1';

/**
 * The first result set's columns of a batch (SQL Server docs, "sp_describe_first_result_set"):
 * `name`, `is_nullable`, `system_type_name`, `is_hidden`, in `column_ordinal` order. `@p1`: the
 * statement's text, `@p2`: its parameters' declarations (`@p1 int, @p2 nvarchar(4000)`), or NULL.
 */
export const MSSQL_DESCRIBE_RESULT_SQL =
  'EXEC sys.sp_describe_first_result_set @tsql = @p1, @params = @p2, @browse_information_mode = 0';

/**
 * The statement's text for `sp_describe_undeclared_parameters`, which refuses a batch that uses
 * an undeclared parameter more than once (error 11508): each use of `@p<n>` after its first is
 * renamed `@p<n>_<k>`, so every name has its own deduced type and the first use's stands for the
 * name. Only this describing call sees the renamed text.
 */
export function mssqlSingleUseParameters(sql: string): string {
  const seen = new Map<string, number>();
  return sql.replace(/@p(\d+)\b/g, (whole, n: string) => {
    const uses = (seen.get(n) ?? 0) + 1;
    seen.set(n, uses);
    return uses === 1 ? whole : `@p${n}_${uses}`;
  });
}

/** Whether a driver error is SQL Server refusing the statement (an error number with a user severity, 11-16). */
function isRefusal(error: unknown): boolean {
  const e = error as { number?: unknown; class?: unknown };
  return (
    typeof e.number === 'number' &&
    (typeof e.class !== 'number' || (e.class >= 11 && e.class <= 16))
  );
}

/**
 * `Dialect.describeStatement` on SQL Server, inside `pool.readOnly` (a transaction always rolled
 * back): `sp_describe_undeclared_parameters` types the parameters (`@p1…`, as
 * `parseNamedStatement` numbers them), then `sp_describe_first_result_set` with them declared
 * describes the result columns by static analysis (nothing runs), each kinded as introspection
 * does (`mssqlKind`) with SQL Server's own `is_nullable` (computed for expressions and outer
 * joins too). Hidden columns are left out. A parameter SQL Server could not deduce is declared
 * `sql_variant` and has no kind.
 * @throws `StatementRefusal` INVALID_STATEMENT with SQL Server's message (`Invalid object name
 *   'x'.`).
 */
export async function describeMssqlStatement(
  pool: SqlPool,
  statement: ParsedStatement,
): Promise<StatementDescription> {
  try {
    return await pool.readOnly(async (run) => {
      const types = new Map<string, string>();
      if (statement.names.length) {
        const { rows } = await run({
          sql: MSSQL_DESCRIBE_PARAMETERS_SQL,
          params: [mssqlSingleUseParameters(statement.sql)],
        });
        for (const row of rows) {
          const name = String(row.name ?? '');
          if (/^@p\d+$/.test(name)) types.set(name, String(row.suggested_system_type_name));
        }
      }
      const declared = statement.names.map((_, i) => {
        const name = `@p${i + 1}`;
        return `${name} ${types.get(name) ?? 'sql_variant'}`;
      });
      const { rows } = await run({
        sql: MSSQL_DESCRIBE_RESULT_SQL,
        // No declarations: NULL, as sp_executesql takes no @params (an empty text is no list).
        params: [statement.sql, declared.length ? declared.join(', ') : null],
      });
      return {
        parameters: statement.names.map((name, i) => {
          const type = types.get(`@p${i + 1}`) ?? null;
          return { name, databaseType: type, kind: type === null ? null : mssqlKind(type) };
        }),
        columns: rows
          .filter((row) => !row.is_hidden)
          .sort((a, b) => Number(a.column_ordinal) - Number(b.column_ordinal))
          .map((row) => {
            const type = row.system_type_name == null ? null : String(row.system_type_name);
            return {
              name: row.name == null ? '' : String(row.name),
              databaseType: type,
              kind: type === null ? null : mssqlKind(type),
              nullable: row.is_nullable == null ? null : Boolean(row.is_nullable),
            };
          }),
      };
    });
  } catch (error) {
    throw statementRefusal(error, isRefusal);
  }
}
