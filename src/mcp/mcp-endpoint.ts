import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { toNodeHandler, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { type AuthInfo, createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Response } from 'express';
import { ApiKeyErrors } from '../api-keys/api-keys.errors';
import { Cancellation, ClientDisconnected } from '../common/cancellation';
import { DomainError, ErrorCode } from '../common/domain-error';
import type { ParsedRequest } from '../common/http-request';
import { refusalOf } from '../graphql-gateway/graphql-errors';
import { CallerTarget, GraphqlHttpEndpoint } from '../graphql-gateway/graphql-http-endpoint';
import { refuseKeyInUrl } from '../graphql-gateway/request/graphql-params';
import type { ExecutableSchema } from '../graphql-gateway/schema-provider.service';
import { AppsService, type AppView } from '../platform/apps.service';
import { VersionsService } from '../platform/versions.service';
import { type ApiCatalog, catalogOf } from './api-catalog';
import { mcpServerFor, type McpSession } from './mcp-tools';

/** The version the MCP server reports (`serverInfo.version`): the service's. */
const SERVER_VERSION = '0.1.0';

/** The JSON-RPC error code of a refusal before any MCP message is read (server-defined range). */
const REFUSED = -32000;

/**
 * Whether an `Origin` header may call the app's MCP endpoint (MCP streamable HTTP: servers "MUST
 * validate the Origin header … to prevent DNS rebinding"; present and invalid → 403). No header:
 * not a browser, allowed (integrations and agents send none). Otherwise only a page of the app's
 * own domain (`https://<domain>` or `http://<domain>`, any port); any other origin, `null`
 * included, is refused. Keys travel in a header a rebinding page cannot read, but a browser page
 * that was given a key must still come from the app's own site.
 */
export function originAllowed(origin: string | undefined, app: Pick<AppView, 'domain'>): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  return app.domain !== null && url.hostname.toLowerCase() === app.domain.toLowerCase();
}

/**
 * Refuses a JSON-RPC batch (a JSON array of messages): the 2025-03-26 revision allowed them, the
 * 2025-06-18 one removed them, and the SDK's clients never send one. Each HTTP request counts once
 * against the key's `rateLimitPerMinute`, so a batch would run many tool calls for one count.
 * @throws DomainError INVALID_INPUT (400) for any array body.
 */
export function refuseBatch(body: unknown): void {
  if (Array.isArray(body))
    throw new DomainError(
      ErrorCode.InvalidInput,
      'Send one JSON-RPC message per request: this endpoint takes no batches',
    );
}

/**
 * `POST /api/mcp/:address` (CONTRACT.md §11 "Agents"; README "Agents (MCP)"): the app's MCP
 * endpoint, streamable HTTP and stateless, on the official SDK (`createMcpHandler` of
 * `@modelcontextprotocol/server` 2.x, served to Node by `@modelcontextprotocol/node`; 2025-era
 * clients get its stateless fallback). Before any MCP message is read: no key in the URL (400),
 * the app (404), an `x-api-key` (401: no cookie or bearer is accepted here), the `Origin`
 * ({@link originAllowed}, 403), then the GraphQL request steps 1-5 for that key
 * (`GraphqlHttpEndpoint.callerSchema`: key state, app scope, the key's `rateLimitPerMinute` shared
 * with GraphQL, main version, the key's schema). Each HTTP request then gets its own MCP server
 * ({@link mcpServerFor}) whose tools run GraphQL operations through `GraphqlHttpEndpoint.run`.
 * A refusal here is the HTTP status of the GraphQL endpoint's with a JSON-RPC error body
 * `{jsonrpc, id: null, error: {code: -32000, message, data: {code}}}`.
 */
@Injectable()
export class McpEndpoint implements OnModuleDestroy {
  private readonly logger = new Logger('McpEndpoint');
  /** The tool catalog of each cached schema (schemas are cached and shared by audience). */
  private readonly catalogs = new WeakMap<ExecutableSchema, Promise<ApiCatalog>>();
  private readonly handler: McpHttpHandler;
  private readonly serveNode: NodeMcpRequestHandler;

  constructor(
    private readonly apps: AppsService,
    private readonly versions: VersionsService,
    private readonly gateway: GraphqlHttpEndpoint,
  ) {
    this.handler = createMcpHandler(
      ({ authInfo }) => {
        const session = authInfo?.extra?.session as McpSession | undefined;
        // Only requests that passed serve() reach the handler, each with its session.
        if (!session) throw new Error('MCP request without a session');
        return mcpServerFor(session, SERVER_VERSION);
      },
      {
        // 'auto': one JSON answer, since no tool sends a message before its result.
        onerror: (error) => this.logger.warn(`MCP request refused: ${error.message}`),
      },
    );
    this.serveNode = toNodeHandler(this.handler, {
      onerror: (error) => this.logger.error(`MCP handler failed: ${error.name}`),
    });
  }

  /** Serves one `POST /api/mcp/:address` (Express has read the JSON body). Never throws. */
  async serve(req: ParsedRequest, res: Response, address: string): Promise<void> {
    const abort = new Cancellation();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort(new ClientDisconnected());
    });
    let session: McpSession;
    try {
      refuseBatch(req.body);
      session = await this.sessionOf(req, res, address, abort);
    } catch (error) {
      this.refuse(res, error);
      return;
    }
    const auth: AuthInfo = { token: '', clientId: 'api-key', scopes: [], extra: { session } };
    (req as ParsedRequest & { auth?: AuthInfo }).auth = auth;
    try {
      await this.serveNode(req as never, res as never, req.body);
    } catch (error) {
      this.logger.error(`MCP request failed: ${(error as Error)?.name}`);
      if (!res.headersSent)
        this.refuse(res, new DomainError(ErrorCode.Internal, 'Internal server error'));
    }
  }

  /**
   * Request steps before MCP: key in URL, app, key, Origin, then GraphQL's steps 1-5.
   * @throws DomainError of those steps.
   */
  private async sessionOf(
    req: ParsedRequest,
    res: Response,
    address: string,
    abort: Cancellation,
  ): Promise<McpSession> {
    refuseKeyInUrl(req);
    const find = () => this.apps.findByAddressOrDomain({ address });
    const app = await find();
    if (!app) throw new DomainError(ErrorCode.NotFound, 'App not found');
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key.length === 0) throw ApiKeyErrors.invalid();
    if (!originAllowed(req.headers.origin, app)) {
      throw new DomainError(ErrorCode.Forbidden, 'Origin not allowed');
    }
    const target = await this.gateway.callerSchema(async () => app, req, res);
    const catalog = await this.catalogOf(target);
    const principal = target.caller.kind === 'key' ? target.caller.principal : null;
    return {
      catalog,
      deletes: principal?.mcpDeletes === true,
      run: async ({ text, variables }) =>
        (await this.gateway.run(target, text, variables, abort)).answer,
    };
  }

  /** The catalog of the caller's schema, made once per cached schema. */
  private catalogOf(target: CallerTarget): Promise<ApiCatalog> {
    let catalog = this.catalogs.get(target.executable);
    if (!catalog) {
      catalog = this.versions
        .definition(target.head.versionId)
        .then((def) => catalogOf(target.executable, def.apis));
      catalog.catch(() => this.catalogs.delete(target.executable));
      this.catalogs.set(target.executable, catalog);
    }
    return catalog;
  }

  /** A refusal before MCP: the GraphQL endpoint's status and headers, a JSON-RPC error body. */
  private refuse(res: Response, error: unknown): void {
    if (res.headersSent) return;
    const domain =
      error instanceof DomainError
        ? error
        : new DomainError(ErrorCode.Internal, 'Internal server error');
    if (!(error instanceof DomainError)) {
      this.logger.error(
        `MCP request failed: ${(error as Error)?.name}: ${(error as Error)?.message}`,
      );
    }
    const refusal = refusalOf(domain);
    const code = refusal.body.errors?.[0]?.extensions?.code;
    for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
    res.status(refusal.status).json({
      jsonrpc: '2.0',
      id: null,
      error: { code: REFUSED, message: domain.message, data: { code } },
    });
  }

  /** Ends in-flight MCP exchanges at shutdown. */
  async onModuleDestroy(): Promise<void> {
    await this.handler.close();
  }
}
