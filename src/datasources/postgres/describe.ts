import type { FieldDef } from 'pg';
import type { ColumnKind, SqlPool, StatementDescription } from '../core/dialect';
import type { ParsedStatement } from '../core/sql-statement';
import { statementRefusal } from '../core/statement-refusals';
import { postgresKind } from './introspection';
import { PostgresPool } from './pool';

/** A type of `pg_type` as {@link postgresTypeKind} reads it. */
export interface PostgresTypeRow {
  oid: string | number;
  /** `format_type(oid, NULL)`: `integer`, `timestamp with time zone`, `mood`, `integer[]`. */
  name: string;
  /** `pg_type.typtype`: `b` base, `e` enum, `d` domain, `c` composite, `r` range, `p` pseudo. */
  typtype: string;
  /** For a domain, its base type's `format_type` and `typtype`. */
  base: string | null;
  base_typtype: string | null;
}

/** Names, kinds and domains of the given type OIDs (one row each). */
export const POSTGRES_TYPES_SQL = `SELECT t.oid::int8 AS oid, format_type(t.oid, NULL) AS name, t.typtype::text AS typtype,
  CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, NULL) END AS base, b.typtype::text AS base_typtype
FROM pg_type t LEFT JOIN pg_type b ON b.oid = t.typbasetype WHERE t.oid = ANY($1::oid[])`;

/** NOT NULL of the given (table OID, column number) pairs (one row each that exists). */
export const POSTGRES_NOT_NULL_SQL = `SELECT a.attrelid::int8 AS rel, a.attnum::int4 AS num, a.attnotnull AS nn
FROM pg_attribute a JOIN unnest($1::oid[], $2::int2[]) AS f(rel, num) ON a.attrelid = f.rel AND a.attnum = f.num`;

/**
 * The kind of a PostgreSQL type, by the introspection's mapping (`postgresKind`): an enum is
 * text (as introspection reads a `USER-DEFINED` column), a domain its base type's kind; an
 * array is `other` here (its element kind is not described); `unknown` (a parameter PostgreSQL
 * could not type) is null.
 */
export function postgresTypeKind(row: PostgresTypeRow | undefined): ColumnKind | null {
  if (!row || row.name === 'unknown') return null;
  if (row.typtype === 'e') return 'text';
  if (row.typtype === 'd' && row.base)
    return row.base_typtype === 'e' ? 'text' : postgresKind(row.base);
  return postgresKind(row.name);
}

/** Whether a driver error is PostgreSQL refusing the statement (a SQLSTATE outside 08, 53, 57, XX). */
function isRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|53|57|58|XX)/.test(code);
}

/**
 * `Dialect.describeStatement` on PostgreSQL (`PostgresPool.describe`: the protocol's Parse and
 * Describe, nothing executed): parameter types from ParameterDescription, result columns from
 * RowDescription, their types named and kinded from `pg_type` and the nullability of a column read
 * straight from a table (its table OID and column number) from `pg_attribute.attnotnull`. An
 * expression's nullability is unknown (null), and so is every column's when the statement has an
 * outer join or grouping sets (`ParsedStatement.outerJoin`). A view's column is nullable
 * (PostgreSQL keeps no NOT NULL for view columns).
 * @throws `StatementRefusal` INVALID_STATEMENT with PostgreSQL's message (no SQL text: a
 *   PostgreSQL message quotes at most a token, `syntax error at or near "FORM"`).
 */
export async function describePostgresStatement(
  pool: SqlPool,
  statement: ParsedStatement,
): Promise<StatementDescription> {
  if (!(pool instanceof PostgresPool))
    throw new Error('A PostgreSQL statement needs a PostgreSQL pool');
  let shape: { parameterTypes: number[]; fields: FieldDef[] | null };
  try {
    shape = await pool.describe(statement.sql);
  } catch (error) {
    throw statementRefusal(error, isRefusal);
  }
  const fields = shape.fields ?? [];
  const oids = [...new Set([...shape.parameterTypes, ...fields.map((f) => f.dataTypeID)])];
  const types = new Map<number, PostgresTypeRow>();
  if (oids.length) {
    const { rows } = await pool.run({ sql: POSTGRES_TYPES_SQL, params: [oids] });
    for (const row of rows as unknown as PostgresTypeRow[]) types.set(Number(row.oid), row);
  }
  const direct = fields.filter((f) => f.tableID > 0 && f.columnID > 0);
  const notNull = new Map<string, boolean>();
  if (direct.length && !statement.outerJoin) {
    const { rows } = await pool.run({
      sql: POSTGRES_NOT_NULL_SQL,
      params: [direct.map((f) => f.tableID), direct.map((f) => f.columnID)],
    });
    for (const row of rows) notNull.set(`${Number(row.rel)}.${Number(row.num)}`, row.nn === true);
  }
  return {
    parameters: statement.names.map((name, i) => {
      const type = types.get(shape.parameterTypes[i]);
      return { name, databaseType: type?.name ?? null, kind: postgresTypeKind(type) };
    }),
    columns: fields.map((f) => {
      const type = types.get(f.dataTypeID);
      const nn = statement.outerJoin ? undefined : notNull.get(`${f.tableID}.${f.columnID}`);
      return {
        name: f.name,
        databaseType: type?.name ?? null,
        kind: postgresTypeKind(type),
        nullable: nn === undefined ? null : !nn,
      };
    }),
  };
}
