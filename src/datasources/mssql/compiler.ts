import type {
  AggregateItem,
  ColumnKind,
  CompiledQuery,
  Condition,
  DateBucket,
  InsertManyPlan,
  InsertPlan,
  ModelColumn,
  SelectPlan,
  UpdatePlan,
  UpsertPlan,
} from '../core/dialect';
import { UPSERT_INSERTED } from '../core/dialect';
import { ParamList, SqlCompiler } from '../core/sql-compiler';

/** The table variable every SQL Server write that reads rows back outputs INTO. */
const OUT = '@tg_out';

/** The position column of a multi-row insert's table variable: the row's index in VALUES. */
const POSITION = '[__tg_n]';

/**
 * A SQL type name as the catalog spells it, with an optional length, `max` or precision and
 * scale: `nvarchar(50)`, `decimal(10,2)`, `datetime2(3)`, `varbinary(max)`. Anything else in a
 * stored definition (edited by hand) is never put into SQL.
 */
const TYPE_NAME = /^([a-z][a-z0-9_]*)(?:\(\s*(max|\d{1,4})\s*(?:,\s*(\d{1,2})\s*)?\))?$/i;

/** Type names whose size the model may not know, each with the widest form that holds any of them. */
const WIDEST: Record<string, string> = {
  decimal: 'SQL_VARIANT',
  numeric: 'SQL_VARIANT',
  datetime2: 'DATETIME2(7)',
  datetimeoffset: 'DATETIMEOFFSET(7)',
  time: 'TIME(7)',
  binary: 'VARBINARY(MAX)',
  varbinary: 'VARBINARY(MAX)',
};

/** Types a table variable declares by their bare name. */
const BARE = new Set([
  'bigint',
  'int',
  'smallint',
  'tinyint',
  'bit',
  'money',
  'smallmoney',
  'float',
  'real',
  'date',
  'datetime',
  'smalldatetime',
  'uniqueidentifier',
  'xml',
  'sql_variant',
  'hierarchyid',
  'geometry',
  'geography',
  'json',
]);

/** By column kind, when the model has no usable type for the column. */
const BY_KIND: Partial<Record<ColumnKind, string>> = {
  int: 'INT',
  bigint: 'BIGINT',
  decimal: 'SQL_VARIANT',
  float: 'FLOAT',
  boolean: 'BIT',
  date: 'DATE',
  timestamp: 'DATETIME2(7)',
  timestamptz: 'DATETIMEOFFSET(7)',
  time: 'TIME(7)',
  uuid: 'UNIQUEIDENTIFIER',
  binary: 'VARBINARY(MAX)',
  other: 'SQL_VARIANT',
};

/**
 * The type, with `NULL`, of a table-variable column that receives a written column through
 * `OUTPUT … INTO` (Microsoft docs, "table (Transact-SQL)", "Data types"):
 * - the column's declared type (`ModelColumn.declaredType`, read at import: `nvarchar(50)`,
 *   `decimal(10,2)`, `datetime2(3)`), so values come back exactly as stored;
 * - `char`/`varchar` as `nchar`/`nvarchar` (`(max)` beyond 4,000): a table variable's text takes
 *   tempdb's collation, whose code page may lack characters of the column's; Unicode holds every
 *   one. `text`/`ntext` as `nvarchar(max)`, `image` as `varbinary(max)`;
 * - `rowversion`/`timestamp` as `binary(8)` (a table may have one rowversion column, and none can
 *   be written: docs, "rowversion");
 * - without a declared type (definitions imported before it was read), the type name with its
 *   length where the model knows it (`maxLength`), else the widest of its family (`datetime2(7)`,
 *   `varbinary(max)`; `sql_variant` for `decimal`/`numeric`, which keeps each value's precision
 *   and scale); without a column or a type name SQL could take, the kind's widest type.
 */
export function mssqlOutputType(column: ModelColumn | undefined, kind?: ColumnKind): string {
  return `${outputType(column, kind ?? column?.kind)} NULL`;
}

function outputType(column: ModelColumn | undefined, kind: ColumnKind | undefined): string {
  const byKind = (kind && BY_KIND[kind]) ?? 'NVARCHAR(MAX)';
  const declared = column?.declaredType !== undefined ? TYPE_NAME.exec(column.declaredType) : null;
  const plain = column ? TYPE_NAME.exec(column.dbType) : null;
  const match = declared ?? plain;
  if (!match) return byKind;
  const name = match[1].toLowerCase();
  const size = match[2]?.toLowerCase();
  const text = (unicode: string, n: number | null) =>
    n !== null && n <= 4000 ? `${unicode}(${n})` : 'NVARCHAR(MAX)';
  switch (name) {
    case 'rowversion':
    case 'timestamp':
      return 'BINARY(8)';
    case 'text':
    case 'ntext':
      return 'NVARCHAR(MAX)';
    case 'image':
      return 'VARBINARY(MAX)';
    case 'char':
    case 'nchar':
    case 'varchar':
    case 'nvarchar': {
      const unicode = name.includes('var') ? 'NVARCHAR' : 'NCHAR';
      const n = declared
        ? size === undefined || size === 'max'
          ? null
          : Number(size)
        : (column?.maxLength ?? null);
      return text(unicode, n);
    }
  }
  if (BARE.has(name))
    return declared ? match[0].toUpperCase().replace(/\s+/g, '') : name.toUpperCase();
  if (!WIDEST[name]) return byKind;
  return declared ? match[0].toUpperCase().replace(/\s+/g, '') : WIDEST[name];
}

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
 * `OFFSET … FETCH`, returned rows through `OUTPUT … INTO` a table variable ({@link outputInto}),
 * decimals read as exact text, a binary collation under LOWER for case-insensitive LIKE.
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

  /**
   * Several rows, read back in the order sent. Without columns to read back: `INSERT INTO t (…)
   * VALUES (…), (…)`. With them: `MERGE INTO t USING (VALUES (…, 0), (…, 1)) AS [__tg_s] (…,
   * [__tg_n]) ON 1 = 0 WHEN NOT MATCHED THEN INSERT (…) VALUES (…) OUTPUT [__tg_s].[__tg_n],
   * INSERTED.… INTO @tg_out (…)`, then the rows `ORDER BY [__tg_n]`. SQL Server does not promise
   * that OUTPUT gives rows in VALUES order (Microsoft docs, "OUTPUT clause": it "doesn't guarantee
   * the order in which rows are processed and returned by DML statements using the OUTPUT
   * clause"), and nested rows take their parent's key by position; a MERGE's OUTPUT may name the
   * source row, so each row carries its position (the pattern EF Core's SQL Server batches use;
   * ADR 0016). Every row matches
   * `WHEN NOT MATCHED` (`ON 1 = 0`), so this is a plain insert: INSERT triggers fire, as for an
   * INSERT.
   */
  override compileInsertMany(plan: InsertManyPlan): CompiledQuery {
    const params = this.parameters();
    const target = this.tableName(plan.table);
    const columns = plan.columns.map((c) => this.quote(c));
    if (!plan.returning.length) {
      const values = this.valuesLists(plan, params);
      return params.query(`INSERT INTO ${target} (${columns.join(', ')}) VALUES ${values}`);
    }
    const source = this.quote('__tg_s');
    const values = plan.rows
      .map(
        (row, n) =>
          `(${row.map((value, i) => params.add(value, plan.columns[i])).join(', ')}${row.length ? ', ' : ''}${n})`,
      )
      .join(', ');
    const inserted = columns.map((c) => `${source}.${c}`).join(', ');
    const into = this.outputInto(plan, [`${source}.${POSITION}`]);
    return params.query(
      `${into.declare}MERGE INTO ${target} USING (VALUES ${values}) AS ${source} (${[...columns, POSITION].join(', ')}) ON 1 = 0` +
        ` WHEN NOT MATCHED THEN INSERT (${columns.join(', ')}) VALUES (${inserted})${into.output}; ${into.select}`,
    );
  }

  /**
   * One row: `INSERT INTO t (…) VALUES (…)` or `INSERT INTO t DEFAULT VALUES`, with `OUTPUT
   * INSERTED.… INTO @tg_out` before `VALUES`/`DEFAULT VALUES` and the row read from the variable
   * when columns are read back ({@link outputInto}).
   */
  override compileInsert(plan: InsertPlan): CompiledQuery {
    const params = this.parameters();
    const target = this.tableName(plan.table);
    const into = this.outputInto(plan);
    let body = 'DEFAULT VALUES';
    if (plan.values.length) {
      const columns = plan.values.map((v) => this.quote(v.column)).join(', ');
      body = `(${columns})${into.output} VALUES (${plan.values.map((v) => params.add(v.value)).join(', ')})`;
    } else {
      body = `${into.output.trimStart()}${into.output ? ' ' : ''}${body}`;
    }
    return params.query(
      `${into.declare}INSERT INTO ${target} ${body}${into.select ? `; ${into.select}` : ''}`,
    );
  }

  /**
   * `UPDATE t SET … WHERE …`; only the given columns change. With columns to read back, `OUTPUT
   * INSERTED.… INTO @tg_out` goes before `WHERE` and the rows are read from the variable
   * ({@link outputInto}).
   */
  override compileUpdate(plan: UpdatePlan): CompiledQuery {
    const params = this.parameters();
    const set = plan.set.map((v) => `${this.quote(v.column)} = ${params.add(v.value)}`).join(', ');
    const into = this.outputInto(plan);
    const where = this.whereClause(this.filterOf(plan), params, plan.table);
    return params.query(
      `${into.declare}UPDATE ${this.tableName(plan.table)} SET ${set}${into.output}${where}${into.select ? `; ${into.select}` : ''}`,
    );
  }

  /**
   * The parts of a write that reads `plan.returning` back through a table variable, or empty
   * parts when it reads nothing: `DECLARE @tg_out TABLE (…); ` (each column with its declared
   * type, {@link mssqlOutputType}), ` OUTPUT INSERTED.… INTO @tg_out (…)` and `SELECT … FROM
   * @tg_out` (decimals as text, in `[__tg_n]` order when `lead` gives positions). OUTPUT without
   * INTO fails on a table with an enabled trigger for the statement's action ("The target table
   * … cannot have any enabled triggers if the statement contains an OUTPUT clause without INTO
   * clause", error 334; Microsoft docs, "OUTPUT clause", Remarks, Triggers), so every SQL Server
   * write goes through the variable. The variable holds what OUTPUT saw: the row after the
   * statement, before AFTER triggers ran (the same docs). The batch's last row count is the
   * SELECT's, one per written row (see `MssqlPool`).
   * @param lead OUTPUT items before the columns (a position), each filling a `[__tg_n] INT`.
   */
  private outputInto(
    plan: Pick<InsertPlan, 'returning' | 'kinds' | 'model'>,
    lead: string[] = [],
  ): { declare: string; output: string; select: string } {
    if (!plan.returning.length) return { declare: '', output: '', select: '' };
    const read = plan.returning.map((c) => this.quote(c));
    const declared = [
      ...lead.map(() => `${POSITION} INT`),
      ...plan.returning.map(
        (c, i) => `${read[i]} ${mssqlOutputType(plan.model?.[c], plan.kinds?.[c])}`,
      ),
    ];
    const targets = [...lead.map(() => POSITION), ...read];
    const items = plan.returning.map((c) => this.selectItem(c, plan.kinds?.[c]));
    return {
      declare: `DECLARE ${OUT} TABLE (${declared.join(', ')}); `,
      output: ` OUTPUT ${[...lead, ...read.map((c) => `INSERTED.${c}`)].join(', ')} INTO ${OUT} (${targets.join(', ')})`,
      select: `SELECT ${items.join(', ')} FROM ${OUT}${lead.length ? ` ORDER BY ${POSITION}` : ''}`,
    };
  }

  /**
   * `MERGE INTO t WITH (HOLDLOCK) USING (VALUES …) AS [__tg_s] (<columns>) ON <key> WHEN MATCHED
   * AND <when> AND <scope> THEN UPDATE SET … WHEN NOT MATCHED BY TARGET THEN INSERT … OUTPUT
   * $action, INSERTED.… INTO @tg_upsert`, then `SELECT … FROM @tg_upsert`, in one batch.
   * HOLDLOCK (SERIALIZABLE on the target) keeps two MERGEs of the same new key from both inserting
   * (Microsoft docs, "MERGE": "a race condition … use the HOLDLOCK hint"); OUTPUT goes INTO a table
   * variable because OUTPUT without INTO fails on a table with an enabled trigger (Microsoft docs,
   * "OUTPUT clause"). The variable's columns have the returned columns' types
   * ({@link mssqlOutputType}). {@link UPSERT_INSERTED} is 1 for `INSERT`. No matched clause when
   * `update` is empty.
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
    const declare = [
      `${action} NVARCHAR(10)`,
      ...plan.returning.map(
        (c, i) => `${read[i]} ${mssqlOutputType(plan.model?.[c], plan.kinds?.[c])}`,
      ),
    ];
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
