import { types as pgTypes } from 'pg';
import type { DataSourceOptions } from 'typeorm';
import { invalidInput } from '../common/domain-error';
import type { Capabilities, ColumnKind, DatabaseRefusal, Dialect, IntrospectedTable, ModelColumn, SqlPool, TableRef, WriteContext } from './dialect';
import { TypeOrmPool } from './typeorm-pool';
import { translatePostgresError } from './postgres-errors';
import { SqlCompiler } from './sql-compiler';
import { columnsFromTypeorm, foreignKeysFromTypeorm, formatCommon } from './typeorm-introspection';

/** PostgreSQL OIDs whose text form we keep as text (pg's default parses them into JS Dates). */
const RAW_TEXT_OIDS = new Set([1082 /* date */, 1114 /* timestamp */, 1184 /* timestamptz */, 1083, 1266]);

/** Per-pool type parsers: dates and times stay text, so the process time zone never applies. */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (RAW_TEXT_OIDS.has(oid)) return (text: string) => text;
    return pgTypes.getTypeParser(oid, format as 'text');
  },
};

/** Maps a PostgreSQL type name (information_schema spelling) to a column kind. */
export function postgresKind(dbType: string): ColumnKind {
  const t = dbType.toLowerCase();
  if (t === 'smallint' || t === 'integer' || t === 'int' || t === 'int2' || t === 'int4') return 'int';
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
  return 'text';
}

/**
 * PostgreSQL adapter (`pg` through a TypeORM pool). Quoting with `"`, `$n` placeholders,
 * `ILIKE … ESCAPE '\'` for case-insensitive literal matching, explicit `NULLS FIRST/LAST` because
 * PostgreSQL sorts NULL as the largest value (PostgreSQL docs, "ORDER BY").
 */
export class PostgresDialect extends SqlCompiler implements Dialect {
  readonly type = 'postgres' as const;

  async open(url: string, options: { poolSize: number }): Promise<SqlPool> {
    return TypeOrmPool.open({ ...this.connectionOptions(url), poolSize: options.poolSize } as DataSourceOptions);
  }

  capabilities(): Capabilities {
    return { insertReturning: true, updateReturning: true };
  }

  /** TypeORM options of a pool: date/time types kept as text, sessions in UTC. */
  connectionOptions(url: string): DataSourceOptions {
    if (!/^postgres(ql)?:\/\//.test(url)) throw invalidInput('A postgres datasource URL starts with postgres://');
    return {
      type: 'postgres',
      url,
      poolSize: 10,
      // Sessions in UTC: timestamptz text then always carries +00, whatever the server's zone.
      extra: { types: typeParsers, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30000, options: '-c TimeZone=UTC' },
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

  async introspect(pool: SqlPool, tables: TableRef[]): Promise<IntrospectedTable[]> {
    const runner = (pool as TypeOrmPool).dataSource.createQueryRunner();
    try {
      const found = await runner.getTables(tables.map((t) => `${t.schema ?? 'public'}.${t.name}`));
      return found.map((t) => {
        const [schema, name] = t.name.includes('.') ? t.name.split('.') : [t.schema ?? 'public', t.name];
        const columns = columnsFromTypeorm(t.columns, postgresKind);
        return {
          schema,
          dbName: name,
          columns,
          primaryKey: t.columns.filter((c) => c.isPrimary).map((c) => c.name),
          foreignKeys: foreignKeysFromTypeorm(t.foreignKeys, schema),
        };
      });
    } finally {
      await runner.release();
    }
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

  protected override orderTerm(column: string, direction: 'ASC' | 'DESC'): string {
    return `${column} ${direction} ${direction === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}`;
  }

  translateError(error: unknown, context: WriteContext): DatabaseRefusal | null {
    return translatePostgresError(error, context);
  }

  bindValue(_column: ModelColumn, value: unknown): unknown {
    return value;
  }

  formatValue(column: ModelColumn, raw: unknown): unknown {
    return formatCommon(column, raw);
  }
}
