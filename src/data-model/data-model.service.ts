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

/** Parses `"schema.table"` (or `"table"`) into a reference; SQLite has no schema. */
export function parseTableRef(text: string, type: string): TableRef {
  const dot = text.indexOf('.');
  if (type === 'sqlite') return { schema: null, name: dot >= 0 && text.startsWith('main.') ? text.slice(5) : text };
  return dot >= 0 ? { schema: text.slice(0, dot), name: text.slice(dot + 1) } : { schema: 'public', name: text };
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
   * @throws DomainError NOT_FOUND (datasource), INVALID_INPUT listing every table that does not exist.
   */
  async import(appId: string, accountId: string, datasourceId: string, names: string[]): Promise<ModelTableView[]> {
    const ds = await this.datasources.get(appId, datasourceId);
    const refs = names.map((n) => parseTableRef(n, ds.type));
    const { available, tables } = await this.datasources.introspect(appId, datasourceId, refs);
    const key = (r: TableRef) => `${r.schema ?? ''}.${r.name}`;
    const known = new Set(available.map(key));
    const missing = names.filter((_, i) => !known.has(key(refs[i])));
    if (missing.length) throw invalidInput('Some tables do not exist in the datasource', missing.map((m) => `no table "${m}"`));
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
        return { datasource: { id: ds.id, name: ds.name }, tables: tables.map((t) => this.view(def, t)) };
      })
      .filter((g) => g.tables.length > 0 || (needle !== '' && g.datasource.name.toLowerCase().includes(needle)));
  }

  /** Activates or deactivates a model table. @throws DomainError NOT_FOUND. */
  async update(appId: string, accountId: string, tableName: string, change: { active?: boolean }): Promise<ModelTableView> {
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
  async updateField(appId: string, accountId: string, tableName: string, fieldName: string, change: { enum?: string | null }): Promise<ModelTableView> {
    return this.versions.edit(appId, accountId, (def) => {
      const table = def.tables.find((t) => t.name === tableName);
      if (!table) throw notFound('Model table', tableName);
      const column = table.columns.find((c) => c.name === fieldName);
      if (!column) throw notFound('Field', `${tableName}.${fieldName}`);
      if (change.enum !== undefined) {
        if (change.enum !== null) {
          if (!def.enums.some((e) => e.name === change.enum)) throw invalidInput(`There is no enum "${change.enum}"; create it first`);
          if (column.kind !== 'text') throw invalidInput(`${fieldName} holds ${column.dbType}; only text columns take an enum`);
        }
        column.enum = change.enum;
      }
      return this.view(def, table);
    });
  }

  private upsert(def: VersionDefinition, datasourceId: string, t: IntrospectedTable): ModelTable {
    const existing = def.tables.find(
      (m) => m.datasourceId === datasourceId && m.dbName === t.dbName && (m.schema ?? null) === (t.schema ?? null),
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
