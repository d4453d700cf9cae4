import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis, { RedisOptions } from 'ioredis';
import type { AppConfig } from '../config/app-config';
import { settlesWithin } from '../common/settles-within';
import { APP_CONFIG } from '../config/config.module';

/** Whether this instance shares state through Redis right now: `off` when no `REDIS_URL` is set. */
export type RedisState = 'ok' | 'down' | 'off';

/**
 * Milliseconds a command (a rate-limit count, a publish, `PING`) waits for Redis's answer. A Redis
 * that accepts connections but stops answering (stopped, overloaded, a network that drops
 * packets) leaves the connection `ready` and its commands pending for ever (ioredis #634): past
 * this the command fails, and the command connection is dropped and remade, so the outage is
 * taken exactly as a refused connection is.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * The one owner of this instance's Redis connections (CONTRACT.md §1 `REDIS_URL`; DESIGN.md
 * "State that crosses instances"): `commands` for rate-limit counters, event publishing and the
 * health probe, `subscriber` for the change-event channel (a subscribed connection can run no
 * other command). Both reconnect on their own; commands never queue while Redis is away (they
 * fail at once, so callers fall back to per-instance state instead of waiting). A command
 * connection whose Redis stops answering counts as away after {@link REDIS_COMMAND_TIMEOUT_MS}:
 * its commands fail and the connection is destroyed and remade, so `state()` says `down` until
 * Redis answers again. An outage is logged once, and its end once.
 */
@Injectable()
export class RedisService implements OnModuleDestroy {
  private readonly logger = new Logger('Redis');
  /** Counters, publishing, `PING`; null without `REDIS_URL`. */
  readonly commands: Redis | null;
  /** The change-event subscription; null without `REDIS_URL`. */
  readonly subscriber: Redis | null;
  private outage = false;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (!config.redisUrl) {
      this.commands = null;
      this.subscriber = null;
      return;
    }
    const options: RedisOptions = {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2_000,
      // Keep trying while Redis is away, at most every 2 s.
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    };
    // Commands issued in one event-loop turn (the rate-limit counts of concurrent requests) go out
    // in one write: profiled, a write per command cost ~5% of a plain query's CPU (issue 8).
    this.commands = new Redis(config.redisUrl, {
      ...options,
      enableAutoPipelining: true,
      // ioredis #634: without these a Redis that stops answering keeps every command pending and
      // the connection `ready`. `commandTimeout` fails each command; `socketTimeout` destroys the
      // connection when no byte came back within the same time while commands wait, which emits
      // `error` and `close` below and reconnects, as when Redis refuses connections.
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      socketTimeout: REDIS_COMMAND_TIMEOUT_MS,
      // Callers were answered when their command failed (a count was taken here instead): never
      // send it again on the next connection.
      autoResendUnfulfilledCommands: false,
    });
    // The subscriber queues its SUBSCRIBE until connected; EventsService resubscribes on `ready`.
    this.subscriber = new Redis(config.redisUrl, { ...options, enableOfflineQueue: true });
    for (const connection of [this.commands, this.subscriber]) {
      // Errors are states, not crashes: an unhandled `error` event would end the process.
      connection.on('error', () => this.lost());
      connection.on('close', () => this.lost());
    }
    this.commands.on('ready', () => {
      if (this.outage) this.logger.log('Redis is reachable again: state is shared again');
      this.outage = false;
    });
  }

  /** `ok` while the command connection is ready, `down` while it is not, `off` without Redis. */
  state(): RedisState {
    if (!this.commands) return 'off';
    return this.commands.status === 'ready' ? 'ok' : 'down';
  }

  /**
   * Pings Redis within `timeoutMs` (milliseconds).
   * @returns false when Redis is off, away or slower than the timeout (never throws).
   */
  async ping(timeoutMs = 2_000): Promise<boolean> {
    return this.commands ? settlesWithin(this.commands.ping(), timeoutMs) : false;
  }

  /** Closes both connections, without waiting for commands in flight (and logs no outage). */
  onModuleDestroy(): void {
    this.outage = true;
    this.commands?.disconnect();
    this.subscriber?.disconnect();
  }

  /** Logs the start of an outage once (an `error` or `close` of either connection). */
  private lost(): void {
    if (this.outage || !this.commands) return;
    this.outage = true;
    this.logger.warn(
      'Redis is unreachable: rate limits count per instance and in-process caches are bypassed until it returns',
    );
  }
}
