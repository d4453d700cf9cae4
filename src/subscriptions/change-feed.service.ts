import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Condition } from '../datasources/core/dialect';
import type { ModelTable, WebhookEvent } from '../platform/version-definition';
import { RedisService } from '../redis/redis.service';
import type { RowChange, WatchedTables } from '../webhooks/change-capture';
import { WebhooksService } from '../webhooks/webhooks.service';
import { admits } from './change-filter';
import { ChangeQueue } from './change-queue';
import type { ChangePayload } from './subscription-field';

/** Redis key prefix of everything subscriptions keep there. */
const PREFIX = 'tablegraph:subscriptions';
/** The channel an app's committed changes are published on. */
const changesChannel = (appId: string) => `${PREFIX}:changes:${appId}`;
/** Sorted set of the app's listened tables, scored by when the listening lapses (epoch ms). */
const tablesKey = (appId: string) => `${PREFIX}:tables:${appId}`;
/** Sorted set of a key's open subscriptions, scored by when each lapses (epoch ms). */
const keySubscriptionsKey = (keyId: string) => `${PREFIX}:key:${keyId}`;

/** How often this instance renews what it has open in Redis (milliseconds). */
const RENEW_MS = 10_000;
/** An entry not renewed for this long lapses (its instance stopped without removing it). */
const LAPSE_MS = 35_000;
/** Events that may wait for one subscriber before its subscription ends. */
export const QUEUE_CAPACITY = 1_000;
/** Changes per published message: a bulk write is published in parts of at most this many. */
const CHANGES_PER_MESSAGE = 200;

/**
 * Adds `member` to the sorted set `KEYS[1]` (score `ARGV[2]`, its lapse time) when fewer than
 * `ARGV[3]` members are live at `ARGV[1]` (lapsed ones are removed first); 1 when added, else 0.
 * One script, so two instances never both take the last place.
 */
const TAKE_PLACE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ${LAPSE_MS})
return 1`;

/** The value forms JSON lacks, tagged so a message decodes to the very values captured. */
function encode(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'bigint') return { $bigint: v.toString() };
    if (v instanceof Uint8Array) return { $bytes: Buffer.from(v).toString('base64') };
    return v;
  });
}

function decode(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (typeof o.$bigint === 'string' && Object.keys(o).length === 1) return BigInt(o.$bigint);
      if (typeof o.$bytes === 'string' && Object.keys(o).length === 1)
        return new Uint8Array(Buffer.from(o.$bytes, 'base64'));
    }
    return v;
  });
}

/** A key value JSON can carry (the `key` field is the JSON scalar). */
function plainKey(key: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(key).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]),
  );
}

/** One open subscription: what it listens to, its caller's rule and its `where`, its queue. */
export interface Subscriber {
  appId: string;
  /** The version the subscriber's schema came from: a change of it ends the subscription. */
  versionId: string;
  table: ModelTable;
  events: ReadonlySet<WebhookEvent>;
  /** The caller's row rule of `table` (CONTRACT.md §4), values as written. */
  rule: Condition;
  /** The subscription's `where`, values as sent. */
  where: Condition;
  queue: ChangeQueue<ChangePayload>;
}

/** What {@link ChangeFeedService.listen} gives back: to stop listening. */
export type Unlisten = () => void;

/**
 * The change feed of subscriptions (issue 28 item 2, README "Subscriptions"): fed by the same
 * change capture as webhooks (`WebhooksService.capture`, no polling), it tells the capture which
 * tables someone listens to on any instance (a Redis sorted set per app, renewed while open) and,
 * once a request committed, publishes its changes on the app's Redis channel; every instance with
 * subscribers of the app reads that channel and hands each change to each subscriber whose row
 * rule and `where` admit the row (the new row of an insert or update, the old row of a delete).
 * Without Redis (`REDIS_URL` unset, or Redis away) changes are delivered in this process only,
 * and this instance's own subscribers still receive its writes.
 */
@Injectable()
export class ChangeFeedService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Subscriptions');
  private readonly instance = randomUUID();
  /** Open subscribers by app. */
  private readonly byApp = new Map<string, Set<Subscriber>>();
  /** Places this instance holds in keys' sets: member → key id. */
  private readonly places = new Map<string, string>();
  /** Per key, places held when Redis was away (this instance's count only). */
  private readonly localPlaces = new Map<string, number>();
  private channel: Redis | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: RedisService,
    private readonly webhooks: WebhooksService,
  ) {}

  onModuleInit(): void {
    this.webhooks.useFeed({
      watchedTables: (appId) => this.watchedTables(appId),
      publish: (appId, changes) => this.publish(appId, changes),
    });
    if (this.redis.subscriber) {
      // Its own connection: a subscribed connection runs no other command, and the events
      // connection's messages are the EventsService's.
      const channel = this.redis.subscriber.duplicate();
      channel.on('error', () => undefined);
      channel.on('ready', () => {
        const channels = [...this.byApp.keys()].map(changesChannel);
        if (channels.length) channel.subscribe(...channels).catch(() => undefined);
      });
      channel.on('message', (name: string, text: string) => this.receive(name, text));
      this.channel = channel;
    }
    this.timer = setInterval(() => void this.renew(), RENEW_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    for (const subscribers of this.byApp.values())
      for (const s of [...subscribers]) s.queue.end(new Error('The service is stopping'));
    this.channel?.disconnect();
  }

  /** Subscribers open on this instance (metrics, tests). */
  openHere(): number {
    let n = 0;
    for (const set of this.byApp.values()) n += set.size;
    return n;
  }

  // ------------------------------------------------------------------ places per key

  /**
   * Takes one of a key's (or an app user's: `user:<id>`) `limit` places for an open subscription
   * (README "Subscriptions": open subscriptions count against the key's limits), across instances
   * through Redis; this instance's count alone while Redis is away.
   * @returns the place's id to {@link release}, or null when all `limit` places are taken.
   */
  async takePlace(keyId: string, limit: number): Promise<string | null> {
    const member = `${this.instance}:${randomUUID()}`;
    const commands = this.redis.state() === 'ok' ? this.redis.commands : null;
    if (commands) {
      try {
        const now = Date.now();
        const taken = await commands.eval(
          TAKE_PLACE,
          1,
          keySubscriptionsKey(keyId),
          now,
          now + LAPSE_MS,
          limit,
          member,
        );
        if (taken !== 1) return null;
        this.places.set(member, keyId);
        return member;
      } catch {
        // Redis went away: count in this process.
      }
    }
    const held = this.localPlaces.get(keyId) ?? 0;
    if (held >= limit) return null;
    this.localPlaces.set(keyId, held + 1);
    this.places.set(member, `local:${keyId}`);
    return member;
  }

  /** Gives back a place {@link takePlace} gave (once; later calls do nothing). */
  release(member: string): void {
    const owner = this.places.get(member);
    if (owner === undefined) return;
    this.places.delete(member);
    if (owner.startsWith('local:')) {
      const keyId = owner.slice('local:'.length);
      const held = (this.localPlaces.get(keyId) ?? 1) - 1;
      if (held > 0) this.localPlaces.set(keyId, held);
      else this.localPlaces.delete(keyId);
      return;
    }
    this.redis.commands?.zrem(keySubscriptionsKey(owner), member).catch(() => undefined);
  }

  // ------------------------------------------------------------------ subscribers

  /**
   * Starts delivering `subscriber`'s changes: registers its table as listened to (in Redis
   * before this resolves, so a write committed after the subscription is acknowledged on any
   * instance is captured) and reads the app's channel.
   * @returns what stops it (idempotent), called when its queue ends.
   */
  async listen(subscriber: Subscriber): Promise<Unlisten> {
    let set = this.byApp.get(subscriber.appId);
    if (!set) {
      set = new Set();
      this.byApp.set(subscriber.appId, set);
      if (this.channel)
        await this.channel.subscribe(changesChannel(subscriber.appId)).catch(() => undefined);
    }
    set.add(subscriber);
    await this.announce(subscriber.appId, [subscriber.table.name]);
    return () => {
      const subscribers = this.byApp.get(subscriber.appId);
      if (!subscribers?.delete(subscriber) || subscribers.size) return;
      this.byApp.delete(subscriber.appId);
      this.channel?.unsubscribe(changesChannel(subscriber.appId)).catch(() => undefined);
    };
  }

  /** Ends the subscriptions of a version whose definition changed (rules, APIs). */
  versionChanged(versionId: string): void {
    for (const subscribers of this.byApp.values())
      for (const s of [...subscribers])
        if (s.versionId === versionId)
          s.queue.end(new Error("The app's definition changed: subscribe again"));
  }

  /** Records in Redis that this instance listens to `tables` of `appId` (best effort). */
  private async announce(appId: string, tables: readonly string[]): Promise<void> {
    const commands = this.redis.state() === 'ok' ? this.redis.commands : null;
    if (!commands || tables.length === 0) return;
    const lapse = Date.now() + LAPSE_MS;
    try {
      await commands.zadd(tablesKey(appId), ...tables.flatMap((t) => [lapse, t]));
      await commands.pexpire(tablesKey(appId), LAPSE_MS);
    } catch {
      // Redis away: this instance's own writes still reach its subscribers.
    }
  }

  /** Renews this instance's listened tables and places (every {@link RENEW_MS}). */
  private async renew(): Promise<void> {
    for (const [appId, subscribers] of this.byApp)
      await this.announce(appId, [...new Set([...subscribers].map((s) => s.table.name))]);
    const commands = this.redis.state() === 'ok' ? this.redis.commands : null;
    if (!commands) return;
    const lapse = Date.now() + LAPSE_MS;
    for (const [member, keyId] of this.places) {
      if (keyId.startsWith('local:')) continue;
      await commands.zadd(keySubscriptionsKey(keyId), lapse, member).catch(() => undefined);
    }
  }

  // ------------------------------------------------------------------ the capture's side

  /**
   * Which tables of `appId` a subscriber listens to, here or (through Redis) on any instance:
   * asked once per mutation request that writes, before its first write reads rows.
   */
  async watchedTables(appId: string): Promise<WatchedTables> {
    const tables = new Set([...(this.byApp.get(appId) ?? [])].map((s) => s.table.name));
    const commands = this.redis.state() === 'ok' ? this.redis.commands : null;
    if (commands) {
      try {
        for (const t of await commands.zrangebyscore(tablesKey(appId), Date.now(), '+inf'))
          tables.add(t);
      } catch {
        // Redis away: only this instance's subscribers are known.
      }
    }
    return (table) => tables.has(table);
  }

  /**
   * Hands a committed request's changes on: published on the app's channel (every instance
   * delivers to its own subscribers, this one included), or delivered here when Redis is off or
   * the publish failed. Never throws.
   */
  async publish(appId: string, changes: readonly RowChange[]): Promise<void> {
    if (changes.length === 0) return;
    const commands = this.redis.state() === 'ok' ? this.redis.commands : null;
    for (let i = 0; i < changes.length; i += CHANGES_PER_MESSAGE) {
      const part = changes.slice(i, i + CHANGES_PER_MESSAGE);
      if (commands) {
        try {
          await commands.publish(changesChannel(appId), encode(part));
          continue;
        } catch {
          this.logger.warn(`Publishing changes of app ${appId} failed: delivered here only`);
        }
      }
      this.deliver(appId, part);
    }
  }

  private receive(channel: string, text: string): void {
    const prefix = changesChannel('');
    if (!channel.startsWith(prefix)) return;
    let changes: RowChange[];
    try {
      changes = decode(text) as RowChange[];
      if (!Array.isArray(changes)) return;
    } catch {
      return;
    }
    this.deliver(channel.slice(prefix.length), changes);
  }

  /** Each change to each subscriber of the app that may see it ({@link visible}). */
  private deliver(appId: string, changes: readonly RowChange[]): void {
    const subscribers = this.byApp.get(appId);
    if (!subscribers) return;
    for (const change of changes)
      for (const s of subscribers) if (visible(s, change)) s.queue.push(payloadOf(s, change));
  }
}

/**
 * Whether `subscriber` receives `change`: its table and event, then its row rule and its `where`
 * on the new row for inserts and updates and on the old row for deletes (README "Subscriptions").
 * A change without that row, or a condition that cannot be decided here, is not sent (fails
 * closed).
 */
export function visible(subscriber: Subscriber, change: RowChange): boolean {
  if (change.table !== subscriber.table.name || !subscriber.events.has(change.event)) return false;
  const row = change.event === 'deleted' ? change.old : change.new;
  if (!row) return false;
  try {
    return (
      admits(subscriber.rule, subscriber.table, row) &&
      admits(subscriber.where, subscriber.table, row)
    );
  } catch {
    return false;
  }
}

/**
 * The event as `subscriber` receives it: an update's old row only when its rule admitted that row
 * too (a row moved into the caller's rows does not show what it held before).
 */
function payloadOf(subscriber: Subscriber, change: RowChange): ChangePayload {
  let old = change.old;
  if (change.event === 'updated' && old) {
    try {
      if (!admits(subscriber.rule, subscriber.table, old)) old = null;
    } catch {
      old = null;
    }
  }
  return { event: change.event, key: plainKey(change.key), old, new: change.new };
}
