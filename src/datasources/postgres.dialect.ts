import type { TlsOptions } from 'node:tls';
import { PoolConfig, types as pgTypes } from 'pg';
import type { DataSourceOptions } from 'typeorm';
import type {
  Capabilities,
  ColumnKind,
  PoolOptions,
  DatabaseRefusal,
  Dialect,
  IntrospectedTable,
  ModelColumn,
  SqlPool,
  TableRef,
  WriteContext,
} from './dialect';
import { postgresClientConfig } from './datasource-urls';
import { PostgresPool } from './postgres-pool';
import { translatePostgresError } from './postgres-errors';
import { SqlCompiler } from './sql-compiler';
import { formatCommon, jsonText } from './value-format';

/** Column names from the JSON text of an array (`["id","region"]`); an empty foreign side is []. */
function columnNames(json: unknown): string[] {
  return typeof json === 'string' ? ((JSON.parse(json) as string[] | null) ?? []) : [];
}

/**
 * OIDs pg parses for us: booleans, integers, floats, bytes (PostgreSQL `pg_type`). Every other
 * type stays the text PostgreSQL prints, which is also what it accepts back (issue "every value
 * it stores": intervals, points, arrays … round-trip as their text form).
 */
const PARSED_OIDS = new Set([16 /* bool */, 17 /* bytea */, 20, 21, 23, 26 /* oid */, 700, 701]);

/** Per-pool type parsers: everything but {@link PARSED_OIDS} stays text (dates too, so no time zone applies). */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (!PARSED_OIDS.has(oid)) return (text: string) => text;
    return pgTypes.getTypeParser(oid, format as 'text');
  },
};

/** PostgreSQL's text types (PostgreSQL docs, "Character Types"; `citext` and `name` compare as text). */
const TEXT_TYPES = new Set(['text', 'varchar', 'char', 'bpchar', 'name', 'citext']);

/** Maps a PostgreSQL type name (information_schema spelling) to a column kind. */
export function postgresKind(dbType: string): ColumnKind {
  const t = dbType.toLowerCase();
  if (t === 'smallint' || t === 'integer' || t === 'int' || t === 'int2' || t === 'int4')
    return 'int';
  if (t === 'bigint' || t === 'int8') return 'bigint';
  // money prints with a currency symbol (`$12.50`): it stays text.
  if (t === 'numeric' || t === 'decimal') return 'decimal';
  if (t === 'real' || t === 'double precision' || t === 'float4' || t === 'float8') return 'float';
  if (t === 'boolean' || t === 'bool') return 'boolean';
  if (t === 'date') return 'date';
  if (t.startsWith('timestamp with time zone') || t === 'timestamptz') return 'timestamptz';
  if (t.startsWith('timestamp')) return 'timestamp';
  if (t.startsWith('time')) return 'time';
  if (t === 'json' || t === 'jsonb') return 'json';
  if (t === 'uuid') return 'uuid';
  if (t === 'bytea') return 'binary';
  // Text types, and enum or domain types (USER-DEFINED), whose text compares as text.
  if (TEXT_TYPES.has(t) || t.startsWith('character') || t === 'user-defined') return 'text';
  return 'other';
}

/**
 * PostgreSQL adapter (`pg` through a TypeORM pool). Quoting with `"`, `$n` placeholders,
 * `ILIKE … ESCAPE '\'` for case-insensitive literal matching, explicit `NULLS FIRST/LAST` because
 * PostgreSQL sorts NULL as the largest value (PostgreSQL docs, "ORDER BY").
 */
export class PostgresDialect extends SqlCompiler implements Dialect {
  readonly type = 'postgres' as const;

  /** Opens a {@link PostgresPool}: URL parsed by `postgresClientConfig`, dates as text, UTC sessions. */
  async open(url: string, options: PoolOptions): Promise<SqlPool> {
    return PostgresPool.open(this.clientConfig(url), options);
  }

  capabilities(): Capabilities {
    return { insertReturning: true, updateReturning: true };
  }

  /**
   * The `pg` settings of a datasource URL (allow-listed by `postgresClientConfig`): date/time
   * types kept as text, sessions in UTC (timestamptz text then always carries +00).
   * @throws DomainError INVALID_INPUT for a URL outside the allow-list.
   */
  clientConfig(url: string): PoolConfig {
    return { ...postgresClientConfig(url), types: typeParsers, options: '-c TimeZone=UTC' };
  }

  /** TypeORM options for the same settings (tests that drive TypeORM on a datasource). */
  connectionOptions(url: string): DataSourceOptions {
    const { types, options, ...config } = this.clientConfig(url);
    return {
      type: 'postgres',
      host: config.host,
      port: config.port,
      username: config.user,
      password: config.password as string | undefined,
      database: config.database,
      ssl: config.ssl as false | TlsOptions,
      extra: { types, options },
      logging: false,
    };
  }

  async listTables(pool: SqlPool): Promise<TableRef[]> {
    const { rows } = await pool.run({
      sql: `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
       WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
       ORDER BY table_schema, table_name`,
      params: [],
    });
    return rows.map((r) => ({ schema: String(r.schema), name: String(r.name) }));
  }

  /**
   * Reads columns, primary keys and foreign keys from `information_schema` and `pg_catalog`
   * (PostgreSQL docs, "The Information Schema" and "System Catalogs"). Not TypeORM's getTables:
   * for generated columns it reads a `typeorm_metadata` table that user databases do not have.
   */
  async introspect(pool: SqlPool, tables: TableRef[]): Promise<IntrospectedTable[]> {
    if (tables.length === 0) return [];
    const wanted = (schema: unknown, name: unknown) =>
      tables.some((t) => (t.schema ?? 'public') === schema && t.name === name);
    const schemas = [...new Set(tables.map((t) => t.schema ?? 'public'))];
    const names = [...new Set(tables.map((t) => t.name))];
    const params = [schemas, names];
    const columns = (
      await pool.run({
        sql: `SELECT table_schema, table_name, column_name, data_type, is_nullable, column_default, is_identity,
                is_generated, character_maximum_length
              FROM information_schema.columns
              WHERE table_schema = ANY($1) AND table_name = ANY($2)
              ORDER BY table_schema, table_name, ordinal_position`,
        params,
      })
    ).rows.filter((r) => wanted(r.table_schema, r.table_name));
    const keys = (
      await pool.run({
        sql: `SELECT ns.nspname AS table_schema, cl.relname AS table_name, con.contype, con.conname,
                fns.nspname AS ref_schema, fcl.relname AS ref_table,
                array_to_json(ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(n, i)
                      JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.i)::text[])::text AS columns,
                array_to_json(ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(n, i)
                      JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.i)::text[])::text AS ref_columns
              FROM pg_constraint con
              JOIN pg_class cl ON cl.oid = con.conrelid
              JOIN pg_namespace ns ON ns.oid = cl.relnamespace
              LEFT JOIN pg_class fcl ON fcl.oid = con.confrelid
              LEFT JOIN pg_namespace fns ON fns.oid = fcl.relnamespace
              WHERE con.contype IN ('p', 'f') AND ns.nspname = ANY($1) AND cl.relname = ANY($2)
              ORDER BY con.conname`,
        params,
      })
    ).rows.filter((r) => wanted(r.table_schema, r.table_name));
    return tables
      .map((t): IntrospectedTable | null => {
        const schema = t.schema ?? 'public';
        const mine = (r: Record<string, unknown>) =>
          r.table_schema === schema && r.table_name === t.name;
        const own = columns.filter(mine);
        if (own.length === 0) return null;
        const constraints = keys.filter(mine);
        const primary = constraints.find((k) => k.contype === 'p');
        return {
          schema,
          dbName: t.name,
          columns: own.map((c): ModelColumn => {
            const serial =
              typeof c.column_default === 'string' && c.column_default.startsWith('nextval(');
            const computed = c.is_generated === 'ALWAYS';
            return {
              name: String(c.column_name),
              dbType: String(c.data_type),
              kind: postgresKind(String(c.data_type)),
              nullable: c.is_nullable === 'YES',
              hasDefault: c.column_default !== null && !serial && !computed,
              generated: serial || c.is_identity === 'YES' || computed,
              computed,
              maxLength:
                c.character_maximum_length === null ? null : Number(c.character_maximum_length),
              enum: null,
            };
          }),
          // Arrays come as JSON text: the pool keeps every array type as PostgreSQL's text form.
          primaryKey: primary ? columnNames(primary.columns) : [],
          foreignKeys: constraints
            .filter((k) => k.contype === 'f')
            .map((k) => ({
              columns: columnNames(k.columns),
              referencedSchema: String(k.ref_schema),
              referencedTable: String(k.ref_table),
              referencedColumns: columnNames(k.ref_columns),
            })),
        };
      })
      .filter((t): t is IntrospectedTable => t !== null);
  }

  quote(identifier: string): string {
    return `"${identifier.replace(/"/g, '""')}"`;
  }

  protected placeholder(index: number): string {
    return `$${index}`;
  }

  protected likeInsensitive(column: string, pattern: string): string {
    return `${column}::text ILIKE ${pattern} ESCAPE '\\'`;
  }

  /**
   * PostgreSQL sorts NULL as the largest value (PostgreSQL docs, "ORDER BY"), the opposite of the
   * contract's order: nullable columns say `NULLS FIRST`/`LAST`; NOT NULL ones say nothing, so
   * a plain or `DESC` index serves the order.
   */
  protected override orderTerm(column: string, direction: 'ASC' | 'DESC', nullable = true): string {
    if (!nullable) return `${column} ${direction}`;
    return `${column} ${direction} ${direction === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}`;
  }

  translateError(error: unknown, context: WriteContext): DatabaseRefusal | null {
    return translatePostgresError(error, context);
  }

  bindValue(column: ModelColumn, value: unknown): unknown {
    // pg would send a JS array as a PostgreSQL array: JSON goes as its text.
    return column.kind === 'json' && value !== null ? jsonText(value) : value;
  }

  formatValue(column: ModelColumn, raw: unknown): unknown {
    return formatCommon(column, raw);
  }
}
