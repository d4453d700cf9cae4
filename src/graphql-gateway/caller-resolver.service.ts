import { Injectable } from '@nestjs/common';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { AppUsersService } from '../app-access/app-users.service';
import { DomainError, ErrorCode } from '../common/domain-error';
import type { ParsedRequest } from '../common/http-request';
import { readPlatformSession } from '../platform/platform-auth.guard';
import { SessionsService } from '../platform/sessions.service';
import type { Caller } from './gateway-context';

/**
 * Request step 2: who is calling (CONTRACT.md §6 caller table). `x-api-key` → an integration;
 * a platform session (Bearer or cookie) → a builder; a Bearer app-user token of this app → an
 * app user; nothing → anonymous.
 */
@Injectable()
export class CallerResolverService {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly sessions: SessionsService,
    private readonly appUsers: AppUsersService,
  ) {}

  /**
   * @param appId the app whose endpoint is called: an app-user token works there only.
   * @throws DomainError UNAUTHENTICATED: the key's refusal message (invalid, revoked, expired), or
   * a bearer token that is no valid session of a builder or of this app's user.
   */
  async resolve(req: ParsedRequest, appId: string): Promise<Caller> {
    const key = req.headers['x-api-key'];
    if (typeof key === 'string' && key.length > 0)
      return { kind: 'key', principal: await this.keys.authenticate(key) };
    const session = await readPlatformSession(req, this.sessions);
    if (session) return { kind: 'builder', session };
    const header = req.headers.authorization;
    if (header) {
      const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
      if (token && (await this.appUsers.isAppUserToken(token))) {
        return { kind: 'app-user', user: await this.appUsers.authenticate(appId, token) };
      }
      throw new DomainError(ErrorCode.Unauthenticated, 'Invalid or expired session token');
    }
    return { kind: 'anonymous' };
  }
}
