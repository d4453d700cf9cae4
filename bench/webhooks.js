'use strict';
/* eslint @typescript-eslint/no-require-imports: "off" -- a CommonJS module of the bench scripts */
/* global require, performance, Buffer, console, process */
/**
 * `npm run bench:webhooks` (issue 28: "the delay from a committed write to the webhook's
 * arrival"): bench/delivery-delay.js with a webhook on customers' updates (the service runs with
 * WEBHOOKS_ALLOW_PRIVATE_TARGETS=1 so a loopback receiver may be the target) whose receiver, in
 * this process, answers 204 at once. Every event is checked with the Standard Webhooks reference
 * library on arrival before it counts (its timestamp check allows 5 minutes: verified at the end,
 * a long run's first events would fail). Results in bench/results/webhooks-<date>.md.
 */
const { createServer } = require('node:http');
const { Webhook } = require('standardwebhooks');
const { runDeliveryBench } = require('./delivery-delay');

/** A receiver on 127.0.0.1 recording when each event arrived (performance.now()), by city. */
async function startReceiver() {
  const arrivals = new Map();
  const receiver = { arrivals, received: 0, unverified: 0, verifier: null };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.received++;
      try {
        receiver.verifier.verify(body, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        });
      } catch {
        receiver.unverified++;
        return void res.writeHead(204).end();
      }
      try {
        const city = JSON.parse(body).data.new.city;
        if (!arrivals.has(city)) arrivals.set(city, at);
      } catch {
        /* counted as not arrived */
      }
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return Object.assign(receiver, { server, port: server.address().port });
}

runDeliveryBench({
  name: 'webhooks',
  title: 'Webhook delivery delay',
  prefix: 'wh',
  env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' },
  setup:
    "to a webhook on customers' updates (WEBHOOKS_ALLOW_PRIVATE_TARGETS=1 for the loopback receiver); the receiver, in the bench process, answers 204 at once.",
  arrivalNote: 'the outbox row is written and the worker woken before the answer is sent',
  async listen({ call, app, ids }) {
    const receiver = await startReceiver();
    // A webhook is part of the working version: made before main is published.
    const hook = await call('POST', `/api/apps/${app.id}/webhooks`, {
      name: 'bench',
      url: `http://127.0.0.1:${receiver.port}/hook`,
      apis: [ids.customers],
      events: ['updated'],
    });
    receiver.verifier = new Webhook(hook.secret);
    return {
      arrivals: receiver.arrivals,
      ready: async () => undefined,
      summary: () =>
        `${receiver.received} deliveries received, ${receiver.unverified} failing the Standard Webhooks reference verification (not counted as arrived).`,
      close: async () => receiver.server.close(),
    };
  },
}).catch((error) => {
  console.error(error);
  process.exit(1);
});
