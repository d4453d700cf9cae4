import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError, ErrorCode, invalidInput, notFound } from '../common/domain-error';
import { navigationsOf, writeActions } from '../data-model/model-graph';
import type { ModelTable } from '../platform/version-definition';
import type {
  ApiActions,
  FieldsTree,
  TableApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';
import { VersionsService } from '../platform/versions.service';
import type { Capabilities } from '../datasources/core/dialect';
import { baseName } from '../graphql-gateway/api-tree';
import { upsertNotOffered } from '../graphql-gateway/operations/upsert';

/** Input of create and update. */
export interface TableApiInput {
  name?: string;
  table?: string;
  actions?: ApiActions;
  public?: Partial<ApiActions>;
  fields?: FieldsTree | null;
}

const NO_ACTIONS: ApiActions = { select: false, insert: false, update: false, delete: false };

/**
 * Every problem of an included-fields tree against the model: unknown columns or navigation
 * fields, values other than `true` or a nested tree. Navigation fields nest to any depth.
 */
export function fieldsTreeProblems(
  def: VersionDefinition,
  table: string,
  tree: FieldsTree,
  path = '',
): string[] {
  const t = def.tables.find((m) => m.name === table);
  if (!t) return [`table "${table}" is not in the model`];
  const navs = navigationsOf(def.tables, table);
  const problems: string[] = [];
  for (const [key, value] of Object.entries(tree)) {
    const at = path ? `${path}.${key}` : key;
    const nav = navs.find((n) => n.name === key);
    if (value === true && t.columns.some((c) => c.name === key)) continue;
    if (nav && value !== null && typeof value === 'object') {
      if (Object.keys(value).length === 0) {
        problems.push(
          `fields.${at}: a navigation field includes at least one field, e.g. {"id": true}`,
        );
        continue;
      }
      problems.push(...fieldsTreeProblems(def, nav.to, value, at));
      continue;
    }
    if (nav) problems.push(`fields.${at}: a navigation field takes an object of its fields`);
    else problems.push(`fields.${at}: "${table}" has no column or navigation field "${key}"`);
  }
  return problems;
}

/**
 * The problem of a Table API that writes to a read-only model table (a view or materialized view,
 * CONTRACT.md §3: "their Table APIs offer select only"), or null when there is none.
 */
export function readOnlyProblem(
  table: Pick<ModelTable, 'name' | 'readOnly'> | undefined,
  actions: ApiActions,
): string | null {
  if (!table?.readOnly) return null;
  const writes = writeActions(actions);
  if (writes.length === 0) return null;
  return `actions: "${table.name}" is a view, so only select is possible; switch off ${writes.join(', ')}`;
}

/** The message of a refusal caused by {@link readOnlyProblem}. */
const viewMessage = (table: string) => `Table "${table}" is a view: only select is possible`;

/**
 * The problem of a Table API that updates or deletes rows of a table without a primary key
 * (none declared by its database, none chosen by a builder), or null when there is none:
 * `update<Base>` and `delete<Base>` address one row by its key, so its schema could offer neither
 * (CONTRACT.md §6). A view is left to {@link readOnlyProblem}, which refuses every write.
 */
export function noKeyProblem(
  table: Pick<ModelTable, 'name' | 'primaryKey' | 'readOnly'> | undefined,
  actions: ApiActions,
): string | null {
  if (!table || table.readOnly || table.primaryKey.length > 0) return null;
  const keyed = (['update', 'delete'] as const).filter((a) => actions[a]);
  if (keyed.length === 0) return null;
  return (
    `actions: "${table.name}" has no primary key, so ${keyed.join(' and ')} cannot address a ` +
    `row; switch off ${keyed.join(', ')}, or first name its key columns ` +
    `(PATCH /api/apps/:appId/model/tables/${table.name} {"primaryKey": [...]})`
  );
}

/** The message of a refusal caused by {@link noKeyProblem}. */
const noKeyMessage = (table: string) =>
  `Table "${table}" has no primary key: update and delete are not possible`;

/** The problem of an API's actions on its table ({@link readOnlyProblem}, {@link noKeyProblem}). */
function actionsProblem(
  table: ModelTable | undefined,
  api: TableApiDefinition,
): { problem: string; message: string } | null {
  const view = readOnlyProblem(table, api.actions);
  if (view) return { problem: view, message: viewMessage(api.table) };
  const noKey = noKeyProblem(table, api.actions);
  if (noKey) return { problem: noKey, message: noKeyMessage(api.table) };
  return null;
}

/** What saving a Table API answers: the API, and `notices` when there is something to say. */
export type SavedTableApi = TableApiDefinition & { notices?: string[] };

/**
 * What an API's actions would offer but its table cannot give, in words for its builder (README
 * "Writing rows"): with the insert and update actions on a MySQL/MariaDB table with more than one
 * unique key set, why `upsert<Base>`/`upsertMany<Base>` are left out ({@link upsertNotOffered}).
 * Notices never refuse a save; the schema simply lacks those fields.
 * @param capabilities of the table's datasource; undefined (an unknown datasource): no notice.
 */
export function tableApiNotices(
  def: VersionDefinition,
  api: TableApiDefinition,
  capabilities: Capabilities | undefined,
): string[] {
  const table = def.tables.find((t) => t.name === api.table);
  if (!table || !capabilities || !api.actions.insert || !api.actions.update) return [];
  const upsert = upsertNotOffered(table, capabilities, baseName(api.name));
  return upsert ? [upsert] : [];
}

/** Table APIs of an app version: create, read, change, delete, publish (CONTRACT.md §3). */
@Injectable()
export class TableApisService {
  constructor(private readonly versions: VersionsService) {}

  /**
   * Creates a draft API.
   * @throws DomainError INVALID_INPUT (every problem; insert, update or delete on a view is one,
   * {@link readOnlyProblem}, and so is update or delete on a table without a primary key,
   * {@link noKeyProblem}), CONFLICT (name taken).
   */
  create(
    appId: string,
    accountId: string,
    input: Required<Pick<TableApiInput, 'name' | 'table' | 'actions'>> & TableApiInput,
  ): Promise<TableApiDefinition> {
    return this.versions.edit(appId, accountId, (def) => {
      const now = new Date().toISOString();
      const api: TableApiDefinition = {
        id: randomUUID(),
        name: input.name,
        table: input.table,
        actions: input.actions,
        public: { ...NO_ACTIONS, ...input.public },
        fields: input.fields ?? null,
        status: 'draft',
        createdAt: now,
        updatedAt: now,
      };
      this.check(def, api);
      def.apis.push(api);
      return api;
    });
  }

  /** The version's APIs as the caller sees them (their working version, else main). */
  async list(appId: string, accountId: string): Promise<TableApiDefinition[]> {
    return (await this.versions.readForBuilder(appId, accountId)).apis;
  }

  /** One API. @throws DomainError NOT_FOUND. */
  async get(appId: string, accountId: string, apiId: string): Promise<TableApiDefinition> {
    const api = (await this.list(appId, accountId)).find((a) => a.id === apiId);
    if (!api) throw notFound('Table API', apiId);
    return api;
  }

  /**
   * Changes an API; a published API stays published.
   * @throws DomainError NOT_FOUND, INVALID_INPUT (as {@link create}), CONFLICT.
   */
  update(
    appId: string,
    accountId: string,
    apiId: string,
    input: TableApiInput,
  ): Promise<TableApiDefinition> {
    return this.versions.edit(appId, accountId, (def) => {
      const api = this.find(def, apiId);
      const next: TableApiDefinition = {
        ...api,
        ...(input.name !== undefined && { name: input.name }),
        ...(input.table !== undefined && { table: input.table }),
        ...(input.actions !== undefined && { actions: input.actions }),
        ...(input.public !== undefined && { public: { ...NO_ACTIONS, ...input.public } }),
        ...(input.fields !== undefined && { fields: input.fields }),
        updatedAt: new Date().toISOString(),
      };
      this.check(def, next);
      Object.assign(api, next);
      return api;
    });
  }

  /**
   * `api` as a save answers it: with {@link tableApiNotices} of the caller's version (their
   * working version, else main), `capabilities` by datasource id; without `notices` when there
   * are none.
   */
  async withNotices(
    appId: string,
    accountId: string,
    api: TableApiDefinition,
    capabilities: ReadonlyMap<string, Capabilities>,
  ): Promise<SavedTableApi> {
    const def = await this.versions.readForBuilder(appId, accountId);
    const table = def.tables.find((t) => t.name === api.table);
    const notices = tableApiNotices(def, api, table && capabilities.get(table.datasourceId));
    return notices.length ? { ...api, notices } : api;
  }

  /** Deletes an API. @throws DomainError NOT_FOUND. */
  delete(appId: string, accountId: string, apiId: string): Promise<void> {
    return this.versions.edit(appId, accountId, (def) => {
      this.find(def, apiId);
      def.apis = def.apis.filter((a) => a.id !== apiId);
    });
  }

  /**
   * Publishes an API.
   * @throws DomainError INVALID_INPUT without an active table or an active action, with
   * insert, update or delete active on a view ({@link readOnlyProblem}), or with update or
   * delete active on a table without a primary key ({@link noKeyProblem}).
   */
  publish(appId: string, accountId: string, apiId: string): Promise<{ status: 'published' }> {
    return this.versions.edit(appId, accountId, (def) => {
      const api = this.find(def, apiId);
      const problems: string[] = [];
      if (!def.tables.some((t) => t.name === api.table && t.active))
        problems.push(`table "${api.table}" is not an active model table`);
      if (!Object.values(api.actions).some(Boolean)) problems.push('no action is active');
      const actions = actionsProblem(
        def.tables.find((t) => t.name === api.table),
        api,
      );
      if (actions) problems.push(actions.problem);
      if (problems.length)
        throw invalidInput(actions?.message ?? 'This API cannot be published yet', problems);
      api.status = 'published';
      api.updatedAt = new Date().toISOString();
      return { status: 'published' as const };
    });
  }

  private find(def: VersionDefinition, apiId: string): TableApiDefinition {
    const api = def.apis.find((a) => a.id === apiId);
    if (!api) throw notFound('Table API', apiId);
    return api;
  }

  private check(def: VersionDefinition, api: TableApiDefinition): void {
    const base = api.name.toLowerCase();
    if (def.apis.some((a) => a.id !== api.id && a.name.toLowerCase() === base)) {
      throw new DomainError(
        ErrorCode.Conflict,
        `An API named "${api.name}" exists already (names differ by more than case)`,
      );
    }
    const table = def.tables.find((t) => t.name === api.table);
    const problems = table
      ? api.fields
        ? fieldsTreeProblems(def, api.table, api.fields)
        : []
      : [`table: "${api.table}" is not in the model; import it first`];
    const actions = actionsProblem(table, api);
    if (actions) problems.unshift(actions.problem);
    if (problems.length) throw invalidInput(actions?.message ?? 'Invalid Table API', problems);
  }
}
