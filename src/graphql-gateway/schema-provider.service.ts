import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { GraphQLSchema, isInputObjectType, isObjectType, validateSchema } from 'graphql';
import { Gauge } from 'prom-client';
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
import { trimSchema } from './schema-footprint';
import { SHARED_TYPE_NAMES } from './scalars';
import { LocalThrottlerStorage } from '../rate-limits/local-throttler-storage';

/** A cached schema of one (version, revision, audience), ready to compile documents against. */
export interface ExecutableSchema extends BuiltSchema {
  /** The schema cache's key: `versionId:revision:audience`. */
  key: string;
  /** The audience key (`builder`, `app-user`, `anonymous`, `published`, `key:<hash>`). */
  audience: string;
}

/**
 * Heap in bytes, measured with `node --expose-gc bench/schema-build.js` (heap after full
 * collections, schemas trimmed as the cache trims them, `trimSchema`; the 20-table app of
 * `npm run bench:apps` and synthetic models of 4 to 400 tables with every action; least squares
 * over them, each within 6 %), rounded up so the estimate errs on the side of memory (5 to 20 %
 * above the measured heap):
 * - a version's types: ~380 B per field or argument of its own object and input types (field
 *   objects, closures, plans, descriptions, and the model they read) and ~90 B per root field or
 *   argument (the operations' configurations it keeps to derive views);
 * - an audience's view: ~175 B per root field or argument (its root types) and ~175 B per named
 *   type of its schema (the schema's type map), plus ~80 B per named type for the copy of that
 *   map graphql-jit compiles against (`jit-compile.ts`).
 */
const TYPE_FIELD_BYTES = 380;
const TYPE_ROOT_FIELD_BYTES = 90;
const VIEW_ROOT_FIELD_BYTES = 180;
const VIEW_TYPE_BYTES = 256;
/**
 * What a version's types, or a view, weighs while it is being built (its real weight is known
 * once built): less than the smallest app's (a four-table app's types weigh ~100 KiB, a view
 * ~45 KiB), so a build in progress neither evicts more than it will need nor goes uncounted.
 */
const BUILDING_BYTES = 16 * 1024;

/** Types every schema holds, shared by all (`scalars.ts`): they weigh nothing per app. */
const SHARED_TYPES = new Set(SHARED_TYPE_NAMES);

/**
 * The estimated heap of a built, trimmed schema, in bytes (weights above): `view` for what its
 * audience's view holds on its own (root types, type map), `types` for its version's types (held
 * once for all its audiences; a view that shows more of them weighs them more). Linear in the
 * schema's fields and types; `bench/schema-build.js` prints it beside the measured heap.
 */
export function schemaBytes(schema: GraphQLSchema): { view: number; types: number } {
  const roots = new Set([
    schema.getQueryType(),
    schema.getMutationType(),
    schema.getSubscriptionType(),
  ]);
  let root = 0;
  let other = 0;
  let named = 0;
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    named++;
    if (SHARED_TYPES.has(type.name)) continue;
    if (!isObjectType(type) && !isInputObjectType(type)) continue;
    let n = 0;
    for (const field of Object.values(type.getFields())) {
      n += 1 + ('args' in field ? field.args.length : 0);
    }
    if (roots.has(type as never)) root += n;
    else other += n;
  }
  return {
    view: 1024 + root * VIEW_ROOT_FIELD_BYTES + named * VIEW_TYPE_BYTES,
    types: 1024 + other * TYPE_FIELD_BYTES + root * TYPE_ROOT_FIELD_BYTES,
  };
}

/** An audience's view in the cache: being built or built, and its weight once known. */
interface CachedView {
  value: Promise<ExecutableSchema>;
  bytes: number;
}

/**
 * A (version, revision) in the cache: its types, built once for every audience, and the views of
 * the audiences that asked for it. Weighed as one (types + every view): a view holds its types, so
 * evicting the types alone would free nothing while the view lived, and the next audience would
 * build a second copy of them.
 */
interface CachedVersion {
  types: Promise<VersionTypes>;
  /** {@link BUILDING_BYTES} until a view is built, then the largest of its views' estimates. */
  typeBytes: number;
  /** Whether a view has weighed the types yet. */
  weighed: boolean;
  views: Map<string, CachedView>;
}

/**
 * A cache slot. lru-cache weighs a value when it is set and a new value for its key (setting the
 * same object again keeps its old size), so a version is weighed again by setting it in a new slot.
 */
interface Slot {
  version: CachedVersion;
}

/** What a cached version weighs, in estimated bytes (at least 1: lru-cache refuses 0). */
function versionWeight({ version }: Slot): number {
  let bytes = version.typeBytes;
  for (const view of version.views.values()) bytes += view.bytes;
  return Math.max(1, bytes);
}

/**
 * The schema cache (request step 5) and the compiled-document cache (step 6). One schema per
 * (version id, revision, audience), built on first use and reused; the types of a (version,
 * revision) are built once for all its audiences, and each audience's schema only adds its root
 * types. The cache holds versions, each with its types and its audiences' views, weighed together
 * and bounded by estimated bytes (`SCHEMA_CACHE_BYTES`, see {@link schemaBytes}), so thousands of
 * small apps stay cached where a count would thrash, and what is evicted is freed (a version's
 * views go with its types). One app may cause at most `SCHEMA_BUILDS_PER_APP_PER_SECOND` builds
 * per second. A new revision is a new key, so changes show on the next request; `ModelChanged`
 * drops older revisions early. Compiled documents are kept per schema in one cache bounded by
 * bytes (`DOCUMENT_CACHE_BYTES`) and dropped with their schema.
 */
@Injectable()
export class SchemaProviderService implements OnModuleInit, OnModuleDestroy {
  private readonly documents: DocumentCache;
  private readonly logger = new Logger('SchemaProvider');
  /** Versions by `versionId:revision`, weighed by {@link versionWeight}. */
  private readonly cache: LRUCache<string, Slot>;
  /** Builds per app in the current second (`SCHEMA_BUILDS_PER_APP_PER_SECOND`). */
  private readonly builds = new LocalThrottlerStorage();
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
    this.cache = new LRUCache({
      maxSize: Math.max(1, config.limits.schemaCacheBytes),
      sizeCalculation: versionWeight,
      // Evicted or deleted; `set` is a version weighed again in a new slot (see weigh), kept.
      dispose: ({ version }, key, reason) => {
        if (reason === 'set') return;
        for (const audience of version.views.keys())
          this.documents.dropSchema(`${key}:${audience}`);
      },
    });
    this.unsubscribe = events.on('ModelChanged', ({ versionId, revision }) => {
      for (const key of [...this.cache.keys()]) {
        const [id, rev] = key.split(':');
        if (id === versionId && Number(rev) < revision) this.cache.delete(key);
      }
    });
    this.registerGauges();
  }

  /**
   * `tablegraph_schema_cache_entries` and `tablegraph_schema_cache_bytes`, labelled
   * `cache="views"` (audiences' schemas) and `cache="types"` (versions' shared types), read when
   * `/metrics` is scraped: how full the cache is against `SCHEMA_CACHE_BYTES` (bench/many-apps.js
   * reports them).
   */
  private registerGauges(): void {
    const read = () => this.schemasCached;
    new Gauge({
      name: 'tablegraph_schema_cache_entries',
      help: 'Schemas held in the schema cache: audience views and version type sets',
      labelNames: ['cache'] as const,
      registers: [this.metrics.registry],
      collect() {
        const now = read();
        this.set({ cache: 'views' }, now.schemas);
        this.set({ cache: 'types' }, now.types);
      },
    });
    new Gauge({
      name: 'tablegraph_schema_cache_bytes',
      help: 'Estimated heap bytes of the schema cache (SCHEMA_CACHE_BYTES bounds the sum)',
      labelNames: ['cache'] as const,
      registers: [this.metrics.registry],
      collect() {
        const now = read();
        this.set({ cache: 'views' }, now.bytes);
        this.set({ cache: 'types' }, now.typeBytes);
      },
    });
  }

  /** Compiled documents held in the cache, all schemas together. */
  get documentsCached(): number {
    return this.documents.size;
  }

  /**
   * What the cache holds: audiences' views (`schemas`) and their estimated bytes, versions' type
   * sets (`types`) and theirs; `bytes + typeBytes` is what `SCHEMA_CACHE_BYTES` bounds (the
   * metrics and the bench read them).
   */
  get schemasCached(): { schemas: number; bytes: number; types: number; typeBytes: number } {
    let schemas = 0;
    let bytes = 0;
    let typeBytes = 0;
    for (const { version } of this.cache.values()) {
      typeBytes += version.typeBytes;
      schemas += version.views.size;
      for (const view of version.views.values()) bytes += view.bytes;
    }
    return { schemas, bytes, types: this.cache.size, typeBytes };
  }

  /**
   * The executable schema of a version head for an audience. Single-flight: the first request
   * after a change starts the build and every concurrent one awaits that same promise, so a
   * burst builds a schema once per instance.
   * @throws DomainError TOO_MANY_REQUESTS (429, `retry-after`) when the app has caused
   *   `SCHEMA_BUILDS_PER_APP_PER_SECOND` builds this second; API_UNAVAILABLE when it does not build.
   */
  async get(head: VersionHead, audience: AudienceView): Promise<ExecutableSchema> {
    const versionKey = `${head.versionId}:${head.revision}`;
    const cached = this.cache.get(versionKey)?.version.views.get(audience.key);
    if (cached) {
      this.metrics.schemaHit();
      return cached.value;
    }
    await this.admitBuild(head.appId);
    // Another request may have started the same build while this one was counted.
    let entry = this.cache.get(versionKey)?.version;
    const started = entry?.views.get(audience.key);
    if (started) return started.value;
    if (!entry) entry = this.addVersion(head, versionKey);
    const view: CachedView = { value: this.build(head, audience, entry), bytes: BUILDING_BYTES };
    entry.views.set(audience.key, view);
    this.weigh(versionKey, entry);
    const version = entry;
    view.value.catch(() => {
      if (version.views.get(audience.key) !== view) return;
      version.views.delete(audience.key);
      this.weigh(versionKey, version);
    });
    return view.value;
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
    this.cache.clear();
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
   * Caches a version whose types are being built (weighed at {@link BUILDING_BYTES} until they
   * are); a failed build leaves the cache.
   */
  private addVersion(head: VersionHead, versionKey: string): CachedVersion {
    const types = Promise.all([
      this.versions.definition(head.versionId),
      this.datasources.capabilities(head.appId),
    ]).then(([def, capabilities]) => new VersionTypes(def, capabilities));
    const entry: CachedVersion = {
      types,
      typeBytes: BUILDING_BYTES,
      weighed: false,
      views: new Map(),
    };
    this.cache.set(versionKey, { version: entry });
    types.catch(() => {
      if (this.cache.peek(versionKey)?.version === entry) this.cache.delete(versionKey);
    });
    return entry;
  }

  /**
   * Weighs a cached version again after its types or a view changed weight: a new slot makes
   * lru-cache recompute its size and evict the least recently used versions beyond
   * `SCHEMA_CACHE_BYTES`. Does nothing when the key now holds another entry (evicted meanwhile).
   */
  private weigh(versionKey: string, entry: CachedVersion): void {
    if (this.cache.peek(versionKey)?.version === entry)
      this.cache.set(versionKey, { version: entry });
  }

  /**
   * Builds an audience's view over its version's types (awaiting them when another audience is
   * building them), validates it and weighs both once known.
   */
  private async build(
    head: VersionHead,
    audience: AudienceView,
    entry: CachedVersion,
  ): Promise<ExecutableSchema> {
    const key = `${head.versionId}:${head.revision}:${audience.key}`;
    try {
      const started = process.hrtime.bigint();
      const built = (await entry.types).schemaFor(audience);
      // Before it is weighed and cached: a third of a schema's heap is graphql-js's empty parts.
      trimSchema(built.schema);
      const errors = validateSchema(built.schema);
      if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
      // The types are weighed by the views built from them: a view showing more of them (a
      // builder's, with mutations' inputs) weighs them more.
      const bytes = schemaBytes(built.schema);
      entry.typeBytes = entry.weighed ? Math.max(entry.typeBytes, bytes.types) : bytes.types;
      entry.weighed = true;
      const view = entry.views.get(audience.key);
      if (view) view.bytes = bytes.view;
      this.weigh(`${head.versionId}:${head.revision}`, entry);
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
