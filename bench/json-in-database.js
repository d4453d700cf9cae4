'use strict';
/**
 * `npm run bench:json` (issue 8, "Fewer round trips": decide by measurement between one statement
 * per root field where the database builds the nested JSON and one statement per level). On the
 * bench dataset (bench/dataset.js, scale 1), one connection runs each way of answering Q1 and Q2
 * 3,000 times and reports, per request:
 * - PostgreSQL CPU ms: the backend process's own utime + stime (/proc/<pid>/stat, proc(5));
 * - client CPU ms: this process's CPU (`process.cpuUsage()`), i.e. node-postgres sending the
 *   statement and reading what came back (rows, with the service's type parsers, or one JSON
 *   text), without any formatting of ours;
 * - wall ms per request, one after another.
 * "rows" are the statements the service sends (bound parameters, one per level: the page of
 * orders, then customers and order lines of those orders by key, then the lines' products);
 * "json" is the floor's hand-written statement (bench/floor.js), where PostgreSQL builds the answer.
 * Prints a Markdown table; writes nothing.
 */
const { Client, types } = require('pg');
const { readFileSync } = require('node:fs');
const { createPostgresDataset } = require('./dataset');

const PG = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const RUNS = Number(process.env.BENCH_RUNS || 3000);
const TICK_MS = 10; // CLK_TCK = 100 on Linux

/** utime + stime of a process, in ms. */
function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

const FILTER = `o.status = 'shipped' AND o.total > 100`;
const ORDER = 'o.placed_at DESC, o.id ASC';
const TS = `to_char(o.placed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const PAGE = `SELECT * FROM orders o WHERE ${FILTER} ORDER BY ${ORDER} LIMIT 50 OFFSET 100`;

const Q1_ROWS = {
  sql: 'SELECT "id", "status", "total", "placed_at" FROM "orders" WHERE ("status" = $1 AND "total" > $2) ORDER BY "placed_at" DESC, "id" ASC LIMIT $3 OFFSET $4',
  params: ['shipped', '100', 50, 100],
};
const Q1_JSON = `SELECT json_build_object('getOrders', coalesce(json_agg(json_build_object(
    'id', o.id::text, 'status', o.status, 'total', o.total::text, 'placed_at', ${TS}) ORDER BY ${ORDER}), '[]'))::text AS body
  FROM (${PAGE}) o`;
const Q2_JSON = `SELECT json_build_object('getOrders', coalesce(json_agg(json_build_object(
    'id', o.id::text, 'status', o.status, 'total', o.total::text, 'placed_at', ${TS},
    'customer', json_build_object('id', c.id::text, 'name', c.name),
    'order_lines', l.lines) ORDER BY ${ORDER}), '[]'))::text AS body
  FROM (${PAGE}) o
  JOIN customers c ON c.id = o.customer_id
  CROSS JOIN LATERAL (
    SELECT coalesce(json_agg(json_build_object('id', x.id::text, 'quantity', x.quantity,
             'product', json_build_object('id', p.id::text, 'name', p.name)) ORDER BY x.id), '[]') AS lines
    FROM (SELECT * FROM order_lines ol WHERE ol.order_id = o.id ORDER BY ol.id LIMIT 10) x
    JOIN products p ON p.id = x.product_id) l`;

const list = (from, n) => Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ');

/** The per-level statements of Q2 for the page Q1_ROWS returns, as the service binds them. */
async function q2Levels(client) {
  // Q1's page, also reading the key its customer navigation needs.
  const orders = {
    sql: Q1_ROWS.sql.replace('"placed_at" FROM', '"placed_at", "customer_id" FROM'),
    params: Q1_ROWS.params,
  };
  const page = await client.query(orders.sql, orders.params);
  const orderIds = page.rows.map((r) => r.id);
  const customerIds = [...new Set(page.rows.map((r) => r.customer_id))];
  const lines = {
    sql: `SELECT "id", "quantity", "order_id", "product_id" FROM (SELECT "id", "quantity", "order_id", "product_id", ROW_NUMBER() OVER (PARTITION BY "order_id" ORDER BY "id" ASC) AS "__tg_rn" FROM "order_lines" WHERE "order_id" IN (${list(1, orderIds.length)})) "__tg_p" WHERE "__tg_rn" > $${orderIds.length + 1} AND "__tg_rn" <= $${orderIds.length + 2} ORDER BY "__tg_rn"`,
    params: [...orderIds, 0, 10],
  };
  const productIds = [...new Set((await client.query(lines.sql, lines.params)).rows.map((r) => r.product_id))];
  return [
    orders,
    { sql: `SELECT "id", "name" FROM "customers" WHERE "id" IN (${list(1, customerIds.length)}) ORDER BY "id" ASC`, params: customerIds },
    lines,
    { sql: `SELECT "id", "name" FROM "products" WHERE "id" IN (${list(1, productIds.length)}) ORDER BY "id" ASC`, params: productIds },
  ];
}

/** The service's type parsers (src/datasources/postgres/values.ts, `typeParsers`): all but these OIDs stay text. */
const PARSED_OIDS = new Set([16, 17, 20, 21, 23, 26, 700, 701]);
const serviceTypes = {
  getTypeParser: (oid, format) => (PARSED_OIDS.has(oid) ? types.getTypeParser(oid, format) : (text) => text),
};

async function measure(client, pid, statements) {
  const run = async () => {
    for (const s of statements) await client.query(s.sql, s.params);
  };
  for (let i = 0; i < 200; i++) await run();
  const pg0 = cpuMs(pid);
  const me0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < RUNS; i++) await run();
  const wall = Number(process.hrtime.bigint() - t0) / 1e6 / RUNS;
  const me = process.cpuUsage(me0);
  return { pg: (cpuMs(pid) - pg0) / RUNS, client: (me.user + me.system) / 1000 / RUNS, wall };
}

async function main() {
  const data = await createPostgresDataset(PG, 'tg_bench_json', 1);
  const client = new Client({ connectionString: data.url, types: serviceTypes });
  try {
    await client.connect();
    const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const ways = [
      ['Q1', 'rows (1 statement)', [Q1_ROWS]],
      ['Q1', 'json (1 statement)', [{ sql: Q1_JSON, params: [] }]],
      ['Q2', 'rows (4 statements, one per level)', await q2Levels(client)],
      ['Q2', 'json (1 statement, LATERAL)', [{ sql: Q2_JSON, params: [] }]],
    ];
    const lines = [
      `| workload | way | PostgreSQL CPU ms/req | client CPU ms/req (node-postgres only) | wall ms/req |`,
      '|---|---|---:|---:|---:|',
    ];
    for (const [workload, way, statements] of ways) {
      const m = await measure(client, pid, statements);
      lines.push(`| ${workload} | ${way} | ${m.pg.toFixed(3)} | ${m.client.toFixed(3)} | ${m.wall.toFixed(3)} |`);
    }
    console.log(`${RUNS} runs each, one connection, node ${process.version}\n\n${lines.join('\n')}`);
  } finally {
    await client.end().catch(() => undefined);
    await data.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
