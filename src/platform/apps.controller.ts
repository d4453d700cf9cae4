import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { AppsService, AppView } from './apps.service';
import { CurrentSession } from './current-session.decorator';
import { CreateAppDto, UpdateAppDto } from './dto/platform.dto';
import { VersionDiffAnswer } from './dto/version-diff.dto';
import type { PlatformSession } from './sessions.service';
import type { VersionDiff } from './version-diff';
import { VersionsService } from './versions.service';
import { ApiRoute } from '../openapi/api-route.decorator';

/** Apps and version publishing (CONTRACT.md §3, §7); builders and administrators. */
@Controller('api/apps')
export class AppsController {
  constructor(
    private readonly apps: AppsService,
    private readonly versions: VersionsService,
  ) {}

  /** `POST /api/apps` → `201 {id, name, address, domain}`. */
  @ApiRoute({
    summary: 'Create an app',
    description: 'With an empty main version.',
    ok: { status: 201, description: 'The app', schema: 'App' },
    errors: [400, 409, 415],
  })
  @Post()
  create(@Body() body: CreateAppDto): Promise<AppView> {
    return this.apps.create(body.name, body.address);
  }

  /** `GET /api/apps`. */
  @ApiRoute({
    summary: 'List apps',
    ok: { description: 'Every app, oldest first', schema: ['App'] },
    errors: [],
  })
  @Get()
  list(): Promise<AppView[]> {
    return this.apps.list();
  }

  /** `GET /api/apps/:appId`. */
  @ApiRoute({
    summary: 'Read an app',
    ok: { description: 'The app', schema: 'App' },
    errors: [404],
  })
  @Get(':appId')
  get(@Param('appId') appId: string): Promise<AppView> {
    return this.apps.get(appId);
  }

  /** `PATCH /api/apps/:appId` `{name?, domain?}`. */
  @ApiRoute({
    summary: 'Rename an app or set its domain',
    ok: { description: 'The app', schema: 'App' },
    errors: [400, 404, 409, 415],
  })
  @Patch(':appId')
  update(@Param('appId') appId: string, @Body() body: UpdateAppDto): Promise<AppView> {
    return this.apps.update(appId, body);
  }

  /** `POST /api/apps/:appId/versions/publish`: the caller's working version becomes main. */
  @ApiRoute({
    summary: 'Publish your working version',
    description: "The caller's working version becomes the app's main version.",
    ok: { description: 'The new main revision', schema: 'Revision' },
    errors: [404, 409],
  })
  @Post(':appId/versions/publish')
  @HttpCode(200)
  async publish(
    @Param('appId') appId: string,
    @CurrentSession() session: PlatformSession,
  ): Promise<{ revision: number }> {
    await this.apps.get(appId);
    return this.versions.publish(appId, session.accountId);
  }

  /**
   * `GET /api/apps/:appId/versions/diff`: what the caller's working version changes against main
   * (Table APIs, tables, enums, row rules), in words; no changes without a working version.
   */
  @ApiOkResponse({ type: VersionDiffAnswer })
  @ApiRoute({
    summary: 'Compare your working version with main',
    description:
      'What publishing your working version would change: Table APIs (actions, public switches, fields, state), model tables, enums and row rules, one sentence per change.',
    ok: { description: 'The changes' },
    errors: [404],
  })
  @Get(':appId/versions/diff')
  async diff(
    @Param('appId') appId: string,
    @CurrentSession() session: PlatformSession,
  ): Promise<VersionDiff> {
    await this.apps.get(appId);
    return this.versions.diff(appId, session.accountId);
  }
}
