import { Injectable } from '@nestjs/common';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { AppUsersService } from '../app-access/app-users.service';
import { DomainError, ErrorCode } from '../common/domain-error';
import type { ParsedRequest } from '../common/http-request';
import { readPlatformSession } from '../platform/platform-auth.guard';
import { SessionsService } from '../platform/sessions.service';
import type { Caller } from './gateway-context';

/** The header of a builder's "view as": the id of the app user to run the request as. */
export const VIEW_AS_HEADER = 'x-view-as-user';

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
    const viewAs = req.headers[VIEW_AS_HEADER];
    const key = req.headers['x-api-key'];
    if (viewAs !== undefined) return this.viewAs(req, appId, viewAs, key);
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

  /**
   * A builder's "view as" (issue 27 item 4): `x-view-as-user: <app user id>` from a platform
   * session (Bearer or cookie, no key) makes the request that app user's own, so it goes through
   * the same steps as the user's real call (main version, the app-user schema, their roles' rules,
   * their throttle); the endpoint lets it read only. Anyone else sending the header is refused.
   * @throws DomainError FORBIDDEN (a key, an app user, anonymous, a malformed header), NOT_FOUND
   * (no such user of this app), CONFLICT (a disabled user).
   */
  private async viewAs(
    req: ParsedRequest,
    appId: string,
    viewAs: string | string[],
    key: string | string[] | undefined,
  ): Promise<Caller> {
    const session = key ? null : await readPlatformSession(req, this.sessions);
    if (!session)
      throw new DomainError(
        ErrorCode.Forbidden,
        `${VIEW_AS_HEADER} is only for builders signed in to the platform (no API key)`,
      );
    if (typeof viewAs !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(viewAs))
      throw new DomainError(ErrorCode.Forbidden, `${VIEW_AS_HEADER} takes one app user id`);
    const user = await this.appUsers.principalFor(appId, viewAs);
    return { kind: 'app-user', user, viewedBy: session.accountId };
  }
}
