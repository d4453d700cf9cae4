import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { ApiRoute } from '../openapi/api-route.decorator';
import { Access } from './access.decorator';
import { AccountDetails, AccountsService, AccountView } from './accounts.service';
import { AccountDetailsAnswer, CreateAccountDto, UpdateAccountDto } from './dto/platform.dto';

/**
 * Platform accounts, for administrators (CONTRACT.md §2 `POST /api/admin/accounts`; issue 22,
 * item 6: list, change role, password or disabled switch, sign out everywhere).
 */
@Controller('api/admin/accounts')
@Access('admin')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  /** `POST /api/admin/accounts` (administrators) → `201` account. */
  @ApiRoute({
    summary: 'Create a platform account',
    ok: { status: 201, description: 'The account', schema: 'Account' },
    errors: [400, 409, 415],
    access: 'admin',
  })
  @Post()
  createAccount(@Body() body: CreateAccountDto): Promise<AccountView> {
    return this.accounts.create(body.email, body.password, body.role);
  }

  /** `GET /api/admin/accounts` → every account, by email (never a password or its hash). */
  @ApiOkResponse({ type: AccountDetailsAnswer, isArray: true })
  @ApiRoute({
    summary: 'List platform accounts',
    ok: { description: 'Accounts by email' },
    errors: [],
    access: 'admin',
  })
  @Get()
  list(): Promise<AccountDetails[]> {
    return this.accounts.list();
  }

  /**
   * `PATCH /api/admin/accounts/:accountId` `{role?, password?, disabled?}` → the account. A new
   * role, a new password or disabling ends every session of the account at once; a change that
   * would leave no active administrator is `409`.
   */
  @ApiOkResponse({ type: AccountDetailsAnswer })
  @ApiRoute({
    summary: "Change an account's role, password or disabled switch",
    description:
      'A different role, a new password or disabling ends every session of the account at once, on every instance; enabling brings none back. Refused (409) when no active administrator would remain.',
    ok: { description: 'The account' },
    errors: [400, 404, 409, 415],
    access: 'admin',
  })
  @Patch(':accountId')
  update(
    @Param('accountId') accountId: string,
    @Body() body: UpdateAccountDto,
  ): Promise<AccountDetails> {
    return this.accounts.update(accountId, body);
  }

  /** `POST /api/admin/accounts/:accountId/logout` → `204`: every session of the account ends. */
  @ApiRoute({
    summary: 'Sign an account out everywhere',
    description: 'Ends every session of the account at once, on every instance.',
    ok: { status: 204, description: 'Signed out everywhere' },
    errors: [404],
    access: 'admin',
  })
  @Post(':accountId/logout')
  @HttpCode(204)
  async logout(@Param('accountId') accountId: string): Promise<void> {
    await this.accounts.endSessions(accountId);
  }
}
