import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { ParsedRequest } from '../common/http-request';
import { ROUTE_ACCESS, RouteAccess } from './access.decorator';
import { PlatformErrors } from './platform.errors';
import { PlatformSession, SESSION_COOKIE, SessionsService } from './sessions.service';

/** A request that passed the guard carries its session here. */
export type SessionRequest = Request & { platformSession?: PlatformSession };

/**
 * Reads a platform session from `Authorization: Bearer` or the session cookie, without failing.
 * @returns the session, or null when absent or invalid.
 */
export async function readPlatformSession(
  req: ParsedRequest,
  sessions: SessionsService,
): Promise<PlatformSession | null> {
  const header = req.headers.authorization;
  const token = header?.startsWith('Bearer ')
    ? header.slice(7).trim()
    : req.cookies?.[SESSION_COOKIE];
  return token ? sessions.verify(token) : null;
}

/**
 * The one global guard for REST routes, driven by {@link Access}: no or an invalid session →
 * `401`; signed in without the needed role → `403` (CONTRACT.md §2).
 */
@Injectable()
export class PlatformAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access =
      this.reflector.getAllAndOverride<RouteAccess>(ROUTE_ACCESS, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'builder';
    if (access === 'public') return true;
    const req = context.switchToHttp().getRequest<SessionRequest>();
    const session = await readPlatformSession(req, this.sessions);
    if (!session) throw PlatformErrors.noSession();
    if (access === 'admin' && session.role !== 'admin') throw PlatformErrors.adminOnly();
    req.platformSession = session;
    return true;
  }
}
