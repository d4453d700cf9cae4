import { HeaderMap } from '@apollo/server';
import { Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { scopeForApp } from '../api-keys/api-keys.service';
import { ApiKeyErrors } from '../api-keys/api-keys.errors';
import { DomainError, ErrorCode } from '../common/domain-error';
import { DatasourceConnection } from '../datasources/datasource-pools.service';
import { DatasourcesService } from '../data-model/datasources.service';
import { Access } from '../platform/access.decorator';
import { AppsService, AppView } from '../platform/apps.service';
import { VersionsService } from '../platform/versions.service';
import { CallerResolverService } from './caller-resolver.service';
import type { Caller, GatewayContext } from './gateway-context';
import { refusalOf } from './graphql-errors';
import { SchemaProviderService } from './schema-provider.service';

const KEY_QUERY_PARAMS = ['api_key', 'x-api-key', 'apikey', 'apiKey'];

/**
 * `POST /api/graphql/:address` and `POST /api/graphql` on an app's own domain (CONTRACT.md §6).
 * Only sequences the request path's steps (docs/architecture.md); each step is its own unit.
 */
@Controller('api/graphql')
@Access('public')
export class GraphqlGatewayController {
  constructor(
    private readonly apps: AppsService,
    private readonly versions: VersionsService,
    private readonly callers: CallerResolverService,
    private readonly schemas: SchemaProviderService,
    private readonly datasources: DatasourcesService,
  ) {}

  /** The endpoint by app address. */
  @Post(':address')
  byAddress(
    @Param('address') address: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.handle(() => this.apps.findByAddressOrDomain({ address }), req, res);
  }

  /** The endpoint by `Host` = the app's domain. */
  @Post()
  byHost(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.handle(() => this.apps.findByAddressOrDomain({ domain: req.hostname }), req, res);
  }

  private async handle(
    findApp: () => Promise<AppView | null>,
    req: Request,
    res: Response,
  ): Promise<void> {
    try {
      if (Object.keys(req.query ?? {}).some((k) => KEY_QUERY_PARAMS.includes(k))) {
        throw new DomainError(
          ErrorCode.InvalidInput,
          'API keys travel in the x-api-key header only, never in the URL',
        );
      }
      const app = await findApp();
      if (!app) throw new DomainError(ErrorCode.NotFound, 'App not found');
      const caller = await this.callers.resolve(req);
      if (caller.kind === 'key' && !scopeForApp(caller.principal, app.id))
        throw ApiKeyErrors.projectOutOfScope();
      const head =
        caller.kind === 'builder'
          ? await this.versions.builderHead(app.id, caller.session.accountId)
          : await this.versions.mainHead(app.id);
      if (!head) throw new DomainError(ErrorCode.NotFound, 'App not found');
      const executable = await this.schemas.get(
        head,
        caller.kind === 'builder' ? 'builder' : 'published',
      );
      const result = await executable.server.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: 'POST',
          headers: headerMap(req),
          search: '',
          body: executable.preparer.prepare(req.body),
        },
        context: async () => this.context(app.id, caller),
      });
      res.status(result.status ?? 200);
      for (const [name, value] of result.headers) res.setHeader(name, value);
      if (result.body.kind === 'complete') {
        res.send(result.body.string);
      } else {
        for await (const chunk of result.body.asyncIterator) res.write(chunk);
        res.end();
      }
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const refusal = refusalOf(error);
      for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
      res.status(refusal.status).json(refusal.body);
    }
  }

  private context(appId: string, caller: Caller): GatewayContext {
    const connections = new Map<string, Promise<DatasourceConnection>>();
    return {
      caller,
      appId,
      loaders: new WeakMap(),
      connection: (id) => {
        let conn = connections.get(id);
        if (!conn) {
          conn = this.datasources.connection(id);
          connections.set(id, conn);
        }
        return conn;
      },
    };
  }
}

function headerMap(req: Request): HeaderMap {
  const map = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) map.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return map;
}
