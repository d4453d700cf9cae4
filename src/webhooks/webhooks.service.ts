import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DomainError, ErrorCode, invalidInput, notFound } from '../common/domain-error';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type { Caller } from '../graphql-gateway/gateway-context';
import { SecretBoxService } from '../platform/secret-box.service';
import type {
  ModelTable,
  SqlApiDefinition,
  SqlApiEvent,
  TableApiDefinition,
  VersionDefinition,
  WebhookDefinition,
  WebhookEvent,
} from '../platform/version-definition';
import { VersionsService } from '../platform/versions.service';
import {
  type ChangeActor,
  ChangeCapture,
  type RowChange,
  type WatchedTables,
} from './change-capture';

/**
 * Another reader of committed changes beside the outbox (subscriptions, `src/subscriptions/`):
 * which tables it listens to, and the changes once a request committed (never throws).
 */
export interface ChangeFeed {
  watchedTables(appId: string): Promise<WatchedTables>;
  publish(appId: string, changes: readonly RowChange[]): Promise<void>;
}
import { DEFAULT_ATTEMPT_LIMITS, postWebhook } from './outbound';
import { newSecret, signatureHeader } from './signing';
import { checkTarget, parseTargetUrl, TargetRefused } from './target-guard';
import { sqlApiBody, webhookBody } from './webhook-payload';

/** A webhook as the builder REST shows it: the definition and its delivery state. */
export interface WebhookView extends WebhookDefinition {
  /** Set when deliveries stopped by themselves (a 410, or 3 days of failures), with why. */
  suspended: { at: string; reason: string } | null;
  /** Since when every attempt failed; null while deliveries succeed. */
  failingSince: string | null;
}

/** One row of the delivery log (`GET …/webhooks/:id/deliveries`). */
export interface DeliveryView {
  id: string;
  type: string;
  status: 'pending' | 'sending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** What `POST …/webhooks` takes (validated by the DTO first). */
export interface WebhookInput {
  name: string;
  url: string;
  apis: string[];
  events: (WebhookEvent | SqlApiEvent)[];
  enabled?: boolean;
}

/**
 * Delays before the attempts after the first (Standard Webhooks "Retry schedule": 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h; about 3 days in all). Past the last, the delivery fails.
 */
export const RETRY_DELAYS_MS = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
];
/** A webhook whose deliveries failed for this long without one success is suspended. */
export const FAILING_LIMIT_MS = 3 * 24 * 3_600_000;
/** The previous secret keeps signing this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/**
 * A claimed delivery's lease: renewed every third of it while its attempt runs, so one whose
 * instance died is claimed again at most this long after (README "Webhooks", Delivery).
 */
const LEASE_MS = 15_000;
/** Deliveries sent at once by one instance. */
const CONCURRENCY = 8;
/** How often due deliveries (retries, other instances' rows) are looked for. */
const POLL_MS = 1_000;
/** Deliveries listed at most per page of the log. */
const LOG_PAGE = 100;

interface Listener {
  webhook: WebhookDefinition;
  api: TableApiDefinition;
  table: ModelTable;
}

interface MainWatch {
  revision: number;
  byTable: Map<string, Listener[]>;
  /** Per mutation-kind SQL API id, the webhooks listening to its calls (`executed`). */
  bySqlApi: Map<string, { webhook: WebhookDefinition; api: SqlApiDefinition }[]>;
  /** The main version's enabled webhooks, by id. */
  enabled: Map<string, WebhookDefinition>;
}

interface DeliveryRow {
  seq: number;
  id: string;
  app_id: string;
  webhook_id: string;
  payload: string;
  attempts: number;
}

function actorOf(caller: Caller): ChangeActor {
  switch (caller.kind) {
    case 'key':
      return { kind: 'key', id: caller.principal.keyId };
    case 'app-user':
      return { kind: 'user', id: caller.user.userId };
    case 'builder':
      return { kind: 'builder', id: caller.session.accountId };
    default:
      return { kind: 'anonymous', id: null };
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Webhooks (issue 28 item 1, README "Webhooks"): definitions in the builder's working version,
 * fired from the main version only; secrets sealed in `webhook_endpoint`; the outbox and log in
 * `webhook_delivery`, written after a request's transaction committed; and the in-process
 * delivery worker: FIFO per webhook and row, the retry schedule, suspension on 410 or after 3
 * days of failures. Several instances share the outbox: a delivery is claimed by one conditional
 * UPDATE and its lease expires if that instance dies (at-least-once; receivers dedupe on
 * `webhook-id`).
 */
@Injectable()
export class WebhooksService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly mainWatch = new Map<string, MainWatch>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private again = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly versions: VersionsService,
    private readonly box: SecretBoxService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Starts the worker. On the embedded SQLite store (one instance per store, README "Several
   * instances") a delivery still `sending` was this process's before it stopped or died: it is
   * due again at once rather than when its lease runs out.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.db.options.type !== 'postgres')
      await this.db.query(
        "UPDATE webhook_delivery SET status = 'pending', lease_until = NULL WHERE status = 'sending'",
      );
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.timer.unref();
    this.wake();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  // ---------------------------------------------------------------- builder REST

  /** The working version's webhooks with their delivery state. */
  async list(appId: string, accountId: string): Promise<WebhookView[]> {
    const def = await this.versions.readForBuilder(appId, accountId);
    return Promise.all((def.webhooks ?? []).map((w) => this.view(w)));
  }

  /** One webhook. @throws DomainError NOT_FOUND. */
  async get(appId: string, accountId: string, id: string): Promise<WebhookView> {
    const def = await this.versions.readForBuilder(appId, accountId);
    const found = (def.webhooks ?? []).find((w) => w.id === id);
    if (!found) throw notFound('Webhook', id);
    return this.view(found);
  }

  /**
   * Creates a webhook in the working version and its secret; the secret is in this answer only.
   * @throws DomainError INVALID_INPUT (URL refused, unknown API), NOT_FOUND (app).
   */
  async create(
    appId: string,
    accountId: string,
    input: WebhookInput,
  ): Promise<WebhookView & { secret: string }> {
    await this.checkUrl(input.url);
    const now = new Date().toISOString();
    const webhook: WebhookDefinition = {
      id: randomUUID(),
      name: input.name,
      url: input.url,
      apis: [...new Set(input.apis)],
      events: [...new Set(input.events)],
      enabled: input.enabled ?? true,
      createdAt: now,
      updatedAt: now,
    };
    const secret = newSecret();
    await this.db
      .createQueryBuilder()
      .insert()
      .into('webhook_endpoint')
      .values({
        webhook_id: webhook.id,
        app_id: appId,
        secret_sealed: this.box.seal(secret),
        created_at: now,
      })
      .execute();
    try {
      await this.versions.edit(appId, accountId, (def) => {
        this.checkApis(def, webhook.apis, webhook.events);
        def.webhooks = [...(def.webhooks ?? []), webhook];
      });
    } catch (error) {
      await this.db.query(this.sql('DELETE FROM webhook_endpoint WHERE webhook_id = ?'), [
        webhook.id,
      ]);
      throw error;
    }
    return { ...(await this.view(webhook)), secret };
  }

  /**
   * Replaces a webhook's name, URL, APIs, events and switch in the working version. Setting
   * `enabled: true` also lifts a suspension (the builder says the receiver is fixed); pending
   * deliveries then resume.
   */
  async update(
    appId: string,
    accountId: string,
    id: string,
    input: WebhookInput,
  ): Promise<WebhookView> {
    await this.checkUrl(input.url);
    const updated = await this.versions.edit(appId, accountId, (def) => {
      const found = (def.webhooks ?? []).find((w) => w.id === id);
      if (!found) throw notFound('Webhook', id);
      this.checkApis(def, input.apis, input.events);
      Object.assign(found, {
        name: input.name,
        url: input.url,
        apis: [...new Set(input.apis)],
        events: [...new Set(input.events)],
        enabled: input.enabled ?? found.enabled,
        updatedAt: new Date().toISOString(),
      });
      return { ...found };
    });
    if (updated.enabled) {
      await this.db.query(
        this.sql(
          'UPDATE webhook_endpoint SET suspended_at = NULL, suspended_reason = NULL, failing_since = NULL WHERE webhook_id = ?',
        ),
        [id],
      );
      this.wake();
    }
    return this.view(updated);
  }

  /** Removes a webhook from the working version (it stops firing once that version is main). */
  async remove(appId: string, accountId: string, id: string): Promise<void> {
    await this.versions.edit(appId, accountId, (def) => {
      const before = def.webhooks ?? [];
      if (!before.some((w) => w.id === id)) throw notFound('Webhook', id);
      def.webhooks = before.filter((w) => w.id !== id);
    });
  }

  /**
   * A new secret for a webhook, shown in this answer only; the previous one keeps signing beside
   * it for 24 hours (two `v1,` signatures), so receivers can switch without losing an event.
   * Takes effect at once, in every version (secrets are not versioned).
   */
  async rotateSecret(
    appId: string,
    accountId: string,
    id: string,
  ): Promise<{ secret: string; previousExpiresAt: string }> {
    await this.get(appId, accountId, id);
    const row = await this.endpoint(id);
    if (!row) throw notFound('Webhook', id);
    const secret = newSecret();
    const previousExpiresAt = iso(Date.now() + ROTATION_OVERLAP_MS);
    await this.db.query(
      this.sql(
        'UPDATE webhook_endpoint SET secret_sealed = ?, previous_secret_sealed = ?, previous_expires_at = ? WHERE webhook_id = ?',
      ),
      [this.box.seal(secret), row.secret_sealed, previousExpiresAt, id],
    );
    return { secret, previousExpiresAt };
  }

  /** The newest deliveries of a webhook, newest first (at most 100; `before`: a `seq` cursor). */
  async deliveries(appId: string, accountId: string, id: string): Promise<DeliveryView[]> {
    await this.get(appId, accountId, id);
    const rows: Record<string, unknown>[] = await this.db.query(
      this.sql(
        `SELECT * FROM webhook_delivery WHERE app_id = ? AND webhook_id = ? ORDER BY seq DESC LIMIT ${LOG_PAGE}`,
      ),
      [appId, id],
    );
    return rows.map((r) => ({
      id: String(r.id),
      type: String(r.event_type),
      status: r.status as DeliveryView['status'],
      attempts: Number(r.attempts),
      nextAttemptAt: r.status === 'pending' ? String(r.next_attempt_at) : null,
      lastStatusCode: r.last_status_code == null ? null : Number(r.last_status_code),
      lastError: (r.last_error as string | null) ?? null,
      createdAt: String(r.created_at),
      deliveredAt: (r.delivered_at as string | null) ?? null,
    }));
  }

  /**
   * Sends a delivery again now: a failed or cancelled one is queued again (a delivered one too,
   * receivers dedupe on `webhook-id`); a pending one becomes due at once.
   * @throws DomainError NOT_FOUND; CONFLICT while it is being sent.
   */
  async retry(appId: string, accountId: string, id: string, deliveryId: string): Promise<void> {
    await this.get(appId, accountId, id);
    const res = await this.db.query(
      this.sql(
        "UPDATE webhook_delivery SET status = 'pending', next_attempt_at = ? WHERE app_id = ? AND webhook_id = ? AND id = ? AND status <> 'sending' RETURNING seq",
      ),
      [iso(Date.now()), appId, id, deliveryId],
    );
    if (this.rowsOf(res).length === 0) {
      const exists = await this.db.query(
        this.sql('SELECT seq FROM webhook_delivery WHERE app_id = ? AND webhook_id = ? AND id = ?'),
        [appId, id, deliveryId],
      );
      if (exists.length === 0) throw notFound('Delivery', deliveryId);
      throw new DomainError(ErrorCode.Conflict, 'The delivery is being sent right now; try again');
    }
    this.wake();
  }

  // ---------------------------------------------------------------- capture and outbox

  /**
   * A mutation request's change capture (README "Webhooks"): which tables the main version's
   * webhooks listen to is read once per request, when a write first asks.
   */
  capture(appId: string, caller: Caller): ChangeCapture {
    const feed = this.feed;
    if (!feed)
      return new ChangeCapture(
        () => this.watchedTables(appId),
        actorOf(caller),
        (c) => this.enqueue(appId, c),
      );
    // Subscriptions listen too (README "Subscriptions"): a table either watches is captured.
    return new ChangeCapture(
      async () => {
        const [hooks, subscribed] = await Promise.all([
          this.watchedTables(appId),
          feed.watchedTables(appId),
        ]);
        return (table, event) => hooks(table, event) || subscribed(table, event);
      },
      actorOf(caller),
      async (c) => {
        await Promise.all([this.enqueue(appId, c), feed.publish(appId, c.changes)]);
      },
    );
  }

  /**
   * Lets subscriptions (`src/subscriptions/`) share the capture: set once at start by
   * `ChangeFeedService`.
   */
  useFeed(feed: ChangeFeed): void {
    this.feed = feed;
  }

  private feed: ChangeFeed | null = null;

  private async listeners(appId: string): Promise<MainWatch | null> {
    const head = await this.versions.mainHead(appId);
    if (!head) return null;
    const cached = this.mainWatch.get(appId);
    if (cached && cached.revision === head.revision) return cached;
    const def = await this.versions.definition(head.versionId);
    const watch = {
      revision: head.revision,
      byTable: this.listenersOf(def),
      bySqlApi: this.sqlApiListenersOf(def),
      enabled: new Map((def.webhooks ?? []).filter((w) => w.enabled).map((w) => [w.id, w])),
    };
    if (this.mainWatch.size > 10_000) this.mainWatch.clear();
    this.mainWatch.set(appId, watch);
    return watch;
  }

  private listenersOf(def: VersionDefinition): Map<string, Listener[]> {
    const byTable = new Map<string, Listener[]>();
    for (const webhook of def.webhooks ?? []) {
      if (!webhook.enabled) continue;
      for (const apiId of webhook.apis) {
        const api = def.apis.find((a) => a.id === apiId);
        const table = api && def.tables.find((t) => t.name === api.table);
        if (!api || !table || api.status !== 'published') continue;
        byTable.set(table.name, [...(byTable.get(table.name) ?? []), { webhook, api, table }]);
      }
    }
    return byTable;
  }

  /** Per published mutation-kind SQL API of `def`, the enabled webhooks listening to `executed`. */
  private sqlApiListenersOf(def: VersionDefinition): MainWatch['bySqlApi'] {
    const bySqlApi: MainWatch['bySqlApi'] = new Map();
    for (const webhook of def.webhooks ?? []) {
      if (!webhook.enabled || !webhook.events.includes('executed')) continue;
      for (const apiId of webhook.apis) {
        const api = (def.sqlApis ?? []).find((a) => a.id === apiId);
        if (!api || api.kind !== 'mutation' || api.status !== 'published') continue;
        bySqlApi.set(api.id, [...(bySqlApi.get(api.id) ?? []), { webhook, api }]);
      }
    }
    return bySqlApi;
  }

  /**
   * The outbox rows of a committed request's SQL API calls: one per call and webhook listening
   * to its SQL API. Their row key is the SQL API's: the calls of one SQL API reach a webhook in
   * the order they committed (a statement's rows are unknown, so they cannot be ordered finer).
   */
  private sqlApiRows(
    appId: string,
    watch: MainWatch,
    capture: ChangeCapture,
    now: Date,
  ): Record<string, unknown>[] {
    return capture.calls.flatMap((call) =>
      (watch.bySqlApi.get(call.apiId) ?? []).map(({ webhook, api }) => ({
        id: `msg_${randomUUID().replace(/-/g, '')}`,
        app_id: appId,
        webhook_id: webhook.id,
        event_type: `${api.name}.executed`,
        row_key: `${api.id}:executed`,
        payload: sqlApiBody(api, call, capture.actor, now),
        status: 'pending',
        attempts: 0,
        next_attempt_at: now.toISOString(),
        created_at: now.toISOString(),
      })),
    );
  }

  private async watchedTables(appId: string): Promise<WatchedTables> {
    const watch = await this.listeners(appId);
    return (table, event) =>
      watch?.byTable.get(table)?.some((l) => l.webhook.events.includes(event)) ?? false;
  }

  /**
   * Writes the outbox rows of a committed request: one per change and listening webhook, in the
   * order the changes happened, then wakes the worker. A failure is logged (the request's writes
   * are committed already; the events are lost, README "Webhooks" says when).
   */
  private async enqueue(appId: string, capture: ChangeCapture): Promise<void> {
    try {
      const watch = await this.listeners(appId);
      if (!watch) return;
      const now = new Date();
      const rows: Record<string, unknown>[] = [];
      for (const change of capture.changes) {
        for (const { webhook, api, table } of watch.byTable.get(change.table) ?? []) {
          if (!webhook.events.includes(change.event)) continue;
          rows.push({
            id: `msg_${randomUUID().replace(/-/g, '')}`,
            app_id: appId,
            webhook_id: webhook.id,
            event_type: `${api.name}.${change.event}`,
            row_key: `${api.id}:${JSON.stringify(change.key)}`.slice(0, 2000),
            payload: webhookBody(api, table, change, capture.actor, now),
            status: 'pending',
            attempts: 0,
            next_attempt_at: now.toISOString(),
            created_at: now.toISOString(),
          });
        }
      }
      rows.push(...this.sqlApiRows(appId, watch, capture, now));
      // One INSERT per row keeps `seq` in the changes' order on every store.
      for (let i = 0; i < rows.length; i += 100) {
        await this.db.transaction(async (tx) => {
          for (const row of rows.slice(i, i + 100))
            await tx.createQueryBuilder().insert().into('webhook_delivery').values(row).execute();
        });
      }
      if (rows.length) this.wake();
    } catch (error) {
      this.logger.error(`Outbox write failed for app ${appId}: ${(error as Error).name}`);
    }
  }

  // ---------------------------------------------------------------- delivery worker

  /** Looks for due deliveries now (after an outbox write, a retry, and every second). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.pass()
      .catch((error: Error) => this.logger.error(`Delivery pass failed: ${error.name}`))
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async pass(): Promise<void> {
    const now = Date.now();
    // Deliveries whose instance died mid-send are due again (at-least-once).
    await this.db.query(
      this.sql(
        "UPDATE webhook_delivery SET status = 'pending' WHERE status = 'sending' AND lease_until < ?",
      ),
      [iso(now)],
    );
    const due: DeliveryRow[] = await this.db.query(
      this.sql(
        `SELECT d.seq, d.id, d.app_id, d.webhook_id, d.payload, d.attempts FROM webhook_delivery d
         WHERE d.status = 'pending' AND d.next_attempt_at <= ?
           AND NOT EXISTS (SELECT 1 FROM webhook_delivery p WHERE p.webhook_id = d.webhook_id
                           AND p.row_key = d.row_key AND p.seq < d.seq AND p.status IN ('pending', 'sending'))
           AND NOT EXISTS (SELECT 1 FROM webhook_endpoint e WHERE e.webhook_id = d.webhook_id
                           AND e.suspended_at IS NOT NULL)
         ORDER BY d.seq LIMIT ${CONCURRENCY * 4}`,
      ),
      [iso(now)],
    );
    const queue = [...due];
    const workers = Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
      for (let next = queue.shift(); next && !this.stopped; next = queue.shift()) {
        const sending = this.deliver(next);
        this.inFlight.add(sending);
        await sending.finally(() => this.inFlight.delete(sending));
      }
    });
    await Promise.all(workers);
    // A delivery done may have made its row's next event due: look again at once, not in 1 s
    // (not after a pass that failed: a store that is away is tried again by the poll).
    if (due.length) this.again = true;
  }

  /** Claims, signs, sends and records one delivery. */
  private async deliver(row: DeliveryRow): Promise<void> {
    const now = Date.now();
    const claimed = this.rowsOf(
      await this.db.query(
        this.sql(
          "UPDATE webhook_delivery SET status = 'sending', lease_until = ? WHERE seq = ? AND status = 'pending' RETURNING seq",
        ),
        [iso(now + LEASE_MS), row.seq],
      ),
    );
    if (claimed.length === 0) return;
    const watch = await this.listeners(row.app_id);
    const webhook = watch?.enabled.get(row.webhook_id);
    if (!webhook) {
      await this.finish(
        row.seq,
        'cancelled',
        row.attempts,
        null,
        'The webhook is no longer enabled on main',
      );
      return;
    }
    const endpoint = await this.endpoint(webhook.id);
    if (!endpoint) {
      await this.finish(row.seq, 'cancelled', row.attempts, null, 'The webhook has no secret');
      return;
    }
    const secrets = [this.box.open(String(endpoint.secret_sealed))];
    if (endpoint.previous_secret_sealed && String(endpoint.previous_expires_at) > iso(now))
      secrets.push(this.box.open(endpoint.previous_secret_sealed));
    const timestamp = Math.floor(now / 1000);
    const renew = setInterval(() => {
      void this.db
        .query(
          this.sql(
            "UPDATE webhook_delivery SET lease_until = ? WHERE seq = ? AND status = 'sending'",
          ),
          [iso(Date.now() + LEASE_MS), row.seq],
        )
        .catch(() => undefined);
    }, LEASE_MS / 3);
    const outcome = await postWebhook(
      webhook.url,
      {
        'webhook-id': row.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, row.id, timestamp, row.payload),
      },
      row.payload,
      { ...DEFAULT_ATTEMPT_LIMITS, allowPrivate: this.config.webhooksAllowPrivateTargets },
    ).finally(() => clearInterval(renew));
    const attempts = row.attempts + 1;
    if (outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300) {
      await this.finish(row.seq, 'delivered', attempts, outcome.status, null);
      await this.db.query(
        // Only when it was failing: a success otherwise writes nothing.
        this.sql(
          'UPDATE webhook_endpoint SET failing_since = NULL WHERE webhook_id = ? AND failing_since IS NOT NULL',
        ),
        [webhook.id],
      );
      return;
    }
    const status = outcome.kind === 'answered' ? outcome.status : null;
    const reason =
      outcome.kind === 'answered' ? `The receiver answered ${outcome.status}` : outcome.reason;
    if (status === 410) {
      await this.finish(row.seq, 'failed', attempts, status, reason);
      await this.suspend(webhook.id, 'The receiver answered 410 Gone: it asked for no more events');
      return;
    }
    const delay = RETRY_DELAYS_MS[attempts - 1];
    const after = outcome.kind === 'answered' ? outcome.retryAfterSeconds : null;
    if (delay === undefined) {
      await this.finish(row.seq, 'failed', attempts, status, reason);
    } else {
      const jitter = delay >= 300_000 ? Math.floor(Math.random() * delay * 0.1) : 0;
      const wait = Math.max(delay + jitter, Math.min((after ?? 0) * 1000, 86_400_000));
      await this.db.query(
        this.sql(
          "UPDATE webhook_delivery SET status = 'pending', attempts = ?, next_attempt_at = ?, lease_until = NULL, last_status_code = ?, last_error = ? WHERE seq = ?",
        ),
        [attempts, iso(now + wait), status, reason.slice(0, 300), row.seq],
      );
    }
    await this.noteFailure(webhook.id, now);
  }

  private async finish(
    seq: number,
    status: 'delivered' | 'failed' | 'cancelled',
    attempts: number,
    code: number | null,
    error: string | null,
  ): Promise<void> {
    await this.db.query(
      this.sql(
        'UPDATE webhook_delivery SET status = ?, attempts = ?, lease_until = NULL, last_status_code = ?, last_error = ?, delivered_at = ? WHERE seq = ?',
      ),
      [
        status,
        attempts,
        code,
        error?.slice(0, 300) ?? null,
        status === 'delivered' ? iso(Date.now()) : null,
        seq,
      ],
    );
  }

  /** Notes a failed attempt; a webhook failing for 3 days without a success is suspended. */
  private async noteFailure(webhookId: string, now: number): Promise<void> {
    await this.db.query(
      this.sql(
        'UPDATE webhook_endpoint SET failing_since = ? WHERE webhook_id = ? AND failing_since IS NULL',
      ),
      [iso(now), webhookId],
    );
    const row = await this.endpoint(webhookId);
    if (row?.failing_since && now - Date.parse(String(row.failing_since)) >= FAILING_LIMIT_MS) {
      await this.suspend(webhookId, 'Every delivery failed for 3 days');
    }
  }

  private async suspend(webhookId: string, reason: string): Promise<void> {
    await this.db.query(
      this.sql(
        'UPDATE webhook_endpoint SET suspended_at = ?, suspended_reason = ? WHERE webhook_id = ? AND suspended_at IS NULL',
      ),
      [iso(Date.now()), reason, webhookId],
    );
    this.logger.warn(`Webhook ${webhookId} suspended: ${reason}`);
  }

  // ---------------------------------------------------------------- helpers

  private async view(webhook: WebhookDefinition): Promise<WebhookView> {
    const row = await this.endpoint(webhook.id);
    return {
      ...webhook,
      suspended: row?.suspended_at
        ? { at: String(row.suspended_at), reason: String(row.suspended_reason) }
        : null,
      failingSince: (row?.failing_since as string | null) ?? null,
    };
  }

  private async endpoint(webhookId: string): Promise<Record<string, string | null> | null> {
    const rows: Record<string, string | null>[] = await this.db.query(
      this.sql('SELECT * FROM webhook_endpoint WHERE webhook_id = ?'),
      [webhookId],
    );
    return rows[0] ?? null;
  }

  /**
   * Refuses a URL that is malformed or whose host resolves to a non-public address (unless
   * `WEBHOOKS_ALLOW_PRIVATE_TARGETS`). @throws DomainError INVALID_INPUT saying why.
   */
  private async checkUrl(url: string): Promise<void> {
    try {
      const parsed = parseTargetUrl(url);
      await checkTarget(parsed.hostname, this.config.webhooksAllowPrivateTargets);
    } catch (error) {
      if (error instanceof TargetRefused) throw invalidInput(error.message, [error.message]);
      throw error;
    }
  }

  /**
   * Refuses a webhook that names an API it would receive nothing from: an id that is neither a
   * Table API nor an SQL API of the version, a query-kind SQL API (it writes nothing), a Table
   * API without a row event in `events`, an SQL API without `executed`.
   * @throws DomainError INVALID_INPUT with every reason.
   */
  private checkApis(
    def: VersionDefinition,
    apis: readonly string[],
    events: readonly (WebhookEvent | SqlApiEvent)[],
  ): void {
    const reasons: string[] = [];
    const unknown: string[] = [];
    const rowEvents = events.some((e) => e !== 'executed');
    for (const id of apis) {
      const table = def.apis.find((a) => a.id === id);
      const sql = (def.sqlApis ?? []).find((a) => a.id === id);
      if (table && !rowEvents)
        reasons.push(
          `Table API ${table.name} sends inserted, updated or deleted: add one to events`,
        );
      else if (sql?.kind === 'query')
        reasons.push(`SQL API ${sql.name} is a query kind and writes nothing: name mutation kinds`);
      else if (sql && !events.includes('executed'))
        reasons.push(`SQL API ${sql.name} sends executed only: add it to events`);
      else if (!table && !sql) unknown.push(id);
    }
    if (unknown.length)
      reasons.unshift(`apis names no Table API or SQL API of this app: ${unknown.join(', ')}`);
    if (reasons.length) throw invalidInput(reasons.join('; '), reasons);
  }

  /** `?` placeholders as the store's driver takes them (PostgreSQL: `$1`, `$2`, …). */
  private sql(text: string): string {
    if (this.db.options.type !== 'postgres') return text;
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
  }

  /** The rows of an `UPDATE … RETURNING` (TypeORM's PostgreSQL driver answers `[rows, count]`). */
  private rowsOf(result: unknown): unknown[] {
    if (Array.isArray(result) && Array.isArray(result[0])) return result[0] as unknown[];
    return Array.isArray(result) ? result : [];
  }
}
