import { Controller, Get, Param, Res, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import { notFound } from '../common/domain-error';
import { ApiRoute } from '../openapi/api-route.decorator';
import { AccountsService } from '../platform/accounts.service';
import { AppsService } from '../platform/apps.service';
import { CurrentSession } from '../platform/current-session.decorator';
import type { PlatformSession } from '../platform/sessions.service';
import { VersionsService } from '../platform/versions.service';
import { BuiltPages } from './built-pages';
import { sqlTestTabDataOf, testTabDataOf } from './page-data';
import { PageErrorFilter } from './page-error.filter';
import { sendPage } from './page-responses';

/**
 * The GraphiQL test tab of a Table API or an SQL API (CONTRACT.md §3, §10; README "SQL APIs"): an HTML page, for builders and
 * administrators signed in with the session cookie, whose GraphiQL calls the app's endpoint as
 * that builder, on their working version (drafts included, described `RASCUNHO`).
 */
@Controller('api/apps/:appId/apis')
@UseFilters(PageErrorFilter)
export class TestTabController {
  constructor(
    private readonly apps: AppsService,
    private readonly versions: VersionsService,
    private readonly accounts: AccountsService,
    private readonly pages: BuiltPages,
  ) {}

  /**
   * `GET /api/apps/:appId/apis/:apiId/test` → the page, with the API's starter query.
   * @throws DomainError NOT_FOUND (app, or API not in the caller's working version); without a
   * session `401`, which {@link PageErrorFilter} turns into a redirect to sign-in for browsers.
   */
  @ApiRoute({
    summary: 'GraphiQL test tab of a Table API or an SQL API (HTML)',
    description:
      'GraphiQL on the app endpoint, running as the signed-in builder against their working version (drafts show as RASCUNHO), with a starter query for the API. A browser without a session is redirected to `/sign-in`; other callers get 401.',
    ok: { description: 'The HTML page (`text/html`)' },
    errors: [404],
  })
  @Get(':apiId/test')
  async show(
    @Param('appId') appId: string,
    @Param('apiId') apiId: string,
    @CurrentSession() session: PlatformSession,
    @Res() res: Response,
  ): Promise<void> {
    const app = await this.apps.get(appId);
    const def = await this.versions.readForBuilder(appId, session.accountId);
    const api = def.apis.find((a) => a.id === apiId);
    // An SQL API shares the id space of Table APIs (a key's scope lists both): same URL.
    const sqlApi = (def.sqlApis ?? []).find((a) => a.id === apiId);
    const testTab = api
      ? testTabDataOf(app, api, def.tables)
      : sqlApi
        ? sqlTestTabDataOf(app, sqlApi)
        : null;
    if (!testTab) throw notFound('API', apiId);
    const account = await this.accounts.find(session.accountId);
    sendPage(res, this.pages.html('test-tab'), { account, testTab });
  }
}
