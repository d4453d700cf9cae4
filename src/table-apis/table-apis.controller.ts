import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { DatasourcesService } from '../data-model/datasources.service';
import { AppsService } from '../platform/apps.service';
import { CurrentSession } from '../platform/current-session.decorator';
import type { PlatformSession } from '../platform/sessions.service';
import type { TableApiDefinition } from '../platform/version-definition';
import { CreateTableApiDto, UpdateTableApiDto } from './dto/table-api.dto';
import { type SavedTableApi, TableApisService } from './table-apis.service';
import { ApiRoute } from '../openapi/api-route.decorator';

/** Table APIs of an app (CONTRACT.md §3); builders and administrators, in their working version. */
@Controller('api/apps/:appId/apis')
export class TableApisController {
  constructor(
    private readonly apps: AppsService,
    private readonly apis: TableApisService,
    private readonly datasources: DatasourcesService,
  ) {}

  /** `api` with the notices of its save ({@link TableApisService.withNotices}). */
  private async answer(
    appId: string,
    accountId: string,
    api: TableApiDefinition,
  ): Promise<SavedTableApi> {
    const capabilities = await this.datasources.capabilities(appId);
    return this.apis.withNotices(appId, accountId, api, capabilities);
  }

  /**
   * `POST …/apis` → `201 {id, name, status: "draft", …}`, with `notices` when the actions offer
   * something the table cannot give (README "Writing rows").
   */
  @ApiRoute({
    summary: 'Create a Table API (draft)',
    ok: { status: 201, description: 'The Table API', schema: 'TableApi' },
    errors: [400, 404, 409, 415],
  })
  @Post()
  async create(
    @Param('appId') appId: string,
    @Body() body: CreateTableApiDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<SavedTableApi> {
    await this.apps.get(appId);
    return this.answer(appId, s.accountId, await this.apis.create(appId, s.accountId, body));
  }

  /** `GET …/apis`. */
  @ApiRoute({
    summary: "List an app's Table APIs",
    ok: { description: 'Table APIs of your working version', schema: ['TableApi'] },
    errors: [404],
  })
  @Get()
  async list(
    @Param('appId') appId: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<TableApiDefinition[]> {
    await this.apps.get(appId);
    return this.apis.list(appId, s.accountId);
  }

  /** `GET …/apis/:apiId`. */
  @ApiRoute({
    summary: 'Read a Table API',
    ok: { description: 'The Table API', schema: 'TableApi' },
    errors: [404],
  })
  @Get(':apiId')
  async get(
    @Param('appId') appId: string,
    @Param('apiId') apiId: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<TableApiDefinition> {
    await this.apps.get(appId);
    return this.apis.get(appId, s.accountId, apiId);
  }

  /** `PATCH …/apis/:apiId`, answered as {@link create}. */
  @ApiRoute({
    summary: 'Change a Table API',
    ok: { description: 'The Table API', schema: 'TableApi' },
    errors: [400, 404, 409, 415],
  })
  @Patch(':apiId')
  async update(
    @Param('appId') appId: string,
    @Param('apiId') apiId: string,
    @Body() body: UpdateTableApiDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<SavedTableApi> {
    await this.apps.get(appId);
    const api = await this.apis.update(appId, s.accountId, apiId, body);
    return this.answer(appId, s.accountId, api);
  }

  /** `DELETE …/apis/:apiId` → `204`. */
  @ApiRoute({
    summary: 'Delete a Table API',
    ok: { status: 204, description: 'Deleted' },
    errors: [404, 409],
  })
  @Delete(':apiId')
  @HttpCode(204)
  async delete(
    @Param('appId') appId: string,
    @Param('apiId') apiId: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<void> {
    await this.apps.get(appId);
    await this.apis.delete(appId, s.accountId, apiId);
  }

  /** `POST …/apis/:apiId/publish` → `{status: "published"}`; `400` without a table or an active action. */
  @ApiRoute({
    summary: 'Publish a Table API',
    description: 'Needs a table and at least one active action.',
    ok: { description: 'Published', schema: 'Published' },
    errors: [400, 404, 409],
  })
  @Post(':apiId/publish')
  @HttpCode(200)
  async publish(
    @Param('appId') appId: string,
    @Param('apiId') apiId: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<{ status: 'published' }> {
    await this.apps.get(appId);
    return this.apis.publish(appId, s.accountId, apiId);
  }
}
