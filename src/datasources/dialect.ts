import type { DataSource, DataSourceOptions } from 'typeorm';

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
  | 'timestamp'
  | 'timestamptz'
  | 'json'
  | 'uuid';

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
  /** `varchar(n)` length; null when unbounded or not text. */
  maxLength: number | null;
  /** The app enum assigned to this column, or null (CONTRACT.md §3). */
  enum?: string | null;
}

/** A foreign key of a table, referencing a table of the same database. */
export interface ModelForeignKey {
  columns: string[];
  referencedSchema: string | null;
  referencedTable: string;
  referencedColumns: string[];
}

/** A table's place in its database. `schema` is null where the database has none (SQLite). */
export interface TableRef {
  schema: string | null;
  name: string;
}

/** What introspection returns for one table. */
export interface IntrospectedTable {
  schema: string | null;
  dbName: string;
  columns: ModelColumn[];
  primaryKey: string[];
  foreignKeys: ModelForeignKey[];
}

/** Comparison operators of the `where` language (CONTRACT.md §6). */
export type CompareOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';

/**
 * A filter, already checked against the model: column names are real, values are typed. Compiled
 * by a dialect into a predicate with bound parameters.
 */
export type Condition =
  | { kind: 'and'; items: Condition[] }
  | { kind: 'or'; items: Condition[] }
  | { kind: 'compare'; column: string; op: CompareOp; value: unknown }
  | { kind: 'null'; column: string; negated: boolean }
  | { kind: 'in'; column: string; values: unknown[]; negated: boolean }
  | { kind: 'like'; column: string; mode: 'contains' | 'startsWith' | 'endsWith'; value: string };

/** One sort key. The planner completes every order with the primary key. */
export interface OrderTerm {
  column: string;
  direction: 'ASC' | 'DESC';
}

/**
 * A read of one table. With `partition`, rows are numbered per value of that column and `take`/
 * `skip` apply per partition: the batched one-to-many load (one query for all parents).
 */
export interface SelectPlan {
  table: TableRef;
  columns: string[];
  where: Condition;
  order: OrderTerm[];
  /** Null: no limit. */
  take: number | null;
  skip: number;
  partition?: { column: string };
}

/** A count of one table's rows matching `where`. */
export interface CountPlan {
  table: TableRef;
  where: Condition;
}

/** SQL text and its bound parameters, in placeholder order. */
export interface CompiledQuery {
  sql: string;
  params: unknown[];
}

/**
 * The port every database adapter implements; adapters are the only code that knows SQL syntax
 * or a driver's quirks (docs/architecture.md). Identifiers come only from the model and are quoted
 * here; values always travel as bound parameters.
 */
export interface Dialect {
  readonly type: DatasourceType;
  /**
   * TypeORM options for a bounded pool to `url`, with the driver's date handling pinned so the
   * process time zone never changes a value.
   * @throws DomainError INVALID_INPUT when the URL does not fit this database.
   */
  connectionOptions(url: string): DataSourceOptions;
  /** Base tables a builder could import (system schemas left out). */
  listTables(db: DataSource): Promise<TableRef[]>;
  /** Columns, keys and foreign keys of the given tables. */
  introspect(db: DataSource, tables: TableRef[]): Promise<IntrospectedTable[]>;
  compileSelect(plan: SelectPlan): CompiledQuery;
  compileCount(plan: CountPlan): CompiledQuery;
  /** A filter or argument value as the driver must bind it for this column (e.g. SQLite binds booleans as 1/0). */
  bindValue(column: ModelColumn, value: unknown): unknown;
  /** Turns a driver value into the contract's output form for the column (CONTRACT.md §6 Values). */
  formatValue(column: ModelColumn, raw: unknown): unknown;
}
