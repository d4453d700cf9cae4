import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import type { ListedTable } from '../datasources/core/dialect';
import { AppsService } from '../platform/apps.service';
import { CurrentSession } from '../platform/current-session.decorator';
import type { PlatformSession } from '../platform/sessions.service';
import { DataModelService, ModelGroupView, ModelTableView } from './data-model.service';
import { DatasourcesService, DatasourceView } from './datasources.service';
import {
  CreateDatasourceDto,
  ImportTablesDto,
  TestDatasourceDto,
  UpdateDatasourceDto,
  UpdateModelFieldDto,
  UpdateModelTableDto,
} from './dto/data-model.dto';
import { ApiRoute } from '../openapi/api-route.decorator';

/** Datasources and the data model of an app (CONTRACT.md §3); builders and administrators. */
@Controller('api/apps/:appId')
export class DataModelController {
  constructor(
    private readonly apps: AppsService,
    private readonly datasources: DatasourcesService,
    private readonly model: DataModelService,
  ) {}

  /** `POST …/datasources` → `201 {id, name, type}` after a successful trial connection. */
  @ApiRoute({
    summary: 'Register a datasource',
    description:
      'The connection is tried before it is saved; the URL is stored encrypted and never answered.',
    ok: { status: 201, description: 'The datasource', schema: 'Datasource' },
    errors: [400, 404, 409, 415],
  })
  @Post('datasources')
  async createDatasource(
    @Param('appId') appId: string,
    @Body() body: CreateDatasourceDto,
  ): Promise<DatasourceView> {
    await this.apps.get(appId);
    return this.datasources.create(appId, body);
  }

  /**
   * `POST …/datasources/test` `{type, url}` → `200 {serverVersion}`: tries a connection the way
   * registering does, saving nothing; a failure answers `400` saying which part to check (the
   * host and port, the login, the database), never the URL or password.
   */
  @ApiRoute({
    summary: 'Try a connection without saving it',
    description:
      'The same checks and answers as registering: `400` with what failed (no server at that host and port, the login refused, no such database), never the URL or password.',
    ok: { description: "The server's version", schema: 'ConnectionTest' },
    errors: [400, 404, 415],
  })
  @Post('datasources/test')
  @HttpCode(200)
  async testDatasource(
    @Param('appId') appId: string,
    @Body() body: TestDatasourceDto,
  ): Promise<{ serverVersion: string }> {
    await this.apps.get(appId);
    return this.datasources.test(appId, body);
  }

  /**
   * `PATCH …/datasources/:dsId` `{name?, url?, timeZone?, readOnlyLogin?}`: rename, new
   * credentials (a URL of the same type, tried before it is saved; the datasource's pools
   * reconnect with it), a time zone (IANA name), a read-only login (`null` removes it).
   */
  @ApiRoute({
    summary: 'Rename a datasource, change its connection, time zone or read-only login',
    description:
      "A new URL (same database type) is tried before it is saved, then used by every later request; it is stored encrypted and never answered. A new timeZone applies from the next request. A readOnlyLogin is tried with the datasource's host and database and refused (400, listing what it may write) when it may write; query-kind SQL APIs then run with it.",
    ok: { description: 'The datasource', schema: 'Datasource' },
    errors: [400, 404, 409, 415],
  })
  @Patch('datasources/:dsId')
  async updateDatasource(
    @Param('appId') appId: string,
    @Param('dsId') dsId: string,
    @Body() body: UpdateDatasourceDto,
  ): Promise<DatasourceView> {
    await this.apps.get(appId);
    return this.datasources.update(appId, dsId, body);
  }

  /** `GET …/datasources`. */
  @ApiRoute({
    summary: "List an app's datasources",
    ok: { description: 'Datasources, oldest first', schema: ['Datasource'] },
    errors: [404],
  })
  @Get('datasources')
  async listDatasources(@Param('appId') appId: string): Promise<DatasourceView[]> {
    await this.apps.get(appId);
    return this.datasources.list(appId);
  }

  /** `GET …/datasources/:dsId/tables` → `[{schema, name, kind}]` of the live database (`kind`: `table` | `view`). */
  @ApiRoute({
    summary: 'List importable tables of the live database',
    ok: { description: 'Tables and views', schema: ['TableRef'] },
    errors: [400, 404],
  })
  @Get('datasources/:dsId/tables')
  async tables(@Param('appId') appId: string, @Param('dsId') dsId: string): Promise<ListedTable[]> {
    await this.apps.get(appId);
    return this.datasources.tables(appId, dsId);
  }

  /** `POST …/model/import` → the imported model tables. */
  @ApiRoute({
    summary: 'Import tables into the model',
    description:
      'Re-importing a table refreshes its columns. Views and materialized views import read-only (their Table APIs offer select only).',
    ok: { status: 201, description: 'The imported model tables', schema: ['ModelTable'] },
    errors: [400, 404, 409, 415],
  })
  @Post('model/import')
  async import(
    @Param('appId') appId: string,
    @Body() body: ImportTablesDto,
    @CurrentSession() session: PlatformSession,
  ): Promise<ModelTableView[]> {
    await this.apps.get(appId);
    return this.model.import(appId, session.accountId, body.datasourceId, body.tables);
  }

  /** `GET …/model/tables?search=`. */
  @ApiRoute({
    summary: 'List model tables, grouped by datasource',
    description: '`search` matches a table or datasource name, case-insensitive.',
    ok: { description: 'Groups', schema: ['ModelGroup'] },
    errors: [404],
  })
  @Get('model/tables')
  async list(
    @Param('appId') appId: string,
    @Query('search') search: string | undefined,
    @CurrentSession() session: PlatformSession,
  ): Promise<ModelGroupView[]> {
    await this.apps.get(appId);
    return this.model.list(appId, session.accountId, search);
  }

  /** `PATCH …/model/tables/:table` `{active?, primaryKey?}`. */
  @ApiRoute({
    summary: 'Activate or deactivate a model table, or choose its key',
    description:
      '`primaryKey` names the key columns of a view, or of a table whose database declares no primary key.',
    ok: { description: 'The model table', schema: 'ModelTable' },
    errors: [400, 404, 409, 415],
  })
  @Patch('model/tables/:table')
  async update(
    @Param('appId') appId: string,
    @Param('table') table: string,
    @Body() body: UpdateModelTableDto,
    @CurrentSession() session: PlatformSession,
  ): Promise<ModelTableView> {
    await this.apps.get(appId);
    return this.model.update(appId, session.accountId, table, body);
  }

  /** `PATCH …/model/tables/:table/fields/:field` `{enum?: "<EnumName>" | null}`. */
  @ApiRoute({
    summary: 'Assign an enum to a field, or remove it',
    ok: { description: 'The model table', schema: 'ModelTable' },
    errors: [400, 404, 409, 415],
  })
  @Patch('model/tables/:table/fields/:field')
  async updateField(
    @Param('appId') appId: string,
    @Param('table') table: string,
    @Param('field') field: string,
    @Body() body: UpdateModelFieldDto,
    @CurrentSession() session: PlatformSession,
  ): Promise<ModelTableView> {
    await this.apps.get(appId);
    return this.model.updateField(appId, session.accountId, table, field, body);
  }
}
