import { Injectable } from '@nestjs/common';
import { invalidInput, notFound } from '../common/domain-error';
import type { IntrospectedTable, ModelColumn, TableRef } from '../datasources/dialect';
import type { ModelTable, VersionDefinition } from '../platform/version-definition';
import { VersionsService } from '../platform/versions.service';
import { DatasourcesService } from './datasources.service';
import { Navigation, navigationsOf } from './model-graph';

/** A model table as the builder REST lists it (CONTRACT.md §3). */
export interface ModelTableView {
  name: string;
  schema: string | null;
  dbName: string;
  active: boolean;
  primaryKey: string[];
  fields: (ModelColumn & { primaryKey: boolean })[];
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
 * Resolves the names of an import request against the datasource's live tables: `schema.table`
 * exactly, a bare `table` by name (in the default schema when several schemas have it).
 * @returns the references, and one problem per name that matches no table or is ambiguous.
 */
export function resolveTableNames(
  names: string[],
  available: TableRef[],
): { refs: TableRef[]; problems: string[] } {
  const refs: TableRef[] = [];
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
 * The data model of an app version: import by introspection (re-import refreshes columns),
 * listing with search, activation. Every change goes through {@link VersionsService.edit}.
 */
@Injectable()
export class DataModelService {
  constructor(
    private readonly versions: VersionsService,
    private readonly datasources: DatasourcesService,
  ) {}

  /**
   * Imports (or refreshes) tables of a datasource into the caller's working version.
   * @throws DomainError NOT_FOUND (datasource), INVALID_INPUT listing every name that matches no
   * table or several ({@link resolveTableNames}).
   */
  async import(
    appId: string,
    accountId: string,
    datasourceId: string,
    names: string[],
  ): Promise<ModelTableView[]> {
    const tables = await this.datasources.introspect(appId, datasourceId, (available) => {
      const { refs, problems } = resolveTableNames(names, available);
      if (problems.length) throw invalidInput('Some tables cannot be imported', problems);
      return refs;
    });
    return this.versions.edit(appId, accountId, (def) => {
      const imported = tables.map((t) => this.upsert(def, datasourceId, t));
      return imported.map((t) => this.view(def, t));
    });
  }

  /** Model tables grouped by datasource; `search` matches table or datasource name, case-insensitive. */
  async list(appId: string, accountId: string, search?: string): Promise<ModelGroupView[]> {
    const def = await this.versions.readForBuilder(appId, accountId);
    const datasources = await this.datasources.list(appId);
    const needle = search?.trim().toLowerCase() ?? '';
    return datasources
      .map((ds) => {
        const dsMatches = ds.name.toLowerCase().includes(needle);
        const tables = def.tables.filter(
          (t) => t.datasourceId === ds.id && (dsMatches || t.name.toLowerCase().includes(needle)),
        );
        return {
          datasource: { id: ds.id, name: ds.name },
          tables: tables.map((t) => this.view(def, t)),
        };
      })
      .filter(
        (g) =>
          g.tables.length > 0 ||
          (needle !== '' && g.datasource.name.toLowerCase().includes(needle)),
      );
  }

  /** Activates or deactivates a model table. @throws DomainError NOT_FOUND. */
  async update(
    appId: string,
    accountId: string,
    tableName: string,
    change: { active?: boolean },
  ): Promise<ModelTableView> {
    return this.versions.edit(appId, accountId, (def) => {
      const table = def.tables.find((t) => t.name === tableName);
      if (!table) throw notFound('Model table', tableName);
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

  private upsert(def: VersionDefinition, datasourceId: string, t: IntrospectedTable): ModelTable {
    const existing = def.tables.find(
      (m) =>
        m.datasourceId === datasourceId &&
        m.dbName === t.dbName &&
        (m.schema ?? null) === (t.schema ?? null),
    );
    if (existing) {
      // Refresh: new columns appear, dropped ones go; a kept column keeps its enum assignment.
      const enums = new Map(existing.columns.map((c) => [c.name, c.enum ?? null]));
      existing.columns = t.columns.map((c) => ({ ...c, enum: enums.get(c.name) ?? null }));
      existing.primaryKey = t.primaryKey;
      existing.foreignKeys = t.foreignKeys;
      return existing;
    }
    const clash = def.tables.some((m) => m.name === t.dbName);
    const table: ModelTable = {
      ...t,
      name: clash ? `${t.schema ?? 'main'}_${t.dbName}` : t.dbName,
      datasourceId,
      active: true,
    };
    def.tables.push(table);
    return table;
  }

  private view(def: VersionDefinition, t: ModelTable): ModelTableView {
    return {
      name: t.name,
      schema: t.schema,
      dbName: t.dbName,
      active: t.active,
      primaryKey: t.primaryKey,
      fields: t.columns.map((c) => ({ ...c, primaryKey: t.primaryKey.includes(c.name) })),
      relations: navigationsOf(def.tables, t.name),
    };
  }
}
