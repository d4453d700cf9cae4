import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { InjectRepository } from '@nestjs/typeorm';
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { invalidInput, notFound } from '../common/domain-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { EventsService } from '../events/events.service';
import { AppsService } from '../platform/apps.service';
import { ApiKeyErrors } from './api-keys.errors';
import { ApiKeyEntity } from './entities/api-key.entity';

/** One app a key may reach, and which of its Table APIs. */
export interface ScopeEntry {
  appId: string;
  endpoints: 'all' | string[];
}

/** A key as the admin REST lists it: never the key, never its hash (CONTRACT.md §5). */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scope: ScopeEntry[];
  status: 'active' | 'revoked';
  lastUsedAt: string | null;
  rateLimitPerMinute: number;
  /** Whether MCP's `delete_row` may be called with the key (README "Agents (MCP)"). */
  mcpDeletes: boolean;
  /** Cost points per minute (README "Cost budgets"). */
  pointsPerMinute: number;
  expiresAt: string | null;
}

/** A key that authenticated: what the GraphQL endpoint needs to authorise and throttle. */
export interface KeyPrincipal {
  keyId: string;
  scope: ScopeEntry[];
  rateLimitPerMinute: number;
  /** The key's `mcpDeletes` switch: MCP's `delete_row` is refused without it. */
  mcpDeletes?: boolean;
  /** Cost points the key may spend per minute (README "Cost budgets"). */
  pointsPerMinute: number;
}

/** Characters of the key shown as its `prefix` (CONTRACT.md §5). */
export const KEY_PREFIX_LENGTH = 12;
/** `lastUsedAt` is written at most once a minute per key ("accurate to within a minute"). */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Keys remembered in process at most (each entry a few hundred bytes). */
export const KEY_CACHE_ENTRIES = 10_000;
/** How long a remembered key is trusted without a read, in ms: the safety net behind the events. */
export const KEY_CACHE_TTL_MS = 5_000;

/** What a key lookup found, as remembered. */
type CachedKey =
  | 'unknown'
  | {
      keyId: string;
      status: 'active' | 'revoked';
      expiresAt: number | null;
      scope: ScopeEntry[];
      rateLimitPerMinute: number;
      pointsPerMinute: number;
      mcpDeletes: boolean;
    };

/**
 * SHA-256 of a key, hex: the only form a key is stored in. Node's one-shot `crypto.hash` (Node
 * 20.12+): about half the cost of a `Hash` object, on every keyed request.
 */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A key as listed; `defaultPoints` stands for a budget the key was made without (before budgets). */
const view = (k: ApiKeyEntity, defaultPoints: number): ApiKeyView => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scope: JSON.parse(k.scope) as ScopeEntry[],
  status: k.status,
  lastUsedAt: k.lastUsedAt,
  rateLimitPerMinute: k.rateLimitPerMinute,
  // SQLite may hand a boolean column back as 0/1.
  mcpDeletes: Boolean(k.mcpDeletes),
  pointsPerMinute: k.pointsPerMinute ?? defaultPoints,
  expiresAt: k.expiresAt,
});

/**
 * Platform API keys (CONTRACT.md §5): `tgk_` + 32 random bytes (base64url), shown once, kept as
 * SHA-256 (a key has 256 bits of entropy, so a fast hash is the standard choice; a password
 * hash would only slow every request). Lookups are cached in process and dropped by
 * `ApiKeyRevoked` on every instance (through Redis), so a revocation takes effect on the very next
 * request everywhere; while Redis is away the cache is bypassed.
 */
@Injectable()
export class ApiKeysService implements OnApplicationShutdown {
  /**
   * Key lookups by hash (the key's state, or `unknown`), bounded: {@link KEY_CACHE_ENTRIES}
   * entries, each trusted {@link KEY_CACHE_TTL_MS} at most; dropped by `ApiKeyRevoked` on every
   * instance and used only while `EventsService.cachesAreSafe()`.
   */
  private readonly cache = new LRUCache<string, CachedKey>({
    max: KEY_CACHE_ENTRIES,
    ttl: KEY_CACHE_TTL_MS,
  });
  /** When this instance last noted each key's use (for `lastUsedAt`), bounded like the cache. */
  private readonly lastNoted = new LRUCache<string, number>({ max: KEY_CACHE_ENTRIES });
  private readonly pendingWrites = new Set<Promise<unknown>>();
  /** Raised by every invalidation: a store read that started before one is not cached. */
  private generation = 0;
  private readonly unsubscribe: (() => void)[];

  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly apps: AppsService,
    private readonly events: EventsService,
  ) {
    this.unsubscribe = [
      events.on('ApiKeyRevoked', ({ keyId }) => {
        this.generation++;
        for (const [hash, known] of this.cache.entries()) {
          if (known !== 'unknown' && known.keyId === keyId) this.cache.delete(hash);
        }
      }),
      events.on('CachesReset', () => {
        this.generation++;
        this.cache.clear();
      }),
    ];
  }

  /**
   * Creates a key. @returns the view plus `key`, the only time it is shown.
   * @throws DomainError INVALID_INPUT (scope, past `expiresAt`), NOT_FOUND (an app of the scope).
   */
  async create(input: {
    name: string;
    scope: ScopeEntry[];
    rateLimitPerMinute?: number;
    pointsPerMinute?: number;
    mcpDeletes?: boolean;
    expiresAt?: string;
  }): Promise<ApiKeyView & { key: string }> {
    const problems: string[] = [];
    input.scope.forEach((s, i) => {
      const ok =
        s.endpoints === 'all' ||
        (Array.isArray(s.endpoints) && s.endpoints.every((e) => typeof e === 'string'));
      if (!ok) problems.push(`scope.${i}.endpoints must be "all" or a list of API ids`);
    });
    if (input.expiresAt && !(new Date(input.expiresAt).getTime() > Date.now()))
      problems.push('expiresAt must be in the future');
    if (problems.length) throw invalidInput('Invalid API key request', problems);
    for (const s of input.scope) await this.apps.get(s.appId);
    const key = `tgk_${randomBytes(32).toString('base64url')}`;
    const entity = this.keys.create({
      id: randomUUID(),
      name: input.name,
      prefix: key.slice(0, KEY_PREFIX_LENGTH),
      keyHash: hashKey(key),
      scope: JSON.stringify(input.scope.map((s) => ({ appId: s.appId, endpoints: s.endpoints }))),
      status: 'active',
      rateLimitPerMinute: input.rateLimitPerMinute ?? this.config.apiKeyRateLimitPerMinute,
      pointsPerMinute: input.pointsPerMinute ?? this.config.apiKeyPointsPerMinute,
      mcpDeletes: input.mcpDeletes === true,
      expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      lastUsedAt: null,
      revokedAt: null,
      createdAt: new Date().toISOString(),
    });
    await this.keys.insert(entity);
    return { ...view(entity, this.config.apiKeyPointsPerMinute), key };
  }

  /** Every key, newest first. */
  async list(): Promise<ApiKeyView[]> {
    const defaultPoints = this.config.apiKeyPointsPerMinute;
    return (await this.keys.find({ order: { createdAt: 'DESC' } })).map((k) =>
      view(k, defaultPoints),
    );
  }

  /** Revokes a key for good. @throws DomainError NOT_FOUND, CONFLICT (already revoked). */
  async revoke(id: string): Promise<{ status: 'revoked' }> {
    const res = await this.keys.update(
      { id, status: 'active' },
      { status: 'revoked', revokedAt: new Date().toISOString() },
    );
    if (res.affected !== 1) {
      if (!(await this.keys.existsBy({ id }))) throw notFound('API key', id);
      throw ApiKeyErrors.alreadyRevoked();
    }
    await this.events.apiKeyRevoked({ keyId: id });
    return { status: 'revoked' };
  }

  /**
   * Authenticates a key sent in `x-api-key`.
   * @throws DomainError UNAUTHENTICATED with `Invalid API key`, `API key revoked` or `API key expired`.
   */
  async authenticate(key: string): Promise<KeyPrincipal> {
    const hash = hashKey(key);
    let known = this.events.cachesAreSafe() ? this.cache.get(hash) : undefined;
    if (!known) {
      this.keyReads++;
      // A read that overlaps a revocation is used but not remembered: it may predate the event.
      const generation = this.generation;
      const entity = await this.keys.findOneBy({ keyHash: hash });
      known = entity
        ? {
            keyId: entity.id,
            status: entity.status,
            expiresAt: entity.expiresAt ? new Date(entity.expiresAt).getTime() : null,
            scope: JSON.parse(entity.scope) as ScopeEntry[],
            rateLimitPerMinute: entity.rateLimitPerMinute,
            pointsPerMinute: entity.pointsPerMinute ?? this.config.apiKeyPointsPerMinute,
            mcpDeletes: Boolean(entity.mcpDeletes),
          }
        : 'unknown';
      if (this.events.cachesAreSafe() && generation === this.generation)
        this.cache.set(hash, known);
    }
    if (known === 'unknown') throw ApiKeyErrors.invalid();
    if (known.status === 'revoked') throw ApiKeyErrors.revoked();
    if (known.expiresAt !== null && known.expiresAt <= Date.now()) throw ApiKeyErrors.expired();
    this.noteUse(known.keyId);
    return {
      keyId: known.keyId,
      scope: known.scope,
      rateLimitPerMinute: known.rateLimitPerMinute,
      pointsPerMinute: known.pointsPerMinute,
      mcpDeletes: known.mcpDeletes,
    };
  }

  /** Key lookups that read the metadata store since start (the e2e suites read it). */
  keyReads = 0;

  /**
   * Notes a use of a key: `lastUsedAt` is written at most once a minute per key and instance,
   * off the request path (not awaited; a failed write never fails a request). CONTRACT.md §5:
   * accurate to within a minute.
   */
  private noteUse(keyId: string): void {
    const now = Date.now();
    const last = this.lastNoted.get(keyId);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastNoted.set(keyId, now);
    const write = this.touch(keyId, now).catch(() => undefined);
    this.pendingWrites.add(write);
    void write.finally(() => this.pendingWrites.delete(write));
  }

  /** Waits for `lastUsedAt` writes still on their way (shutdown). */
  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe.forEach((u) => u());
    await Promise.all([...this.pendingWrites]);
  }

  /** Writes `lastUsedAt` when it is unset or older than a minute (one conditional UPDATE). */
  private async touch(keyId: string, now: number): Promise<void> {
    const stale = new Date(now - LAST_USED_RESOLUTION_MS).toISOString();
    await this.keys
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ lastUsedAt: new Date(now).toISOString() })
      .where('id = :id AND (last_used_at IS NULL OR last_used_at < :stale)', {
        id: keyId,
        stale,
      })
      .execute();
  }
}

/** The scope entry of `appId`, or null when the key may not reach that app. */
export function scopeForApp(principal: KeyPrincipal, appId: string): ScopeEntry | null {
  return principal.scope.find((s) => s.appId === appId) ?? null;
}

/** Whether a scope entry covers a Table API. */
export function scopeCoversApi(entry: ScopeEntry, apiId: string): boolean {
  return entry.endpoints === 'all' || entry.endpoints.includes(apiId);
}
