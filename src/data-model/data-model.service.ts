import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, invalidInput, notFound } from '../common/domain-error';
import type { IntrospectedTable, ModelColumn, TableRef } from '../datasources/core/dialect';
import type { ModelTable, VersionDefinition } from '../platform/version-definition';
import { VersionsService } from '../platform/versions.service';
import { DatasourcesService } from './datasources.service';
import { GraphqlTypeNames } from './graphql-type';
import { Navigation, navigationsOf, writeActions } from './model-graph';

/** A model table as the builder REST lists it (CONTRACT.md §3). */
export interface ModelTableView {
  name: string;
  schema: string | null;
  dbName: string;
  active: boolean;
  /** A view or materialized view: its Table APIs offer select only. */
  readOnly: boolean;
  primaryKey: string[];
  /** `primaryKey` was chosen by the builder (the database declares none). */
  primaryKeyChosen: boolean;
  /** The table's comment in the database, when it has one (absent otherwise). */
  comment?: string;
  /**
   * The columns as the model keeps them (`comment`, `dbEnum` and `declaredType` only where the
   * database gave them), with whether each is in the primary key and its GraphQL type name
   * (`GraphqlTypeNames.of`: `ID`, `Int`, an enum, `[String]`, …).
   */
  fields: (ModelColumn & { primaryKey: boolean; graphqlType: string })[];
  relations: Navigation[];
}

/** Model tables grouped by datasource. */
export interface ModelGroupView {
  datasource: { id: string; name: string };
  tables: ModelTableView[];
}

/** Schemas a bare table name prefers when several schemas hold a table of that name. */
const DEFAULT_SCHEMAS = ['public', 'dbo', 'main'];

/**
 * Resolves the names of an import request against the datasource's live tables and views
 * (`ListedTable`s from `Dialect.listTables`; partitions are not among them): `schema.table`
 * exactly, a bare `table` by name (in the default schema when several schemas have it).
 * @returns the entries of `available` named (kind included), and one problem per name that
 * matches nothing or is ambiguous.
 */
export function resolveTableNames<T extends TableRef>(
  names: string[],
  available: T[],
): { refs: T[]; problems: string[] } {
  const refs: T[] = [];
  const problems: string[] = [];
  for (const text of names) {
    const exact = available.filter(
      (t) => `${t.schema ?? 'main'}.${t.name}` === text || (t.schema === null && t.name === text),
    );
    const byName = exact.length ? exact : available.filter((t) => t.name === text);
    const chosen =
      byName.length > 1
        ? byName.filter((t) => DEFAULT_SCHEMAS.includes(t.schema ?? 'main'))
        : byName;
    if (chosen.length === 1) refs.push(chosen[0]);
    else if (byName.length === 0) problems.push(`no table "${text}"`);
    else
      problems.push(
        `"${text}" is in several schemas; name one: ${byName.map((t) => `${t.schema}.${t.name}`).join(', ')}`,
      );
  }
  return { refs, problems };
}

/**
 * The data model of an app version: import of tables and views by introspection (re-import
 * refreshes columns; views become read-only model tables), listing with search, activation, a
 * builder-chosen key for views and keyless tables. Every change goes through
 * {@link VersionsService.edit}.
 */
@Injectable()
export class DataModelService {
  constructor(
    private readonly versions: VersionsService,
    private readonly datasources: DatasourcesService,
  ) {}

  /**
   * Imports (or refreshes) tables and views of a datasource into the caller's working version.
   * A view (or PostgreSQL materialized view) becomes a read-only model table; a re-import keeps a
   * chosen key whose columns still exist (see {@link DataModelService.upsert}).
   * @throws DomainError NOT_FOUND (datasource); INVALID_INPUT listing every name that matches no
   * table or several ({@link resolveTableNames}), or whose columns the database did not give
   * (a view over tables or columns that are gone, a table without columns); CONFLICT when a
   * table re-imported as a view has Table APIs with insert, update or delete active.
   */
  async import(
    appId: string,
    accountId: string,
    datasourceId: string,
    names: string[],
  ): Promise<ModelTableView[]> {
    let asked: TableRef[] = [];
    const tables = await this.datasources.introspect(appId, datasourceId, (available) => {
      const { refs, problems } = resolveTableNames(names, available);
      if (problems.length) throw invalidInput('Some tables cannot be imported', problems);
      asked = refs;
      return refs;
    });
    const unread = asked.filter(
      (r) => !tables.some((t) => t.dbName === r.name && (t.schema ?? null) === (r.schema ?? null)),
    );
    if (unread.length)
      throw invalidInput(
        'Some tables cannot be imported',
        unread.map(
          (r) =>
            `"${r.schema === null ? r.name : `${r.schema}.${r.name}`}": the database gave no columns for it (a view over tables or columns that are gone, or no columns at all)`,
        ),
      );
    return this.versions.edit(appId, accountId, (def) => {
      const imported = tables.map((t) => this.upsert(def, datasourceId, t));
      const writers = imported.flatMap((t) =>
        t.readOnly
          ? def.apis
              .filter((a) => a.table === t.name)
              .map((a) => ({ api: a.name, table: t.name, actions: writeActions(a.actions) }))
              .filter((w) => w.actions.length > 0)
          : [],
      );
      if (writers.length)
        throw new DomainError(
          ErrorCode.Conflict,
          'Some tables are views now and Table APIs still write to them; switch those actions off first',
          writers.map(
            (w) =>
              `"${w.table}" is a view, so only select is possible; Table API "${w.api}" has ${w.actions.join(', ')} active`,
          ),
        );
      const types = new GraphqlTypeNames(def);
      return imported.map((t) => this.view(def, t, types));
    });
  }

  /** Model tables grouped by datasource; `search` matches table or datasource name, case-insensitive. */
  async list(appId: string, accountId: string, search?: string): Promise<ModelGroupView[]> {
    const def = await this.versions.readForBuilder(appId, accountId);
    const datasources = await this.datasources.list(appId);
    const needle = search?.trim().toLowerCase() ?? '';
    const types = new GraphqlTypeNames(def);
    return datasources
      .map((ds) => {
        const dsMatches = ds.name.toLowerCase().includes(needle);
        const tables = def.tables.filter(
          (t) => t.datasourceId === ds.id && (dsMatches || t.name.toLowerCase().includes(needle)),
        );
        return {
          datasource: { id: ds.id, name: ds.name },
          tables: tables.map((t) => this.view(def, t, types)),
        };
      })
      .filter(
        (g) =>
          g.tables.length > 0 ||
          (needle !== '' && g.datasource.name.toLowerCase().includes(needle)),
      );
  }

  /**
   * Activates or deactivates a model table, and/or names its key columns.
   * `primaryKey`: the columns that identify a row of a view or of a table whose database declares
   * no primary key, in order (Data API builder's `key-fields` for views; PostGraphile's
   * `@primaryKey` smart tag). They then complete every order and are typed `ID` (CONTRACT.md §6).
   * The service does not check that they are unique and never empty: a view cannot declare it.
   * `[]` removes a chosen key.
   * @throws DomainError NOT_FOUND (table); INVALID_INPUT when the database declares a key for the
   * table, or listing each column that does not exist, repeats, or holds JSON (no order).
   */
  async update(
    appId: string,
    accountId: string,
    tableName: string,
    change: { active?: boolean; primaryKey?: string[] },
  ): Promise<ModelTableView> {
    return this.versions.edit(appId, accountId, (def) => {
      const table = def.tables.find((t) => t.name === tableName);
      if (!table) throw notFound('Model table', tableName);
      if (change.primaryKey !== undefined) choosePrimaryKey(table, change.primaryKey);
      if (change.active !== undefined) table.active = change.active;
      return this.view(def, table);
    });
  }

  /**
   * Assigns an app enum to a text column, or clears it (`null`).
   * @throws DomainError NOT_FOUND (table, field), INVALID_INPUT (no such enum, not a text column).
   */
  async updateField(
    appId: string,
    accountId: string,
    tableName: string,
    fieldName: string,
    change: { enum?: string | null },
  ): Promise<ModelTableView> {
    return this.versions.edit(appId, accountId, (def) => {
      const table = def.tables.find((t) => t.name === tableName);
      if (!table) throw notFound('Model table', tableName);
      const column = table.columns.find((c) => c.name === fieldName);
      if (!column) throw notFound('Field', `${tableName}.${fieldName}`);
      if (change.enum !== undefined) {
        if (change.enum !== null) {
          if (!def.enums.some((e) => e.name === change.enum))
            throw invalidInput(`There is no enum "${change.enum}"; create it first`);
          if (column.kind !== 'text')
            throw invalidInput(
              `${fieldName} holds ${column.dbType}; only text columns take an enum`,
            );
        }
        column.enum = change.enum;
      }
      return this.view(def, table);
    });
  }

  /**
   * Adds an introspected table to the model, or refreshes the model table of the same database
   * table: new columns appear, dropped ones go, a kept column keeps its app enum; everything read
   * from the catalog (types, database enum values, table and column comments, unique keys, the
   * statistics `estimatedRows` and foreign keys' `fanOut`) is replaced by what the database says now, so a
   * comment removed there goes here too. A declared key replaces a
   * chosen one; without one, a chosen key stays while all its columns exist.
   */
  private upsert(def: VersionDefinition, datasourceId: string, t: IntrospectedTable): ModelTable {
    const { kind, ...introspected } = t;
    const existing = def.tables.find(
      (m) =>
        m.datasourceId === datasourceId &&
        m.dbName === t.dbName &&
        (m.schema ?? null) === (t.schema ?? null),
    );
    if (existing) {
      const enums = new Map(existing.columns.map((c) => [c.name, c.enum ?? null]));
      const keepChosen =
        t.primaryKey.length === 0 &&
        existing.primaryKeyChosen === true &&
        existing.primaryKey.length > 0 &&
        existing.primaryKey.every((k) => t.columns.some((c) => c.name === k));
      existing.columns = t.columns.map((c) => ({ ...c, enum: enums.get(c.name) ?? null }));
      existing.primaryKey = keepChosen ? existing.primaryKey : t.primaryKey;
      existing.foreignKeys = t.foreignKeys;
      if (t.uniqueKeys) existing.uniqueKeys = t.uniqueKeys;
      else delete existing.uniqueKeys;
      if (t.comment) existing.comment = t.comment;
      else delete existing.comment;
      if (t.estimatedRows !== undefined) existing.estimatedRows = t.estimatedRows;
      else delete existing.estimatedRows;
      setFlag(existing, 'primaryKeyChosen', keepChosen);
      setFlag(existing, 'readOnly', kind === 'view');
      return existing;
    }
    const clash = def.tables.some((m) => m.name === t.dbName);
    const table: ModelTable = {
      ...introspected,
      name: clash ? `${t.schema ?? 'main'}_${t.dbName}` : t.dbName,
      datasourceId,
      active: true,
      ...(kind === 'view' && { readOnly: true }),
    };
    def.tables.push(table);
    return table;
  }

  /** A model table as routes answer it; `types` names its columns' GraphQL types. */
  private view(
    def: VersionDefinition,
    t: ModelTable,
    types = new GraphqlTypeNames(def),
  ): ModelTableView {
    return {
      name: t.name,
      schema: t.schema,
      dbName: t.dbName,
      active: t.active,
      readOnly: t.readOnly === true,
      primaryKey: t.primaryKey,
      primaryKeyChosen: t.primaryKeyChosen === true,
      ...(t.comment && { comment: t.comment }),
      fields: t.columns.map((c) => ({
        ...c,
        primaryKey: t.primaryKey.includes(c.name),
        graphqlType: types.of(t, c),
      })),
      relations: navigationsOf(def.tables, t.name),
    };
  }
}

/** Stores a boolean flag only when true, so tables that never had it stay as they were saved. */
function setFlag(table: ModelTable, flag: 'readOnly' | 'primaryKeyChosen', on: boolean): void {
  if (on) table[flag] = true;
  else delete table[flag];
}

/**
 * Sets a builder-chosen primary key on a model table (see {@link DataModelService.update}); `[]`
 * removes it.
 * @throws DomainError INVALID_INPUT when the database declares the table's key, or listing every
 * column that does not exist, repeats, or holds JSON (JSON has no order on PostgreSQL or SQL
 * Server, and the key completes every order).
 */
export function choosePrimaryKey(table: ModelTable, columns: string[]): void {
  if (table.primaryKey.length > 0 && table.primaryKeyChosen !== true)
    throw invalidInput(
      `"${table.name}" has a primary key declared by its database (${table.primaryKey.join(', ')}); only a view or a table without one takes a chosen key`,
    );
  const problems: string[] = [];
  columns.forEach((name, i) => {
    const column = table.columns.find((c) => c.name === name);
    if (!column) problems.push(`primaryKey: "${table.name}" has no column "${name}"`);
    else if (columns.indexOf(name) !== i)
      problems.push(`primaryKey: "${name}" is named more than once`);
    else if (column.kind === 'json')
      problems.push(`primaryKey: "${name}" holds JSON, which cannot order rows`);
  });
  if (problems.length) throw invalidInput('Invalid primary key', problems);
  table.primaryKey = [...columns];
  setFlag(table, 'primaryKeyChosen', columns.length > 0);
}
