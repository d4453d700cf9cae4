import { averageFanOut, rowStatistic, SQLITE_COUNT_CAP } from './dialect';
import type { CompiledQuery, SqlPool } from './dialect';
import { mssqlRowEstimatesSql, mssqlTablesFromCatalog } from '../mssql/introspection';
import { mysqlIndexCardinalitySql, mysqlTablesSql } from '../mysql/introspection';
import { MysqlDialect } from '../mysql/dialect';
import {
  POSTGRES_COLUMN_STATISTICS_SQL,
  POSTGRES_ROW_ESTIMATES_SQL,
  postgresFanOut,
} from '../postgres/introspection';
import { sqliteCountSql, sqliteStat1, SQLITE_STAT1_SQL } from '../sqlite/introspection';
import { SqliteDialect } from '../sqlite/dialect';

/** A pool answering each statement with the rows `answer` gives for its SQL, recording it. */
function pool(answer: (sql: string) => Record<string, unknown>[]): SqlPool & {
  queries: CompiledQuery[];
} {
  const queries: CompiledQuery[] = [];
  return {
    queries,
    run: (query) => {
      queries.push(query);
      return Promise.resolve({ rows: answer(query.sql), affected: undefined });
    },
    transaction: () => Promise.reject(new Error('not used')),
    readOnly: () => Promise.reject(new Error('not used')),
    serverVersion: () => Promise.resolve('test'),
    close: () => Promise.resolve(),
  };
}

describe('table statistics read at import (issue 23 item 5; golden SQL, no server)', () => {
  it('reads 0, negative, NULL and non-numbers as unknown and rounds to two decimals', () => {
    for (const raw of [0, -1, null, undefined, 'x', Number.NaN, Infinity])
      expect([raw, rowStatistic(raw)]).toEqual([raw, undefined]);
    expect(rowStatistic(3000)).toBe(3000);
    expect(rowStatistic('2999.996')).toBe(3000);
    expect(rowStatistic(12n)).toBe(12);
  });

  it('averages a fan-out over the non-null rows, at least 1', () => {
    expect(averageFanOut(3000, 1000)).toBe(3);
    expect(averageFanOut(3000, 1000, 0.5)).toBe(1.5);
    expect(averageFanOut(10, 100)).toBe(1);
    expect(averageFanOut(undefined, 10)).toBeUndefined();
    expect(averageFanOut(10, 0)).toBeUndefined();
  });

  it('PostgreSQL: reltuples from pg_class, fan-out from pg_stats n_distinct (a count or a share)', () => {
    expect(POSTGRES_ROW_ESTIMATES_SQL).toContain('cl.reltuples::float8 AS reltuples');
    expect(POSTGRES_ROW_ESTIMATES_SQL).toContain("cl.relkind IN ('r', 'p', 'm')");
    expect(POSTGRES_COLUMN_STATISTICS_SQL).toContain('FROM pg_stats WHERE schemaname = ANY($1)');
    expect(POSTGRES_COLUMN_STATISTICS_SQL).toContain('ORDER BY inherited');
    expect(postgresFanOut(3000, { n_distinct: 1000, null_frac: 0 })).toBe(3);
    // -0.25: a quarter of the rows are distinct values.
    expect(postgresFanOut(3000, { n_distinct: -0.25, null_frac: 0 })).toBe(4);
    expect(postgresFanOut(3000, { n_distinct: 1000, null_frac: 0.1 })).toBe(2.7);
    expect(postgresFanOut(-1, { n_distinct: 1000, null_frac: 0 })).toBeUndefined();
    expect(postgresFanOut(3000, undefined)).toBeUndefined();
  });

  it('MySQL/MariaDB: TABLE_ROWS and the cardinality of the index a foreign key leads', async () => {
    expect(mysqlTablesSql(1)).toContain('TABLE_ROWS AS `table_rows`');
    expect(mysqlIndexCardinalitySql(2)).toBe(
      'SELECT TABLE_NAME AS `table_name`, COLUMN_NAME AS `column_name`, MAX(CARDINALITY) AS `cardinality` ' +
        'FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?, ?) AND SEQ_IN_INDEX = 1 ' +
        'GROUP BY TABLE_NAME, COLUMN_NAME',
    );
    const p = pool((sql) => {
      if (sql.includes('DATABASE()')) return [{ db: 'shop' }];
      if (sql.includes('information_schema.COLUMNS'))
        return [
          {
            table_name: 'lines',
            column_name: 'order_id',
            data_type: 'int',
            column_type: 'int(11)',
            is_nullable: 'NO',
            column_default: null,
            extra: '',
            column_comment: '',
          },
        ];
      if (sql.includes('KEY_COLUMN_USAGE'))
        return [
          {
            table_name: 'lines',
            constraint_name: 'fk_order',
            column_name: 'order_id',
            referenced_table_schema: 'shop',
            referenced_table_name: 'orders',
            referenced_column_name: 'id',
          },
        ];
      if (sql.includes('information_schema.TABLES'))
        return [
          { table_name: 'lines', table_type: 'BASE TABLE', table_comment: '', table_rows: 3000 },
        ];
      if (sql.includes('information_schema.STATISTICS'))
        return [{ table_name: 'lines', column_name: 'order_id', cardinality: 1000 }];
      return [];
    });
    const [lines] = await new MysqlDialect().introspect(p, [{ schema: null, name: 'lines' }]);
    expect(lines.estimatedRows).toBe(3000);
    expect(lines.foreignKeys[0].fanOut).toBe(3);
  });

  it('SQLite: sqlite_stat1 when analyzed, else a count stopped at the cap', async () => {
    expect(SQLITE_STAT1_SQL).toBe('SELECT idx, stat FROM sqlite_stat1 WHERE tbl = ?');
    expect(sqliteCountSql('"t"')).toBe(
      `SELECT count(*) AS n FROM (SELECT 1 FROM "t" LIMIT ${SQLITE_COUNT_CAP})`,
    );
    expect(sqliteCountSql('"t"', '"c"')).toBe(
      `SELECT count(*) AS n, count(DISTINCT c) AS d, count(c) AS nn FROM (SELECT "c" AS c FROM "t" LIMIT ${SQLITE_COUNT_CAP})`,
    );
    const stat = sqliteStat1([
      { stat: '3000 1', leading: 'id' },
      { stat: '3000 3 1', leading: 'order_id' },
    ]);
    expect(stat.rows).toBe(3000);
    expect(stat.fanOut.get('order_id')).toBe(3);
    expect(sqliteStat1([])).toEqual({ fanOut: new Map() });

    const p = pool((sql) => {
      if (sql.includes("name = 'sqlite_stat1'")) return [{ n: 0 }];
      if (sql.startsWith('SELECT name, type FROM sqlite_master'))
        return [{ name: 'lines', type: 'table' }];
      if (sql.includes('pragma_table_xinfo'))
        return [
          { name: 'id', type: 'INTEGER', notnull: 0n, dflt_value: null, pk: 1n, hidden: 0n },
          { name: 'order_id', type: 'INTEGER', notnull: 0n, dflt_value: null, pk: 0n, hidden: 0n },
        ];
      if (sql.includes('pragma_foreign_key_list'))
        return [{ id: 0n, seq: 0n, table: 'orders', from: 'order_id', to: 'id' }];
      if (sql.includes('count(DISTINCT')) return [{ n: 3000, d: 1000, nn: 3000 }];
      if (sql.includes('count(*)')) return [{ n: 3000 }];
      return [];
    });
    const [lines] = await new SqliteDialect().introspect(p, [{ schema: null, name: 'lines' }]);
    expect(lines.estimatedRows).toBe(3000);
    expect(lines.foreignKeys[0].fanOut).toBe(3);
  });

  it('SQL Server: sys.partitions rows of the heap or clustered index; no fan-out', () => {
    expect(mssqlRowEstimatesSql('OBJECT_ID(@p1)')).toContain(
      'WHERE p.index_id IN (0, 1) AND p.object_id IN (OBJECT_ID(@p1))',
    );
    const [table] = mssqlTablesFromCatalog(
      [{ schema: 'sales', name: 'orders' }],
      [
        {
          schema_name: 'sales',
          table_name: 'orders',
          table_kind: 'table',
          column_name: 'id',
          type_name: 'int',
          max_length: 4,
          is_nullable: false,
          is_identity: true,
          is_computed: false,
          has_default: false,
          generated_always_type: 0,
        } as never,
      ],
      [],
      [],
      [{ schema_name: 'sales', table_name: 'orders', row_count: '3000' }],
    );
    expect(table.estimatedRows).toBe(3000);
  });
});
