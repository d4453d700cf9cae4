import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One POST a {@link WebhookReceiver} got: its headers and its body as sent. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A delivery verified with the Standard Webhooks reference library: its `webhook-id` and body. */
export interface VerifiedEvent<Data = Record<string, unknown>> {
  id: string;
  type: string;
  timestamp: string;
  data: Data;
}

/**
 * A webhook receiver on 127.0.0.1 (README "Webhooks"; the service under test runs with
 * WEBHOOKS_ALLOW_PRIVATE_TARGETS=1). Every POST is recorded once its body arrived (as a receiver
 * that has processed it), then answered `answer` after `delayMs` (a slow receiver keeps
 * deliveries in flight, and a sender killed meanwhile never reads the answer). `stop()` and `start()`
 * keep its port.
 */
export class WebhookReceiver {
  readonly got: ReceivedDelivery[] = [];
  /** The status every delivery is answered with. */
  answer = 204;
  /** Milliseconds between a body's arrival and the answer. */
  delayMs = 0;
  port = 0;
  private server: Server | null = null;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const answer = () => {
          res.statusCode = this.answer;
          res.end();
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    await new Promise<void>((ok) => this.server!.listen(this.port, '127.0.0.1', ok));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** The URL to give a webhook. */
  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
  }

  /** Waits until at least `count` deliveries arrived (at most `ms`); throws saying how many did. */
  async waitFor(count: number, ms = 20_000): Promise<void> {
    const until = Date.now() + ms;
    while (this.got.length < count && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    if (this.got.length < count)
      throw new Error(`${this.got.length} of ${count} deliveries arrived`);
  }
}

/**
 * Verifies each delivery with the Standard Webhooks reference library (`standardwebhooks`,
 * signature and a timestamp within 5 minutes) on the body exactly as received, and returns its
 * event with its `webhook-id`. @throws the library's error on the first delivery that fails.
 */
export function verifiedEvents<Data = Record<string, unknown>>(
  got: readonly ReceivedDelivery[],
  secret: string,
): VerifiedEvent<Data>[] {
  const wh = new Webhook(secret);
  return got.map(({ headers, body }) => {
    const payload = wh.verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    }) as Omit<VerifiedEvent<Data>, 'id'>;
    return { ...payload, id: String(headers['webhook-id']) };
  });
}
