import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Access } from './access.decorator';
import { AccountsService, AccountView } from './accounts.service';
import { CreateAccountDto, LoginDto } from './dto/platform.dto';
import { SESSION_COOKIE, SESSION_TTL_SECONDS, SessionsService } from './sessions.service';

/** Platform sign-in and account administration (CONTRACT.md §2). */
@Controller('api')
export class AuthController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
  ) {}

  /** `POST /api/auth/login` → `200 {token, account}` and an HttpOnly, SameSite=Strict cookie. */
  @Post('auth/login')
  @Access('public')
  @HttpCode(200)
  async login(
    @Body() body: LoginDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ token: string; account: AccountView }> {
    const account = await this.accounts.authenticate(body.email, body.password);
    const token = await this.sessions.issue(account);
    res.cookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      maxAge: SESSION_TTL_SECONDS * 1000,
    });
    return { token, account };
  }

  /** `POST /api/admin/accounts` (administrators) → `201` account. */
  @Post('admin/accounts')
  @Access('admin')
  createAccount(@Body() body: CreateAccountDto): Promise<AccountView> {
    return this.accounts.create(body.email, body.password, body.role);
  }
}
