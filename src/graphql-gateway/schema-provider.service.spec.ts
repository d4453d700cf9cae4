import type { AppConfig } from '../config/app-config';
import type { DatasourcesService } from '../data-model/datasources.service';
import type { ColumnKind, ModelColumn } from '../datasources/core/dialect';
import type { EventsService } from '../events/events.service';
import { MetricsService } from '../metrics/metrics.service';
import type {
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
  VersionHead,
} from '../platform/version-definition';
import type { VersionsService } from '../platform/versions.service';
import type { RedisService } from '../redis/redis.service';
import { BUILDER, PUBLISHED } from './request/audience';
import { SchemaProviderService } from './schema-provider.service';
import { modelColumn } from '../../test/support/model-column';

/**
 * Issue 25 item 4: the schema cache is bounded by estimated bytes, a version's types are built
 * once for all its audiences, and a version is weighed and evicted with its views (a view holds
 * its types: evicting the types alone freed nothing and made the next audience build them again).
 * The definitions are real (the schemas are built and validated); only the stores that hand them
 * over are stand-ins, since no database is involved in building a schema.
 */

const col = (name: string, kind: ColumnKind, extra: Partial<ModelColumn> = {}) =>
  modelColumn(name, kind, extra);

/** A definition of `n` tables, each with one published, select-only Table API. */
function definition(n: number): VersionDefinition {
  const tables: ModelTable[] = Array.from({ length: n }, (_, i) => ({
    name: `t${i}`,
    dbName: `t${i}`,
    schema: null,
    datasourceId: 'ds1',
    active: true,
    columns: [
      col('id', 'int', { nullable: false }),
      col('name', 'text', { nullable: false }),
      col('amount', 'decimal'),
    ],
    primaryKey: ['id'],
    foreignKeys: [],
  }));
  const none = { select: false, insert: false, update: false, delete: false };
  const apis: TableApiDefinition[] = tables.map((t) => ({
    id: `api-${t.name}`,
    name: t.name,
    table: t.name,
    actions: { ...none, select: true },
    public: none,
    fields: null,
    status: 'published',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  }));
  return { tables, enums: [], apis, permissions: {} };
}

/** The service over in-memory versions; `reads` counts definition reads (one per types build). */
function provider(schemaCacheBytes: number) {
  const reads: string[] = [];
  const listeners: ((e: { versionId: string; revision: number }) => void)[] = [];
  const versions = {
    definition: (versionId: string) => {
      reads.push(versionId);
      return Promise.resolve(definition(5));
    },
    setProver: () => undefined,
  } as unknown as VersionsService;
  const datasources = {
    capabilities: () => Promise.resolve(new Map()),
  } as unknown as DatasourcesService;
  const events = {
    on: (_name: string, fn: (e: { versionId: string; revision: number }) => void) => {
      listeners.push(fn);
      return () => undefined;
    },
  } as unknown as EventsService;
  const metrics = new MetricsService({ state: () => 'none' } as unknown as RedisService);
  const config = {
    limits: {
      documentCacheBytes: 1024 * 1024,
      schemaCacheBytes,
      schemaBuildsPerAppPerSecond: 1000,
    },
  } as unknown as AppConfig;
  const service = new SchemaProviderService(versions, datasources, events, metrics, config);
  const modelChanged = (versionId: string, revision: number) =>
    listeners.forEach((fn) => fn({ versionId, revision }));
  return { service, reads, metrics, modelChanged };
}

const head = (versionId: string, revision = 1): VersionHead => ({
  appId: `app-${versionId}`,
  versionId,
  revision,
});

/**
 * The estimated bytes of one cached version of {@link definition}(5) with its published view
 * (`one`), and of that view alone (`view`).
 */
async function oneVersionBytes(): Promise<{ one: number; view: number }> {
  const { service } = provider(1024 * 1024 * 1024);
  await service.get(head('probe'), PUBLISHED);
  const { bytes, typeBytes } = service.schemasCached;
  service.onModuleDestroy();
  return { one: bytes + typeBytes, view: bytes };
}

describe('SchemaProviderService cache', () => {
  it('builds a version once for all its audiences and weighs its types and views together', async () => {
    const { service, reads } = provider(1024 * 1024 * 1024);
    const published = await service.get(head('v1'), PUBLISHED);
    const builder = await service.get(head('v1'), BUILDER);
    expect(published.schema.getQueryType()?.getFields()).toHaveProperty('getT0');
    expect(builder.key).toBe('v1:1:builder');
    // One definition read, one VersionTypes: both views share its row types.
    expect(reads).toEqual(['v1']);
    expect(builder.schema.getType('T0')).toBe(published.schema.getType('T0'));
    const cached = service.schemasCached;
    expect(cached).toMatchObject({ schemas: 2, types: 1 });
    expect(cached.bytes).toBeGreaterThan(0);
    expect(cached.typeBytes).toBeGreaterThan(cached.bytes / 2);
    // A cached view is served without a build.
    expect(await service.get(head('v1'), PUBLISHED)).toBe(published);
    expect(service.schemasBuilt).toBe(2);
  });

  it('keeps within SCHEMA_CACHE_BYTES by evicting the least recently used versions with their views', async () => {
    const { one } = await oneVersionBytes();
    // Room for two versions of this size, not three.
    const budget = Math.floor(one * 2.5);
    const { service, reads } = provider(budget);
    for (const v of ['v1', 'v2', 'v3']) await service.get(head(v), PUBLISHED);
    const cached = service.schemasCached;
    expect(cached).toMatchObject({ schemas: 2, types: 2 });
    expect(cached.bytes + cached.typeBytes).toBeLessThanOrEqual(budget);
    // v2 and v3 stayed: no build; v1 was evicted whole (types and view): built again.
    const built = service.schemasBuilt;
    await service.get(head('v3'), PUBLISHED);
    await service.get(head('v2'), PUBLISHED);
    expect(service.schemasBuilt).toBe(built);
    await service.get(head('v1'), PUBLISHED);
    expect(service.schemasBuilt).toBe(built + 1);
    expect(reads).toEqual(['v1', 'v2', 'v3', 'v1']);
    // Bringing v1 back evicted the least recently used one, v3.
    expect(service.schemasCached.types).toBe(2);
    await service.get(head('v2'), PUBLISHED);
    expect(service.schemasBuilt).toBe(built + 1);
    await service.get(head('v3'), PUBLISHED);
    expect(service.schemasBuilt).toBe(built + 2);
  });

  it('counts a second audience against the budget, evicting other versions rather than keeping a view without its types', async () => {
    const { one, view } = await oneVersionBytes();
    // Room for two versions with one view each, not for a third view.
    const { service, reads } = provider(2 * one + Math.floor(view / 2));
    await service.get(head('v1'), PUBLISHED);
    await service.get(head('v2'), PUBLISHED);
    expect(service.schemasCached.types).toBe(2);
    // v2's builder view grows v2 past the room left: v1 goes, v2 keeps both views on one build.
    await service.get(head('v2'), BUILDER);
    expect(service.schemasCached).toMatchObject({ schemas: 2, types: 1 });
    expect(reads).toEqual(['v1', 'v2']);
  });

  it('drops older revisions of a version when its model changes, and reports the cache on /metrics', async () => {
    const { service, modelChanged, metrics } = provider(1024 * 1024 * 1024);
    await service.get(head('v1', 1), PUBLISHED);
    await service.get(head('v2', 1), PUBLISHED);
    modelChanged('v1', 2);
    expect(service.schemasCached).toMatchObject({ schemas: 1, types: 1 });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^tablegraph_schema_cache_entries\{cache="views"\} 1$/m);
    expect(text).toMatch(/^tablegraph_schema_cache_entries\{cache="types"\} 1$/m);
    const { bytes } = service.schemasCached;
    expect(text).toContain(`tablegraph_schema_cache_bytes{cache="views"} ${bytes}`);
  });
});
