import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { GraphQLSchema, isInputObjectType, isObjectType, validateSchema } from 'graphql';
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
import { LocalThrottlerStorage } from '../rate-limits/local-throttler-storage';

/** A cached schema of one (version, revision, audience), ready to compile documents against. */
export interface ExecutableSchema extends BuiltSchema {
  /** The schema cache's key: `versionId:revision:audience`. */
  key: string;
  /** The audience key (`builder`, `app-user`, `anonymous`, `published`, `key:<hash>`). */
  audience: string;
}

/**
 * Heap per field or argument, in bytes, measured with `bench/schema-build.js` (heap after a full
 * collection, models of 50 to 1,000 tables): an audience's root types hold ~300 B per root field or
 * argument, a version's shared types ~650 B per field or argument (their closures and plans
 * included). Rounded up so the estimate errs on the side of memory.
 */
const ROOT_FIELD_BYTES = 400;
const TYPE_FIELD_BYTES = 800;
/** What an entry weighs while it is being built (its real weight is known once built). */
const BUILDING_BYTES = 64 * 1024;

/**
 * The estimated heap of a built schema, in bytes: `view` for its root types' fields and arguments
 * (what each audience's view holds on its own), `types` for every other type's (what a version's
 * types hold once for all its audiences). Linear in the schema's fields.
 */
export function schemaBytes(schema: GraphQLSchema): { view: number; types: number } {
  const roots = new Set([schema.getQueryType(), schema.getMutationType()]);
  let root = 0;
  let other = 0;
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (!isObjectType(type) && !isInputObjectType(type)) continue;
    let n = 0;
    for (const field of Object.values(type.getFields())) {
      n += 1 + ('args' in field ? field.args.length : 0);
    }
    if (roots.has(type as never)) root += n;
    else other += n;
  }
  return { view: 1024 + root * ROOT_FIELD_BYTES, types: 1024 + other * TYPE_FIELD_BYTES };
}

/** A cache entry: the value being built or built, and its weight once known. */
interface Weighed<T> {
  value: Promise<T>;
  bytes: number;
}

/**
 * The schema cache (request step 5) and the compiled-document cache (step 6). One schema per
 * (version id, revision, audience), built on first use and reused; the types of a (version,
 * revision) are built once for all its audiences, and each audience's schema only adds its root
 * types. Both caches are bounded by estimated bytes (`SCHEMA_CACHE_BYTES`, see
 * {@link schemaBytes}), so thousands of small apps stay cached where a count would thrash. One app
 * may cause at most `SCHEMA_BUILDS_PER_APP_PER_SECOND` builds per second. A new revision is a new
 * key, so changes show on the next request; `ModelChanged` drops older revisions early. Compiled
 * documents are kept per schema in one cache bounded by bytes (`DOCUMENT_CACHE_BYTES`).
 */
@Injectable()
export class SchemaProviderService implements OnModuleInit, OnModuleDestroy {
  private readonly documents: DocumentCache;
  private readonly logger = new Logger('SchemaProvider');
  private readonly schemas: LRUCache<string, Weighed<ExecutableSchema>>;
  private readonly types: LRUCache<string, Weighed<VersionTypes>>;
  /** Builds per app in the current second (`SCHEMA_BUILDS_PER_APP_PER_SECOND`). */
  private readonly builds = new LocalThrottlerStorage();
  /** Set while an entry is replaced to be weighed again: its documents stay. */
  private reweighing = false;
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
    // One budget, half for the versions' types and half for the audiences' views: per field a
    // view weighs about half what the types do, and a version usually serves two to four views.
    const budget = config.limits.schemaCacheBytes;
    this.schemas = new LRUCache({
      maxSize: Math.max(1, Math.floor(budget / 2)),
      sizeCalculation: (entry) => Math.max(1, entry.bytes),
      dispose: (_entry, key) => {
        if (!this.reweighing) this.documents.dropSchema(key);
      },
    });
    this.types = new LRUCache({
      maxSize: Math.max(1, Math.floor(budget / 2)),
      sizeCalculation: (entry) => Math.max(1, entry.bytes),
    });
    this.unsubscribe = events.on('ModelChanged', ({ versionId, revision }) => {
      const older = (key: string) => {
        const [id, rev] = key.split(':');
        return id === versionId && Number(rev) < revision;
      };
      for (const key of [...this.schemas.keys()]) if (older(key)) this.schemas.delete(key);
      for (const key of [...this.types.keys()]) if (older(key)) this.types.delete(key);
    });
  }

  /** Compiled documents held in the cache, all schemas together. */
  get documentsCached(): number {
    return this.documents.size;
  }

  /** Schemas held in the cache, and their estimated bytes (the metrics and the bench read them). */
  get schemasCached(): { schemas: number; bytes: number; types: number; typeBytes: number } {
    return {
      schemas: this.schemas.size,
      bytes: this.schemas.calculatedSize,
      types: this.types.size,
      typeBytes: this.types.calculatedSize,
    };
  }

  /**
   * The executable schema of a version head for an audience. Single-flight: the first request
   * after a change starts the build and every concurrent one awaits that same promise, so a
   * burst builds a schema once per instance.
   * @throws DomainError TOO_MANY_REQUESTS (429, `retry-after`) when the app has caused
   *   `SCHEMA_BUILDS_PER_APP_PER_SECOND` builds this second; API_UNAVAILABLE when it does not build.
   */
  async get(head: VersionHead, audience: AudienceView): Promise<ExecutableSchema> {
    const key = `${head.versionId}:${head.revision}:${audience.key}`;
    const cached = this.schemas.get(key);
    if (cached) {
      this.metrics.schemaHit();
      return cached.value;
    }
    await this.admitBuild(head.appId);
    // Another request may have started the same build while this one was counted.
    const started = this.schemas.get(key);
    if (started) return started.value;
    return this.cached(this.schemas, key, this.build(head, audience, key));
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
    this.types.clear();
    this.builds.clear();
  }

  /**
   * Counts one build for an app (CONTRACT.md §6: a caller cannot make the service rebuild schemas
   * without bound).
   * @throws DomainError TOO_MANY_REQUESTS with `retry-after` over the per-second ceiling.
   */
  private async admitBuild(appId: string): Promise<void> {
    const limit = this.config.limits.schemaBuildsPerAppPerSecond;
    const record = await this.builds.increment(appId, 1_000, limit, 0, 'schema-builds');
    if (!record.isBlocked) return;
    this.metrics.rateLimited('schema-build');
    throw new DomainError(ErrorCode.TooManyRequests, 'Rate limit exceeded', [], {
      'retry-after': String(record.timeToExpire),
    });
  }

  /**
   * Puts a value being built into a byte-bounded cache under a provisional weight; a failed build
   * leaves the cache. {@link weigh} gives it its real weight once built.
   */
  private cached<T>(
    cache: LRUCache<string, Weighed<T>>,
    key: string,
    value: Promise<T>,
  ): Promise<T> {
    const entry: Weighed<T> = { value, bytes: BUILDING_BYTES };
    cache.set(key, entry);
    value.catch(() => {
      if (cache.peek(key) === entry) cache.delete(key);
    });
    return value;
  }

  /**
   * Weighs an entry again (lru-cache weighs a value only when it is new for the key, so the entry
   * is replaced; the least recently used make room; the replaced entry keeps its documents).
   * Does nothing when the key now holds another value or was weighed already.
   */
  private weigh<T>(
    cache: LRUCache<string, Weighed<T>>,
    key: string,
    value: Promise<T>,
    bytes: number,
  ) {
    const entry = cache.peek(key);
    if (!entry || entry.value !== value || entry.bytes !== BUILDING_BYTES) return;
    this.reweighing = true;
    try {
      cache.delete(key);
      cache.set(key, { value, bytes });
    } finally {
      this.reweighing = false;
    }
  }

  private versionTypes(head: VersionHead): Promise<VersionTypes> {
    const key = `${head.versionId}:${head.revision}`;
    const cached = this.types.get(key);
    if (cached) return cached.value;
    const types = Promise.all([
      this.versions.definition(head.versionId),
      this.datasources.capabilities(head.appId),
    ]).then(([def, capabilities]) => new VersionTypes(def, capabilities));
    return this.cached(this.types, key, types);
  }

  private async build(
    head: VersionHead,
    audience: AudienceView,
    key: string,
  ): Promise<ExecutableSchema> {
    try {
      const started = process.hrtime.bigint();
      const types = this.versionTypes(head);
      const built = (await types).schemaFor(audience);
      const errors = validateSchema(built.schema);
      if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
      // The types are built lazily by their first audience: both weights are known now.
      const bytes = schemaBytes(built.schema);
      this.weigh(this.types, `${head.versionId}:${head.revision}`, types, bytes.types);
      const entry = this.schemas.peek(key);
      if (entry) this.weigh(this.schemas, key, entry.value, bytes.view);
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
