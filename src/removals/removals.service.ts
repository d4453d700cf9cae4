import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ApiKeyEntity } from '../api-keys/entities/api-key.entity';
import type { ScopeEntry } from '../api-keys/api-keys.service';
import { AppUserEntity } from '../app-access/entities/app-user.entity';
import { DomainError, ErrorCode } from '../common/domain-error';
import { DatasourcesService } from '../data-model/datasources.service';
import { DatasourceEntity } from '../data-model/entities/datasource.entity';
import { EventsService } from '../events/events.service';
import { AppsService } from '../platform/apps.service';
import { AppVersionEntity } from '../platform/entities/app-version.entity';
import { AppEntity } from '../platform/entities/app.entity';
import type { VersionDefinition } from '../platform/version-definition';
import { VersionsService } from '../platform/versions.service';

/** A revision above any real one: a deleted version's cached schemas are all older. */
const GONE = Number.MAX_SAFE_INTEGER;

/**
 * `409` naming the Table APIs that stand in the way, and how to go on (CONTRACT.md §3: a
 * datasource whose tables a Table API uses is refused unless `?force=true`).
 */
function usedByApis(what: string, apiNames: string[]): DomainError {
  return new DomainError(
    ErrorCode.Conflict,
    `${what} is used by the Table APIs ${apiNames.map((n) => `"${n}"`).join(', ')}; delete them ` +
      'first, or send the request again with ?force=true to delete them too',
  );
}

/** The names of the APIs on `tables`, in every version, each once, sorted. */
function apisOnTables(definitions: VersionDefinition[], tables?: Set<string>): string[] {
  const names = new Set<string>();
  for (const def of definitions) {
    for (const api of def.apis) if (!tables || tables.has(api.table)) names.add(api.name);
  }
  return [...names].sort();
}

/**
 * Deleting apps and datasources (CONTRACT.md §3 `DELETE /api/apps/:appId`, `DELETE
 * …/datasources/:dsId`): each removal is one metadata transaction, then events tell every
 * instance (schemas, version heads, app lookups dropped; the datasource's pools closed). The
 * databases themselves (and an app's SQLite files) are never touched.
 */
@Injectable()
export class RemovalsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly apps: AppsService,
    private readonly versions: VersionsService,
    private readonly datasources: DatasourcesService,
    private readonly events: EventsService,
  ) {}

  /**
   * Deletes an app: its versions, datasources, app users and row rules; every key whose scope
   * named the app loses that entry (a key left with no app stays listed and reaches nothing).
   * @throws DomainError NOT_FOUND; CONFLICT when a version holds Table APIs and `force` is false.
   */
  async deleteApp(appId: string, force: boolean): Promise<void> {
    await this.apps.get(appId);
    const versions = await this.db.getRepository(AppVersionEntity).findBy({ appId });
    const definitions = versions.map((v) => JSON.parse(v.definition) as VersionDefinition);
    const apis = apisOnTables(definitions);
    if (apis.length && !force) throw usedByApis('The app', apis);
    const datasourceIds = (
      await this.db.getRepository(DatasourceEntity).find({ where: { appId }, select: { id: true } })
    ).map((d) => d.id);
    await this.db.transaction(async (tx) => {
      await this.dropAppFromKeys(tx, appId);
      await tx.delete(AppUserEntity, { appId });
      await tx.delete(DatasourceEntity, { appId });
      await tx.delete(AppVersionEntity, { appId });
      await tx.delete(AppEntity, { id: appId });
    });
    this.events.appChanged({ appId });
    for (const version of versions) {
      this.events.modelChanged({ appId, versionId: version.id, revision: GONE });
    }
    for (const datasourceId of datasourceIds) this.events.datasourceRemoved({ datasourceId });
  }

  /**
   * Deletes a datasource and its tables from every version of the app (main and each working
   * version), with their row rules; with `force`, the Table APIs on those tables and the SQL APIs
   * on the datasource go too.
   * @throws DomainError NOT_FOUND; CONFLICT when a Table API uses one of its tables or an SQL API
   * runs on it and `force` is false, or when a version changed meanwhile.
   */
  async deleteDatasource(appId: string, datasourceId: string, force: boolean): Promise<void> {
    await this.apps.get(appId);
    const datasource = await this.datasources.get(appId, datasourceId);
    const versions = await this.db.getRepository(AppVersionEntity).findBy({ appId });
    const definitions = versions.map((v) => JSON.parse(v.definition) as VersionDefinition);
    const tablesOf = (def: VersionDefinition) =>
      new Set(def.tables.filter((t) => t.datasourceId === datasourceId).map((t) => t.name));
    const apis = apisOnTables(
      definitions,
      new Set(definitions.flatMap((def) => [...tablesOf(def)])),
    );
    if (apis.length && !force) throw usedByApis(`The datasource "${datasource.name}"`, apis);
    // SQL APIs on the datasource (README "SQL APIs") stand in the way and go the same way.
    const sqlApis = [
      ...new Set(
        definitions.flatMap((def) =>
          (def.sqlApis ?? []).filter((a) => a.datasourceId === datasourceId).map((a) => a.name),
        ),
      ),
    ].sort();
    if (sqlApis.length && !force) {
      throw new DomainError(
        ErrorCode.Conflict,
        `The datasource "${datasource.name}" is used by the SQL APIs ${sqlApis.map((n) => `"${n}"`).join(', ')}; delete them first, or send the request again with ?force=true to delete them too`,
      );
    }
    await this.versions.editEveryVersion(
      appId,
      (def) => {
        const gone = tablesOf(def);
        def.tables = def.tables.filter((t) => !gone.has(t.name));
        def.apis = def.apis.filter((a) => !gone.has(a.table));
        if (def.sqlApis) def.sqlApis = def.sqlApis.filter((a) => a.datasourceId !== datasourceId);
        for (const rules of Object.values(def.permissions) as { tables?: object }[]) {
          const byTable = rules?.tables as Record<string, unknown> | undefined;
          if (byTable) for (const name of gone) delete byTable[name];
        }
      },
      async (tx) => {
        await tx.delete(DatasourceEntity, { id: datasourceId, appId });
      },
    );
    this.events.datasourceRemoved({ datasourceId });
  }

  /** Removes the app from every key scope that names it (CONTRACT.md §3). */
  private async dropAppFromKeys(tx: EntityManager, appId: string): Promise<void> {
    const keys = await tx.find(ApiKeyEntity, { select: { id: true, scope: true } });
    for (const key of keys) {
      const scope = JSON.parse(key.scope) as ScopeEntry[];
      const kept = scope.filter((entry) => entry.appId !== appId);
      if (kept.length !== scope.length) {
        await tx.update(ApiKeyEntity, { id: key.id }, { scope: JSON.stringify(kept) });
      }
    }
  }
}
