import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError, ErrorCode } from '../common/domain-error';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ApiRoute } from '../openapi/api-route.decorator';
import { Access } from './access.decorator';
import { AccountsService, AccountView } from './accounts.service';
import { CurrentSession } from './current-session.decorator';
import { ChangePasswordDto, LoginDto } from './dto/platform.dto';
import { LoginThrottleService } from './login-throttle.service';
import { PlatformErrors } from './platform.errors';
import {
  PlatformSession,
  SESSION_COOKIE,
  SESSION_TTL_SECONDS,
  SessionsService,
} from './sessions.service';

/** Platform sign-in, sign-out and an account's own password (CONTRACT.md §2). */
@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly throttle: LoginThrottleService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `POST /api/auth/login` → `200 {token, account}` and an HttpOnly, SameSite=Strict cookie. */
  @ApiRoute({
    summary: 'Sign in to the platform',
    description:
      'Answers the session token and sets the HttpOnly, SameSite=Strict `tg_session` cookie. Failed attempts are limited per account and client address, per address, and per account (which then refuses only addresses that failed).',
    ok: { description: 'Signed in', schema: 'Session' },
    errors: [400, 401, 415, 429],
    access: 'public',
  })
  @Post('login')
  @Access('public')
  @HttpCode(200)
  async login(
    @Body() body: LoginDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ token: string; account: AccountView }> {
    const { account, subject } = await this.throttle.attempt(body.email, req.ip ?? 'unknown', () =>
      this.accounts.authenticate(body.email, body.password),
    );
    return { token: await this.startSession(subject, res), account };
  }

  /** `POST /api/auth/logout`: ends the request's session (bearer or cookie), clears the cookie → `204`. */
  @ApiRoute({
    summary: 'Sign out',
    description:
      "Ends the request's session (its token is refused from now on, on every instance) and clears the session cookie. The account's other sessions stay signed in.",
    ok: { status: 204, description: 'Signed out' },
    errors: [403],
    access: 'public',
  })
  @Post('logout')
  @Access('public')
  @HttpCode(204)
  async logout(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<void> {
    const header = req.headers.authorization;
    const tokens = [
      header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined,
      (req.cookies as Record<string, string> | undefined)?.[SESSION_COOKIE],
    ];
    for (const token of new Set(tokens)) {
      const session = token ? await this.sessions.verify(token) : null;
      if (session) await this.accounts.endSession(session);
    }
    res.clearCookie(SESSION_COOKIE, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.config.production,
      path: '/',
    });
  }

  /**
   * `POST /api/auth/password` (any signed-in account): checks the current password, sets the new
   * one, ends every session of the account and answers a new one → `200 {token, account}` and
   * the cookie.
   */
  @ApiRoute({
    summary: 'Change your own password',
    description:
      'Checks the current password (wrong attempts count as failed sign-ins), sets the new one and ends every session of the account; answers a new session token and sets the cookie.',
    ok: { description: 'Password changed; the new session', schema: 'Session' },
    errors: [400, 409, 415, 429],
  })
  @Post('password')
  @HttpCode(200)
  async changePassword(
    @Body() body: ChangePasswordDto,
    @CurrentSession() session: PlatformSession,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ token: string; account: AccountView }> {
    const me = await this.accounts.find(session.accountId);
    if (!me) throw PlatformErrors.noSession();
    const { account, subject } = await this.throttle.attempt(
      me.email,
      req.ip ?? 'unknown',
      () =>
        this.accounts.changeOwnPassword(session.accountId, body.currentPassword, body.newPassword),
      // A wrong current password is the only INVALID_INPUT here (the body was validated).
      (error) => error instanceof DomainError && error.code === ErrorCode.InvalidInput,
    );
    return { token: await this.startSession(subject, res), account };
  }

  /** Issues a session and sets it as the HttpOnly, SameSite=Strict cookie. */
  private async startSession(
    subject: Parameters<SessionsService['issue']>[0],
    res: Response,
  ): Promise<string> {
    const token = await this.sessions.issue(subject);
    res.cookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.config.production,
      path: '/',
      maxAge: SESSION_TTL_SECONDS * 1000,
    });
    return token;
  }
}
