import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { notFound } from '../common/domain-error';
import { EventsService } from '../events/events.service';
import { AppVersionEntity } from './entities/app-version.entity';
import { PlatformErrors } from './platform.errors';
import { VersionDefinition, VersionHead } from './version-definition';
import { diffVersions, VersionDiff } from './version-diff';

const MAIN = 'main';

/**
 * Proves a changed definition of an app can be served. @throws DomainError (400/409) naming
 * what would not build; nothing is saved then.
 */
export type DefinitionProver = (appId: string, def: VersionDefinition) => Promise<void>;

/**
 * Versions of an app's definitions (CONTRACT.md §7, docs/adr/0003): one main version and one
 * working version per builder, created from main on the builder's first edit. Every change writes
 * the whole document and bumps `revision` in one conditional UPDATE, so a concurrent edit is
 * refused instead of lost; then a `ModelChanged` event tells other instances.
 */
@Injectable()
export class VersionsService {
  /**
   * Version heads by `appId:slot`, bounded (10,000 entries, 5 s each); every change of a head
   * (edit, publish, a new working version) emits `ModelChanged`, which drops the app's entries on
   * every instance. Used only while `EventsService.cachesAreSafe()`.
   */
  private readonly heads = new LRUCache<string, VersionHead>({ max: 10_000, ttl: 5_000 });
  /** Head reads that went to the metadata store since start (the e2e suites read it). */
  headReads = 0;
  /** Raised by every invalidation: a store read that started before one is not cached. */
  private generation = 0;
  /** Builds a changed definition's schema before it is saved; set by the GraphQL gateway. */
  private prover: DefinitionProver | null = null;

  /**
   * Registers the proof every change must pass before it is saved (the gateway owns schema
   * building; platform cannot depend on it, so the gateway hands the proof in at start).
   */
  setProver(prover: DefinitionProver): void {
    this.prover = prover;
  }

  constructor(
    @InjectRepository(AppVersionEntity) private readonly versions: Repository<AppVersionEntity>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly events: EventsService,
  ) {
    events.on('ModelChanged', ({ appId }) => {
      this.generation++;
      for (const key of [...this.heads.keys()])
        if (key.startsWith(`${appId}:`)) this.heads.delete(key);
    });
    events.on('CachesReset', () => {
      this.generation++;
      this.heads.clear();
    });
  }

  /** Main version's id and revision: what keys, app users and anonymous callers address. */
  async mainHead(appId: string): Promise<VersionHead | null> {
    return this.head(appId, MAIN);
  }

  /** The builder's working version head, or main's when the builder has not edited yet. */
  async builderHead(appId: string, accountId: string): Promise<VersionHead | null> {
    return (await this.head(appId, accountId)) ?? (await this.head(appId, MAIN));
  }

  /** The definition document of a version. @throws DomainError NOT_FOUND. */
  async definition(versionId: string): Promise<VersionDefinition> {
    const row = await this.versions.findOne({
      where: { id: versionId },
      select: { definition: true },
    });
    if (!row) throw notFound('Version', versionId);
    return JSON.parse(row.definition) as VersionDefinition;
  }

  /** What a builder reads: their working version's definition, or main's. */
  async readForBuilder(appId: string, accountId: string): Promise<VersionDefinition> {
    const head = await this.builderHead(appId, accountId);
    if (!head) throw notFound('App', appId);
    return this.definition(head.versionId);
  }

  /**
   * What the builder's working version changes against main (issue 27 item 5): what publishing it
   * would make live. Without a working version there is nothing to publish: no changes.
   * @throws DomainError NOT_FOUND (no app).
   */
  async diff(appId: string, accountId: string): Promise<VersionDiff> {
    const main = await this.head(appId, MAIN);
    if (!main) throw notFound('App', appId);
    const working = await this.head(appId, accountId);
    if (!working) return { mainRevision: main.revision, workingRevision: null, changes: [] };
    const [before, after] = await Promise.all([
      this.definition(main.versionId),
      this.definition(working.versionId),
    ]);
    return {
      mainRevision: main.revision,
      workingRevision: working.revision,
      changes: diffVersions(before, after),
    };
  }

  /**
   * Applies `change` to the builder's working version (created from main first when missing) and
   * bumps its revision. `change` mutates the document and returns the route's result; when it
   * throws, nothing is written.
   * @throws DomainError NOT_FOUND (no app), CONFLICT (edited concurrently), or what `change` throws.
   */
  async edit<T>(
    appId: string,
    accountId: string,
    change: (def: VersionDefinition) => T | Promise<T>,
  ): Promise<T> {
    const working = await this.ensureWorking(appId, accountId);
    const def = JSON.parse(working.definition) as VersionDefinition;
    const result = await change(def);
    // Proven before it is saved (CONTRACT.md §3): a change whose schema would not build is refused.
    await this.prover?.(appId, def);
    const updated = await this.versions
      .createQueryBuilder()
      .update(AppVersionEntity)
      .set({
        definition: JSON.stringify(def),
        revision: working.revision + 1,
        updatedAt: new Date().toISOString(),
      })
      .where('id = :id AND revision = :revision', { id: working.id, revision: working.revision })
      .execute();
    if (updated.affected !== 1) throw PlatformErrors.versionConflict();
    this.events.modelChanged({ appId, versionId: working.id, revision: working.revision + 1 });
    return result;
  }

  /**
   * Applies `change` to every version of the app (main and each builder's working version) and
   * runs `alsoInTransaction`, all in one metadata transaction: each version is proven and written
   * with its revision bumped only if no other change came first, so either every version and the
   * extra rows change or nothing does. Used for removals that must hold in every version at once
   * (a deleted datasource's tables and the Table APIs on them).
   * @throws DomainError NOT_FOUND (no app), CONFLICT (a version edited concurrently), or what
   * `change`, the proof or `alsoInTransaction` throws; nothing is written then.
   */
  async editEveryVersion(
    appId: string,
    change: (def: VersionDefinition) => void,
    alsoInTransaction: (tx: EntityManager) => Promise<void>,
  ): Promise<void> {
    const all = await this.versions.findBy({ appId });
    if (!all.some((v) => v.slot === MAIN)) throw notFound('App', appId);
    const written: VersionHead[] = [];
    const definitions = new Map<string, VersionDefinition>();
    for (const version of all) {
      const def = JSON.parse(version.definition) as VersionDefinition;
      change(def);
      await this.prover?.(appId, def);
      definitions.set(version.id, def);
    }
    await this.db.transaction(async (tx) => {
      for (const version of all) {
        const res = await tx
          .createQueryBuilder()
          .update(AppVersionEntity)
          .set({
            definition: JSON.stringify(definitions.get(version.id)),
            revision: version.revision + 1,
            updatedAt: new Date().toISOString(),
          })
          .where('id = :id AND revision = :revision', {
            id: version.id,
            revision: version.revision,
          })
          .execute();
        if (res.affected !== 1) throw PlatformErrors.versionConflict();
        written.push({ appId, versionId: version.id, revision: version.revision + 1 });
      }
      await alsoInTransaction(tx);
    });
    for (const head of written) this.events.modelChanged(head);
  }

  /**
   * Makes the builder's working version main (CONTRACT.md §3 `versions/publish`) and drops the
   * working version, so the builder's next edit starts from the new main.
   * @returns the new main revision.
   */
  async publish(appId: string, accountId: string): Promise<{ revision: number }> {
    const main = await this.versions.findOneBy({ appId, slot: MAIN });
    if (!main) throw notFound('App', appId);
    const working = await this.versions.findOneBy({ appId, slot: accountId });
    if (!working) return { revision: main.revision };
    const revision = main.revision + 1;
    await this.db.transaction(async (tx) => {
      const res = await tx
        .createQueryBuilder()
        .update(AppVersionEntity)
        .set({ definition: working.definition, revision, updatedAt: new Date().toISOString() })
        .where('id = :id AND revision = :revision', { id: main.id, revision: main.revision })
        .execute();
      if (res.affected !== 1) throw PlatformErrors.versionConflict();
      await tx.delete(AppVersionEntity, { id: working.id });
    });
    this.events.modelChanged({ appId, versionId: main.id, revision });
    return { revision };
  }

  private async head(appId: string, slot: string): Promise<VersionHead | null> {
    const key = `${appId}:${slot}`;
    const safe = this.events.cachesAreSafe();
    const cached = safe ? this.heads.get(key) : undefined;
    if (cached) return cached;
    this.headReads++;
    // A read that overlaps a change is used but not remembered: it may predate the event.
    const generation = this.generation;
    const row = await this.versions.findOne({
      where: { appId, slot },
      select: { id: true, revision: true },
    });
    if (!row) return null;
    const head = { appId, versionId: row.id, revision: row.revision };
    if (safe && generation === this.generation) this.heads.set(key, head);
    return head;
  }

  private async ensureWorking(appId: string, accountId: string): Promise<AppVersionEntity> {
    const existing = await this.versions.findOneBy({ appId, slot: accountId });
    if (existing) return existing;
    const main = await this.versions.findOneBy({ appId, slot: MAIN });
    if (!main) throw notFound('App', appId);
    const working = this.versions.create({
      id: randomUUID(),
      appId,
      slot: accountId,
      revision: 1,
      definition: main.definition,
      updatedAt: new Date().toISOString(),
    });
    try {
      await this.versions.insert(working);
      return working;
    } catch {
      // Another request of the same builder created it first.
      const again = await this.versions.findOneBy({ appId, slot: accountId });
      if (!again) throw PlatformErrors.versionConflict();
      return again;
    }
  }
}
