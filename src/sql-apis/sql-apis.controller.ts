import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiRoute } from '../openapi/api-route.decorator';
import { AppsService } from '../platform/apps.service';
import { CurrentSession } from '../platform/current-session.decorator';
import type { PlatformSession } from '../platform/sessions.service';
import type { SqlApiDefinition } from '../platform/version-definition';
import { ConfirmSqlApiPartDto, CreateSqlApiDto, UpdateSqlApiDto } from './dto/sql-api.dto';
import { SqlApisService } from './sql-apis.service';

/**
 * SQL APIs of an app (issue 26, README "SQL APIs"); builders and administrators, in their working
 * version, as Table APIs.
 */
@Controller('api/apps/:appId/sql-apis')
export class SqlApisController {
  constructor(
    private readonly apps: AppsService,
    private readonly sqlApis: SqlApisService,
  ) {}

  /** `POST …/sql-apis` → `201` the draft with its proposed arguments and columns. */
  @ApiRoute({
    summary: 'Create an SQL API (draft)',
    description:
      'Parses the statement (one statement, :name placeholders; a refusal names its line and column), asks the database to describe it in a read-only transaction that is rolled back, and stores the proposed arguments and columns.',
    ok: { status: 201, description: 'The SQL API', schema: 'SqlApi' },
    errors: [400, 404, 409, 415],
  })
  @Post()
  async create(
    @Param('appId') appId: string,
    @Body() body: CreateSqlApiDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<SqlApiDefinition> {
    await this.apps.get(appId);
    return this.sqlApis.create(appId, s.accountId, body);
  }

  /** `GET …/sql-apis`. */
  @ApiRoute({
    summary: "List an app's SQL APIs",
    ok: { description: 'SQL APIs of your working version', schema: ['SqlApi'] },
    errors: [404],
  })
  @Get()
  async list(
    @Param('appId') appId: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<SqlApiDefinition[]> {
    await this.apps.get(appId);
    return this.sqlApis.list(appId, s.accountId);
  }

  /** `GET …/sql-apis/:id`. */
  @ApiRoute({
    summary: 'Read an SQL API',
    ok: { description: 'The SQL API', schema: 'SqlApi' },
    errors: [404],
  })
  @Get(':id')
  async get(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<SqlApiDefinition> {
    await this.apps.get(appId);
    return this.sqlApis.get(appId, s.accountId, id);
  }

  /** `PATCH …/sql-apis/:id`: a new statement is described again; confirmations kept by name. */
  @ApiRoute({
    summary: 'Change an SQL API',
    description:
      'A new statement, datasource or kind is parsed and described again; the confirmations of arguments and columns whose names remain are kept.',
    ok: { description: 'The SQL API', schema: 'SqlApi' },
    errors: [400, 404, 409, 415],
  })
  @Patch(':id')
  async update(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @Body() body: UpdateSqlApiDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<SqlApiDefinition> {
    await this.apps.get(appId);
    return this.sqlApis.update(appId, s.accountId, id, body);
  }

  /** `PATCH …/sql-apis/:id/arguments/:name`. */
  @ApiRoute({
    summary: "Confirm or override an SQL API's argument",
    ok: { description: 'The SQL API', schema: 'SqlApi' },
    errors: [400, 404, 409, 415],
  })
  @Patch(':id/arguments/:name')
  async confirmArgument(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @Param('name') name: string,
    @Body() body: ConfirmSqlApiPartDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<SqlApiDefinition> {
    await this.apps.get(appId);
    return this.sqlApis.confirm(appId, s.accountId, id, 'arguments', name, body);
  }

  /** `PATCH …/sql-apis/:id/columns/:name`. */
  @ApiRoute({
    summary: "Confirm or override an SQL API's result column",
    ok: { description: 'The SQL API', schema: 'SqlApi' },
    errors: [400, 404, 409, 415],
  })
  @Patch(':id/columns/:name')
  async confirmColumn(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @Param('name') name: string,
    @Body() body: ConfirmSqlApiPartDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<SqlApiDefinition> {
    await this.apps.get(appId);
    return this.sqlApis.confirm(appId, s.accountId, id, 'columns', name, body);
  }

  /** `DELETE …/sql-apis/:id` → `204`. */
  @ApiRoute({
    summary: 'Delete an SQL API',
    ok: { status: 204, description: 'Deleted' },
    errors: [404, 409],
  })
  @Delete(':id')
  @HttpCode(204)
  async delete(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<void> {
    await this.apps.get(appId);
    await this.sqlApis.delete(appId, s.accountId, id);
  }

  /** `POST …/sql-apis/:id/publish` → `{status: "published"}`; `400` with every reason it cannot be. */
  @ApiRoute({
    summary: 'Publish an SQL API',
    description:
      'Needs a type for every argument and a kind for every column; a query kind on SQL Server cannot be published yet.',
    ok: { description: 'Published', schema: 'Published' },
    errors: [400, 404, 409],
  })
  @Post(':id/publish')
  @HttpCode(200)
  async publish(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<{ status: 'published' }> {
    await this.apps.get(appId);
    return this.sqlApis.publish(appId, s.accountId, id);
  }
}
