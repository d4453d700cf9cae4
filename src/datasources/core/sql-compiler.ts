import { invalidInput } from '../../common/domain-error';
import type {
  AggregateItem,
  AggregatePlan,
  ColumnKind,
  CompiledQuery,
  Condition,
  CountPlan,
  DatasourceType,
  DateBucket,
  DeletePlan,
  ExistsCondition,
  GroupCondition,
  GroupMeasure,
  InsertManyPlan,
  InsertPlan,
  OrderTerm,
  RelatedValue,
  SelectPlan,
  StatementSelectPlan,
  TableRef,
  UpdatePlan,
  UpsertPlan,
} from './dialect';

const COMPARE_SQL = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** Name of the per-partition row number column of a batched one-to-many read. */
export const ROW_NUMBER_ALIAS = '__tg_rn';

/**
 * The column each bound parameter of a compiled statement is compared with or written to, by
 * position (null for one of no column: a page bound). Kept beside the statement rather than in
 * it, so {@link CompiledQuery} stays SQL and values; read by {@link parameterColumn}.
 */
const PARAMETER_COLUMNS = new WeakMap<CompiledQuery, readonly (string | null)[]>();

/**
 * The column the `index`-th (0-based) parameter of `query` is compared with or written to, when
 * `query` was compiled by {@link SqlCompiler} and the parameter has one; else null. Lets a
 * database error that names a parameter (PostgreSQL: `unnamed portal parameter $2`) name the
 * field instead (`invalidValueField`).
 */
export function parameterColumn(query: CompiledQuery, index: number): string | null {
  return PARAMETER_COLUMNS.get(query)?.[index] ?? null;
}

/** How many bound parameters one statement may carry on a database, and the database's name. */
export interface ParameterLimit {
  database: string;
  max: number;
}

/**
 * Bound parameters one statement may carry, per database, as each documents it:
 * - PostgreSQL 65,535: the Bind message counts parameters in an Int16 (PostgreSQL docs, "Message
 *   Formats", Bind);
 * - MySQL/MariaDB 65,535: placeholders of one prepared statement (MySQL error 1390
 *   `ER_PS_MANY_PARAM`; MariaDB KB "Server Error Codes", 1390);
 * - SQL Server 2,100: parameters of one request, as `sp_executesql` takes them (SQL Server docs,
 *   "Maximum capacity specifications for SQL Server": parameters per stored procedure);
 * - SQLite 32,766: `SQLITE_MAX_VARIABLE_NUMBER`, the default since SQLite 3.32.0 (sqlite.org
 *   "Limits In SQLite", 9), and what better-sqlite3 12 compiles its bundled SQLite with
 *   (`PRAGMA compile_options`: `MAX_VARIABLE_NUMBER=32766`).
 */
export const PARAMETER_LIMITS: Readonly<Record<DatasourceType, ParameterLimit>> = {
  postgres: { database: 'PostgreSQL', max: 65_535 },
  mysql: { database: 'MySQL/MariaDB', max: 65_535 },
  mssql: { database: 'SQL Server', max: 2_100 },
  sqlite: { database: 'SQLite', max: 32_766 },
};

/**
 * Collects bound parameters and hands out the dialect's placeholder for each. Refuses the
 * parameter past its database's limit ({@link PARAMETER_LIMITS}) while the statement is compiled,
 * so a statement the database would refuse is never sent.
 */
export class ParamList {
  readonly values: unknown[] = [];
  private readonly columns: (string | null)[] = [];
  constructor(
    private readonly placeholder: (index: number) => string,
    private readonly limit: ParameterLimit = { database: 'the database', max: Infinity },
  ) {}

  /** Binds `value` (compared with or written to `column`, when it is); returns its placeholder text. */
  add(value: unknown, column: string | null = null): string {
    if (this.values.length >= this.limit.max) {
      // Only filters bind values without bound (in/nin lists, and/or items): the caller's to change.
      throw invalidInput(
        `The request needs more than ${this.limit.max.toLocaleString('en-US')} bound values in one statement, the most ${this.limit.database} takes: send fewer values in its in/nin lists (split a long list over several requests)`,
      );
    }
    this.values.push(value);
    this.columns.push(column);
    return this.placeholder(this.values.length);
  }

  /** The statement `sql` with these parameters, each parameter's column noted ({@link parameterColumn}). */
  query(sql: string): CompiledQuery {
    const query = { sql, params: this.values };
    if (this.columns.some((c) => c !== null)) PARAMETER_COLUMNS.set(query, this.columns);
    return query;
  }
}

/**
 * Escapes LIKE wildcards so `contains`/`startsWith`/`endsWith` match literal text
 * (CONTRACT.md §6): the escape character itself, `%`, `_` and the dialect's extra specials get
 * the escape character before them; the compiled predicate declares `ESCAPE '<escape>'`.
 */
export function escapeLike(text: string, specials = '%_', escape = '\\'): string {
  let out = '';
  for (const ch of text) out += ch === escape || specials.includes(ch) ? escape + ch : ch;
  return out;
}

/** The LIKE pattern for a mode over an already escaped text. */
export function likePattern(escaped: string, mode: 'contains' | 'startsWith' | 'endsWith'): string {
  return mode === 'contains'
    ? `%${escaped}%`
    : mode === 'startsWith'
      ? `${escaped}%`
      : `%${escaped}`;
}

const isTrue = (c: Condition) => c.kind === 'and' && c.items.length === 0;
const NUMBER_KINDS: ReadonlySet<ColumnKind> = new Set<ColumnKind>([
  'int',
  'bigint',
  'decimal',
  'float',
]);
const isTrueGroup = (c: GroupCondition) => c.kind === 'and' && c.items.length === 0;

/** The alias of an SQL API's statement inside {@link SqlCompiler.compileStatementSelect}. */
export const STATEMENT_ALIAS = 'q';

/** Prefix of the aliases of relation-filter subqueries: `__tg_r1`, `__tg_r2`, … by depth. */
export const SUBQUERY_ALIAS = '__tg_r';

/**
 * Where a condition's columns live while it is compiled: `prefix` qualifies them (empty at the
 * statement's own level, so its SQL is as before relation filters), `self` names the level's
 * table for a subquery's correlation (the table's exposed name at the top, else the subquery's
 * alias; null when the statement gave none), `depth` numbers the subquery aliases.
 */
interface ColumnScope {
  prefix: string;
  self: string | null;
  depth: number;
}

/**
 * The SQL every dialect shares (SELECT … WHERE … ORDER BY, the filter language, the windowed
 * batch read). Adapters supply quoting, placeholders, case-insensitive LIKE, null ordering and
 * pagination, which is where databases differ.
 */
export abstract class SqlCompiler {
  /** The database the compiled SQL is for; decides its {@link PARAMETER_LIMITS} entry. */
  abstract readonly type: DatasourceType;
  /** Quotes an identifier from the model. */
  abstract quote(identifier: string): string;
  /** Placeholder for the n-th (1-based) bound parameter. */
  protected abstract placeholder(index: number): string;
  /** Case-insensitive literal LIKE of `column` against the bound `pattern` (already escaped). */
  protected abstract likeInsensitive(column: string, pattern: string): string;
  /** Characters besides `%` and `_` that LIKE treats specially on this database. */
  protected readonly likeSpecials: string = '%_';
  /** The LIKE escape character the adapter's `likeInsensitive` declares with `ESCAPE`. */
  protected readonly likeEscape: string = '\\';

  /**
   * One ORDER BY term. Empty values sort first under ASC and last under DESC on every database
   * (CONTRACT.md §6); the default suits databases where NULL is the smallest value.
   */
  protected orderTerm(column: string, direction: 'ASC' | 'DESC', _nullable = true): string {
    return `${column} ${direction}`;
  }

  /** The bound parameters of one statement, within this database's {@link PARAMETER_LIMITS}. */
  protected parameters(): ParamList {
    return new ParamList((i) => this.placeholder(i), PARAMETER_LIMITS[this.type]);
  }

  /**
   * ` WHERE <predicate>`, or nothing when the predicate admits every row (no `WHERE 1=1`).
   * `table` is the statement's table, which a relation filter's subquery correlates with by its
   * exposed (unqualified) name; without it such a condition throws.
   */
  protected whereClause(c: Condition, params: ParamList, table?: TableRef): string {
    if (isTrue(c)) return '';
    const at: ColumnScope = { prefix: '', self: table ? this.quote(table.name) : null, depth: 0 };
    return ` WHERE ${this.condition(c, params, at)}`;
  }

  /** Pagination clause appended after ORDER BY. */
  protected paginate(take: number | null, skip: number, params: ParamList): string {
    const limit = take === null ? '' : ` LIMIT ${params.add(take)}`;
    return skip > 0 ? `${limit} OFFSET ${params.add(skip)}` : limit;
  }

  /** The table's qualified, quoted name. */
  tableName(table: TableRef): string {
    return table.schema
      ? `${this.quote(table.schema)}.${this.quote(table.name)}`
      : this.quote(table.name);
  }

  /**
   * The predicate of a plan: its `where` AND its `scope` (the caller's row rule), the scope left
   * out only when it admits every row.
   */
  protected filterOf(plan: { where: Condition; scope: Condition }): Condition {
    const everyRow = plan.scope.kind === 'and' && plan.scope.items.length === 0;
    return everyRow ? plan.where : { kind: 'and', items: [plan.where, plan.scope] };
  }

  /** {@link filterOf}, and the partition column among its keys when the plan carries them apart. */
  protected partitionFilterOf(plan: SelectPlan): Condition {
    const filter = this.filterOf(plan);
    const perKey = plan.partition?.perKey;
    if (!perKey) return filter;
    const inKeys: Condition = {
      kind: 'in',
      column: plan.partition!.column,
      values: perKey.keys,
      negated: false,
    };
    return { kind: 'and', items: [inKeys, filter] };
  }

  compileSelect(plan: SelectPlan): CompiledQuery {
    const params = this.parameters();
    const columns = plan.columns.map((c) => this.selectItem(c, plan.kinds?.[c])).join(', ');
    if (!plan.partition) {
      const where = this.whereClause(this.filterOf(plan), params, plan.table);
      const order = this.orderBy(plan.order, params, plan.table);
      const page = this.paginate(plan.take, plan.skip, params);
      const sql = `SELECT ${columns} FROM ${this.tableName(plan.table)}${where} ORDER BY ${order}${page}`;
      return params.query(sql);
    }
    // The window's ORDER BY comes before WHERE in the text: its parameters (an order through a
    // relation binds its row rule's) are bound first, as positional placeholders (`?`) need.
    const order = this.orderBy(plan.order, params, plan.table);
    const where = this.whereClause(this.partitionFilterOf(plan), params, plan.table);
    const rn = this.quote(ROW_NUMBER_ALIAS);
    const inner =
      `SELECT ${columns}, ROW_NUMBER() OVER (PARTITION BY ${this.quote(plan.partition.column)} ` +
      `ORDER BY ${order}) AS ${rn} FROM ${this.tableName(plan.table)}${where}`;
    const bounds = [`${rn} > ${params.add(plan.skip)}`];
    if (plan.take !== null) bounds.push(`${rn} <= ${params.add(plan.skip + plan.take)}`);
    const outer = plan.columns.map((c) => this.quote(c)).join(', ');
    const sql = `SELECT ${outer} FROM (${inner}) ${this.quote('__tg_p')} WHERE ${bounds.join(' AND ')} ORDER BY ${rn}`;
    return params.query(sql);
  }

  /**
   * A query-kind SQL API's read (`Dialect.compileStatementSelect`, issue 26 item 3): `SELECT
   * <columns> FROM (\n<statement>\n) AS "q" WHERE <where> ORDER BY <order> <page>`. The line
   * breaks around the statement end a `--` comment it may end with. The statement's parameters
   * are bound first (its placeholders come first in the text, and PostgreSQL's `$n` and SQL
   * Server's `@p<n>` numbers of its names are 1…k), then the filter's and the page's. `where` and
   * `order` name the statement's result columns (`plan.columns`); an order term is qualified by
   * the alias, so a select item that converts a column (SQL Server decimals as text) never
   * shadows it. A decimal column is read as {@link selectItem} reads one; no other conversion.
   */
  compileStatementSelect(plan: StatementSelectPlan): CompiledQuery {
    const params = this.parameters();
    for (const value of plan.params) params.add(value);
    const q = this.quote(STATEMENT_ALIAS);
    const items = plan.columns
      .map((c) => this.selectItem(c.name, c.kind === 'decimal' ? c.kind : undefined))
      .join(', ');
    const where = this.whereClause(plan.where, params);
    const terms = plan.order.map((o) =>
      this.orderTerm(`${q}.${this.quote(o.column)}`, o.direction, o.nullable ?? true),
    );
    const order = terms.length ? ` ORDER BY ${terms.join(', ')}` : this.unorderedStatementOrder();
    const page = this.paginate(plan.take, plan.skip, params);
    return params.query(
      `SELECT ${items} FROM (\n${plan.statement.sql}\n) AS ${q}${where}${order}${page}`,
    );
  }

  /** The ORDER BY of {@link compileStatementSelect} when none is asked: none, but where paging needs one. */
  protected unorderedStatementOrder(): string {
    return '';
  }

  compileCount(plan: CountPlan): CompiledQuery {
    const params = this.parameters();
    const where = this.whereClause(this.filterOf(plan), params, plan.table);
    return params.query(
      `SELECT COUNT(*) AS ${this.quote('count')} FROM ${this.tableName(plan.table)}${where}`,
    );
  }

  /**
   * A grouped read (`aggregate<Base>`, PEERS.md §A2): `SELECT <keys>, <aggregates> FROM t WHERE
   * <where AND scope> GROUP BY <keys> HAVING <having> ORDER BY <order>, <keys ASC, NULL first>
   * <page>`; columns are named by the table's exposed name, so an alias never shadows a column in
   * ORDER BY, and a bucketed key is its bucket expression in every clause. HAVING and ORDER BY
   * repeat the aggregates as expressions (SQL Server and SQLite cannot use a select alias inside
   * an expression). Without `groupBy`: no GROUP BY, HAVING, ORDER BY or page, one row whatever the
   * table holds. The resolver never sends `take: 0` (it answers `[]` without SQL; SQL Server
   * refuses `FETCH NEXT 0`).
   */
  compileAggregate(plan: AggregatePlan): CompiledQuery {
    const params = this.parameters();
    const col = (c: string) => `${this.quote(plan.table.name)}.${this.quote(c)}`;
    const keys = plan.groupBy.map((g) =>
      g.bucket ? this.dateBucket(col(g.column), g.kind, g.bucket) : col(g.column),
    );
    const items = [
      ...plan.groupBy.map(
        (g, i) => `${this.groupKeyItem(keys[i], g.kind)} AS ${this.quote(g.alias)}`,
      ),
      ...plan.aggregates.map(
        (a) =>
          `${this.aggregateExpression(a, a.column === undefined ? '' : col(a.column))} AS ${this.quote(a.alias)}`,
      ),
    ];
    const where = this.whereClause(this.filterOf(plan), params, plan.table);
    let sql = `SELECT ${items.join(', ')} FROM ${this.tableName(plan.table)}${where}`;
    if (plan.groupBy.length) {
      const measure = (m: GroupMeasure) => this.groupMeasure(m, col, keys);
      sql += ` GROUP BY ${keys.join(', ')}`;
      if (plan.having && !isTrueGroup(plan.having)) {
        sql += ` HAVING ${this.groupCondition(plan.having, params, measure)}`;
      }
      const ordered = new Set<number>();
      const order = (plan.order ?? []).map((o) => {
        if (o.measure.fn === 'key') ordered.add(o.measure.index);
        return this.orderTerm(measure(o.measure), o.direction, o.nullable);
      });
      plan.groupBy.forEach((g, i) => {
        if (!ordered.has(i)) order.push(this.orderTerm(keys[i], 'ASC', g.nullable));
      });
      sql += ` ORDER BY ${order.join(', ')}`;
      sql += this.paginate(plan.take, plan.skip, params);
    }
    return params.query(sql);
  }

  /** A {@link GroupMeasure} as an SQL expression over the group (`col` qualifies a column). */
  private groupMeasure(m: GroupMeasure, col: (c: string) => string, keys: string[]): string {
    switch (m.fn) {
      case 'key':
        return keys[m.index];
      case 'count':
        return this.aggregateValue({ fn: 'count', alias: '' }, '');
      case 'avg':
        // Approximate numbers on every database: a double on MySQL, SQL Server and SQLite (whose
        // AVG of integers would otherwise be exact decimal, integer or REAL), numeric on
        // PostgreSQL; never integer division.
        return `AVG(${col(m.column)} * 1.0E0)`;
      default:
        return this.aggregateValue({ fn: m.fn, kind: m.kind, alias: '' }, col(m.column));
    }
  }

  /** A `having` condition; values become bound parameters, as in {@link condition}. */
  private groupCondition(
    c: GroupCondition,
    params: ParamList,
    measure: (m: GroupMeasure) => string,
  ): string {
    if (c.kind !== 'compare') {
      if (c.items.length === 0) return c.kind === 'and' ? '1=1' : '1=0';
      const joiner = c.kind === 'and' ? ' AND ' : ' OR ';
      return `(${c.items.map((i) => this.groupCondition(i, params, measure)).join(joiner)})`;
    }
    const sql = measure(c.measure);
    if (c.value === null) return `${sql} IS ${c.op === 'neq' ? 'NOT ' : ''}NULL`;
    const m = c.measure;
    const timestamp =
      (m.fn === 'min' || m.fn === 'max') && (m.kind === 'timestamp' || m.kind === 'timestamptz');
    const side = (s: string) => (timestamp ? this.timestampOperand(s) : s);
    const column = 'column' in m ? m.column : null;
    let value = side(params.add(c.value, column));
    // A sum, or a min/max of a number column, arrives as BigInt or Decimal text.
    const exact = 'kind' in m && NUMBER_KINDS.has(m.kind) && m.fn !== 'countDistinct';
    if (exact && m.fn !== 'avg') value = this.numericOperand(value);
    return `${side(sql)} ${COMPARE_SQL[c.op]} ${value}`;
  }

  /**
   * A placeholder bound to number text (a BigInt or Decimal value) compared with an aggregate,
   * which has no column affinity or type to convert the text by. PostgreSQL infers the
   * parameter's type from the aggregate; adapters whose database would compare the text as text
   * or as a double cast it (SQLite, MySQL, SQL Server).
   */
  protected numericOperand(placeholder: string): string {
    return placeholder;
  }

  /**
   * A date or date-and-time column truncated to the start of its `bucket` (README "Aggregates"),
   * in the column's own type; a `timestamptz` bucket starts in UTC. `date` columns take YEAR,
   * MONTH and DAY only (the planner refuses HOUR).
   */
  protected abstract dateBucket(column: string, kind: ColumnKind, bucket: DateBucket): string;

  /**
   * One aggregate over `column` (a qualified column; empty for `count`) as the select list reads
   * it: {@link aggregateValue} unless the adapter's driver would lose digits reading it (SQL
   * Server reads decimal results as text).
   */
  protected aggregateExpression(item: AggregateItem, column: string): string {
    return this.aggregateValue(item, column);
  }

  /**
   * One aggregate over `column` as a value HAVING and ORDER BY compare. The default is the SQL
   * standard's; adapters cast where their database would lose digits (SQL Server: `SUM` of an
   * integer column answers in the column's type and overflows, Microsoft docs "SUM").
   */
  protected aggregateValue(item: AggregateItem, column: string): string {
    switch (item.fn) {
      case 'count':
        return 'COUNT(*)';
      case 'countValues':
        return `COUNT(${column})`;
      case 'countDistinct':
        return `COUNT(DISTINCT ${column})`;
      case 'sum':
        return `SUM(${column})`;
      case 'min':
        return `MIN(${column})`;
      case 'max':
        return `MAX(${column})`;
    }
  }

  /**
   * A grouped column in the select list (a qualified column); adapters whose driver would lose
   * digits of a kind cast it here, as in {@link selectItem}.
   */
  protected groupKeyItem(column: string, _kind: ColumnKind): string {
    return column;
  }

  /**
   * `INSERT … RETURNING` (PostgreSQL, SQLite ≥ 3.35, MariaDB ≥ 10.5); a row with no values uses
   * `DEFAULT VALUES`. Adapters whose database has no RETURNING override this.
   */
  compileInsert(plan: InsertPlan): CompiledQuery {
    const params = this.parameters();
    const target = this.tableName(plan.table);
    const body = plan.values.length
      ? `(${plan.values.map((v) => this.quote(v.column)).join(', ')}) VALUES (${plan.values.map((v) => this.writeItem(params.add(v.value, v.column), plan.kinds?.[v.column])).join(', ')})`
      : 'DEFAULT VALUES';
    return params.query(
      `INSERT INTO ${target} ${body}${this.returning(plan.returning, plan.kinds)}`,
    );
  }

  /** Several rows in one `INSERT … VALUES (…), (…)`, read back with `RETURNING` (see {@link Dialect}). */
  compileInsertMany(plan: InsertManyPlan): CompiledQuery {
    const params = this.parameters();
    const values = this.valuesLists(plan, params);
    const columns = plan.columns.map((c) => this.quote(c)).join(', ');
    return params.query(
      `INSERT INTO ${this.tableName(plan.table)} (${columns}) VALUES ${values}${this.returning(plan.returning, plan.kinds)}`,
    );
  }

  /**
   * `INSERT INTO t (<columns>) VALUES (…), (…) ON CONFLICT (<key>) DO UPDATE SET c = EXCLUDED.c
   * WHERE <when> AND <scope> RETURNING …` (PostgreSQL docs, "INSERT", "ON CONFLICT Clause"; SQLite
   * "UPSERT"), or `DO NOTHING` when `update` is empty. In `SET` and `WHERE` the existing row is
   * the table's exposed name, the sent one `EXCLUDED`; the WHERE's columns are qualified by the
   * table's name, so a row rule's subquery correlates with the existing row. Rows whose existing
   * row fails the WHERE are neither changed nor returned. {@link upsertStatus} adds whether a
   * returned row was inserted.
   */
  compileUpsert(plan: UpsertPlan): CompiledQuery {
    const params = this.parameters();
    const values = this.valuesLists(plan, params);
    const columns = plan.columns.map((c) => this.quote(c)).join(', ');
    const key = plan.key.map((c) => this.quote(c)).join(', ');
    let action = 'DO NOTHING';
    if (plan.update.length > 0) {
      const set = plan.update.map((c) => `${this.quote(c)} = EXCLUDED.${this.quote(c)}`);
      action = `DO UPDATE SET ${set.join(', ')}${this.existingRowFilter(plan, params, ' WHERE ')}`;
    }
    const status = this.upsertStatus();
    const returning =
      plan.returning.length > 0
        ? `${this.returning(plan.returning, plan.kinds)}${status ? `, ${status}` : ''}`
        : '';
    return params.query(
      `INSERT INTO ${this.tableName(plan.table)} (${columns}) VALUES ${values} ON CONFLICT (${key}) ${action}${returning}`,
    );
  }

  /**
   * `<lead><when> AND <scope>` on the existing row of an upsert, its columns qualified by the
   * table's exposed name (`alias` when given), or '' when both admit every row.
   */
  protected existingRowFilter(
    plan: Pick<UpsertPlan, 'when' | 'scope' | 'table'>,
    params: ParamList,
    lead: string,
    alias?: string,
  ): string {
    const filter = this.filterOf({ where: plan.when, scope: plan.scope });
    if (isTrue(filter)) return '';
    const self = alias ?? this.quote(plan.table.name);
    return `${lead}${this.condition(filter, params, { prefix: `${self}.`, self, depth: 0 })}`;
  }

  /**
   * The RETURNING item telling an inserted row from an updated one, named `__tg_inserted` (`UPSERT_INSERTED`),
   * or null where the statement cannot tell (SQLite: the caller reads the existing keys first,
   * inside its write transaction).
   */
  protected upsertStatus(): string | null {
    return null;
  }

  /** {@link Dialect.compileSelectForUpdate}: the SELECT of every matching row, `FOR UPDATE`. */
  compileSelectForUpdate(plan: SelectPlan): CompiledQuery {
    const query = this.compileSelect({ ...plan, take: null, skip: 0, partition: undefined });
    return { ...query, sql: `${query.sql} FOR UPDATE` };
  }

  /** `(?, ?), (?, ?)`: each row's values bound in column order, through {@link writeItem}. */
  protected valuesLists(
    plan: Pick<InsertManyPlan, 'columns' | 'rows' | 'kinds'>,
    params: ParamList,
  ): string {
    return plan.rows
      .map(
        (row) =>
          `(${row.map((value, i) => this.writeItem(params.add(value, plan.columns[i]), plan.kinds?.[plan.columns[i]])).join(', ')})`,
      )
      .join(', ');
  }

  /** `UPDATE … SET … WHERE … RETURNING`; only the given columns change. */
  compileUpdate(plan: UpdatePlan): CompiledQuery {
    const params = this.parameters();
    const set = plan.set
      .map(
        (v) =>
          `${this.quote(v.column)} = ${this.writeItem(params.add(v.value, v.column), plan.kinds?.[v.column])}`,
      )
      .join(', ');
    const where = this.whereClause(this.filterOf(plan), params, plan.table);
    return params.query(
      `UPDATE ${this.tableName(plan.table)} SET ${set}${where}${this.returning(plan.returning, plan.kinds)}`,
    );
  }

  /** `DELETE … WHERE`; the caller reads the affected-row count. */
  compileDelete(plan: DeletePlan): CompiledQuery {
    const params = this.parameters();
    return params.query(
      `DELETE FROM ${this.tableName(plan.table)}${this.whereClause(this.filterOf(plan), params, plan.table)}`,
    );
  }

  /** The clause that reads written columns back in the same statement. */
  protected returning(columns: string[], kinds?: Record<string, ColumnKind>): string {
    return columns.length
      ? ` RETURNING ${columns.map((c) => this.selectItem(c, kinds?.[c])).join(', ')}`
      : '';
  }

  /**
   * One item of a select list (or RETURNING list), named as the column. Adapters whose driver
   * would lose digits of a kind cast it here (SQL Server: decimals to text).
   */
  protected selectItem(column: string, _kind: ColumnKind | undefined): string {
    return this.quote(column);
  }

  /**
   * A written value's placeholder in an INSERT or UPDATE. Adapters whose database stores a kind
   * from its text form through a function wrap it here (MySQL: spatial WKT in `ST_GeomFromText`).
   */
  protected writeItem(placeholder: string, _kind: ColumnKind | undefined): string {
    return placeholder;
  }

  /**
   * The terms of an ORDER BY, each through {@link orderTerm}. A column is named bare, or qualified
   * by the table's exposed name when `qualified` (SQL Server, where a select-list alias could
   * shadow it); an order through a relation is its correlated scalar subquery
   * ({@link relatedValue}), correlated with `table` by its exposed name as relation filters are,
   * its row rules' values bound in `params` in text order.
   */
  protected orderBy(
    order: OrderTerm[],
    params: ParamList,
    table: TableRef,
    qualified = false,
  ): string {
    const exposed = this.quote(table.name);
    const at: ColumnScope = { prefix: '', self: exposed, depth: 0 };
    return order
      .map((o) => {
        const sql = o.related
          ? this.relatedValue(o.related, params, at)
          : qualified
            ? `${exposed}.${this.quote(o.column)}`
            : this.quote(o.column);
        return this.orderTerm(sql, o.direction, o.nullable ?? true);
      })
      .join(', ');
  }

  /**
   * `(SELECT <value> FROM <table> <alias> WHERE <alias>.<inner> = <outer level>.<outer> … AND
   * <scope>)`, the same text on every database but for quoting and placeholders (README "Order
   * and pages"). `<value>` is the related row's column, `COUNT(*)`, or the next subquery,
   * correlated with this one's alias; aliases number by depth (`__tg_r1`, `__tg_r2`, …) as the
   * subqueries of relation filters do, so a table related to itself correlates with the enclosing
   * level. The caller's row rule of the table is inside (CONTRACT.md §4): a hidden row is no row.
   */
  private relatedValue(r: RelatedValue, params: ParamList, at: ColumnScope): string {
    if (at.self === null) throw new Error('An order through a relation needs its statement');
    if (r.on.length === 0) throw new Error('An order through a relation needs a column pair');
    const alias = this.quote(`${SUBQUERY_ALIAS}${at.depth + 1}`);
    const inner: ColumnScope = { prefix: `${alias}.`, self: alias, depth: at.depth + 1 };
    // The value comes first in the text, so its parameters are bound first.
    const value =
      r.value.kind === 'count'
        ? 'COUNT(*)'
        : r.value.kind === 'column'
          ? `${alias}.${this.quote(r.value.column)}`
          : this.relatedValue(r.value.related, params, inner);
    const parts = r.on.map(
      (p) => `${alias}.${this.quote(p.inner)} = ${at.self}.${this.quote(p.outer)}`,
    );
    if (!isTrue(r.scope)) parts.push(this.condition(r.scope, params, inner));
    return `(SELECT ${value} FROM ${this.tableName(r.table)} ${alias} WHERE ${parts.join(' AND ')})`;
  }

  /**
   * One side of a comparison of a date-and-time column (a column or a placeholder), as the
   * database must compare it. The databases with date-and-time types compare the values
   * themselves (identity, so an index serves the comparison); SQLite overrides it, as its values are
   * text of several forms.
   */
  protected timestampOperand(sql: string): string {
    return sql;
  }

  /**
   * One side of an equality of a column of kind `other` or `array` (a {@link Condition} marked
   * `typed`): `side` says whether `sql` is the column or a placeholder, `key` is what the
   * dialect's `comparedAs` gave for the column. Only a dialect that gives such keys compares such
   * columns, so the default (both sides as they are) is never reached by the others.
   */
  protected typedOperand(sql: string, _key: string, _side: 'column' | 'value'): string {
    return sql;
  }

  /** How a comparison writes its column (`column`) and each placeholder (`value`). */
  private operands(c: { timestamp?: true; typed?: string }): {
    column: (sql: string) => string;
    value: (sql: string) => string;
  } {
    const typed = c.typed;
    if (typed !== undefined) {
      return {
        column: (sql) => this.typedOperand(sql, typed, 'column'),
        value: (sql) => this.typedOperand(sql, typed, 'value'),
      };
    }
    const same = c.timestamp ? (sql: string) => this.timestampOperand(sql) : (sql: string) => sql;
    return { column: same, value: same };
  }

  /**
   * Compiles a {@link Condition}; every value becomes a bound parameter. `at` says how its
   * columns are qualified ({@link ColumnScope}); a relation filter's subquery compiles its own
   * conditions one level deeper.
   * @throws Error for a relation filter in a statement that named no table (a planner bug).
   */
  protected condition(
    c: Condition,
    params: ParamList,
    at: ColumnScope = { prefix: '', self: null, depth: 0 },
  ): string {
    const column = (name: string) => `${at.prefix}${this.quote(name)}`;
    switch (c.kind) {
      case 'and':
        return c.items.length === 0
          ? '1=1'
          : `(${c.items.map((i) => this.condition(i, params, at)).join(' AND ')})`;
      case 'or':
        return c.items.length === 0
          ? '1=0'
          : `(${c.items.map((i) => this.condition(i, params, at)).join(' OR ')})`;
      case 'compare': {
        const operand = this.operands(c);
        return `${operand.column(column(c.column))} ${COMPARE_SQL[c.op]} ${operand.value(params.add(c.value, c.column))}`;
      }
      case 'null':
        return `${column(c.column)} IS ${c.negated ? 'NOT ' : ''}NULL`;
      case 'in': {
        // in: [] matches nothing, nin: [] everything (CONTRACT.md §6).
        if (c.values.length === 0) return c.negated ? '1=1' : '1=0';
        const operand = this.operands(c);
        const list = c.values.map((v) => operand.value(params.add(v, c.column))).join(', ');
        return `${operand.column(column(c.column))} ${c.negated ? 'NOT IN' : 'IN'} (${list})`;
      }
      case 'like': {
        const pattern = likePattern(
          escapeLike(c.value, this.likeSpecials, this.likeEscape),
          c.mode,
        );
        return this.likeInsensitive(column(c.column), params.add(pattern, c.column));
      }
      case 'untrue':
        // NOT (x IS TRUE) without boolean values (SQL Server has none): unknown counts as false.
        return `CASE WHEN ${this.condition(c.item, params, at)} THEN 1 ELSE 0 END = 0`;
      case 'exists':
        return this.exists(c, params, at);
    }
  }

  /**
   * `[NOT] EXISTS (SELECT 1 FROM <table> <alias> WHERE <alias>.<inner> = <outer level>.<outer> …
   * AND <scope> AND <where>)`, the same text on every database but for quoting and placeholders.
   * The alias hides the table's own name inside, so a table related to itself correlates with the
   * enclosing level, never with itself.
   */
  private exists(c: ExistsCondition, params: ParamList, at: ColumnScope): string {
    if (at.self === null) throw new Error('A relation filter needs the statement its row is in');
    if (c.on.length === 0) throw new Error('A relation filter needs at least one column pair');
    const alias = this.quote(`${SUBQUERY_ALIAS}${at.depth + 1}`);
    const inner: ColumnScope = { prefix: `${alias}.`, self: alias, depth: at.depth + 1 };
    const parts = c.on.map(
      (p) => `${alias}.${this.quote(p.inner)} = ${at.self}.${this.quote(p.outer)}`,
    );
    // The caller's row rule of the related table, applied inside (CONTRACT.md §4).
    if (!isTrue(c.scope)) parts.push(this.condition(c.scope, params, inner));
    if (!isTrue(c.where)) parts.push(this.condition(c.where, params, inner));
    const sql = `EXISTS (SELECT 1 FROM ${this.tableName(c.table)} ${alias} WHERE ${parts.join(' AND ')})`;
    return c.negated ? `NOT ${sql}` : sql;
  }
}
