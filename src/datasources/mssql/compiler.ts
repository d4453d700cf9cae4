import type {
  AggregateItem,
  ColumnKind,
  CompiledQuery,
  Condition,
  DateBucket,
  InsertManyPlan,
  InsertPlan,
  SelectPlan,
  UpdatePlan,
  UpsertPlan,
} from '../core/dialect';
import { UPSERT_INSERTED } from '../core/dialect';
import { ParamList, SqlCompiler } from '../core/sql-compiler';

/** `[name]`, with `]` doubled (SQL Server docs, "Database identifiers", delimited identifiers). */
export function mssqlQuote(identifier: string): string {
  return `[${identifier.replace(/]/g, ']]')}]`;
}

/** The statement parameter numbered `index`: `@p1`, `@p2`, … */
export function mssqlPlaceholder(index: number): string {
  return `@p${index}`;
}

/**
 * SQL Server's SQL syntax for the shared {@link SqlCompiler}: `[name]` quoting, `@pn` parameters,
 * `OFFSET … FETCH`, `OUTPUT INSERTED.…` for returned rows, decimals read as exact text, a binary
 * collation under LOWER for case-insensitive LIKE.
 */
export abstract class MssqlCompiler extends SqlCompiler {
  protected override readonly likeSpecials = '%_[';

  /** {@link mssqlQuote}. */
  quote(identifier: string): string {
    return mssqlQuote(identifier);
  }

  protected placeholder(index: number): string {
    return mssqlPlaceholder(index);
  }

  protected likeInsensitive(column: string, pattern: string): string {
    return `LOWER(CAST(${column} AS NVARCHAR(MAX))) COLLATE Latin1_General_100_BIN2 LIKE LOWER(${pattern}) ESCAPE '\\'`;
  }

  /** `OFFSET @p ROWS` and, with a take, `FETCH NEXT @p ROWS ONLY`; nothing for neither. */
  protected override paginate(take: number | null, skip: number, params: ParamList): string {
    if (take === null) return skip > 0 ? ` OFFSET ${params.add(skip)} ROWS` : '';
    return ` OFFSET ${params.add(skip)} ROWS FETCH NEXT ${params.add(take)} ROWS ONLY`;
  }

  /**
   * SQL Server's aggregates without lost digits (Microsoft docs, "SUM", "COUNT_BIG"): counts as
   * `COUNT_BIG` (`COUNT` is an `int`), a sum of integers over `decimal(38,0)` (`SUM` of an `int`
   * answers `int` and overflows).
   */
  protected override aggregateValue(item: AggregateItem, column: string): string {
    switch (item.fn) {
      case 'count':
        return 'COUNT_BIG(*)';
      case 'countValues':
        return `COUNT_BIG(${column})`;
      case 'countDistinct':
        return `COUNT_BIG(DISTINCT ${column})`;
      case 'sum':
        if (item.kind === 'int' || item.kind === 'bigint')
          return `SUM(CAST(${column} AS DECIMAL(38,0)))`;
        return `SUM(${column})`;
      default:
        return super.aggregateValue(item, column);
    }
  }

  /**
   * {@link aggregateValue}, with every exact-number result (an integer or decimal sum, a decimal
   * column's min/max) read as text, as {@link selectItem} reads decimals.
   */
  protected override aggregateExpression(item: AggregateItem, column: string): string {
    const sql = this.aggregateValue(item, column);
    const exact =
      item.kind === 'decimal' ||
      (item.fn === 'sum' && (item.kind === 'int' || item.kind === 'bigint'));
    return exact && item.fn !== 'countValues' && item.fn !== 'countDistinct'
      ? `CONVERT(NVARCHAR(64), ${sql})`
      : sql;
  }

  /**
   * A date/time column truncated to its bucket's start in the column's type: `DATEFROMPARTS` for
   * years and months, `CAST(… AS date)` for days, `DATEADD(HOUR, …)` for hours (Microsoft docs,
   * "Date and time functions"; `DATETRUNC` needs SQL Server 2022). A `datetimeoffset` is moved to
   * UTC first (`SWITCHOFFSET`) and answers a UTC `datetimeoffset`.
   */
  protected override dateBucket(column: string, kind: ColumnKind, bucket: DateBucket): string {
    const start = (c: string) => {
      switch (bucket) {
        case 'YEAR':
          return `DATEFROMPARTS(YEAR(${c}), 1, 1)`;
        case 'MONTH':
          return `DATEFROMPARTS(YEAR(${c}), MONTH(${c}), 1)`;
        case 'DAY':
          return `CAST(${c} AS DATE)`;
        case 'HOUR':
          return `DATEADD(HOUR, DATEPART(HOUR, ${c}), CAST(CAST(${c} AS DATE) AS DATETIME2))`;
      }
    };
    if (kind === 'date') return start(column);
    const at = (c: string) => (bucket === 'HOUR' ? start(c) : `CAST(${start(c)} AS DATETIME2)`);
    if (kind === 'timestamptz') {
      return `TODATETIMEOFFSET(${at(`CAST(SWITCHOFFSET(${column}, '+00:00') AS DATETIME2)`)}, '+00:00')`;
    }
    return at(column);
  }

  /** A decimal-kind grouped column as exact text ({@link selectItem}). */
  protected override groupKeyItem(column: string, kind: ColumnKind): string {
    return kind === 'decimal' ? `CONVERT(NVARCHAR(64), ${column})` : column;
  }

  /** A decimal-kind column as exact text, named as the column; anything else as is. */
  protected override selectItem(column: string, kind: ColumnKind | undefined): string {
    return this.readItem(this.quote(column), column, kind);
  }

  /** ` OUTPUT INSERTED.[a], …` (decimals as text), or '' when nothing is read back. */
  protected override returning(columns: string[], kinds?: Record<string, ColumnKind>): string {
    if (!columns.length) return '';
    return ` OUTPUT ${columns.map((c) => this.readItem(`INSERTED.${this.quote(c)}`, c, kinds?.[c])).join(', ')}`;
  }

  /**
   * The shared SELECT, with ORDER BY names qualified by the table's exposed name and `take: 0` as a
   * false filter (see the class notes); the partitioned read is the shared one (inside `OVER (…)`
   * names are the table's, never select-list aliases).
   */
  override compileSelect(plan: SelectPlan): CompiledQuery {
    if (plan.partition) return super.compileSelect(plan);
    const params = this.parameters();
    const columns = plan.columns.map((c) => this.selectItem(c, plan.kinds?.[c])).join(', ');
    const none = plan.take === 0;
    const filter: Condition = none
      ? { kind: 'and', items: [this.filterOf(plan), { kind: 'or', items: [] }] }
      : this.filterOf(plan);
    const where = this.whereClause(filter, params, plan.table);
    const order = this.orderBy(plan.order, params, plan.table, true);
    const page = none ? '' : this.paginate(plan.take, plan.skip, params);
    return {
      sql: `SELECT ${columns} FROM ${this.tableName(plan.table)}${where} ORDER BY ${order}${page}`,
      params: params.values,
    };
  }

  /** `INSERT INTO t (…) OUTPUT INSERTED.… VALUES (…)`, or `INSERT INTO t OUTPUT … DEFAULT VALUES`. */
  /** `INSERT INTO t (…) OUTPUT INSERTED.… VALUES (…), (…)`. */
  override compileInsertMany(plan: InsertManyPlan): CompiledQuery {
    const params = this.parameters();
    const columns = plan.columns.map((c) => this.quote(c)).join(', ');
    const output = this.returning(plan.returning, plan.kinds);
    const values = this.valuesLists(plan, params);
    return params.query(
      `INSERT INTO ${this.tableName(plan.table)} (${columns})${output} VALUES ${values}`,
    );
  }

  override compileInsert(plan: InsertPlan): CompiledQuery {
    const params = this.parameters();
    const target = this.tableName(plan.table);
    const output = this.returning(plan.returning, plan.kinds);
    if (!plan.values.length)
      return { sql: `INSERT INTO ${target}${output} DEFAULT VALUES`, params: [] };
    const columns = plan.values.map((v) => this.quote(v.column)).join(', ');
    const values = plan.values.map((v) => params.add(v.value)).join(', ');
    return {
      sql: `INSERT INTO ${target} (${columns})${output} VALUES (${values})`,
      params: params.values,
    };
  }

  /** `UPDATE t SET … OUTPUT INSERTED.… WHERE …`; only the given columns change. */
  override compileUpdate(plan: UpdatePlan): CompiledQuery {
    const params = this.parameters();
    const set = plan.set.map((v) => `${this.quote(v.column)} = ${params.add(v.value)}`).join(', ');
    const output = this.returning(plan.returning, plan.kinds);
    const where = this.whereClause(this.filterOf(plan), params, plan.table);
    return {
      sql: `UPDATE ${this.tableName(plan.table)} SET ${set}${output}${where}`,
      params: params.values,
    };
  }

  /**
   * `MERGE INTO t WITH (HOLDLOCK) USING (VALUES …) AS [__tg_s] (<columns>) ON <key> WHEN MATCHED
   * AND <when> AND <scope> THEN UPDATE SET … WHEN NOT MATCHED BY TARGET THEN INSERT … OUTPUT
   * $action, INSERTED.… INTO @tg_upsert`, then `SELECT … FROM @tg_upsert`, in one batch.
   * HOLDLOCK (SERIALIZABLE on the target) keeps two MERGEs of the same new key from both inserting
   * (Microsoft docs, "MERGE": "a race condition … use the HOLDLOCK hint"); OUTPUT goes INTO a table
   * variable because OUTPUT without INTO fails on a table with an enabled trigger (Microsoft docs,
   * "OUTPUT clause"). The variable's columns are `SQL_VARIANT`, which holds any key type (keys
   * are never `(max)` types, which SQL Server cannot index). {@link UPSERT_INSERTED} is 1 for
   * `INSERT`. No matched clause when `update` is empty.
   */
  override compileUpsert(plan: UpsertPlan): CompiledQuery {
    const params = this.parameters();
    const source = this.quote('__tg_s');
    const self = this.quote(plan.table.name);
    const values = this.valuesLists(plan, params);
    const columns = plan.columns.map((c) => this.quote(c));
    const on = plan.key.map((c) => `${self}.${this.quote(c)} = ${source}.${this.quote(c)}`);
    let matched = '';
    if (plan.update.length > 0) {
      const filter = this.existingRowFilter(plan, params, ' AND ');
      const set = plan.update.map((c) => `${this.quote(c)} = ${source}.${this.quote(c)}`);
      matched = ` WHEN MATCHED${filter} THEN UPDATE SET ${set.join(', ')}`;
    }
    const inserted = columns.map((c) => `${source}.${c}`).join(', ');
    const variable = '@tg_upsert';
    const action = this.quote('__tg_action');
    const read = plan.returning.map((c) => this.quote(c));
    const declare = [`${action} NVARCHAR(10)`, ...read.map((c) => `${c} SQL_VARIANT`)];
    const output = [`$action`, ...read.map((c) => `INSERTED.${c}`)];
    const select = [
      ...plan.returning.map((c) => this.selectItem(c, plan.kinds?.[c])),
      `CASE WHEN ${action} = N'INSERT' THEN 1 ELSE 0 END AS ${this.quote(UPSERT_INSERTED)}`,
    ];
    return params.query(
      `DECLARE ${variable} TABLE (${declare.join(', ')}); ` +
        `MERGE INTO ${this.tableName(plan.table)} WITH (HOLDLOCK) USING (VALUES ${values}) AS ${source} (${columns.join(', ')}) ON ${on.join(' AND ')}` +
        `${matched} WHEN NOT MATCHED BY TARGET THEN INSERT (${columns.join(', ')}) VALUES (${inserted})` +
        ` OUTPUT ${output.join(', ')} INTO ${variable} (${[action, ...read].join(', ')}); ` +
        `SELECT ${select.join(', ')} FROM ${variable}`,
    );
  }

  /**
   * The SELECT of every matching row under `WITH (UPDLOCK, HOLDLOCK)` (Microsoft docs, "Table
   * hints"): the rows read, and the key range where none was found, stay locked until the
   * transaction ends.
   */
  override compileSelectForUpdate(plan: SelectPlan): CompiledQuery {
    const query = this.compileSelect({ ...plan, take: null, skip: 0, partition: undefined });
    const from = `FROM ${this.tableName(plan.table)}`;
    return { ...query, sql: query.sql.replace(from, `${from} WITH (UPDLOCK, HOLDLOCK)`) };
  }

  private readItem(expression: string, column: string, kind: ColumnKind | undefined): string {
    return kind === 'decimal'
      ? `CONVERT(NVARCHAR(64), ${expression}, 2) AS ${this.quote(column)}`
      : expression;
  }

  /** Number text as an exact decimal (an `nvarchar` parameter would convert to the aggregate's type, losing a fraction against `decimal(38,0)`). */
  protected override numericOperand(placeholder: string): string {
    return `CAST(${placeholder} AS DECIMAL(38,10))`;
  }
}
