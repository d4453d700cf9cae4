import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AccountView } from './accounts.service';

/** What a platform session token proves. */
export interface PlatformSession {
  accountId: string;
  role: 'admin' | 'builder';
}

/** Name of the HttpOnly session cookie set at login. */
export const SESSION_COOKIE = 'tg_session';
/** Session lifetime: 12 hours, in seconds. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

/**
 * Platform session tokens: HS256 JWTs (`@nestjs/jwt`) signed with `PLATFORM_SECRET`, with
 * `typ: "platform"` so an app user's token (another `typ`) is never taken for a builder's.
 */
@Injectable()
export class SessionsService {
  constructor(private readonly jwt: JwtService) {}

  /** Signs a session for this account; valid {@link SESSION_TTL_SECONDS}. */
  issue(account: AccountView): Promise<string> {
    return this.jwt.signAsync(
      { sub: account.id, role: account.role, typ: 'platform' },
      { expiresIn: SESSION_TTL_SECONDS },
    );
  }

  /** The session a token proves, or null when it is invalid, expired or not a platform token. */
  async verify(token: string): Promise<PlatformSession | null> {
    try {
      const claims = await this.jwt.verifyAsync<{ sub: string; role: string; typ: string }>(token, {
        algorithms: ['HS256'],
      });
      if (claims.typ !== 'platform' || (claims.role !== 'admin' && claims.role !== 'builder')) {
        return null;
      }
      return { accountId: claims.sub, role: claims.role };
    } catch {
      return null;
    }
  }
}
