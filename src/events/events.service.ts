import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { RedisService } from '../redis/redis.service';

/** A version's definitions changed: schema cache entries of older revisions are stale. */
export interface ModelChanged {
  appId: string;
  versionId: string;
  revision: number;
}

/** An API key was revoked: callers using it must be refused from the next request. */
export interface ApiKeyRevoked {
  keyId: string;
}

/** An app's address or domain changed (or the app went): cached lookups of it are stale. */
export interface AppChanged {
  appId: string;
}

/** A datasource was deleted (alone or with its app): its pool is closed on every instance. */
export interface DatasourceRemoved {
  datasourceId: string;
}

/**
 * A platform account's sessions changed (signed out, token version raised, role, password or
 * disabled switch changed): cached session checks of it are stale.
 */
export interface AccountChanged {
  accountId: string;
}

/**
 * An app user's roles, attributes, password or disabled switch changed: what they may read is
 * different, so their open subscriptions are checked again at once.
 */
export interface AppUserChanged {
  appId: string;
  userId: string;
}

interface EventMap {
  ModelChanged: [ModelChanged];
  AppUserChanged: [AppUserChanged];
  ApiKeyRevoked: [ApiKeyRevoked];
  AppChanged: [AppChanged];
  DatasourceRemoved: [DatasourceRemoved];
  AccountChanged: [AccountChanged];
  /** Local only: caches must be emptied (events may have been missed while Redis was away). */
  CachesReset: [];
}

type Shared = Exclude<keyof EventMap, 'CachesReset'>;

/** The Redis channel every instance publishes and reads change events on. */
export const EVENTS_CHANNEL = 'tablegraph:events';

/**
 * Typed change events, on every instance (CONTRACT.md §7, DESIGN.md "State that crosses
 * instances"). In process always; with `REDIS_URL`, also published on a Redis channel that every
 * instance reads (the connections are {@link RedisService}'s).
 *
 * In-process caches (keys, version heads, app lookups) may be used only while
 * {@link cachesAreSafe} holds: with no Redis configured (one instance, in-process events
 * suffice), or while this instance's subscription is live. While Redis is away every request reads
 * the metadata store, so authentication and revocation never depend on Redis; when the
 * subscription comes back, `CachesReset` empties the caches before they are used again.
 */
@Injectable()
export class EventsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Events');
  private readonly bus = new EventEmitter<EventMap>();
  private readonly instance = randomUUID();
  private subscribed = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisService,
  ) {
    this.bus.setMaxListeners(50);
  }

  onModuleInit(): void {
    const subscriber = this.redis.subscriber;
    if (!subscriber) {
      this.logger.warn(
        'REDIS_URL is not set: change events, caches and rate limits stay in this process (run one instance only)',
      );
      return;
    }
    subscriber.on('error', () => (this.subscribed = false));
    subscriber.on('close', () => (this.subscribed = false));
    subscriber.on('ready', () => this.subscribe(subscriber));
    subscriber.on('message', (_channel: string, text: string) => this.receive(text));
    if (subscriber.status === 'ready') this.subscribe(subscriber);
  }

  onModuleDestroy(): void {
    this.subscribed = false;
  }

  /** Whether in-process caches may answer now (see the class notes). */
  cachesAreSafe(): boolean {
    return this.config.redisUrl === null || this.subscribed;
  }

  /** Whether this instance shares events through Redis right now (`/health`, metrics). */
  redisState(): 'ok' | 'down' | 'off' {
    if (!this.config.redisUrl) return 'off';
    return this.subscribed ? 'ok' : 'down';
  }

  private subscribe(subscriber: Redis): void {
    subscriber
      .subscribe(EVENTS_CHANNEL)
      .then(() => {
        // Events may have passed while the subscription was down: start from empty caches.
        this.bus.emit('CachesReset');
        this.subscribed = true;
      })
      .catch(() => (this.subscribed = false));
  }

  /** Publishes {@link ModelChanged}. */
  modelChanged(event: ModelChanged): void {
    void this.publish('ModelChanged', event);
  }

  /**
   * Publishes {@link ApiKeyRevoked}; resolves once Redis has taken the message for the other
   * instances (so they hold it before the revocation is answered).
   */
  apiKeyRevoked(event: ApiKeyRevoked): Promise<void> {
    return this.publish('ApiKeyRevoked', event);
  }

  /** Publishes {@link AppChanged}. */
  appChanged(event: AppChanged): void {
    void this.publish('AppChanged', event);
  }

  /** Publishes {@link DatasourceRemoved}. */
  datasourceRemoved(event: DatasourceRemoved): void {
    void this.publish('DatasourceRemoved', event);
  }

  /**
   * Publishes {@link AccountChanged}; resolves once Redis has taken the message for the other
   * instances (so they hold it before the change is answered).
   */
  accountChanged(event: AccountChanged): Promise<void> {
    return this.publish('AccountChanged', event);
  }

  /**
   * Publishes {@link AppUserChanged}; resolves once Redis has taken the message for the other
   * instances (so they hold it before the change is answered).
   */
  appUserChanged(event: AppUserChanged): Promise<void> {
    return this.publish('AppUserChanged', event);
  }

  /** Subscribes to one event type; returns the unsubscribe function. */
  on<K extends keyof EventMap>(type: K, listener: (...args: EventMap[K]) => void): () => void {
    this.bus.on(type, listener as never);
    return () => this.bus.off(type, listener as never);
  }

  private async publish<K extends Shared>(type: K, payload: EventMap[K][0]): Promise<void> {
    (this.bus.emit as (t: string, p: unknown) => boolean).call(this.bus, type, payload);
    const publisher = this.redis.commands;
    if (!publisher) return;
    const message = JSON.stringify({ from: this.instance, type, payload });
    // Best effort: an instance that misses it holds a stale entry at most for its caches' short
    // lifetime (the safety net); a Redis that is away also drops every subscription, and then
    // no instance trusts its caches until it resubscribes.
    await publisher.publish(EVENTS_CHANNEL, message).catch(() => undefined);
  }

  private receive(text: string): void {
    let message: { from?: string; type?: string; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (message.from === this.instance) return;
    if (
      message.type === 'ModelChanged' ||
      message.type === 'ApiKeyRevoked' ||
      message.type === 'AppChanged' ||
      message.type === 'DatasourceRemoved' ||
      message.type === 'AccountChanged' ||
      message.type === 'AppUserChanged'
    ) {
      this.bus.emit(message.type, message.payload as never);
    }
  }
}
