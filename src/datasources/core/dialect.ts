import type { CancelSignal } from '../../common/cancellation';
import type { RowSink } from './row-bytes';
import type { ParsedStatement } from './sql-statement';

/** Database kinds a datasource may be (CONTRACT.md §3). */
export type DatasourceType = 'postgres' | 'mysql' | 'mssql' | 'sqlite';

/**
 * What a column holds, independent of the database: decides its GraphQL scalar, its filter
 * operators and how its values are formatted (CONTRACT.md §6 Values).
 */
export type ColumnKind =
  | 'text'
  | 'int'
  | 'float'
  | 'bigint'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'time'
  /**
   * MySQL/MariaDB `TIME`: a signed span of time, -838:59:59.000000 to 838:59:59.000000 (MySQL
   * docs, "The TIME Type"), of which a time of day is a part: the `Duration` scalar.
   */
  | 'duration'
  | 'timestamp'
  | 'timestamptz'
  | 'json'
  | 'uuid'
  /** Bytes (`bytea`, `BLOB`, `varbinary`): the `Base64` scalar both ways, bound as bytes. */
  | 'binary'
  /**
   * A one-dimensional PostgreSQL array whose element kind is one of {@link ARRAY_ELEMENT_KINDS}
   * (`ModelColumn.elementKind`): a GraphQL list of the element's scalar both ways, compared only
   * with null, never ordered (PostgreSQL docs, "Arrays").
   */
  | 'array'
  /**
   * A type with no GraphQL counterpart (PostgreSQL intervals, geometric, network, range, bit
   * string, `xml`, `money`, arrays of other elements or of more dimensions): its database text
   * form both ways, compared only with null.
   */
  | 'other';

/**
 * The element kinds an `array` column may have: those whose values PostgreSQL prints inside an
 * array exactly as it prints them alone, and whose scalar takes them back (README "Values").
 */
export const ARRAY_ELEMENT_KINDS: ReadonlySet<ColumnKind> = new Set<ColumnKind>([
  'text',
  'int',
  'bigint',
  'decimal',
  'float',
  'boolean',
  'uuid',
  'date',
  'timestamp',
  'timestamptz',
  'time',
]);

/** A column as introspected and kept in the model. */
export interface ModelColumn {
  name: string;
  /** The database's type name, e.g. `character varying`, `timestamp with time zone`. */
  dbType: string;
  kind: ColumnKind;
  nullable: boolean;
  /** Has a default value (other than a generated key). */
  hasDefault: boolean;
  /** Identity/auto-increment/serial, or a computed column. */
  generated: boolean;
  /**
   * A column that refuses a value: generated-expression columns, PostgreSQL `GENERATED ALWAYS AS
   * IDENTITY`, SQL Server `rowversion` and period columns. Never written by `add`/`update`.
   */
  computed?: boolean;
  /** `varchar(n)` length; null when unbounded or not text. */
  maxLength: number | null;
  /** The app enum assigned to this column, or null (CONTRACT.md §3). */
  enum?: string | null;
  /**
   * The database enum type of the column, when it has one: a PostgreSQL enum type (`pg_type`
   * `typtype = 'e'`, directly or through a domain over it) or a MySQL/MariaDB `ENUM(…)`. Absent
   * for every other column and in definitions saved before enum types were read. The column's
   * GraphQL type is then a GraphQL enum of these values, unless an app enum is assigned
   * (`enum`), which wins.
   */
  dbEnum?: DatabaseEnum;
  /**
   * The type as the database prints it in full where {@link ModelColumn.dbType} is only its
   * family: PostgreSQL's `format_type()` (`character varying(200)`, `numeric(12,2)`, `mood`,
   * `integer[]`); SQL Server's type with its length, precision or scale (`nvarchar(50)`,
   * `decimal(10,2)`, `datetime2(3)`) where it has one. Absent on MySQL/MariaDB and SQLite (their
   * `dbType` is the full type already), for SQL Server types without a size, and in older
   * definitions; then `dbType` stands for it.
   */
  declaredType?: string;
  /**
   * The column's comment in the database catalog (PostgreSQL `COMMENT ON COLUMN`, MySQL/MariaDB
   * `COLUMN_COMMENT`, SQL Server's `MS_Description` extended property). Absent (or null) when the
   * column has none; SQLite has no comments.
   */
  comment?: string | null;
  /**
   * On an `array` column only: the kind of its elements, one of {@link ARRAY_ELEMENT_KINDS}.
   * Absent on every other column, and in definitions saved before arrays were read as lists
   * (their array columns are `other` and stay so until the table is imported again).
   */
  elementKind?: ColumnKind;
  /**
   * On an `array` column only: the element type's name as PostgreSQL's catalog spells it
   * (`pg_type.typname` of `typelem`: `int4`, `varchar`, `timestamptz`), which decides, e.g., an
   * integer element's range.
   */
  elementType?: string;
}

/** Element columns per array column: model columns live as long as their schema. */
const ELEMENTS = new WeakMap<ModelColumn, ModelColumn | null>();

/**
 * The element of an array column as a column of its own (same name, `dbType` the element type,
 * `kind` the element kind, nullable: PostgreSQL array elements may be NULL), so the rules of a
 * plain column of that type (formatting, integer ranges, UUID text) apply to each element. Null
 * when the column is not an `array` column, or its `elementKind` is not one of
 * {@link ARRAY_ELEMENT_KINDS} (a definition edited by hand): such a column is read and written as
 * a column of kind `other` would be ({@link effectiveKind}).
 */
export function arrayElement(column: ModelColumn): ModelColumn | null {
  if (column.kind !== 'array') return null;
  let element = ELEMENTS.get(column);
  if (element === undefined) {
    const kind = column.elementKind;
    element =
      kind !== undefined && ARRAY_ELEMENT_KINDS.has(kind)
        ? {
            name: column.name,
            dbType: column.elementType ?? kind,
            kind,
            nullable: true,
            hasDefault: false,
            generated: false,
            maxLength: null,
          }
        : null;
    ELEMENTS.set(column, element);
  }
  return element;
}

/**
 * The kind that decides a column's GraphQL type, operators and formatting: its `kind`, except an
 * `array` column without a known element kind ({@link arrayElement}), which is `other`.
 */
export function effectiveKind(column: ModelColumn): ColumnKind {
  return column.kind === 'array' && !arrayElement(column) ? 'other' : column.kind;
}

/**
 * A stored value the column's GraphQL type cannot show: e.g. a two-dimensional value in a
 * PostgreSQL array column declared with one dimension (PostgreSQL does not enforce declared
 * dimensions: docs, "Arrays", 8.15.1). {@link Dialect.formatValue} returns it (never throws it),
 * so only that field of that row fails; the gateway answers it as `INVALID_VALUE` naming the
 * field (`shapeRows()`).
 */
export class UnreadableValue extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableValue';
  }
}

/**
 * A database enum type as introspected (PostgreSQL docs, "Enumerated Types"; MySQL "The ENUM
 * Type"): its name and its values in the database's own order (PostgreSQL `pg_enum.enumsortorder`,
 * MySQL the order of the definition), which is also the order both databases sort them in.
 */
export interface DatabaseEnum {
  /**
   * PostgreSQL: the type's name (`pg_type.typname`, without its schema). MySQL/MariaDB, whose
   * ENUMs are anonymous: `<table>.<column>`.
   */
  name: string;
  /** The values exactly as stored: any text (spaces, leading digits, `true`, …). */
  values: string[];
}

/** A foreign key of a table, referencing a table of the same database. */
export interface ModelForeignKey {
  columns: string[];
  referencedSchema: string | null;
  referencedTable: string;
  referencedColumns: string[];
  /**
   * Rows of this table per distinct non-null value of the key's column, as the database's
   * statistics expect when the table was imported ({@link averageFanOut}): the rows a one-to-many
   * navigation from the referenced table reads per parent. Absent when the statistics say nothing
   * (never analyzed, a key of several columns, SQL Server) and in definitions saved before
   * statistics were read; the cost estimate then counts the worst case (README "Limits").
   */
  fanOut?: number;
  /**
   * The key (of one column) leads an index of this table, as the catalog said at import
   * (PostgreSQL only, `POSTGRES_INDEX_LEADS_SQL`): a one-to-many page can then be read per parent
   * from it (ADR 0015). Absent when it does not, on other databases, and in older definitions.
   */
  indexed?: true;
}

/** A table's place in its database. `schema` is null where the database has none (SQLite). */
export interface TableRef {
  schema: string | null;
  name: string;
}

/**
 * What a listed relation is: `table` stores rows (a PostgreSQL partitioned table counts as one
 * table, its partitions are not listed); `view` derives them (a view on any database, or a
 * PostgreSQL materialized view) and is imported read-only (CONTRACT.md §3: select only).
 */
export type TableKind = 'table' | 'view';

/** A relation of the live database as {@link Dialect.listTables} offers it for import. */
export interface ListedTable extends TableRef {
  kind: TableKind;
}

/** What introspection returns for one table or view. */
export interface IntrospectedTable {
  schema: string | null;
  dbName: string;
  /** Read from the database's catalog, not from the reference asked for. */
  kind: TableKind;
  columns: ModelColumn[];
  /** The key the database declares; always [] for a view (a view cannot declare one). */
  primaryKey: string[];
  foreignKeys: ModelForeignKey[];
  /**
   * The table's comment in the database catalog (PostgreSQL `COMMENT ON TABLE`, MySQL/MariaDB
   * `TABLE_COMMENT`, SQL Server's `MS_Description`). Absent (or null) when it has none.
   */
  comment?: string | null;
  /**
   * Rows the database's statistics expect the table to hold when it was imported (PostgreSQL
   * `pg_class.reltuples`, MySQL/MariaDB `information_schema.TABLES.TABLE_ROWS`, SQLite
   * `sqlite_stat1` or a count stopped at {@link SQLITE_COUNT_CAP}, SQL Server `sys.partitions.rows`;
   * {@link rowStatistic}). Absent when unknown (never analyzed, a view, 0) and in definitions
   * saved before statistics were read; the cost estimate then counts the worst case (README
   * "Limits"). Refreshed when the table is imported again.
   */
  estimatedRows?: number;
  /**
   * The table's unique keys besides the primary key, as the catalog declares them (a UNIQUE
   * constraint or a unique index), in catalog order: PostgreSQL `pg_index.indisunique`, MySQL/
   * MariaDB `information_schema.STATISTICS.NON_UNIQUE = 0`, SQLite `pragma_index_list` `unique`,
   * SQL Server `sys.indexes.is_unique`. `upsert<Base>` offers the plain ones as conflict targets
   * (README "Writing rows"). Absent in definitions saved before unique keys were read: the
   * primary key is then the only target, until the table is imported again.
   */
  uniqueKeys?: UniqueKey[];
}

/**
 * A unique key of a table other than its primary key. `partial` marks one that is no plain
 * column set: a PostgreSQL or SQLite partial or expression index, a deferrable PostgreSQL
 * constraint, a MySQL prefix or functional index. Such a key is never an upsert target (ON
 * CONFLICT needs its predicate or expression; PostgreSQL docs, "INSERT", "ON CONFLICT Clause":
 * deferrable constraints are not arbiters), but MySQL's ON DUPLICATE KEY still matches it.
 */
export interface UniqueKey {
  /** Its columns in key order (only those that are plain columns of a `partial` key). */
  columns: string[];
  partial?: true;
}

/**
 * The most rows SQLite's fallback count reads (`SELECT count(*) FROM (SELECT 1 FROM t LIMIT
 * cap)`) when `sqlite_stat1` has no row for a table: a table with more is recorded as holding
 * this many, a lower bound that is already past every page ceiling.
 */
export const SQLITE_COUNT_CAP = 100_001;

/**
 * A row statistic as the model keeps it: a finite number above 0, rounded to two decimals, or
 * undefined. 0 and negative values are unknown: PostgreSQL's `reltuples` is -1 for a table never
 * vacuumed or analyzed (≥ 14) and 0 before 14 (PostgreSQL docs, "pg_class"), and MySQL's cached
 * `TABLE_ROWS` reads 0 until the statistics are first computed (MySQL
 * `information_schema_stats_expiry`), so an empty table cannot be told from an unmeasured one.
 */
export function rowStatistic(raw: unknown): number | undefined {
  const n = typeof raw === 'bigint' ? Number(raw) : typeof raw === 'string' ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return undefined;
  return Math.round(n * 100) / 100;
}

/**
 * The average rows per distinct value of a foreign-key column: `rows × (1 − nullFraction) /
 * distinct` (the non-null rows spread over the distinct values), at least 1, or undefined when
 * any input is unknown ({@link rowStatistic}). `rows` is the child table's estimated rows,
 * `distinct` the estimated distinct values of the column (PostgreSQL `pg_stats.n_distinct`, MySQL
 * index `CARDINALITY`), `nullFraction` the share of rows where it is NULL (0 to 1).
 */
export function averageFanOut(
  rows: unknown,
  distinct: unknown,
  nullFraction = 0,
): number | undefined {
  const r = rowStatistic(rows);
  const d = rowStatistic(distinct);
  if (r === undefined || d === undefined) return undefined;
  const nonNull = r * Math.min(1, Math.max(0, 1 - nullFraction));
  return rowStatistic(Math.max(1, nonNull / d));
}

/** Comparison operators of the `where` language (CONTRACT.md §6). */
export type CompareOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';

/**
 * A filter, already checked against the model: column names are real, values are typed. Compiled
 * by a dialect into a predicate with bound parameters.
 * `timestamp` marks a comparison of a date-and-time column: a dialect that keeps such values as
 * text of several forms (SQLite) compares both sides in one form (`SqlCompiler.timestampOperand`).
 * `typed` marks an equality of a column of kind `other` or `array`, whose comparison only the
 * dialect knows: the key {@link Dialect.comparedAs} gave for the column, which the dialect's
 * compiler turns into SQL from a fixed table of its own (`SqlCompiler.typedOperand`).
 */
export type Condition =
  | { kind: 'and'; items: Condition[] }
  | { kind: 'or'; items: Condition[] }
  | {
      kind: 'compare';
      column: string;
      op: CompareOp;
      value: unknown;
      timestamp?: true;
      typed?: string;
    }
  | { kind: 'null'; column: string; negated: boolean }
  | {
      kind: 'in';
      column: string;
      values: unknown[];
      negated: boolean;
      timestamp?: true;
      typed?: string;
    }
  | { kind: 'like'; column: string; mode: 'contains' | 'startsWith' | 'endsWith'; value: string }
  | ExistsCondition
  /**
   * Holds when `item` is not TRUE: false, or unknown because of a NULL (SQL three-valued logic).
   * What `every` of a relation filter asks of no visible child (README "Relation filters").
   */
  | { kind: 'untrue'; item: Condition };

/**
 * A correlated `[NOT] EXISTS (SELECT 1 FROM <table> WHERE <on> AND <scope> AND <where>)`: whether
 * a row of `table` related to the row at hand exists (a relation filter, README "Relation
 * filters"). `on` pairs a column of `table` (`inner`) with a column of the enclosing row
 * (`outer`); every pair must match (a composite key matches all its columns). `scope` is the
 * caller's row rule of `table` (CONTRACT.md §4), required as on plans so a subquery that forgot
 * it does not compile: {@link ALL_ROWS} when none bounds it. Column names of `scope` and `where`
 * are `table`'s; compilers qualify them with the subquery's alias.
 */
export interface ExistsCondition {
  kind: 'exists';
  table: TableRef;
  on: { inner: string; outer: string }[];
  scope: Condition;
  where: Condition;
  negated: boolean;
}

/**
 * The scope that admits every row: a caller no row rule bounds (a builder; a role with no rule
 * for the table), and plans of tests and tools that read whole tables.
 */
export const ALL_ROWS: Condition = { kind: 'and', items: [] };

/**
 * One sort key: a column of the ordered table ({@link ColumnOrderTerm}) or a value read through
 * a relation ({@link RelatedOrderTerm}). The planner completes every order with the primary key.
 */
export type OrderTerm = ColumnOrderTerm | RelatedOrderTerm;

/** A sort key on a column of the ordered table. */
export interface ColumnOrderTerm {
  column: string;
  related?: undefined;
  direction: 'ASC' | 'DESC';
  /**
   * Whether the column can hold NULL (absent: assume it can). The contract's null order is about
   * empty values; for a NOT NULL column a dialect emits no null-ordering clause, so an index on
   * the column can serve the order (PostgreSQL docs, "Indexes and ORDER BY").
   */
  nullable?: boolean;
  /**
   * Set on the terms the planner adds to complete an order (the primary key, or every column of
   * a table without one), not asked for by the caller.
   */
  tiebreak?: true;
}

/**
 * A sort key on a value read through a relation (README "Order and pages"): the correlated
 * scalar subquery {@link RelatedValue}. `nullable` as in {@link ColumnOrderTerm}: false only for
 * a count (never NULL); a related column is NULL when no visible related row exists.
 */
export interface RelatedOrderTerm {
  related: RelatedValue;
  column?: undefined;
  direction: 'ASC' | 'DESC';
  nullable?: boolean;
}

/**
 * A correlated scalar subquery `(SELECT <value> FROM <table> <alias> WHERE <on> AND <scope>)`
 * over the rows of `table` related to the row at hand, what an order through a relation sorts
 * by. `on` pairs a column of `table` (`inner`) with a column of the enclosing row (`outer`), as
 * {@link ExistsCondition} does (a composite key matches all its columns); `scope` is the caller's
 * row rule of `table` (CONTRACT.md §4), required so a subquery that forgot it does not compile:
 * {@link ALL_ROWS} when none bounds it, a false condition when the rule cannot be planned.
 * `value`: `column`, that column of the one related row (many-to-one; NULL when none is visible);
 * `count`, `COUNT(*)` of the visible related rows (one-to-many); `related`, a further subquery
 * correlated with this one's row (a many-to-one navigation of the related row).
 */
export interface RelatedValue {
  table: TableRef;
  on: { inner: string; outer: string }[];
  scope: Condition;
  value:
    | { kind: 'column'; column: string }
    | { kind: 'count' }
    | { kind: 'related'; related: RelatedValue };
}

/**
 * The parents' keys of a batched one-to-many read whose page can be read per key (ADR 0015): the
 * foreign key leads an index. `keys` are bound as the driver takes them; `type` is the column's
 * declared SQL type (PostgreSQL `format_type`), which types the one array parameter. With it, the
 * plan's `where` does not hold the keys: a compiler that reads no page per key adds
 * `column IN (keys)` itself.
 */
export interface PagePerKey {
  keys: unknown[];
  type: string;
}

/**
 * A read of one table. With `partition`, rows are numbered per value of that column and `take`/
 * `skip` apply per partition: the batched one-to-many load (one query for all parents).
 */
export interface SelectPlan {
  table: TableRef;
  columns: string[];
  /** Kinds of the read columns, for adapters that must cast some in the select list. */
  kinds?: Readonly<Record<string, ColumnKind>>;
  where: Condition;
  /**
   * The rows the caller may reach (its row rules, CONTRACT.md §4), ANDed with `where`. Required,
   * so a path that forgot the caller's rule does not compile; {@link ALL_ROWS} when none bounds it.
   */
  scope: Condition;
  order: OrderTerm[];
  /** Null: no limit. */
  take: number | null;
  skip: number;
  partition?: { column: string; perKey?: PagePerKey };
}

/** A count of one table's rows matching `where`. */
export interface CountPlan {
  table: TableRef;
  where: Condition;
  /**
   * The rows the caller may reach (its row rules, CONTRACT.md §4), ANDed with `where`. Required,
   * so a path that forgot the caller's rule does not compile; {@link ALL_ROWS} when none bounds it.
   */
  scope: Condition;
}

/**
 * One aggregate of an {@link AggregatePlan}, read under `alias`: `count` counts the rows of the
 * group (`COUNT(*)`), `countValues` the column's non-NULL values, `countDistinct` its distinct
 * non-NULL values; `sum`, `min` and `max` ignore NULLs and are NULL over no value (SQL standard,
 * as every database's aggregate functions). `kind` is the column's: a dialect casts where its
 * database would lose digits or answer in the column's narrow type (SQL Server `SUM` of `int`).
 */
export interface AggregateItem {
  fn: 'count' | 'countValues' | 'countDistinct' | 'sum' | 'min' | 'max';
  /** Absent for `count`. */
  column?: string;
  kind?: ColumnKind;
  alias: string;
}

/** The start of a date/time bucket a grouped column is truncated to (README "Aggregates"). */
export type DateBucket = 'YEAR' | 'MONTH' | 'DAY' | 'HOUR';

/**
 * One grouped column of an {@link AggregatePlan}, read under `alias`; with `bucket`, the column's
 * value truncated to the bucket's start (a `timestamptz` in UTC), grouped and ordered by that.
 */
export interface GroupKey {
  column: string;
  kind: ColumnKind;
  nullable: boolean;
  alias: string;
  bucket?: DateBucket;
}

/**
 * What a `having` comparison or a group order reads of a group: an aggregate of an
 * {@link AggregateItem}'s function (`avg` here too: the database's average over the values as
 * approximate numbers, never integer division), or `key` the `index`-th grouped column.
 */
export type GroupMeasure =
  | { fn: 'count' }
  | { fn: 'countDistinct' | 'sum' | 'avg' | 'min' | 'max'; column: string; kind: ColumnKind }
  | { fn: 'key'; index: number };

/**
 * A condition on groups (`having`): comparisons of a {@link GroupMeasure} with a bound value
 * (`value: null` with `eq`/`neq` is IS [NOT] NULL), combined with and/or as {@link Condition}s.
 */
export type GroupCondition =
  | { kind: 'and' | 'or'; items: GroupCondition[] }
  | { kind: 'compare'; measure: GroupMeasure; op: CompareOp; value: unknown };

/** One sort key of groups; `nullable` as in {@link OrderTerm}. */
export interface GroupOrderTerm {
  measure: GroupMeasure;
  direction: 'ASC' | 'DESC';
  nullable: boolean;
}

/**
 * A grouped read of one table (`aggregate<Base>`, README "Aggregates"; PEERS.md §A2): the
 * caller's row rule and `where` apply before grouping, `having` after; groups are ordered by
 * `order` then by the grouped columns ascending (NULL first, CONTRACT.md §6's order) and paged by
 * `take`/`skip`. Without `groupBy` the statement has no GROUP BY, HAVING, ORDER BY or page and
 * answers exactly one row, even over no row.
 */
export interface AggregatePlan {
  table: TableRef;
  where: Condition;
  /**
   * The rows the caller may reach (its row rules, CONTRACT.md §4), ANDed with `where`. Required,
   * so a path that forgot the caller's rule does not compile; {@link ALL_ROWS} when none bounds it.
   */
  scope: Condition;
  /** Grouped columns, each read under its `alias`. */
  groupBy: GroupKey[];
  aggregates: AggregateItem[];
  /** Conditions on groups (`HAVING`); absent or an empty `and` for none. */
  having?: GroupCondition;
  /** Sort keys before the grouped columns. */
  order?: GroupOrderTerm[];
  /** Groups to answer (null: no limit); ignored without `groupBy`. */
  take: number | null;
  skip: number;
}

/** One column's value in a write. */
export interface ColumnValue {
  column: string;
  value: unknown;
}

/** An INSERT of one row; `returning` lists the columns to read back in the same statement. */
export interface InsertPlan {
  table: TableRef;
  values: ColumnValue[];
  returning: string[];
  kinds?: Readonly<Record<string, ColumnKind>>;
  /**
   * The written table's model columns by name, for a database that must declare where a write's
   * returned rows go: SQL Server's `OUTPUT … INTO` a table variable declares each returned column
   * with its type from here ({@link ModelColumn.declaredType}). Absent: the column's kind stands in.
   */
  model?: Readonly<Record<string, ModelColumn>>;
}

/**
 * An INSERT of several rows in one statement (`addMany<Base>`): every row gives a value for each
 * of `columns`, in that order (rows that set other columns go in another statement); `returning`
 * lists the columns to read back, one answered row per inserted row.
 */
export interface InsertManyPlan {
  table: TableRef;
  columns: string[];
  rows: unknown[][];
  returning: string[];
  kinds?: Readonly<Record<string, ColumnKind>>;
  /**
   * The written table's model columns by name, for a database that must declare where a write's
   * returned rows go: SQL Server's `OUTPUT … INTO` a table variable declares each returned column
   * with its type from here ({@link ModelColumn.declaredType}). Absent: the column's kind stands in.
   */
  model?: Readonly<Record<string, ModelColumn>>;
}

/**
 * An insert-or-update of several rows in one statement (`upsert<Base>`/`upsertMany<Base>`, README
 * "Writing rows"): every row gives a value for each of `columns`, in that order; a row whose `key`
 * (the primary key or a plain unique key, all of its columns in `columns`) matches an existing row
 * updates that row's `update` columns from the sent row instead, when the existing row satisfies
 * `when` and `scope`; with `update: []` it leaves the existing row as it is. No two rows share a
 * key (the caller refuses them before SQL: PostgreSQL refuses a statement that affects a row
 * twice, SQLSTATE 21000). `returning` lists columns of the inserted or updated rows to read back,
 * with {@link UPSERT_INSERTED} beside them on the databases that tell an insert from an update
 * (PostgreSQL `xmax = 0`, SQL Server `$action`). MySQL/MariaDB's ON DUPLICATE KEY UPDATE can
 * neither filter the existing row nor return: its compiler takes `when` and `scope` only as
 * {@link ALL_ROWS} and `returning` only as `[]` (the caller reads the rows under lock first).
 */
export interface UpsertPlan {
  table: TableRef;
  columns: string[];
  rows: unknown[][];
  key: string[];
  update: string[];
  /** A condition on the existing row; {@link ALL_ROWS} for none. */
  when: Condition;
  /**
   * The rows the caller may update (its row rules, CONTRACT.md §4), ANDed with `when`. Required,
   * so a path that forgot the caller's rule does not compile; {@link ALL_ROWS} when none bounds it.
   */
  scope: Condition;
  returning: string[];
  kinds?: Readonly<Record<string, ColumnKind>>;
  /**
   * The written table's model columns by name, for a database that must declare where a write's
   * returned rows go: SQL Server's `OUTPUT … INTO` a table variable declares each returned column
   * with its type from here ({@link ModelColumn.declaredType}). Absent: the column's kind stands in.
   */
  model?: Readonly<Record<string, ModelColumn>>;
}

/**
 * The column an upsert's returned rows carry beside `returning` on the databases that tell an
 * insert from an update in the statement: true (or 1) for an inserted row.
 */
export const UPSERT_INSERTED = '__tg_inserted';

/** An UPDATE of the rows matching `where` (a primary key); reads `returning` back. */
export interface UpdatePlan {
  table: TableRef;
  set: ColumnValue[];
  where: Condition;
  /**
   * The rows the caller may reach (its row rules, CONTRACT.md §4), ANDed with `where`. Required,
   * so a path that forgot the caller's rule does not compile; {@link ALL_ROWS} when none bounds it.
   */
  scope: Condition;
  returning: string[];
  kinds?: Readonly<Record<string, ColumnKind>>;
  /**
   * The written table's model columns by name, for a database that must declare where a write's
   * returned rows go: SQL Server's `OUTPUT … INTO` a table variable declares each returned column
   * with its type from here ({@link ModelColumn.declaredType}). Absent: the column's kind stands in.
   */
  model?: Readonly<Record<string, ModelColumn>>;
}

/** A DELETE of the rows matching `where` (a primary key). */
export interface DeletePlan {
  table: TableRef;
  where: Condition;
  /**
   * The rows the caller may reach (its row rules, CONTRACT.md §4), ANDed with `where`. Required,
   * so a path that forgot the caller's rule does not compile; {@link ALL_ROWS} when none bounds it.
   */
  scope: Condition;
}

/** What a database refusal means, in the contract's words (CONTRACT.md §6 Database refusals). */
export type RefusalCode =
  | 'UNIQUE_VIOLATION'
  | 'FOREIGN_KEY_VIOLATION'
  | 'NOT_NULL_VIOLATION'
  | 'VALUE_TOO_LONG'
  /** A value its column cannot hold (out of range, malformed for its type): CONTRACT.md §6. */
  | 'INVALID_VALUE'
  /**
   * `updateMany<Base>`/`deleteMany<Base>` would change more rows than its `atMost` (README
   * "Writing rows"): refused by the service, never by a database, and nothing is changed.
   */
  | 'TOO_MANY_ROWS'
  /**
   * The database broke the request off to resolve a lock conflict with a concurrent write (a
   * deadlock, a lock wait timeout): nothing was written and the same request may be sent again
   * (README "Writing rows", issue 24). Field null.
   */
  | 'TRANSACTION_CONFLICT';

/**
 * A driver error translated for the caller: a plain-words message naming the field where the
 * database tells it, never SQL text, constraint dumps or values.
 */
export interface DatabaseRefusal {
  code: RefusalCode;
  /** The column the database named, or null when it named none. */
  field: string | null;
  message: string;
  /**
   * The refused value as the database's error text spells it (PostgreSQL's `Key (email)=(…)`,
   * MySQL/MariaDB's `Duplicate entry '…'`), for a one-column key only: `addMany` finds the row of a
   * multi-row INSERT that holds it, to name `rows[i].<field>` (issue 24 item 6). Never shown to the
   * caller; absent where the database does not give it (SQLite, SQL Server).
   */
  value?: string;
}

/** The write a refusal happened in, so a translation can name fields in the caller's terms. */
export interface WriteContext {
  table: TableRef;
  /** Columns of the table, for lengths and names. */
  columns: ModelColumn[];
  /** The table's primary key columns (a duplicate `PRIMARY` key is named by them). */
  primaryKey?: string[];
  /** `delete` refusals (a row with dependents) read differently from insert/update ones. */
  operation: 'insert' | 'update' | 'delete';
}

/** SQL text and its bound parameters, in placeholder order. */
export interface CompiledQuery {
  sql: string;
  params: unknown[];
}

/** What one statement gave back: its rows (SELECT, RETURNING) and the rows it changed. */
export interface StatementResult {
  rows: Record<string, unknown>[];
  /** Rows inserted, updated or deleted (MySQL: rows found, not only changed); undefined for SELECT. */
  affected: number | undefined;
  /** The generated key of an INSERT where the database reports it apart from rows (MySQL). */
  insertId?: string | number;
}

/** How a datasource's pool is bounded (`AppConfig.datasources`). */
export interface PoolOptions {
  /** Connections at most: also the most statements of the datasource running at once. */
  poolSize: number;
  /** One statement's run time, in milliseconds; past it the statement is cancelled on the server. */
  statementTimeoutMs: number;
  /** Wait for a free connection, in milliseconds, before `DATASOURCE_UNAVAILABLE`. */
  acquireTimeoutMs: number;
  /**
   * Run on every new connection before its first statement, with a runner bound to that one
   * connection (PostgreSQL and MySQL/MariaDB: each physical connection, so a host name that
   * resolves elsewhere later is checked again; SQL Server and SQLite: once, when the pool opens).
   * Whatever it throws fails `open()`, or the statement that needed the connection, and the
   * connection is discarded. `DatasourcePoolsService` refuses the service's own store with it
   * (`own-store.ts`).
   */
  verifyConnection?: ConnectionCheck;
}

/** Runs one statement (see {@link SqlPool.run}), here on one given connection. */
export type StatementRunner = (query: CompiledQuery) => Promise<StatementResult>;

/** A check of a newly opened connection ({@link PoolOptions.verifyConnection}); throws to refuse it. */
export type ConnectionCheck = (run: StatementRunner) => Promise<void>;

/**
 * Who a connection reached, as {@link Dialect.identify} reads it: enough to tell whether two
 * connections reached the same database, whatever host name or address each used.
 */
export interface DatabaseIdentity {
  /**
   * Keys of the database, each on its own proof that two connections reached the same database
   * when both have it (see `own-store.ts` for each database's): e.g. PostgreSQL's cluster
   * `system_identifier` with `current_database()`, a SQLite file's real path. Every key starts
   * with the database type, so keys of different types never match.
   */
  keys: string[];
  /**
   * A schema of the database holding every table of `STORE_FINGERPRINT` (`own-store.ts`): a copy
   * of the service's own metadata store. Null when none does.
   */
  storeCopy: string | null;
}

/**
 * Per-statement options: `signal` cancels the statement on the server when it fires (an
 * `AbortSignal`, or the request's `Cancellation`); `rows` is charged with each row as it arrives.
 */
export interface RunOptions {
  signal?: CancelSignal;
  rows?: RowSink;
}

/** A bounded connection pool to one database, as an adapter opened it. */
export interface SqlPool {
  /**
   * Runs one statement with bound parameters, within the pool's statement deadline. Driver errors
   * propagate (see {@link Dialect.translateError}), but a deadline reached rejects with
   * `DomainError` TIMEOUT and a server that is down or a pool with no free connection in time
   * with `DomainError` DATASOURCE_UNAVAILABLE. When `options.signal` fires, the statement is
   * cancelled on the server and the call rejects with the signal's reason. With `options.rows`,
   * each row is charged as the driver hands it over; when the sink throws, the pool stops reading
   * at once (the statement is cancelled, or its connection discarded, never left mid-result) and
   * the call rejects with what the sink threw.
   */
  run(query: CompiledQuery, options?: RunOptions): Promise<StatementResult>;
  /**
   * Runs `work` in one transaction on one connection: committed when `work` resolves, rolled back
   * when it throws (then the error propagates). Writes that must check a row rule after the
   * statement use it (DESIGN.md "Table access"): nothing they wrote survives a refusal.
   */
  transaction<T>(
    work: (run: (query: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
  ): Promise<T>;
  /**
   * Runs `work` on one connection in a read-only transaction that is always rolled back, whatever
   * `work` does (SQL APIs' query kind and `Dialect.describeStatement`; issue 26 item 4):
   * PostgreSQL `BEGIN READ ONLY` (docs, "SET TRANSACTION"), MySQL/MariaDB `START TRANSACTION
   * READ ONLY`, SQLite `PRAGMA query_only = ON` inside `BEGIN`, set back OFF after each statement
   * on the same worker connection (each statement of `work` is then its own rolled-back
   * transaction), SQL Server a transaction rolled back (no read-only mode: the datasource's
   * read-only login is what refuses writes there). Each statement has `run`'s deadline,
   * cancellation and row charging. A write inside rejects with `StatementRefusal` READ_ONLY
   * (`datasources.errors.ts`: a DomainError INVALID_INPUT, 400) and nothing is committed.
   */
  readOnly<T>(
    work: (
      run: (query: CompiledQuery, options?: RunOptions) => Promise<StatementResult>,
    ) => Promise<T>,
  ): Promise<T>;
  /** The server's version text (e.g. `10.11.19-MariaDB`, `16.4`), for {@link Dialect.capabilities}. */
  serverVersion(): Promise<string>;
  close(): Promise<void>;
}

/** What a database can do in one statement; decides the shape of the write operations. */
export interface Capabilities {
  /** `INSERT … RETURNING`/`OUTPUT`: `add<Base>` returns the row; else `true` (CONTRACT.md §6). */
  insertReturning: boolean;
  /** `UPDATE … RETURNING`/`OUTPUT`; else the row is read back by its key after the UPDATE. */
  updateReturning: boolean;
  /**
   * An upsert conflicts on every unique key of the table, not on one chosen key (MySQL/MariaDB
   * `ON DUPLICATE KEY UPDATE`: "If more than one unique index is matched, only the first is
   * updated", MariaDB docs): `upsert<Base>` is offered only for a table with one unique key set.
   * Absent: false.
   */
  upsertMatchesAnyKey?: boolean;
}

/**
 * The port every database adapter implements; adapters are the only code that knows SQL syntax
 * or a driver's quirks (docs/architecture.md). Identifiers come only from the model and are quoted
 * here; values always travel as bound parameters.
 */
export interface Dialect {
  readonly type: DatasourceType;
  /**
   * Opens a bounded pool to `url` with the driver's date handling pinned, so the process and
   * session time zones never change a value.
   * @throws DomainError INVALID_INPUT when the URL does not fit this database; the driver's
   * error when the server cannot be reached.
   */
  open(url: string, options: PoolOptions): Promise<SqlPool>;
  /**
   * Tables and views a builder could import (system schemas left out), each with its
   * {@link TableKind}; a PostgreSQL partitioned table is listed once, its partitions never.
   */
  listTables(pool: SqlPool): Promise<ListedTable[]>;
  /**
   * Columns, keys, foreign keys and kind of the given tables or views, in the order asked for;
   * one the catalog does not hold (or whose columns cannot be read) is left out.
   */
  introspect(pool: SqlPool, tables: TableRef[]): Promise<IntrospectedTable[]>;
  /** What the server of this version supports. */
  capabilities(serverVersion: string | null): Capabilities;
  /**
   * Who `run`'s connection reached and whether the database holds a copy of the service's store
   * (a few catalog reads, bounded by the statement deadline).
   * @throws the driver's error when the catalog cannot be read.
   */
  identify(run: StatementRunner): Promise<DatabaseIdentity>;
  /**
   * What the login of `run`'s connection may write, one sentence per reason; empty when it writes
   * nothing it could be granted (a datasource's read-only login is refused otherwise, README
   * "Datasources"). Absent where a database has no logins (SQLite).
   * @throws the driver's error when the catalog cannot be read.
   */
  loginWrites?(run: StatementRunner): Promise<string[]>;
  compileSelect(plan: SelectPlan): CompiledQuery;
  compileCount(plan: CountPlan): CompiledQuery;
  compileAggregate(plan: AggregatePlan): CompiledQuery;
  compileInsert(plan: InsertPlan): CompiledQuery;
  /**
   * `INSERT INTO t (<columns>) VALUES (…), (…) RETURNING …` (`OUTPUT` on SQL Server). The caller
   * keeps the rows × columns within the database's bound-parameter limit (`PARAMETER_LIMITS`) and
   * gives at least one column.
   */
  compileInsertMany(plan: InsertManyPlan): CompiledQuery;
  compileUpdate(plan: UpdatePlan): CompiledQuery;
  compileDelete(plan: DeletePlan): CompiledQuery;
  /**
   * {@link UpsertPlan}: PostgreSQL and SQLite `INSERT … ON CONFLICT (<key>) DO UPDATE SET c =
   * EXCLUDED.c WHERE <when> AND <scope> RETURNING …` (`DO NOTHING` for no column); MySQL/MariaDB
   * `INSERT … ON DUPLICATE KEY UPDATE c = VALUES(c)`; SQL Server `MERGE … WITH (HOLDLOCK)` with
   * `OUTPUT $action, INSERTED.… INTO` a table variable, then a SELECT of it. The caller keeps the
   * rows × columns within the bound-parameter limit.
   * @throws Error on MySQL/MariaDB for a `when`, `scope` or `returning` it cannot express.
   */
  compileUpsert(plan: UpsertPlan): CompiledQuery;
  /**
   * {@link compileSelect} of every matching row (no page), locking them for the transaction's
   * writes: `… FOR UPDATE` (PostgreSQL, MySQL/MariaDB), `WITH (UPDLOCK, HOLDLOCK)` (SQL Server);
   * SQLite's plain SELECT, its write transaction (`BEGIN IMMEDIATE`) already excluding every
   * other writer.
   */
  compileSelectForUpdate(plan: SelectPlan): CompiledQuery;
  /**
   * The refusal a driver error stands for (duplicate key, row with dependents, empty required
   * field, value too long), or null when it is none of those (then it is an internal error).
   */
  translateError(error: unknown, context: WriteContext): DatabaseRefusal | null;
  /** A filter or argument value as the driver must bind it for this column (e.g. SQLite binds booleans as 1/0). */
  bindValue(column: ModelColumn, value: unknown): unknown;
  /** Turns a driver value into the contract's output form for the column (CONTRACT.md §6 Values). */
  formatValue(column: ModelColumn, raw: unknown): unknown;
  /**
   * How `eq`/`neq`/`in`/`nin` compare a non-null value with a column of kind `other` (a type read
   * as its text form) or `array`: a key for {@link Condition}'s `typed`, or null (or no method)
   * when this database does not compare such a column, which is then compared only with null.
   */
  comparedAs?(column: ModelColumn): string | null;
  /**
   * Describes `statement` inside `pool.readOnly` (never commits): PostgreSQL via PREPARE +
   * `pg_prepared_statements.parameter_types` and a `LIMIT 0` run's field OIDs with
   * `pg_attribute.attnotnull` for direct columns; MySQL/MariaDB prepared-statement column
   * metadata; SQLite better-sqlite3 `columns()`; SQL Server `sp_describe_first_result_set` and
   * `sp_describe_undeclared_parameters`. Kinds come from the same mapping as {@link introspect}.
   * @throws `StatementRefusal` INVALID_STATEMENT (`datasources.errors.ts`: a DomainError
   *   INVALID_INPUT, 400) carrying the database's refusal (syntax, unknown table) without SQL
   *   text; TIMEOUT/DATASOURCE_UNAVAILABLE as `run`.
   */
  describeStatement(pool: SqlPool, statement: ParsedStatement): Promise<StatementDescription>;
  /**
   * A query kind's read: `SELECT <columns> FROM (<statement>) AS q WHERE <where> ORDER BY <order>
   * LIMIT take OFFSET skip` (SQL Server `OFFSET … FETCH`, ordered by `(SELECT NULL)` when no order
   * is asked). The statement's parameters come first, then the filter's and the page's.
   */
  compileStatementSelect(plan: StatementSelectPlan): CompiledQuery;
}

/** What the database says about a statement, without committing anything (issue 26 item 2). */
export interface StatementDescription {
  /**
   * One per distinct name, in `ParsedStatement.names` order. `kind` null when the database
   * cannot tell (MySQL/MariaDB, SQLite).
   */
  parameters: { name: string; databaseType: string | null; kind: ColumnKind | null }[];
  /**
   * The result columns in order (empty for a write without RETURNING). `nullable` null when
   * unknown (expressions); `kind` null when the database gives no type (SQLite expressions).
   */
  columns: {
    name: string;
    databaseType: string | null;
    kind: ColumnKind | null;
    nullable: boolean | null;
  }[];
}

/** A query-kind SQL API's read around its statement ({@link Dialect.compileStatementSelect}). */
export interface StatementSelectPlan {
  statement: ParsedStatement;
  /** Values for `statement.binds`, already ordered (`bindNamedValues`) and bound (`bindValue`). */
  params: unknown[];
  /** The confirmed result columns as model columns: what is selected, filtered and ordered. */
  columns: ModelColumn[];
  /** Over `columns` only; {@link ALL_ROWS} for none. */
  where: Condition;
  /** Over `columns` only. */
  order: ColumnOrderTerm[];
  take: number;
  skip: number;
}

/**
 * A comment read from a database catalog, as the model keeps it: the text as the catalog gives
 * it, or `undefined` when there is none (SQL NULL, or text of white space only: MySQL/MariaDB
 * report a missing comment as `''`, MySQL "The INFORMATION_SCHEMA COLUMNS Table").
 */
export function catalogComment(raw: unknown): string | undefined {
  if (raw === null || raw === undefined) return undefined;
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw);
  return text.trim() === '' ? undefined : text;
}
