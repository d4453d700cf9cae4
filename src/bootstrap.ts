import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { RequestListener, Server } from 'node:http';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { HttpErrorFilter } from './common/http-error.filter';
import { limitConnections } from './common/connection-limits';
import { jsonBodiesOnly, sameOriginForCookieSessions } from './common/request-guards';
import { createValidationPipe } from './common/validation.pipe';
import type { AppConfig } from './config/app-config';
import { DemoService } from './demo/demo.service';
import { GraphqlHttpEndpoint } from './graphql-gateway/graphql-http-endpoint';
import { QuietLogger } from './logging/logging';
import { serveOpenApi } from './openapi/openapi';
import { AccountsService } from './platform/accounts.service';
import { SubscriptionsServer } from './subscriptions/subscriptions-server';

/**
 * Creates the configured Nest application (not yet listening): the HTTP server's connection
 * limits, global filter and validation, cookies, the OpenAPI routes when `OPENAPI_PUBLIC`, the
 * first administrator and, with `DEMO=1` on an empty store, the demo app.
 * Used by `main.ts` and by the e2e suites, so tests run the service exactly as it starts.
 */
export async function createApp(
  config: AppConfig,
  options: { logger?: false } = {},
): Promise<NestExpressApplication> {
  const logLevel = options.logger === false ? 'silent' : config.operations.logLevel;
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, logLevel),
    new ExpressAdapter(),
    {
      // Held until pino takes over below, so every line is structured.
      bufferLogs: true,
      // JSON only (CONTRACT.md §2): no urlencoded parser; the JSON one is registered below.
      bodyParser: false,
    },
  );
  app.useLogger(new QuietLogger(app.get(Logger)));
  limitConnections(app.getHttpServer() as Server, config.http);
  // No `X-Powered-By: Express` (issue 22 item 12): nothing to tell an attacker.
  app.disable('x-powered-by');
  serveGraphqlAheadOfExpress(app);
  // Subscriptions: WebSocket upgrades of the GraphQL endpoint's paths (README "Subscriptions").
  app.get(SubscriptionsServer).attach(app.getHttpServer() as Server);
  app.use(jsonBodiesOnly);
  app.use(sameOriginForCookieSessions);
  // A GraphQL query text may be 100 KB (LIMIT_QUERY_BYTES); variables add to it.
  app.useBodyParser('json', { limit: Math.max(1_048_576, config.limits.queryBytes * 2) });
  app.use(cookieParser());
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  // SIGTERM is handled by installGracefulShutdown (main.ts), not enableShutdownHooks().
  app.set('trust proxy', config.operations.trustProxyHops || false);
  // Swagger UI and the document: on by default only outside production (`OPENAPI_PUBLIC`).
  if (config.openApiPublic) serveOpenApi(app);
  await app.init();
  await app.get(AccountsService).ensureFirstAdmin();
  return app;
}

/**
 * Puts the GraphQL endpoint on the HTTP server itself, ahead of Express (ADR 0009): Nest's server
 * calls Express for every request; from here it calls `GraphqlHttpEndpoint.listener`, which
 * answers the endpoint's paths and hands everything else to Express.
 */
function serveGraphqlAheadOfExpress(app: NestExpressApplication): void {
  const server = app.getHttpServer() as Server;
  const express = app.getHttpAdapter().getInstance() as RequestListener;
  server.removeAllListeners('request');
  server.on('request', app.get(GraphqlHttpEndpoint).listener(express));
}

/** Seeds the demo app when configured and the store is empty; returns the key to print, if any. */
export async function seedDemo(
  app: INestApplication,
  config: AppConfig,
): Promise<{ address: string; key: string } | null> {
  return config.demo ? app.get(DemoService).seedIfEmpty() : null;
}
