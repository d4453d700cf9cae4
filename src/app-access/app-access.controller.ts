import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Req,
} from '@nestjs/common';
import type { Request } from 'express';
import { LoginThrottleService } from '../platform/login-throttle.service';
import { Access } from '../platform/access.decorator';
import { AppsService } from '../platform/apps.service';
import { CurrentSession } from '../platform/current-session.decorator';
import type { PlatformSession } from '../platform/sessions.service';
import { AppUsersService, AppUserView } from './app-users.service';
import {
  AppUserLoginDto,
  CreateAppUserDto,
  PutPermissionsDto,
  UpdateAppUserDto,
} from './dto/app-access.dto';
import { PermissionsService } from './permissions.service';
import type { Permissions, RoleRules } from './row-rules';
import { ApiRoute } from '../openapi/api-route.decorator';

/** App users, their sign-in, and row rules per role (CONTRACT.md §4). */
@Controller('api/apps/:appId')
export class AppAccessController {
  constructor(
    private readonly apps: AppsService,
    private readonly users: AppUsersService,
    private readonly permissions: PermissionsService,
    private readonly throttle: LoginThrottleService,
  ) {}

  /** `POST …/users` (builders) → `201` user (never the password). */
  @ApiRoute({
    summary: 'Create an app user',
    ok: { status: 201, description: 'The user (never the password)', schema: 'AppUser' },
    errors: [400, 404, 409, 415],
  })
  @Post('users')
  async createUser(
    @Param('appId') appId: string,
    @Body() body: CreateAppUserDto,
  ): Promise<AppUserView> {
    await this.apps.get(appId);
    return this.users.create(appId, body);
  }

  /** `GET …/users` (builders). */
  @ApiRoute({
    summary: "List an app's users",
    ok: { description: 'Users', schema: ['AppUser'] },
    errors: [404],
  })
  @Get('users')
  async listUsers(@Param('appId') appId: string): Promise<AppUserView[]> {
    await this.apps.get(appId);
    return this.users.list(appId);
  }

  /** `PATCH …/users/:userId` (builders): roles, attributes, password, disabled. */
  @ApiRoute({
    summary: 'Change an app user',
    description: 'Roles, attributes, password, disabled.',
    ok: { description: 'The user', schema: 'AppUser' },
    errors: [400, 404, 415],
  })
  @Patch('users/:userId')
  async updateUser(
    @Param('appId') appId: string,
    @Param('userId') userId: string,
    @Body() body: UpdateAppUserDto,
  ): Promise<AppUserView> {
    await this.apps.get(appId);
    return this.users.update(appId, userId, body);
  }

  /** `POST …/auth/login` (public) → `{token}` for this app's GraphQL endpoint only. */
  @ApiRoute({
    summary: 'Sign in as an app user',
    description: "The token is valid at this app's GraphQL endpoint only.",
    ok: { description: 'Signed in', schema: 'AppUserSession' },
    errors: [400, 401, 404, 415, 429],
    access: 'public',
  })
  @Post('auth/login')
  @Access('public')
  @HttpCode(200)
  async login(
    @Param('appId') appId: string,
    @Body() body: AppUserLoginDto,
    @Req() req: Request,
  ): Promise<{ token: string }> {
    await this.apps.get(appId);
    const token = await this.throttle.attempt(`${appId}:${body.email}`, req.ip ?? 'unknown', () =>
      this.users.login(appId, body.email, body.password),
    );
    return { token };
  }

  /** `GET …/permissions` (builders): every role's rules in the working version. */
  @ApiRoute({
    summary: 'Read the row rules of every role',
    ok: { description: 'Rules by role', schema: 'Permissions' },
    errors: [404],
  })
  @Get('permissions')
  async listPermissions(
    @Param('appId') appId: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<Permissions> {
    await this.apps.get(appId);
    return this.permissions.list(appId, s.accountId);
  }

  /** `PUT …/permissions/:role` (builders): replaces the role's rules in the working version. */
  @ApiRoute({
    summary: "Replace a role's row rules",
    ok: { description: 'Rules by role', schema: 'Permissions' },
    errors: [400, 404, 409, 415],
  })
  @Put('permissions/:role')
  async putPermissions(
    @Param('appId') appId: string,
    @Param('role') role: string,
    @Body() body: PutPermissionsDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<RoleRules> {
    await this.apps.get(appId);
    return this.permissions.put(appId, s.accountId, role, body);
  }

  /** `DELETE …/permissions/:role` (builders) → `204`. */
  @ApiRoute({
    summary: "Delete a role's row rules",
    ok: { status: 204, description: 'Deleted' },
    errors: [404, 409],
  })
  @Delete('permissions/:role')
  @HttpCode(204)
  async deletePermissions(
    @Param('appId') appId: string,
    @Param('role') role: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<void> {
    await this.apps.get(appId);
    await this.permissions.remove(appId, s.accountId, role);
  }
}
