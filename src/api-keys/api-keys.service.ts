import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
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
  expiresAt: string | null;
}

/** A key that authenticated: what the GraphQL endpoint needs to authorise and throttle. */
export interface KeyPrincipal {
  keyId: string;
  scope: ScopeEntry[];
  rateLimitPerMinute: number;
}

/** Characters of the key shown as its `prefix` (CONTRACT.md §5). */
export const KEY_PREFIX_LENGTH = 12;
/** `lastUsedAt` is written at most once a minute per key ("accurate to within a minute"). */
const LAST_USED_RESOLUTION_MS = 60_000;

/** SHA-256 of a key, hex: the only form a key is stored in. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const view = (k: ApiKeyEntity): ApiKeyView => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scope: JSON.parse(k.scope) as ScopeEntry[],
  status: k.status,
  lastUsedAt: k.lastUsedAt,
  rateLimitPerMinute: k.rateLimitPerMinute,
  expiresAt: k.expiresAt,
});

/**
 * Platform API keys (CONTRACT.md §5): `tgk_` + 32 random bytes (base64url), shown once, kept as
 * SHA-256 (a key has 256 bits of entropy, so a fast hash is the standard choice; a password
 * hash would only slow every request). Revocation is read from the store on every request, so it
 * takes effect on every instance at once.
 */
@Injectable()
export class ApiKeysService {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly apps: AppsService,
    private readonly events: EventsService,
  ) {}

  /**
   * Creates a key. @returns the view plus `key`, the only time it is shown.
   * @throws DomainError INVALID_INPUT (scope, past `expiresAt`), NOT_FOUND (an app of the scope).
   */
  async create(input: {
    name: string;
    scope: ScopeEntry[];
    rateLimitPerMinute?: number;
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
      expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      lastUsedAt: null,
      revokedAt: null,
      createdAt: new Date().toISOString(),
    });
    await this.keys.insert(entity);
    return { ...view(entity), key };
  }

  /** Every key, newest first. */
  async list(): Promise<ApiKeyView[]> {
    return (await this.keys.find({ order: { createdAt: 'DESC' } })).map(view);
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
    this.events.apiKeyRevoked({ keyId: id });
    return { status: 'revoked' };
  }

  /**
   * Authenticates a key sent in `x-api-key`.
   * @throws DomainError UNAUTHENTICATED with `Invalid API key`, `API key revoked` or `API key expired`.
   */
  async authenticate(key: string): Promise<KeyPrincipal> {
    const entity = await this.keys.findOneBy({ keyHash: hashKey(key) });
    if (!entity) throw ApiKeyErrors.invalid();
    if (entity.status === 'revoked') throw ApiKeyErrors.revoked();
    if (entity.expiresAt && new Date(entity.expiresAt).getTime() <= Date.now())
      throw ApiKeyErrors.expired();
    await this.touch(entity);
    return {
      keyId: entity.id,
      scope: JSON.parse(entity.scope) as ScopeEntry[],
      rateLimitPerMinute: entity.rateLimitPerMinute,
    };
  }

  /** Writes `lastUsedAt` when it is unset or older than a minute (one conditional UPDATE). */
  private async touch(entity: ApiKeyEntity): Promise<void> {
    const now = Date.now();
    if (entity.lastUsedAt && now - new Date(entity.lastUsedAt).getTime() < LAST_USED_RESOLUTION_MS)
      return;
    const stale = new Date(now - LAST_USED_RESOLUTION_MS).toISOString();
    await this.keys
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ lastUsedAt: new Date(now).toISOString() })
      .where('id = :id AND (last_used_at IS NULL OR last_used_at < :stale)', {
        id: entity.id,
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
