/**
 * The shapes of the webhooks REST (README "Webhooks", `/api/apps/:appId/webhooks`), as the page
 * reads them. Instants are ISO-8601 strings.
 */

/** The row changes a webhook can send, in the order the page lists them. */
export const WEBHOOK_EVENTS = ['inserted', 'updated', 'deleted'] as const;

/** One of {@link WEBHOOK_EVENTS}. */
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The one event a mutation-kind SQL API sends: a committed call. */
export const SQL_API_EVENT = 'executed' as const;

/** A mutation-kind SQL API a webhook can name, as `GET …/sql-apis` lists it. */
export interface SqlApiChoice {
  id: string;
  name: string;
  kind: 'query' | 'mutation';
}

/** What a builder sends to create (`POST`) or replace (`PUT`) a webhook. */
export interface WebhookBody {
  name: string;
  url: string;
  /** Table API ids and mutation-kind SQL API ids. */
  apis: string[];
  /** Row events for the Table APIs; `executed` when it names an SQL API. */
  events: (WebhookEvent | typeof SQL_API_EVENT)[];
  enabled: boolean;
}

/** A webhook of the working version with its delivery state. */
export interface Webhook extends WebhookBody {
  id: string;
  /** Set when deliveries stopped by themselves (a `410`, 3 days of failures). */
  suspended: { at: string; reason: string } | null;
  /** Set while every attempt fails. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The create answer: the webhook and its `whsec_` secret, shown this once. */
export interface CreatedWebhook extends Webhook {
  secret: string;
}

/** The rotate-secret answer: the new secret (shown once) and when the old one stops signing. */
export interface RotatedSecret {
  secret: string;
  previousExpiresAt: string;
}

/** One event's delivery, as `GET …/webhooks/:id/deliveries` lists it (newest first). */
export interface Delivery {
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
