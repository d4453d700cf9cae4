'use strict';
/* eslint @typescript-eslint/no-require-imports: "off" -- a CommonJS module of the bench scripts */
/* global require, performance, setTimeout, console, process */
/**
 * `npm run bench:subscriptions` (issue 28: "the delay from a committed write to ... a
 * subscriber"): bench/delivery-delay.js with one subscriber in this process instead of a webhook:
 * graphql-ws's `createClient` over `ws` with `onCustomersChanged(events: [UPDATED]) { new { city
 * } }`, the key in `connection_init`, through Redis's channel. Results in
 * bench/results/subscriptions-<date>.md.
 */
const { createClient } = require('graphql-ws');
const { WebSocket } = require('ws');
const { runDeliveryBench } = require('./delivery-delay');

runDeliveryBench({
  name: 'subscriptions',
  title: 'Subscription delivery delay',
  prefix: 'sub',
  env: {},
  setup:
    'to one subscriber of `onCustomersChanged(events: [UPDATED])` (graphql-ws client in the bench process, over `ws`, through Redis\'s channel).',
  arrivalNote: 'the change is published on Redis before the answer is sent',
  async listen({ base, address, key }) {
    const arrivals = new Map();
    const events = [];
    const errors = [];
    let client = null;
    return {
      arrivals,
      // Subscribed once main (with the subscription field) is published.
      async ready() {
        client = createClient({
          url: `${base.replace(/^http/, 'ws')}/api/graphql/${address}`,
          webSocketImpl: WebSocket,
          connectionParams: { 'x-api-key': key },
          retryAttempts: 0,
        });
        client.subscribe(
          { query: 'subscription { onCustomersChanged(events: [UPDATED]) { event new { city } } }' },
          {
            next: (value) => {
              const at = performance.now();
              events.push(value);
              const city = value.data?.onCustomersChanged?.new?.city;
              if (city && !arrivals.has(city)) arrivals.set(city, at);
              if (value.errors) errors.push(value.errors);
            },
            error: (error) => errors.push(error),
            complete: () => undefined,
          },
        );
        // The subscription is registered once the client is acknowledged and its subscribe ran.
        await new Promise((r) => setTimeout(r, 1_000));
      },
      summary: () => `${events.length} events received, ${errors.length} errors.`,
      close: async () => client?.dispose(),
    };
  },
}).catch((error) => {
  console.error(error);
  process.exit(1);
});
