import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { InjectRepository } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { EventsService } from '../events/events.service';
import { AccountEntity } from './entities/account.entity';

/** What a platform session token proves, checked against its account on every request. */
export interface PlatformSession {
  accountId: string;
  role: 'admin' | 'builder';
  /** This session's id (the token's `sid`): signing out ends this session alone. */
  sessionId: string;
  /** When the token expires anyway, epoch seconds. */
  expiresAt: number;
}

/** An account as a session is issued for it: the token version read with its password hash. */
export interface SessionSubject {
  id: string;
  role: 'admin' | 'builder';
  tokenVersion: number;
}

/** One session ended at sign-out, as kept in `account.ended_sessions`. */
export interface EndedSession {
  sid: string;
  /** When its token expires anyway, epoch seconds: the entry is useless after. */
  exp: number;
}

/** Name of the HttpOnly session cookie set at login. */
export const SESSION_COOKIE = 'tg_session';
/** Session lifetime: 12 hours, in seconds. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
/** Accounts whose session state one process remembers at most. */
export const SESSION_STATE_ENTRIES = 10_000;
/** How long a remembered session state is trusted without a read, in ms: the safety net behind the events. */
export const SESSION_STATE_TTL_MS = 5_000;

/** What a token must match in its account, as read from the metadata store. */
interface AccountState {
  role: 'admin' | 'builder';
  disabled: boolean;
  tokenVersion: number;
  /** Ids of sessions ended at sign-out whose tokens have not expired yet. */
  ended: Set<string>;
}

/** The claims of a platform session token. */
interface SessionClaims {
  sub: string;
  role: string;
  typ: string;
  ver: unknown;
  sid: unknown;
  exp: number;
}

/** The sessions of `account.ended_sessions` whose tokens have not expired at `now` (epoch seconds). */
export function liveEndedSessions(text: string, now: number): EndedSession[] {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (e): e is EndedSession =>
        typeof e === 'object' &&
        e !== null &&
        typeof (e as EndedSession).sid === 'string' &&
        typeof (e as EndedSession).exp === 'number' &&
        (e as EndedSession).exp > now,
    );
  } catch {
    return [];
  }
}

/**
 * Platform session tokens: HS256 JWTs (`@nestjs/jwt`) signed with `PLATFORM_SECRET`, with
 * `typ: "platform"` so an app user's token (another `typ`) is never taken for a builder's. Each
 * carries its account's token version (`ver`) and its own id (`sid`), and is valid only while its
 * account exists, is not disabled, has the same token version and role, and has not ended that
 * session (issue 22, item 6). Raising the version ends every session of the account; signing out
 * ends one. The account's state is read from the metadata store and cached in process
 * ({@link SESSION_STATE_ENTRIES}, each trusted {@link SESSION_STATE_TTL_MS} at most), dropped by
 * `AccountChanged` on every instance, and used only while `EventsService.cachesAreSafe()` (as
 * API keys are), so a session ends everywhere on its very next request.
 */
@Injectable()
export class SessionsService implements OnApplicationShutdown {
  private readonly cache = new LRUCache<string, AccountState | 'missing'>({
    max: SESSION_STATE_ENTRIES,
    ttl: SESSION_STATE_TTL_MS,
  });
  /** Raised by every invalidation: a store read that started before one is not cached. */
  private generation = 0;
  private readonly unsubscribe: (() => void)[];

  /** Account state reads from the metadata store since start (the e2e suites read it). */
  accountReads = 0;

  constructor(
    private readonly jwt: JwtService,
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    private readonly events: EventsService,
  ) {
    this.unsubscribe = [
      events.on('AccountChanged', ({ accountId }) => {
        this.generation++;
        this.cache.delete(accountId);
      }),
      events.on('CachesReset', () => {
        this.generation++;
        this.cache.clear();
      }),
    ];
  }

  /** Signs a new session for this account; valid {@link SESSION_TTL_SECONDS} at most. */
  issue(account: SessionSubject): Promise<string> {
    return this.jwt.signAsync(
      {
        sub: account.id,
        role: account.role,
        typ: 'platform',
        ver: account.tokenVersion,
        sid: randomUUID(),
      },
      { expiresIn: SESSION_TTL_SECONDS },
    );
  }

  /**
   * The session a token proves, or null when it is invalid, expired, not a platform token, or
   * ended (signed out, its account disabled, gone, or changed since).
   */
  async verify(token: string): Promise<PlatformSession | null> {
    let claims: SessionClaims;
    try {
      claims = await this.jwt.verifyAsync<SessionClaims>(token, { algorithms: ['HS256'] });
    } catch {
      return null;
    }
    if (
      claims.typ !== 'platform' ||
      (claims.role !== 'admin' && claims.role !== 'builder') ||
      typeof claims.ver !== 'number' ||
      typeof claims.sid !== 'string'
    ) {
      return null;
    }
    const state = await this.state(claims.sub);
    if (
      state === 'missing' ||
      state.disabled ||
      state.tokenVersion !== claims.ver ||
      state.role !== claims.role ||
      state.ended.has(claims.sid)
    ) {
      return null;
    }
    return {
      accountId: claims.sub,
      role: state.role,
      sessionId: claims.sid,
      expiresAt: claims.exp,
    };
  }

  /** Stops listening to events (shutdown). */
  onApplicationShutdown(): void {
    this.unsubscribe.forEach((u) => u());
  }

  /** The account's session state: from the cache while it is safe, else from the store. */
  private async state(accountId: string): Promise<AccountState | 'missing'> {
    const cached = this.events.cachesAreSafe() ? this.cache.get(accountId) : undefined;
    if (cached) return cached;
    this.accountReads++;
    // A read that overlaps an invalidation is used but not remembered: it may predate the event.
    const generation = this.generation;
    const account = await this.accounts.findOne({
      where: { id: accountId },
      select: { id: true, role: true, disabled: true, tokenVersion: true, endedSessions: true },
    });
    const state: AccountState | 'missing' = account
      ? {
          role: account.role,
          disabled: account.disabled,
          tokenVersion: account.tokenVersion,
          ended: new Set(
            liveEndedSessions(account.endedSessions, Date.now() / 1000).map((e) => e.sid),
          ),
        }
      : 'missing';
    if (this.events.cachesAreSafe() && generation === this.generation)
      this.cache.set(accountId, state);
    return state;
  }
}
