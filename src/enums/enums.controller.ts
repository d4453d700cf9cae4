import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { AppsService } from '../platform/apps.service';
import { CurrentSession } from '../platform/current-session.decorator';
import type { PlatformSession } from '../platform/sessions.service';
import type { ModelEnum } from '../platform/version-definition';
import { EnumDto } from './dto/enum.dto';
import { EnumsService } from './enums.service';
import { ApiRoute } from '../openapi/api-route.decorator';

/** App enums (CONTRACT.md §3); builders and administrators, in their working version. */
@Controller('api/apps/:appId/enums')
export class EnumsController {
  constructor(
    private readonly apps: AppsService,
    private readonly enums: EnumsService,
  ) {}

  /** `POST …/enums` → `201` the enum. */
  @ApiRoute({
    summary: 'Create an enum',
    ok: { status: 201, description: 'The enum', schema: 'Enum' },
    errors: [400, 404, 409, 415],
  })
  @Post()
  async create(
    @Param('appId') appId: string,
    @Body() body: EnumDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<ModelEnum> {
    await this.apps.get(appId);
    return this.enums.create(appId, s.accountId, body);
  }

  /** `GET …/enums`. */
  @ApiRoute({
    summary: "List an app's enums",
    ok: { description: 'Enums', schema: ['Enum'] },
    errors: [404],
  })
  @Get()
  async list(
    @Param('appId') appId: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<ModelEnum[]> {
    await this.apps.get(appId);
    return this.enums.list(appId, s.accountId);
  }

  /** `PUT …/enums/:name` (same body as create). */
  @ApiRoute({
    summary: 'Replace an enum',
    ok: { description: 'The enum', schema: 'Enum' },
    errors: [400, 404, 409, 415],
  })
  @Put(':name')
  async replace(
    @Param('appId') appId: string,
    @Param('name') name: string,
    @Body() body: EnumDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<ModelEnum> {
    await this.apps.get(appId);
    return this.enums.replace(appId, s.accountId, name, body);
  }

  /** `DELETE …/enums/:name` → `204`; permanent, its fields become plain text. */
  @ApiRoute({
    summary: 'Delete an enum',
    description: 'Permanent: the fields that used it become plain text.',
    ok: { status: 204, description: 'Deleted' },
    errors: [404, 409],
  })
  @Delete(':name')
  @HttpCode(204)
  async delete(
    @Param('appId') appId: string,
    @Param('name') name: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<void> {
    await this.apps.get(appId);
    await this.enums.delete(appId, s.accountId, name);
  }
}
