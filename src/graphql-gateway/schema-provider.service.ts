import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { validateSchema } from 'graphql';
import { DomainError, ErrorCode, invalidInput } from '../common/domain-error';
import type { VersionDefinition } from '../platform/version-definition';
import { LRUCache } from 'lru-cache';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatasourcesService } from '../data-model/datasources.service';
import { EventsService } from '../events/events.service';
import { MetricsService } from '../metrics/metrics.service';
import type { VersionHead } from '../platform/version-definition';
import { VersionsService } from '../platform/versions.service';
import { CompiledDocument, compileDocument, DocumentCache } from './request/compiled-operation';
import { AudienceView, BUILDER, PUBLISHED } from './request/audience';
import { BuiltSchema, DefinitionClash, VersionTypes } from './schema-builder';

/** A cached schema of one (version, revision, audience), ready to compile documents against. */
export interface ExecutableSchema extends BuiltSchema {
  /** The schema cache's key: `versionId:revision:audience`. */
  key: string;
  /** The audience key (`builder`, `app-user`, `anonymous`, `published`, `key:<hash>`). */
  audience: string;
}

/** Schemas kept at once; the least recently used are dropped (with their compiled documents). */
const MAX_SCHEMAS = 200;

/**
 * The schema cache (request step 5) and the compiled-document cache (step 6). One schema per
 * (version id, revision, audience), built on first use and reused; the types of a (version,
 * revision) are built once for all its audiences. A new revision is a new key, so changes show on
 * the next request; `ModelChanged` drops older revisions early. Compiled documents are kept per
 * schema in one cache bounded by bytes (`DOCUMENT_CACHE_BYTES`).
 */
@Injectable()
export class SchemaProviderService implements OnModuleInit, OnModuleDestroy {
  private readonly documents: DocumentCache;
  private readonly logger = new Logger('SchemaProvider');
  private readonly schemas = new LRUCache<string, Promise<ExecutableSchema>>({
    max: MAX_SCHEMAS,
    dispose: (_entry, key) => this.documents.dropSchema(key),
  });
  private readonly types = new LRUCache<string, Promise<VersionTypes>>({ max: MAX_SCHEMAS });
  /** Schemas built since start (the e2e suite reads it to prove reuse). */
  schemasBuilt = 0;
  /** Documents compiled since start (cache misses that compiled; the e2e suites read it). */
  documentsCompiled = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly versions: VersionsService,
    private readonly datasources: DatasourcesService,
    events: EventsService,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.documents = new DocumentCache(config.limits.documentCacheBytes);
    this.unsubscribe = events.on('ModelChanged', ({ versionId, revision }) => {
      for (const key of [...this.schemas.keys()]) {
        const [id, rev] = key.split(':');
        if (id === versionId && Number(rev) < revision) this.schemas.delete(key);
      }
    });
  }

  /** Compiled documents held in the cache, all schemas together. */
  get documentsCached(): number {
    return this.documents.size;
  }

  /**
   * The executable schema of a version head for an audience. Single-flight: the first request
   * after a change starts the build and every concurrent one awaits that same promise, so a
   * burst builds a schema once per instance.
   */
  get(head: VersionHead, audience: AudienceView): Promise<ExecutableSchema> {
    const key = `${head.versionId}:${head.revision}:${audience.key}`;
    let entry = this.schemas.get(key);
    if (entry) {
      this.metrics.schemaHit();
    } else {
      entry = this.build(head, audience, key);
      entry.catch(() => this.schemas.delete(key));
      this.schemas.set(key, entry);
    }
    return entry;
  }

  /**
   * The compiled document of a query text for a schema: from the cache, or compiled (and cached
   * only when it compiled). See `compileDocument` for the steps and refusals.
   * @throws RequestRefusal 400 for a text that does not parse, validate or fit the limits.
   */
  compile(executable: ExecutableSchema, text: string): CompiledDocument {
    return this.documents.compile(
      executable.key,
      () => {
        const compiled = compileDocument(
          executable.schema,
          text,
          this.config.limits,
          executable.audience === 'builder',
        );
        this.documentsCompiled++;
        return compiled;
      },
      text,
    );
  }

  onModuleInit(): void {
    this.versions.setProver((appId, def) => this.prove(appId, def));
  }

  /**
   * Builds a definition's schemas (builder's and published) and validates them (CONTRACT.md §3:
   * every change is proven before it is saved).
   * @throws DomainError CONFLICT (409) when two parts mint one name, naming both;
   * INVALID_INPUT (400) when the schema would not build for another reason.
   */
  async prove(appId: string, def: VersionDefinition): Promise<void> {
    const capabilities = await this.datasources.capabilities(appId);
    try {
      const types = new VersionTypes(def, capabilities);
      for (const audience of [BUILDER, PUBLISHED]) {
        const errors = validateSchema(types.schemaFor(audience).schema);
        if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
      }
    } catch (error) {
      if (error instanceof DefinitionClash)
        throw new DomainError(ErrorCode.Conflict, error.message);
      if (error instanceof DomainError) throw error;
      throw invalidInput(
        `This change would leave the app's API unable to build: ${(error as Error).message}`,
      );
    }
  }

  onModuleDestroy(): void {
    this.unsubscribe();
    this.schemas.clear();
  }

  private versionTypes(head: VersionHead): Promise<VersionTypes> {
    const key = `${head.versionId}:${head.revision}`;
    let entry = this.types.get(key);
    if (!entry) {
      entry = Promise.all([
        this.versions.definition(head.versionId),
        this.datasources.capabilities(head.appId),
      ]).then(([def, capabilities]) => new VersionTypes(def, capabilities));
      entry.catch(() => this.types.delete(key));
      this.types.set(key, entry);
    }
    return entry;
  }

  private async build(
    head: VersionHead,
    audience: AudienceView,
    key: string,
  ): Promise<ExecutableSchema> {
    try {
      const started = process.hrtime.bigint();
      const built = (await this.versionTypes(head)).schemaFor(audience);
      const errors = validateSchema(built.schema);
      if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
      this.schemasBuilt++;
      this.metrics.schemaBuilt(Number(process.hrtime.bigint() - started) / 1e9);
      return { ...built, key, audience: audience.key };
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // A version that stopped building (e.g. a table changed underneath) never answers 500:
      // its callers learn the API is unavailable; the builder also learns why.
      const reason = (error as Error).message;
      this.logger.warn(
        `App ${head.appId} version ${head.versionId}@${head.revision} does not build: ${reason}`,
      );
      throw new DomainError(
        ErrorCode.ApiUnavailable,
        audience.key === BUILDER.key
          ? `The app's API is unavailable: ${reason}`
          : "The app's API is unavailable",
      );
    }
  }
}
