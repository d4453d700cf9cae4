import { Inject, Injectable, Logger } from '@nestjs/common';
import { json } from 'body-parser';
import cookieParser from 'cookie-parser';
import type { RequestListener, ServerResponse } from 'node:http';
import { PinoLogger } from 'nestjs-pino';
import { storage, Store } from 'nestjs-pino/storage';
import { scopeForApp } from '../api-keys/api-keys.service';
import { ApiKeyErrors } from '../api-keys/api-keys.errors';
import { Cancellation, ClientDisconnected } from '../common/cancellation';
import { DomainError, ErrorCode } from '../common/domain-error';
import {
  addressBucket,
  clientAddress,
  ParsedRequest,
  requestHostname,
  TrustProxy,
  trustProxyHops,
} from '../common/http-request';
import {
  CROSS_SITE_MESSAGE,
  hasBodyOtherThanJson,
  isCrossSiteCookieWrite,
  MEDIA_TYPE_MESSAGE,
} from '../common/request-guards';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatasourceConnection } from '../datasources/datasource-pools.service';
import type { CompiledQuery, StatementResult } from '../datasources/core/dialect';
import { invalidValueField, isInvalidValueError } from '../datasources/core/invalid-value';
import { DatasourcesService } from '../data-model/datasources.service';
import { requestIdOf } from '../logging/logging';
import { MetricsService, OperationKind } from '../metrics/metrics.service';
import { CostBudgetExceeded, CostBudgetsService } from '../rate-limits/cost-budgets.service';
import { RateLimitsService } from '../rate-limits/rate-limits.service';
import { AppsService, AppView } from '../platform/apps.service';
import type { VersionHead } from '../platform/version-definition';
import { VersionsService } from '../platform/versions.service';
import { cachePoliciesBody } from './cache-policies';
import { CallerResolverService } from './caller-resolver.service';
import type { Caller, GatewayContext } from './gateway-context';
import { DatabaseRefusalError, refusalOf } from './graphql-errors';
import { audienceOf, PUBLISHED } from './request/audience';
import {
  CompiledDocument,
  CompiledOperation,
  RequestRefusal,
  selectOperation,
} from './request/compiled-operation';
import { authorizeRootFields } from './request/endpoint-scope';
import {
  coerceRequestVariables,
  executeOperation,
  GraphQLResponse,
} from './request/execute-operation';
import { readGraphQLParams, refuseKeyInUrl } from './request/graphql-params';
import { shareOfPool } from './request/pool-share';
import { RequestBudget } from './request/request-budget';
import { costPoints, requestedPoints } from './request/request-points';
import { mutationDatasource, RequestTransaction } from './request/request-transaction';
import { RowScopes } from './request/row-scopes';
import { ExecutableSchema, SchemaProviderService } from './schema-provider.service';
import { WebhooksService } from '../webhooks/webhooks.service';

/**
 * A request value its column cannot hold or compare with, as the database said (never a 500):
 * `INVALID_VALUE` (CONTRACT.md §6), naming the field where the database said which parameter it
 * was (`invalidValueField`: PostgreSQL), else without one; the driver's error rides along as
 * `cause`, so a write can translate it again and name it.
 */
function invalidValue(driverError: unknown, field: string | null): DatabaseRefusalError {
  return new DatabaseRefusalError(
    {
      code: 'INVALID_VALUE',
      field,
      message: field
        ? `${field} cannot hold or be compared with the value sent: it is malformed or out of range for its type`
        : 'A value in the request does not fit its column (out of range, malformed for its type, or containing a NUL character); check the filter and argument values',
    },
    driverError,
  );
}

/** Who calls which app, as request steps 1-5 found them ({@link GraphqlHttpEndpoint.callerSchema}). */
export interface CallerTarget {
  app: AppView;
  caller: Caller;
  /** The version the caller addresses: a builder's working version, else main. */
  head: VersionHead;
  /** The caller's own schema (its audience's view of `head`). */
  executable: ExecutableSchema;
}

/** The media type of GraphQL-over-HTTP responses, when the client asks for it. */
const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';

/**
 * The endpoint's paths: `/api/graphql` (the app by `Host` = its domain) and
 * `/api/graphql/:address`, matched as Express routes match (case-insensitive, one optional
 * trailing slash); group 1 is the address, still percent-encoded.
 */
const ENDPOINT_PATH = /^\/api\/graphql(?:\/([^/]+))?\/?$/i;

/** Methods the endpoint answers; HEAD as GET (Node writes no body for it). Others: 405. */
const ENDPOINT_METHODS = new Set(['GET', 'HEAD', 'POST']);

/**
 * `GET /api/graphql/:address/cache-policies`: the client-cache configuration of the caller's
 * schema (`cache-policies.ts`), matched as {@link ENDPOINT_PATH}; group 1 is the address. It has
 * no form without an address: `/api/graphql/cache-policies` is the endpoint of the app whose
 * address is `cache-policies` (a valid address), on every host.
 */
const CACHE_POLICIES_PATH = /^\/api\/graphql\/([^/]+)\/cache-policies\/?$/i;

/**
 * The path of a request target: origin-form (`/api/…?…`) or absolute-form
 * (`http://host/api/…`, which HTTP/1.1 servers must accept: RFC 9112 §3.2.2), as Express routes
 * it; `''` for anything else (`*`).
 */
function targetPath(url: string): string {
  if (url.startsWith('/')) return url.split('?', 1)[0];
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/**
 * The refusal for an error of body-parser's `json()` (`http-errors` with `status` and `type`):
 * never its own message, which may quote the body (and so a secret).
 */
function bodyRefusal(error: { status?: number; type?: string }): RequestRefusal {
  if (error.status === 413) {
    return RequestRefusal.of(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large');
  }
  if (error.type === 'entity.parse.failed') {
    return RequestRefusal.of(400, 'BAD_REQUEST', 'The request body is not valid JSON');
  }
  // An unsupported charset or content encoding (body-parser answers 415 for both).
  if (error.status === 415) return RequestRefusal.of(415, 'BAD_REQUEST', MEDIA_TYPE_MESSAGE);
  const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 400;
  return RequestRefusal.of(status, 'BAD_REQUEST', 'The request body could not be read');
}

/**
 * `POST|GET /api/graphql/:address` and the same on an app's own domain (CONTRACT.md §6), served
 * by {@link GraphqlHttpEndpoint.listener} on the HTTP server itself (`createApp`), ahead of
 * Express, the Nest router and the REST middlewares: the endpoint reads its own body
 * (body-parser's `json()`, with the REST limit), cookies (only when sent), client address and
 * host (as Express would, honouring `TRUST_PROXY`), request id and log line (the same pino logger
 * and line as every other request), and refuses other media types and cross-site cookie writes
 * with the shared rules of `common/request-guards.ts` (ADR 0009). Only sequences
 * the request path's steps (DESIGN.md, docs/architecture.md); each step is its own unit under
 * `request/`.
 */
@Injectable()
export class GraphqlHttpEndpoint {
  private readonly logger = new Logger('GraphqlHttpEndpoint');
  private readonly readJsonBody: ReturnType<typeof json>;
  private readonly readCookies = cookieParser();
  private readonly trust: TrustProxy;

  constructor(
    private readonly apps: AppsService,
    private readonly versions: VersionsService,
    private readonly callers: CallerResolverService,
    private readonly schemas: SchemaProviderService,
    private readonly datasources: DatasourcesService,
    private readonly rateLimits: RateLimitsService,
    private readonly costBudgets: CostBudgetsService,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly webhooks: WebhooksService,
  ) {
    // A GraphQL query text may be 100 KB (LIMIT_QUERY_BYTES); variables add to it.
    this.readJsonBody = json({ limit: Math.max(1_048_576, config.limits.queryBytes * 2) });
    this.trust = trustProxyHops(config.operations.trustProxyHops);
  }

  /**
   * The HTTP server's request listener: answers every request to the endpoint's paths (GET, HEAD
   * and POST; other methods `405` with `allow: GET, POST`, after the key-in-URL refusal) and to
   * its cache policies ({@link CACHE_POLICIES_PATH}: GET and HEAD, else `405` with `allow: GET`),
   * and hands anything else to `rest` (Express). Never throws: an error no step expected is logged
   * (name and message) and answered 500 with a GraphQL error.
   */
  listener(rest: RequestListener): RequestListener {
    return (incoming, res) => {
      const req = incoming as ParsedRequest;
      const path = targetPath(req.url ?? '');
      const match = ENDPOINT_PATH.exec(path);
      const policies = match ? null : CACHE_POLICIES_PATH.exec(path);
      if (match) this.answer(req, res, match[1]);
      else if (policies) this.answer(req, res, policies[1], true);
      else rest(incoming, res);
    };
  }

  /** Request id, log line and error net around {@link serve}. */
  private answer(
    req: ParsedRequest,
    res: ServerResponse,
    encodedAddress: string | undefined,
    cachePolicies = false,
  ) {
    const id = requestIdOf(req, res);
    const fields = { id, method: req.method, url: req.url };
    const log = PinoLogger.root.child({ req: fields });
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const responseTime = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
      const level = res.statusCode >= 500 ? 'error' : 'info';
      this.requestLines()[level]({ req: fields, res, responseTime }, 'request completed');
    });
    storage.run(new Store(log), () => {
      this.serve(req, res, encodedAddress, cachePolicies).catch((error: unknown) => {
        this.logger.error(
          `Unhandled ${(error as Error)?.name ?? 'error'}: ${(error as Error)?.message}`,
        );
        const internal = RequestRefusal.of(500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
        this.send(req, res, internal.status, { errors: internal.errors });
      });
    });
  }

  /**
   * The logger of the `request completed` lines: the root logger with its serializers (`req` →
   * id, method, path without query string; `res` → status) and without its redaction. The line
   * is the same as a child logger's with `req` bound; it carries only those fields, none of which
   * the redaction names, and redacting it cost ~10 µs per request (measured, pino 10). Every
   * other line of the request goes through the redacting child.
   */
  private requestLines(): PinoLogger['logger'] {
    this.unredacted ??= PinoLogger.root.child({}, { redact: [] });
    return this.unredacted;
  }

  private unredacted: PinoLogger['logger'] | undefined;

  /**
   * Reads what the HTTP layer owns (media type, origin, body, cookies), then {@link handle}, or
   * {@link serveCachePolicies} for `cachePolicies`.
   */
  private async serve(
    req: ParsedRequest,
    res: ServerResponse,
    encodedAddress: string | undefined,
    cachePolicies = false,
  ) {
    let address: string | undefined;
    try {
      if (cachePolicies && req.method !== 'GET' && req.method !== 'HEAD') {
        refuseKeyInUrl(req);
        res.setHeader('allow', 'GET');
        throw RequestRefusal.of(405, 'BAD_REQUEST', 'Cache policies are read with GET');
      }
      if (!ENDPOINT_METHODS.has(req.method ?? '')) {
        refuseKeyInUrl(req);
        res.setHeader('allow', 'GET, POST');
        throw RequestRefusal.of(405, 'BAD_REQUEST', 'The GraphQL endpoint takes GET and POST');
      }
      if (hasBodyOtherThanJson(req))
        throw RequestRefusal.of(415, 'BAD_REQUEST', MEDIA_TYPE_MESSAGE);
      if (isCrossSiteCookieWrite(req, true))
        throw RequestRefusal.of(403, 'FORBIDDEN', CROSS_SITE_MESSAGE);
      address = encodedAddress === undefined ? undefined : decodeURIComponent(encodedAddress);
      if (req.method === 'POST') await this.readBody(req, res);
      if (req.headers.cookie) await this.parseCookies(req, res);
    } catch (error) {
      // An address that is not valid percent-encoding names no app.
      const refusal =
        error instanceof URIError ? new DomainError(ErrorCode.NotFound, 'App not found') : error;
      if (!this.sendRefusal(req, res, refusal)) throw error;
      return;
    }
    const findApp =
      address === undefined
        ? () => this.apps.findByAddressOrDomain({ domain: requestHostname(req, this.trust) ?? '' })
        : () => this.apps.findByAddressOrDomain({ address });
    if (cachePolicies) await this.serveCachePolicies(findApp, req, res);
    else await this.handle(findApp, req, res);
  }

  /** body-parser's `json()` on the request: `req.body` set, or a {@link bodyRefusal}. */
  private readBody(req: ParsedRequest, res: ServerResponse): Promise<void> {
    return new Promise((resolve, reject) => {
      this.readJsonBody(req, res, (error?: unknown) => {
        if (error) reject(bodyRefusal(error as { status?: number; type?: string }));
        else resolve();
      });
    });
  }

  /** cookie-parser on the request: `req.cookies` for the platform session cookie. */
  private parseCookies(req: ParsedRequest, res: ServerResponse): Promise<void> {
    // cookie-parser reads only `headers.cookie` and `secret`, and sets `cookies`.
    const parse = this.readCookies as unknown as (
      req: ParsedRequest,
      res: ServerResponse,
      next: (error?: unknown) => void,
    ) => void;
    return new Promise((resolve, reject) => {
      parse(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
    });
  }

  private async handle(
    findApp: () => Promise<AppView | null>,
    req: ParsedRequest,
    res: ServerResponse,
  ): Promise<void> {
    // Fires when the client leaves before the answer is written: its statements are cancelled.
    const abort = new Cancellation();
    const started = process.hrtime.bigint();
    let appId: string | null = null;
    let kind: OperationKind = 'unknown';
    res.once('close', () => {
      if (!res.writableFinished) abort.abort(new ClientDisconnected());
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.request(appId, kind, res.statusCode, seconds);
    });
    try {
      refuseKeyInUrl(req);
      const params = readGraphQLParams(req);
      const { app, caller, head, executable } = await this.callerSchema(findApp, req, res, (id) => {
        appId = id;
      });
      const compiled = await this.compileFor(executable, head, caller, app.id, params.query);
      const operation = selectOperation(compiled, params.operationName);
      kind = operation.kind;
      if (req.method !== 'POST' && operation.kind !== 'query') {
        res.setHeader('allow', 'POST');
        throw RequestRefusal.of(405, 'BAD_REQUEST', 'Mutations are sent with POST, never GET');
      }
      const target = { app, caller, head, executable };
      const answer = await this.execute(target, compiled, operation, params.variables, abort);
      this.send(req, res, 200, answer);
    } catch (error) {
      if (!this.sendRefusal(req, res, error)) throw error;
    }
  }

  /**
   * Request steps 6-8 of a query text for a caller whose steps 1-5 ran ({@link callerSchema}), for
   * another entry point that speaks for the same caller (the MCP endpoint, `src/mcp/`): compile in
   * the caller's schema, the one operation of the text, then {@link execute}. The same units and
   * refusals as a GraphQL request, so key scope, drafts, row rules, limits and deadlines apply
   * exactly as on `/api/graphql`.
   * @returns the GraphQL answer (execution errors in `errors[]`) and the operation's kind.
   * @throws RequestRefusal (compile, variables, limits) or DomainError (endpoint scope).
   */
  async run(
    target: CallerTarget,
    text: string,
    variables: Record<string, unknown>,
    abort: Cancellation,
  ): Promise<{ kind: OperationKind; answer: GraphQLResponse }> {
    const { app, caller, head, executable } = target;
    const compiled = await this.compileFor(executable, head, caller, app.id, text);
    const operation = selectOperation(compiled, undefined);
    const answer = await this.execute(target, compiled, operation, variables, abort);
    return { kind: operation.kind, answer };
  }

  /**
   * Request steps 6b-8 of a compiled operation: endpoint scope per root field, one datasource for
   * a request's mutations, variables, cost ceilings, then execution in a fresh request context
   * (budget, row scopes, pool share, transaction).
   * @throws RequestRefusal or DomainError of those steps; execution errors are in the answer.
   */
  private async execute(
    { app, caller, executable }: CallerTarget,
    compiled: CompiledDocument,
    operation: CompiledOperation,
    rawVariables: Record<string, unknown>,
    abort: Cancellation,
  ): Promise<GraphQLResponse> {
    authorizeRootFields(caller, app.id, operation.rootFieldNames, executable.rootFields);
    // A request's mutations are one transaction on one database: refused before any SQL else.
    const writes =
      operation.kind === 'mutation'
        ? mutationDatasource(
            operation.rootFieldNames,
            (name) => executable.rootFields.get(name)?.datasourceId,
          )
        : null;
    const variables = coerceRequestVariables(executable.schema, operation, rawVariables);
    const cost = operation.cost(variables.values, this.config.limits);
    // A key's cost budget pays for the estimate before any SQL (README "Cost budgets").
    const mutationFields = operation.kind === 'mutation' ? operation.fields.length : 0;
    const charge =
      caller.kind === 'key'
        ? await this.costBudgets.charge(
            `key:${caller.principal.keyId}`,
            caller.principal.pointsPerMinute,
            requestedPoints(cost, mutationFields),
          )
        : null;
    const context = this.context(app.id, caller, abort, executable, cost.statements, writes);
    const settle = () =>
      this.costBudgets.settle(
        charge!,
        costPoints(context.budget.rowsRead, cost.scanned, mutationFields),
      );
    let answer: GraphQLResponse;
    try {
      answer = await executeOperation(executable.schema, compiled, operation, variables, context);
    } catch (error) {
      if (charge) await settle();
      throw error;
    }
    if (!charge) return answer;
    return { ...answer, extensions: { ...answer.extensions, cost: await settle() } };
  }

  /**
   * Request steps 1-5, for the endpoint and its cache policies alike: the app (404), the caller
   * (key, builder session, app user or anonymous; 401), a key's app scope (403), the throttle
   * (429 with `retry-after`; sets `RateLimit-*`), the version head the caller addresses (a
   * builder's working version, else main) and its schema for the caller's audience (503
   * `API_UNAVAILABLE`). `found` learns the app's id once the app is found. Public for the MCP
   * endpoint (`src/mcp/`), whose keyed calls count against the same `rateLimitPerMinute`.
   * @throws DomainError of those steps.
   */
  async callerSchema(
    findApp: () => Promise<AppView | null>,
    req: ParsedRequest,
    res: ServerResponse,
    found: (appId: string) => void = () => undefined,
  ): Promise<CallerTarget> {
    const app = await findApp();
    if (!app) throw new DomainError(ErrorCode.NotFound, 'App not found');
    found(app.id);
    const caller = await this.callers.resolve(req, app.id);
    if (caller.kind === 'key' && !scopeForApp(caller.principal, app.id)) {
      throw ApiKeyErrors.projectOutOfScope();
    }
    await this.throttle(caller, app.id, req, res);
    const head =
      caller.kind === 'builder'
        ? await this.versions.builderHead(app.id, caller.session.accountId)
        : await this.versions.mainHead(app.id);
    if (!head) throw new DomainError(ErrorCode.NotFound, 'App not found');
    const executable = await this.schemas.get(head, audienceOf(caller, app.id));
    return { app, caller, head, executable };
  }

  /**
   * `GET /api/graphql/:address/cache-policies` (README "Calling it from an integration"): the
   * client-cache configuration of the schema the caller would call (`cache-policies.ts`, computed
   * once per cached schema), as JSON `{possibleTypes, typePolicies, entities}`, after the same
   * steps and refusals as a GraphQL request up to its schema ({@link callerSchema}; a key's call
   * counts against its `rateLimitPerMinute`). Not counted as a GraphQL request in the metrics.
   */
  private async serveCachePolicies(
    findApp: () => Promise<AppView | null>,
    req: ParsedRequest,
    res: ServerResponse,
  ): Promise<void> {
    try {
      refuseKeyInUrl(req);
      const { head, executable } = await this.callerSchema(findApp, req, res);
      const body = await cachePoliciesBody(executable, () =>
        this.versions.definition(head.versionId),
      );
      if (res.headersSent) return;
      res.statusCode = 200;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(body);
    } catch (error) {
      if (!this.sendRefusal(req, res, error)) throw error;
    }
  }

  /**
   * Answers a refusal of any step: a `RequestRefusal` as it is, a `DomainError` through
   * `refusalOf()` (status, headers such as `retry-after`, GraphQL error body).
   * @returns false when `error` is neither (the caller rethrows it).
   */
  private sendRefusal(req: ParsedRequest, res: ServerResponse, error: unknown): boolean {
    if (error instanceof RequestRefusal) {
      this.send(req, res, error.status, { errors: error.errors });
      return true;
    }
    if (error instanceof DomainError) {
      const refusal = refusalOf(error);
      for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
      // A refusal of the cost budget still tells the key where its budget stands.
      const body =
        error instanceof CostBudgetExceeded
          ? { ...refusal.body, extensions: { cost: error.report } }
          : refusal.body;
      this.send(req, res, refusal.status, body);
      return true;
    }
    return false;
  }

  /**
   * Request step 4 (CONTRACT.md §6 429): a key is counted against its own `rateLimitPerMinute`,
   * an anonymous caller per client address (an IPv6 one by its /64) and app
   * (`ANONYMOUS_RATE_LIMIT_PER_MINUTE`), an app user per user (`APP_USER_RATE_LIMIT_PER_MINUTE`);
   * builders are not throttled here. Sets the `RateLimit-*` headers.
   * @throws DomainError TOO_MANY_REQUESTS (429) with `retry-after`.
   */
  private async throttle(caller: Caller, appId: string, req: ParsedRequest, res: ServerResponse) {
    let headers: Record<string, string>;
    if (caller.kind === 'key') {
      headers = await this.rateLimits.consume({
        bucket: `key:${caller.principal.keyId}`,
        limit: caller.principal.rateLimitPerMinute,
        caller: 'key',
      });
    } else if (caller.kind === 'anonymous') {
      headers = await this.rateLimits.consume({
        bucket: `anonymous:${appId}:${addressBucket(clientAddress(req, this.trust))}`,
        limit: this.config.operations.anonymousRateLimitPerMinute,
        caller: 'anonymous',
      });
    } else if (caller.kind === 'app-user') {
      headers = await this.rateLimits.consume({
        bucket: `app-user:${caller.user.userId}`,
        limit: this.config.operations.appUserRateLimitPerMinute,
        caller: 'app-user',
      });
    } else {
      return;
    }
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  }

  /**
   * The compiled document in the caller's own schema. A document that does not compile there but
   * does against every published operation calls something outside the caller's view: it gets
   * the contract's 401/403 of the endpoint-scope step rather than a validation error, and the
   * validation error never names operations the caller cannot see (CONTRACT.md §6).
   * @throws RequestRefusal, or DomainError from the endpoint-scope step.
   */
  private async compileFor(
    executable: ExecutableSchema,
    head: VersionHead,
    caller: Caller,
    appId: string,
    text: string,
  ): Promise<CompiledDocument> {
    try {
      return this.schemas.compile(executable, text);
    } catch (refusal) {
      const insideEveryView =
        executable.audience === 'builder' || executable.audience === PUBLISHED.key;
      if (!(refusal instanceof RequestRefusal) || insideEveryView) throw refusal;
      const published = await this.schemas.get(head, PUBLISHED);
      let outside: CompiledDocument;
      try {
        outside = this.schemas.compile(published, text);
      } catch {
        throw refusal;
      }
      for (const operation of outside.operations) {
        authorizeRootFields(caller, appId, operation.rootFieldNames, published.rootFields);
      }
      throw refusal;
    }
  }

  /** Writes a GraphQL answer as JSON, in the media type the client asked for. */
  private send(
    req: ParsedRequest,
    res: ServerResponse,
    status: number,
    body: GraphQLResponse,
  ): void {
    if (res.headersSent) return;
    const accept = req.headers.accept ?? '';
    const type = accept.includes(GRAPHQL_RESPONSE_JSON)
      ? GRAPHQL_RESPONSE_JSON
      : 'application/json';
    res.statusCode = status;
    res.setHeader('content-type', `${type}; charset=utf-8`);
    res.end(JSON.stringify(body));
  }

  private context(
    appId: string,
    caller: Caller,
    abort: Cancellation,
    rules: Pick<ExecutableSchema, 'permissions' | 'model'>,
    statements: number,
    writes: string | null = null,
  ): GatewayContext {
    const budget = new RequestBudget(this.config.limits, abort);
    const connections = new Map<string, Promise<DatasourceConnection>>();
    const signal = abort;
    // A mutation request's statements on the datasource it writes all run in one transaction.
    const transaction = writes === null ? undefined : new RequestTransaction();
    return {
      caller,
      appId,
      budget,
      scopes: new RowScopes(rules.permissions, caller, rules.model),
      loaders: new WeakMap(),
      ...(transaction && { transaction, changes: this.webhooks.capture(appId, caller) }),
      connection: (id) => {
        let conn = connections.get(id);
        if (!conn) {
          conn = this.datasources.connection(id).then((inner) => {
            // Every statement of the request: refused once the request is aborted or over budget,
            // cancelled with it, its bad-value errors answered as such, its rows charged (as they
            // arrive, by the pool, when `chargedByPool`; else here, once the statement answered).
            const guarded =
              (run: (query: CompiledQuery) => Promise<StatementResult>, chargedByPool = false) =>
              async (query: CompiledQuery): Promise<StatementResult> => {
                if (budget.exceeded) throw budget.exceeded;
                signal.throwIfAborted();
                let result: StatementResult;
                const started = process.hrtime.bigint();
                try {
                  result = await run(query);
                } catch (error) {
                  if (isInvalidValueError(inner.dialect.type, error)) {
                    throw invalidValue(error, invalidValueField(inner.dialect.type, error, query));
                  }
                  throw error;
                } finally {
                  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
                  this.metrics.statement(inner.dialect.type, seconds);
                }
                if (!chargedByPool) budget.charge(result.rows);
                return result;
              };
            // A query-kind SQL API's read-only transaction (README "SQL APIs"): its statements
            // guarded, cancelled and charged as every other.
            const readOnlyOf =
              (conn: DatasourceConnection): DatasourceConnection['readOnly'] =>
              (work) =>
                conn.readOnly((run) =>
                  work(guarded((query) => run(query, { signal, rows: budget }), true)),
                );
            if (transaction && id === writes) {
              // One connection for the whole request: the pool share does not apply.
              const inTransaction = guarded(async (query) => (await transaction.run(inner))(query));
              return {
                dialect: inner.dialect,
                run: inTransaction,
                transaction: (work) => work(inTransaction),
                readOnly: readOnlyOf(inner),
              };
            }
            // At most a quarter of the pool at a time for this request; a transaction is one
            // statement here (it holds one connection), its own statements run inside it.
            const poolSize = this.config.datasources.poolSize;
            return {
              dialect: inner.dialect,
              run: shareOfPool(
                poolSize,
                statements,
                guarded((query) => inner.run(query, { signal, rows: budget }), true),
              ),
              transaction: shareOfPool(poolSize, statements, (work) =>
                inner.transaction((run) => work(guarded(run))),
              ),
              readOnly: shareOfPool(poolSize, statements, readOnlyOf(inner)),
            };
          });
          connections.set(id, conn);
        }
        return conn;
      },
    };
  }
}
