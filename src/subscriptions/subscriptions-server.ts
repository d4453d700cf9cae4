import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import {
  type ExecutionArgs,
  getNamedType,
  GraphQLError,
  GraphQLObjectType,
  type OperationDefinitionNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Context, SubscribeMessage } from 'graphql-ws';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { rowScope } from '../app-access/row-rules';
import { DomainError, ErrorCode } from '../common/domain-error';
import { ParsedRequest, requestHostname, trustProxyHops } from '../common/http-request';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ALL_ROWS, type Condition } from '../datasources/core/dialect';
import { EventsService } from '../events/events.service';
import { CLOSE_LONG_LIVED } from '../graceful-shutdown';
import type { Caller } from '../graphql-gateway/gateway-context';
import { GRAPHQL_CODE_OF } from '../graphql-gateway/graphql-errors';
import { CallerTarget, GraphqlHttpEndpoint } from '../graphql-gateway/graphql-http-endpoint';
import { RequestRefusal, selectOperation } from '../graphql-gateway/request/compiled-operation';
import { authorizeRootFields } from '../graphql-gateway/request/endpoint-scope';
import { rolesOf } from '../graphql-gateway/request/row-scopes';
import { refuseKeyInUrl } from '../graphql-gateway/request/graphql-params';
import { SchemaProviderService } from '../graphql-gateway/schema-provider.service';
import { AppsService } from '../platform/apps.service';
import { ChangeFeedService, QUEUE_CAPACITY, Unlisten } from './change-feed.service';
import { checkEvaluable, filterCondition, Unevaluable } from './change-filter';
import { ChangeQueue } from './change-queue';
import type { ChangePayload, ChangeStreamRequest, SubscriptionContext } from './subscription-field';

/**
 * graphql-ws's `useServer` for `ws`: published only under the `graphql-ws/use/ws` export, which
 * TypeScript's `moduleResolution: node` of this project cannot resolve; Node resolves it at run
 * time, and the types are those of the same file.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { useServer } = require('graphql-ws/use/ws') as typeof import('graphql-ws/dist/use/ws');

/** Largest WebSocket message taken, in bytes: a subscribe's query text and variables. */
export const MAX_MESSAGE_BYTES = 256 * 1024;
/** Milliseconds a socket has to send `connection_init` (then 4408, graphql-ws). */
export const INIT_TIMEOUT_MS = 5_000;
/** Subscriptions one connection may hold open at once. */
export const MAX_PER_CONNECTION = 25;
/** Subscriptions one API key (or one app user) may hold open at once, across connections and instances. */
export const MAX_PER_KEY = 100;
/** How often an open connection's caller is resolved again (key revoked, token expired). */
const RECHECK_MS = 60_000;
/** Longest credential value taken from `connection_init`. */
const MAX_CREDENTIAL_CHARS = 4_096;

/** The endpoint's paths, as `GraphqlHttpEndpoint` matches them; group 1 is the address. */
const ENDPOINT_PATH = /^\/api\/graphql(?:\/([^/]+))?\/?$/i;

/** What one WebSocket connection holds: its request, credentials and open subscriptions. */
interface Connection {
  request: IncomingMessage;
  /** The credentials of `connection_init`, as request headers. */
  headers: Record<string, string>;
  /** Per operation id: the key place it holds (null for other callers) and its queue. */
  operations: Map<string, { place: string | null; queue: ChangeQueue<ChangePayload> | null }>;
  timer: NodeJS.Timeout | null;
  socket: WebSocket;
  /** Who the caller is and what bounds their rows, as {@link accessOf} writes it at connect. */
  access: string;
  /** `key:<id>` or `user:<id>`: whose revocation or change rechecks this connection at once. */
  holder: string | null;
}

type Extra = { socket: WebSocket; request: IncomingMessage; connection?: Connection };
type WsContext = Context<Record<string, unknown> | undefined, Extra>;
type Params = Record<string, unknown> | undefined;

/** A GraphQL error with the contract's code. */
function errorOf(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/** The refusal of a request step as GraphQL errors (no stack, no SQL: messages are the contract's). */
function errorsOf(error: unknown): GraphQLError[] {
  if (error instanceof RequestRefusal)
    return error.errors.map((e) => new GraphQLError(e.message, { extensions: e.extensions }));
  if (error instanceof DomainError) return [errorOf(error.message, GRAPHQL_CODE_OF[error.code])];
  if (error instanceof Unevaluable) return [errorOf(error.message, 'BAD_USER_INPUT')];
  throw error;
}

/**
 * What a caller's subscriptions depend on: who they are and the roles and attributes their row
 * rules read. A connection whose caller resolves to another value later is closed.
 */
function accessOf(caller: Caller): string {
  const holder = holderOf(caller);
  return JSON.stringify([caller.kind, holder, rolesOf(caller)]);
}

/** The key or app user a connection's events concern; null for builders and anonymous callers. */
function holderOf(caller: Caller): string | null {
  if (caller.kind === 'key') return `key:${caller.principal.keyId}`;
  if (caller.kind === 'app-user') return `user:${caller.user.userId}`;
  return null;
}

/**
 * GraphQL subscriptions over WebSocket (issue 28 item 2, README "Subscriptions"): the
 * `graphql-transport-ws` protocol of `graphql-ws` (its `useServer` on a `ws` server) on the app's
 * endpoint `/api/graphql/<address>` (and `/api/graphql` on the app's domain), upgraded on the
 * HTTP server itself. The caller is resolved from `connection_init.payload` (`x-api-key`, or
 * `authorization: Bearer …`), never from the URL or cookies, exactly as an HTTP request's
 * (`GraphqlHttpEndpoint.callerSchema`: key scope, throttle, version, audience); refusals close the
 * socket with 4403 and the reason (4429 when throttled). Each `subscribe` goes through the same
 * steps again, then the HTTP endpoint's document limits and endpoint scope; open subscriptions
 * are bounded per connection ({@link MAX_PER_CONNECTION}) and per key ({@link MAX_PER_KEY});
 * messages by {@link MAX_MESSAGE_BYTES}; `connection_init` by {@link INIT_TIMEOUT_MS}.
 */
@Injectable()
export class SubscriptionsServer implements OnModuleDestroy {
  private readonly logger = new Logger('Subscriptions');
  private wss: WebSocketServer | null = null;
  private readonly unsubscribeEvents: (() => void)[] = [];
  /** Open connections per {@link holderOf}, for rechecking them when their key or user changes. */
  private readonly byHolder = new Map<string, Set<Connection>>();

  constructor(
    private readonly endpoint: GraphqlHttpEndpoint,
    private readonly schemas: SchemaProviderService,
    private readonly apps: AppsService,
    private readonly feed: ChangeFeedService,
    events: EventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.unsubscribeEvents.push(
      events.on('ModelChanged', ({ versionId }) => this.feed.versionChanged(versionId)),
      // A revoked key or a changed app user ends its connections at once, before the change is
      // answered on this instance: their subscriptions were bound to what it was.
      events.on('ApiKeyRevoked', ({ keyId }) =>
        this.endHolder(`key:${keyId}`, 'This API key was revoked'),
      ),
      events.on('AppUserChanged', ({ userId }) =>
        this.endHolder(
          `user:${userId}`,
          'Your roles, attributes or sign-in changed: connect again to subscribe under them',
        ),
      ),
    );
  }

  /**
   * Serves WebSocket upgrades of the endpoint's paths on `server`; any other upgrade is answered
   * 404 and closed. Closes every socket when the server stops ({@link CLOSE_LONG_LIVED}).
   */
  attach(server: Server): void {
    const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
    this.wss = wss;
    useServer<Params, { connection: Connection }>(
      {
        connectionInitWaitTimeout: INIT_TIMEOUT_MS,
        onConnect: (ctx) => this.connect(ctx),
        onSubscribe: (ctx, id, payload) => this.subscribe(ctx, id, payload),
        onComplete: (ctx, id) => this.finish(ctx.extra.connection, id),
        onClose: (ctx) => this.closed(ctx.extra.connection),
      },
      wss,
    );
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (request.url ?? '').split('?', 1)[0];
      let refusal: string | null = ENDPOINT_PATH.test(path) ? null : '404 Not Found';
      try {
        refuseKeyInUrl(request as ParsedRequest);
      } catch {
        refusal = '400 Bad Request';
      }
      if (refusal) {
        socket.end(`HTTP/1.1 ${refusal}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
    });
    server.on(CLOSE_LONG_LIVED, () => this.closeAll());
  }

  /** Closes every socket with 1001 "Going away" (the client reconnects to another instance). */
  closeAll(): void {
    for (const client of this.wss?.clients ?? []) client.close(1001, 'Going away');
  }

  onModuleDestroy(): void {
    this.unsubscribeEvents.forEach((off) => off());
    this.closeAll();
    this.wss?.close();
  }

  /** The caller's credentials from `connection_init.payload`, as the request headers that carry them. */
  private credentials(params: Record<string, unknown> | undefined): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(params ?? {})) {
      const lower = name.toLowerCase();
      if (lower !== 'x-api-key' && lower !== 'authorization') continue;
      if (typeof value !== 'string' || value.length > MAX_CREDENTIAL_CHARS)
        throw new DomainError(ErrorCode.Unauthenticated, `${lower} must be text`);
      headers[lower] = value;
    }
    return headers;
  }

  /**
   * Request steps 1-5 of `GraphqlHttpEndpoint.callerSchema` for a connection: the upgrade
   * request (address, host, client address) with only the `connection_init` credentials as its
   * authentication headers (no cookie: a page of another site cannot open a socket as its
   * visitor).
   */
  private target(connection: Connection): Promise<CallerTarget> {
    const { request, headers } = connection;
    const req = Object.create(request) as ParsedRequest;
    const kept = Object.fromEntries(
      Object.entries(request.headers).filter(
        ([name]) => !['cookie', 'authorization', 'x-api-key', 'x-view-as-user'].includes(name),
      ),
    );
    Object.defineProperty(req, 'headers', { value: { ...kept, ...headers } });
    const match = ENDPOINT_PATH.exec((request.url ?? '').split('?', 1)[0]);
    const encoded = match?.[1];
    const trust = trustProxyHops(this.config.operations.trustProxyHops);
    const findApp = async () => {
      if (encoded === undefined)
        return this.apps.findByAddressOrDomain({ domain: requestHostname(req, trust) ?? '' });
      let address: string;
      try {
        address = decodeURIComponent(encoded);
      } catch {
        return null;
      }
      return this.apps.findByAddressOrDomain({ address });
    };
    const res = { setHeader: () => undefined, headersSent: false } as unknown as ServerResponse;
    return this.endpoint.callerSchema(findApp, req, res);
  }

  /** `connection_init`: resolves the caller; refusals close the socket with their reason. */
  private async connect(ctx: WsContext): Promise<boolean> {
    const socket = ctx.extra.socket;
    try {
      const connection: Connection = {
        request: ctx.extra.request,
        headers: this.credentials(ctx.connectionParams),
        operations: new Map(),
        timer: null,
        socket,
        access: '',
        holder: null,
      };
      const { caller } = await this.target(connection);
      connection.access = accessOf(caller);
      connection.holder = holderOf(caller);
      ctx.extra.connection = connection;
      if (connection.holder) {
        const open = this.byHolder.get(connection.holder) ?? new Set<Connection>();
        open.add(connection);
        this.byHolder.set(connection.holder, open);
      }
      connection.timer = setInterval(() => void this.recheck(connection), RECHECK_MS);
      connection.timer.unref();
      return true;
    } catch (error) {
      this.refuse(socket, error);
      return false;
    }
  }

  /**
   * Resolves a connection's caller again: a refusal (key revoked, user disabled, token expired)
   * closes it with its reason, and so does a caller whose roles or attributes changed, since its
   * open subscriptions were bound to the old ones (4403: connect again to subscribe under them).
   */
  private async recheck(connection: Connection): Promise<void> {
    try {
      const { caller } = await this.target(connection);
      if (accessOf(caller) !== connection.access)
        connection.socket.close(
          4403,
          'Your roles or attributes changed: connect again to subscribe under them',
        );
    } catch (error) {
      this.refuse(connection.socket, error);
    }
  }

  /** Closes every open connection of a key or app user with 4403 and `reason` (an event said it changed). */
  private endHolder(holder: string, reason: string): void {
    for (const connection of this.byHolder.get(holder) ?? []) connection.socket.close(4403, reason);
  }

  /** Closes `socket` for a refused caller: 4429 when throttled, else 4403, with the message. */
  private refuse(socket: WebSocket, error: unknown): void {
    const known = error instanceof DomainError || error instanceof RequestRefusal;
    if (!known) this.logger.error(`Connection refused: ${(error as Error)?.name ?? 'error'}`);
    const throttled = error instanceof DomainError && error.code === ErrorCode.TooManyRequests;
    const reason = known ? (error as Error).message : 'Internal server error';
    // A close reason holds at most 123 bytes (RFC 6455 §5.5).
    socket.close(throttled ? 4429 : 4403, Buffer.from(reason).subarray(0, 120).toString());
  }

  /**
   * `subscribe`: the caller again (throttle, a version change), then the document in its schema
   * with the HTTP endpoint's limits, one subscription operation, endpoint scope, columns only,
   * and a place among the connection's and the key's open subscriptions.
   * @returns the execution arguments, or the refusal as GraphQL errors (an `error` message).
   */
  private async subscribe(
    ctx: WsContext,
    id: string,
    payload: SubscribeMessage['payload'],
  ): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const connection = ctx.extra.connection;
    if (!connection) return [errorOf('The connection is not initialised', 'UNAUTHENTICATED')];
    if (connection.operations.size >= MAX_PER_CONNECTION)
      return [
        errorOf(
          `This connection has ${MAX_PER_CONNECTION} subscriptions open, the most one connection may hold; complete one first`,
          'TOO_MANY_REQUESTS',
        ),
      ];
    let target: CallerTarget;
    let operationNode: OperationDefinitionNode;
    let document: ExecutionArgs['document'];
    try {
      target = await this.target(connection);
      const compiled = this.schemas.compile(target.executable, payload.query);
      const operation = selectOperation(compiled, payload.operationName ?? undefined);
      if (operation.kind !== 'subscription')
        return [
          errorOf(
            'This WebSocket serves subscriptions only: send queries and mutations with POST to the same address',
            'BAD_REQUEST',
          ),
        ];
      authorizeRootFields(
        target.caller,
        target.app.id,
        operation.rootFieldNames,
        target.executable.rootFields,
      );
      operationNode = operation.node;
      document = compiled.document;
    } catch (error) {
      return errorsOf(error);
    }
    const navigation = navigationSelected(target, document, operationNode);
    if (navigation)
      return [
        errorOf(
          `${navigation} is a navigation: a change carries the row's own columns only; read related rows with a query`,
          'GRAPHQL_VALIDATION_FAILED',
        ),
      ];
    const caller = target.caller;
    // A key's places, and an app user's, are counted across connections and instances.
    const holder =
      caller.kind === 'key'
        ? { id: caller.principal.keyId, name: 'This API key' }
        : caller.kind === 'app-user'
          ? { id: `user:${caller.user.userId}`, name: 'This app user' }
          : null;
    let place: string | null = null;
    if (holder) {
      place = await this.feed.takePlace(holder.id, MAX_PER_KEY);
      if (!place)
        return [
          errorOf(
            `${holder.name} has ${MAX_PER_KEY} subscriptions open, the most one key or user may hold; complete one first`,
            'TOO_MANY_REQUESTS',
          ),
        ];
    }
    connection.operations.set(id, { place, queue: null });
    const contextValue: Partial<SubscriptionContext> = {
      caller,
      appId: target.app.id,
      openChanges: (request) => this.open(connection, id, target, request),
    };
    return {
      schema: target.executable.schema,
      document,
      operationName: payload.operationName ?? undefined,
      variableValues: payload.variables ?? {},
      contextValue,
    };
  }

  /**
   * Opens one change stream: the caller's row rule of the table and the `where`, both decidable
   * in process (else refused: a relation in either), then listening on the feed.
   * @throws GraphQLError for a rule or `where` it cannot evaluate on a change.
   */
  private async open(
    connection: Connection,
    id: string,
    target: CallerTarget,
    request: ChangeStreamRequest,
  ): Promise<AsyncIterable<ChangePayload>> {
    const table = request.node.table;
    let rule: Condition = ALL_ROWS;
    let where: Condition;
    const bounds = rolesOf(target.caller);
    if (bounds) {
      rule = rowScope(
        target.executable.permissions,
        bounds.roles,
        table,
        bounds.subject,
        (_column, value) => value,
        () => undefined,
        target.executable.model,
      );
      try {
        checkEvaluable(rule);
      } catch {
        throw errorOf(
          `Your row rule of ${table.name} looks at related rows, which a subscription cannot check on each change`,
          'FORBIDDEN',
        );
      }
    }
    try {
      where = filterCondition(table, request.node.columns, request.where);
    } catch (error) {
      throw errorsOf(error)[0];
    }
    const held = connection.operations.get(id);
    if (!held) throw errorOf('The subscription was completed', 'BAD_REQUEST');
    let unlisten: Unlisten | null = null;
    const queue = new ChangeQueue<ChangePayload>(QUEUE_CAPACITY, () => unlisten?.());
    held.queue = queue;
    unlisten = await this.feed.listen({
      appId: target.app.id,
      versionId: target.head.versionId,
      table,
      events: new Set(request.events),
      rule,
      where,
      queue,
    });
    // Completed or closed while listening started: stop at once (graphql-ws #532).
    if (!connection.operations.has(id)) queue.end();
    return queue;
  }

  /** An operation completed (by either side): its queue ends and its key place is given back. */
  private finish(connection: Connection | undefined, id: string): void {
    const held = connection?.operations.get(id);
    if (!connection || !held) return;
    connection.operations.delete(id);
    held.queue?.end();
    if (held.place) this.feed.release(held.place);
  }

  /** The socket closed: every operation of it finishes, the recheck stops. */
  private closed(connection: Connection | undefined): void {
    if (!connection) return;
    if (connection.timer) clearInterval(connection.timer);
    const open = connection.holder ? this.byHolder.get(connection.holder) : undefined;
    open?.delete(connection);
    if (open?.size === 0) this.byHolder.delete(connection.holder!);
    for (const id of [...connection.operations.keys()]) this.finish(connection, id);
  }
}

/**
 * The first navigation (a field of a row type whose type is a row type) the operation selects,
 * as `Type.field`, or null: a change carries only the row's own columns.
 */
function navigationSelected(
  target: CallerTarget,
  document: ExecutionArgs['document'],
  operation: OperationDefinitionNode,
): string | null {
  const schema = target.executable.schema;
  const typeInfo = new TypeInfo(schema);
  let found: string | null = null;
  const subscriptionType = schema.getSubscriptionType();
  const changeTypes = new Set(
    Object.values(subscriptionType?.getFields() ?? {}).map((f) => getNamedType(f.type)),
  );
  const fragments = document.definitions.filter((d) => d.kind === 'FragmentDefinition');
  for (const node of [operation, ...fragments]) {
    visit(
      node,
      visitWithTypeInfo(typeInfo, {
        Field() {
          const parent = typeInfo.getParentType();
          const type = getNamedType(typeInfo.getType());
          if (
            !found &&
            parent instanceof GraphQLObjectType &&
            parent !== subscriptionType &&
            !changeTypes.has(parent) &&
            type instanceof GraphQLObjectType
          )
            found = `${parent.name}.${typeInfo.getFieldDef()?.name ?? '?'}`;
        },
      }),
    );
  }
  return found;
}
