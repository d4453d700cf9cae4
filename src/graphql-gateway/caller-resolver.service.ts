import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { DomainError, ErrorCode } from '../common/domain-error';
import { readPlatformSession } from '../platform/platform-auth.guard';
import { SessionsService } from '../platform/sessions.service';
import type { Caller } from './gateway-context';

/**
 * Request step 2: who is calling (CONTRACT.md §6 caller table). `x-api-key` → an integration;
 * a platform session (Bearer or cookie) → a builder; nothing → anonymous.
 */
@Injectable()
export class CallerResolverService {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly sessions: SessionsService,
  ) {}

  /**
   * @throws DomainError UNAUTHENTICATED: the key's refusal message (invalid, revoked, expired), or
   * a bearer token that is no valid session.
   */
  async resolve(req: Request): Promise<Caller> {
    const key = req.headers['x-api-key'];
    if (typeof key === 'string' && key.length > 0)
      return { kind: 'key', principal: await this.keys.authenticate(key) };
    const session = await readPlatformSession(req, this.sessions);
    if (session) return { kind: 'builder', session };
    if (req.headers.authorization)
      throw new DomainError(ErrorCode.Unauthenticated, 'Invalid or expired session token');
    return { kind: 'anonymous' };
  }
}
