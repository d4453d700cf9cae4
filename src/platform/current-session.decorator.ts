import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { SessionRequest } from './platform-auth.guard';
import type { PlatformSession } from './sessions.service';

/** The signed-in account's session, set by {@link PlatformAuthGuard}. */
export const CurrentSession = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): PlatformSession =>
    ctx.switchToHttp().getRequest<SessionRequest>().platformSession!,
);
