import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { LoginThrottleService } from './login-throttle.service';
import { Access } from './access.decorator';
import { AccountsService, AccountView } from './accounts.service';
import { CreateAccountDto, LoginDto } from './dto/platform.dto';
import { SESSION_COOKIE, SESSION_TTL_SECONDS, SessionsService } from './sessions.service';
import { ApiRoute } from '../openapi/api-route.decorator';

/** Platform sign-in and account administration (CONTRACT.md §2). */
@Controller('api')
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
      'Answers the session token and sets the HttpOnly, SameSite=Strict `tg_session` cookie. Attempts are limited per account and per client address.',
    ok: { description: 'Signed in', schema: 'Session' },
    errors: [400, 401, 415, 429],
    access: 'public',
  })
  @Post('auth/login')
  @Access('public')
  @HttpCode(200)
  async login(
    @Body() body: LoginDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ token: string; account: AccountView }> {
    await this.throttle.attempt(body.email, req.ip ?? 'unknown');
    const account = await this.accounts.authenticate(body.email, body.password);
    const token = await this.sessions.issue(account);
    res.cookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.config.production,
      path: '/',
      maxAge: SESSION_TTL_SECONDS * 1000,
    });
    return { token, account };
  }

  /** `POST /api/auth/logout`: clears the session cookie (same attributes) → `204`. */
  @ApiRoute({
    summary: 'Sign out',
    description: 'Clears the session cookie.',
    ok: { status: 204, description: 'Signed out' },
    errors: [403],
    access: 'public',
  })
  @Post('auth/logout')
  @Access('public')
  @HttpCode(204)
  logout(@Res({ passthrough: true }) res: Response): void {
    res.clearCookie(SESSION_COOKIE, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.config.production,
      path: '/',
    });
  }

  /** `POST /api/admin/accounts` (administrators) → `201` account. */
  @ApiRoute({
    summary: 'Create a platform account',
    ok: { status: 201, description: 'The account', schema: 'Account' },
    errors: [400, 409, 415],
    access: 'admin',
  })
  @Post('admin/accounts')
  @Access('admin')
  createAccount(@Body() body: CreateAccountDto): Promise<AccountView> {
    return this.accounts.create(body.email, body.password, body.role);
  }
}
