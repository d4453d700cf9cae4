'use strict';
/**
 * PostGraphile 4 and 5 as peers of `npm run bench` (issue 25): started as child processes on the
 * bench's PostgreSQL dataset, sent Q1–Q3 in their own GraphQL (connection-filter `filter`,
 * `orderBy`, `first`/`offset`, `totalCount`) as declared variables, and their answers mapped to the
 * service's shape (ids as strings, timestamps as ISO 8601 with milliseconds and `Z`) so they are
 * compared with the floor's before timing.
 *
 * They live in bench/peers/ with their own package.json and lockfile, outside the root's, so
 * `npm ci` and CI never install them: `cd bench/peers && npm ci`. PostGraphile 5 needs Node 22:
 * the `node` package there gives bench/peers/node_modules/.bin/node without touching the
 * system's Node. When bench/peers/node_modules is absent, {@link peersAvailable} says why and the
 * bench runs without them.
 */
const { fork } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { freePort } = require('./process');

const PEERS_DIR = join(__dirname, 'peers');
const NODE22 = join(PEERS_DIR, 'node_modules', '.bin', 'node');

/** Null when the peers are installed, else the line the bench prints and writes instead. */
function peersAvailable() {
  if (!existsSync(join(PEERS_DIR, 'node_modules', 'postgraphile4')) || !existsSync(NODE22)) {
    return 'PostGraphile peers skipped: bench/peers/node_modules is absent (install them with `cd bench/peers && npm ci`).';
  }
  return null;
}

const WHERE = { status: { equalTo: 'shipped' }, total: { greaterThan: '100' } };

/**
 * Each peer's Q1–Q3 as `{query, variables}` and how its `data` maps to the service's. Names differ
 * between the versions: v4 exposes the primary key as `id` and `OrdersOrderBy`; v5's amber preset
 * makes `id` the global Node ID, the column `rowId`, and names its enums in the singular.
 */
function peerQueries(version) {
  const v4 = version === 4;
  const id = v4 ? 'id' : 'id: rowId';
  const idAsc = v4 ? 'ID_ASC' : 'ROW_ID_ASC';
  const orderBy = v4 ? 'OrdersOrderBy' : 'OrderOrderBy';
  const linesOrderBy = v4 ? 'OrderLinesOrderBy' : 'OrderLineOrderBy';
  const page = `$filter: OrderFilter, $orderBy: [${orderBy}!], $first: Int, $offset: Int`;
  const args = 'filter: $filter, orderBy: $orderBy, first: $first, offset: $offset';
  const variables = { filter: WHERE, orderBy: ['PLACED_AT_DESC', idAsc], first: 50, offset: 100 };
  const order = `${id} status total placedAt`;
  return {
    q1: { query: `query Q1(${page}) { allOrders(${args}) { nodes { ${order} } } }`, variables },
    q2: {
      query: `query Q2(${page}, $lines: [${linesOrderBy}!]) { allOrders(${args}) { nodes { ${order} customerByCustomerId { ${id} name } orderLinesByOrderId(orderBy: $lines) { nodes { ${id} quantity productByProductId { ${id} name } } } } } }`,
      variables: { ...variables, lines: [idAsc] },
    },
    q3: { query: 'query Q3($filter: OrderFilter) { allOrders(filter: $filter) { totalCount } }', variables: { filter: WHERE } },
  };
}

const iso = (t) => (t === null ? null : new Date(t).toISOString());
const order = (o) => ({ id: String(o.id), status: o.status, total: o.total, placed_at: iso(o.placedAt) });

/** A peer's answer (`{data}`) in the service's shape for workload `name`, for comparison. */
function asOurs(name, answer) {
  if (!answer?.data) return answer;
  const { allOrders } = answer.data;
  if (name === 'q3') return { data: { countOrders: allOrders.totalCount } };
  if (name === 'q1') return { data: { getOrders: allOrders.nodes.map(order) } };
  return {
    data: {
      getOrders: allOrders.nodes.map((o) => ({
        ...order(o),
        customer: { id: String(o.customerByCustomerId.id), name: o.customerByCustomerId.name },
        order_lines: o.orderLinesByOrderId.nodes.map((l) => ({
          id: String(l.id),
          quantity: l.quantity,
          product: { id: String(l.productByProductId.id), name: l.productByProductId.name },
        })),
      })),
    },
  };
}

/**
 * Starts PostGraphile `version` (4 or 5) on `url`; resolves once it listens.
 * @returns `{version, label, child, endpoint, queries}`.
 */
async function startPeer(version, url) {
  const port = await freePort();
  const script = join(PEERS_DIR, version === 4 ? 'v4.js' : 'v5.mjs');
  // v4 runs on the bench's Node (as its users run it); v5 on the Node 22 binary of bench/peers.
  const child = fork(script, [url, String(port)], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    execPath: version === 4 ? process.execPath : NODE22,
    env: { ...process.env, NODE_ENV: 'production' },
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`PostGraphile ${version} did not start in 60 s: ${stderr}`)), 60_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => reject(new Error(`PostGraphile ${version} exited with ${code}: ${stderr}`)));
  });
  const folder = join(PEERS_DIR, 'node_modules', version === 4 ? 'postgraphile4' : 'postgraphile');
  const label = `PostGraphile ${require(join(folder, 'package.json')).version}`;
  return { version, label, child, endpoint: `http://127.0.0.1:${port}/graphql`, queries: peerQueries(version) };
}

module.exports = { peersAvailable, startPeer, asOurs };
