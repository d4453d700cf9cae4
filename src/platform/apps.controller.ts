import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { AppsService, AppView } from './apps.service';
import { CurrentSession } from './current-session.decorator';
import { CreateAppDto, UpdateAppDto } from './dto/platform.dto';
import type { PlatformSession } from './sessions.service';
import { VersionsService } from './versions.service';

/** Apps and version publishing (CONTRACT.md §3, §7); builders and administrators. */
@Controller('api/apps')
export class AppsController {
  constructor(
    private readonly apps: AppsService,
    private readonly versions: VersionsService,
  ) {}

  /** `POST /api/apps` → `201 {id, name, address, domain}`. */
  @Post()
  create(@Body() body: CreateAppDto): Promise<AppView> {
    return this.apps.create(body.name, body.address);
  }

  /** `GET /api/apps`. */
  @Get()
  list(): Promise<AppView[]> {
    return this.apps.list();
  }

  /** `GET /api/apps/:appId`. */
  @Get(':appId')
  get(@Param('appId') appId: string): Promise<AppView> {
    return this.apps.get(appId);
  }

  /** `PATCH /api/apps/:appId` `{name?, domain?}`. */
  @Patch(':appId')
  update(@Param('appId') appId: string, @Body() body: UpdateAppDto): Promise<AppView> {
    return this.apps.update(appId, body);
  }

  /** `POST /api/apps/:appId/versions/publish`: the caller's working version becomes main. */
  @Post(':appId/versions/publish')
  @HttpCode(200)
  async publish(
    @Param('appId') appId: string,
    @CurrentSession() session: PlatformSession,
  ): Promise<{ revision: number }> {
    await this.apps.get(appId);
    return this.versions.publish(appId, session.accountId);
  }
}
