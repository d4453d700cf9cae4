'use strict';
/* eslint @typescript-eslint/no-require-imports: "off" -- a CommonJS module of the bench scripts */
/**
 * `npm run bench:writes` (issue 24): the built service's bulk writes as in production (PostgreSQL
 * metadata, Redis, a key with a high ceiling) beside a hand-written floor: the same statement sent
 * with bound parameters through `pg` directly, by a child process (so its CPU time is its own) with
 * a pool of the service's default size (10), answering nothing.
 *
 *   W1  addManyOrder_lines(rows: 500 rows) { affected }       vs  INSERT … VALUES (…) × 500
 *   W2  upsertManyCustomers(rows: 500, on: email), half new   vs  INSERT … ON CONFLICT (email) DO UPDATE
 *       (only when the schema has upsertManyCustomers at run time; else reported as skipped)
 *   W3  updateManyOrders(where: {status: {eq: …}}, set: {total}, atMost) { affected }
 *                                                              vs  UPDATE orders SET total = $2 WHERE status = $1
 *
 * The dataset is bench/dataset.js's (scale 1) in its own database, with what writes need added:
 * generated keys on order_lines and customers (so one request body can be sent again and again),
 * a unique `customers.email`, and per connection one status held by a few hundred orders (so each
 * W3 request updates its own rows: concurrent requests would otherwise queue on the same row locks
 * and measure lock waits, not writes). Rows W1/W2 add are deleted (and the tables vacuumed)
 * before every round, so each round starts from the same tables.
 *
 * Every workload is checked once before timing: one request of each side, then counts in the
 * database. Then BENCH_WARMUP_SECONDS (2) of unmeasured load per side, then BENCH_ROUNDS (3)
 * rounds of BENCH_SECONDS (10) with BENCH_CONNECTIONS (4) concurrent requests, floor and service
 * taking turns; each side's round with the median rows/s is reported. Writes
 * bench/results/writes-<date>.md and prints it.
 *
 *   BENCH_WORKLOADS=w1,w3 runs only those; BENCH_POSTGRES_URL, BENCH_REDIS_URL override the local
 *   services; BENCH_SERVICE_LOG=<file> appends the service's output to a file.
 */
require('reflect-metadata');
const { execFileSync, fork } = require('node:child_process');
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { cpus, loadavg, tmpdir } = require('node:os');
const { join } = require('node:path');

const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 4);
const PG = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const WORKLOADS = (process.env.BENCH_WORKLOADS || 'w1,w2,w3').split(',');
/** The service's default DATASOURCE_POOL_SIZE: the floor's pool is as large. */
const POOL_SIZE = 10;

const BATCH = 500; // rows of one W1/W2 request
const W3_ROWS = 300; // orders of each W3 status: "a few hundred" per request
const W3_AT_MOST = 1000;
const W3_TOTAL = '42.00';
/** The dataset's ids at scale 1 (bench/dataset.js); generated keys start after them. */
const LINES = 300_000;
const CUSTOMERS = 10_000;
const ORDERS = 100_000;

// ---------------------------------------------------------------------------------------------
// The rows both sides write (the floor child builds them with the same functions).

/** W1's 500 order lines, the same in every request: the table generates their ids. */
function w1Rows() {
  return Array.from({ length: BATCH }, (_, i) => ({
    order_id: 1 + ((i * 199) % ORDERS),
    product_id: 1 + ((i * 31) % 1000),
    quantity: 1 + (i % 5),
    price: `${(i % 90) + 0.5}`,
  }));
}

/**
 * W2's request `n` of a side (`tag`): 250 customers that exist (a window of 250 consecutive ids
 * moving by 250 a request, so concurrent requests never touch the same row) and 250 new emails.
 */
function w2Rows(tag, n) {
  const start = (n * (BATCH / 2)) % CUSTOMERS;
  const rows = [];
  for (let i = 0; i < BATCH / 2; i++) {
    const id = 1 + ((start + i) % CUSTOMERS);
    rows.push({ email: `customer${id}@example.com`, name: `Synced ${tag} ${n}`, city: `City ${n % 50}` });
  }
  for (let i = 0; i < BATCH / 2; i++) {
    rows.push({ email: `new-${tag}-${n}-${i}@example.com`, name: `New ${tag} ${n}`, city: `City ${i % 50}` });
  }
  return rows;
}

/** The status W3's connection `k` (0-based) updates: each held by W3_ROWS orders. */
const w3Status = (k) => `batch_${k + 1}`;

/** The total W3 sets: the checks before timing set their own, to tell one side's write from the other's. */
const w3Total = (tag) => ({ 'check-s': '43.00', 'check-f': '41.00' })[tag] ?? W3_TOTAL;

/** A multi-row INSERT of `rows` (objects with `columns`) with bound parameters. */
function insertValues(table, columns, rows) {
  const values = [];
  const tuples = rows.map((row) => `(${columns.map((c) => (values.push(row[c]), `$${values.length}`)).join(', ')})`);
  return { text: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, values };
}

/** The floor's statement for request `n` of worker `k`. */
const FLOOR = {
  w1: () => insertValues('order_lines', ['order_id', 'product_id', 'quantity', 'price'], w1Rows()),
  w2: (k, n, tag) => {
    const q = insertValues('customers', ['email', 'name', 'city'], w2Rows(tag, n));
    q.text += ' ON CONFLICT (email) DO UPDATE SET name = EXCLUDED.name, city = EXCLUDED.city';
    return q;
  },
  w3: (k, n, tag) => ({ text: 'UPDATE orders SET total = $2 WHERE status = $1', values: [w3Status(k), w3Total(tag)] }),
};

// ---------------------------------------------------------------------------------------------
// The floor, run as a child process: `node bench/writes.js --floor <postgres url>`, driven by
// messages {workload, seconds, connections, tag} (a timed run) or {workload, once: true}.

async function floorChild(url) {
  const { Pool } = require('pg');
  const { percentile } = require('./process');
  const pool = new Pool({ connectionString: url, max: POOL_SIZE });
  // W1's statement is the same every time: built once, as a hand-written client would.
  const w1 = FLOOR.w1();
  const statement = (workload, k, n, tag) => (workload === 'w1' ? w1 : FLOOR[workload](k, n, tag));
  process.on('message', async (m) => {
    try {
      if (m.once) {
        const r = await pool.query(statement(m.workload, 0, 0, m.tag));
        process.send({ rowCount: r.rowCount });
        return;
      }
      const latencies = [];
      let n = 0;
      let errors = 0;
      let firstError = null;
      const end = performance.now() + m.seconds * 1000;
      const worker = async (k) => {
        while (performance.now() < end) {
          const q = statement(m.workload, k, n++, m.tag);
          const t0 = performance.now();
          try {
            await pool.query(q);
            latencies.push(performance.now() - t0);
          } catch (error) {
            errors++;
            firstError ??= error.message;
          }
        }
      };
      const t0 = performance.now();
      await Promise.all(Array.from({ length: m.connections }, (_, k) => worker(k)));
      process.send({
        requests: latencies.length,
        seconds: (performance.now() - t0) / 1000,
        p50: Math.round(percentile(latencies, 50)),
        p99: Math.round(percentile(latencies, 99)),
        errors,
        firstError,
      });
    } catch (error) {
      process.send({ error: error.message });
    }
  });
  process.send('ready');
}

// ---------------------------------------------------------------------------------------------
// The bench itself.

async function main() {
  const autocannon = require('autocannon');
  const { Client } = require('pg');
  const { createPostgresDataset } = require('./dataset');
  const { cpuMs, emptyPostgresDatabase, rest, startService } = require('./process');

  const stamp = new Date().toISOString().slice(0, 10);
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-writes-'));
  const cleanups = [];
  const children = [];
  const stop = async () => {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 2000));
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  };
  process.on('SIGINT', () => {
    for (const c of children) c.kill('SIGKILL');
    process.exit(130);
  });
  const loadBefore = loadavg();
  // Other work on the machine changes every number here: say what was running.
  const busiest = () => {
    try {
      return execFileSync('ps', ['-eo', 'pcpu,comm', '--sort=-pcpu'], { encoding: 'utf8' })
        .split('\n')
        .slice(1, 6)
        .map((l) => l.trim())
        .filter(Boolean);
    } catch {
      return [];
    }
  };
  const busyBefore = busiest();
  // What was measured: the build is of the working tree, which may hold others' unfinished work.
  const git = (...args) => {
    try {
      return execFileSync('git', args, { cwd: join(__dirname, '..'), encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  const head = git('rev-parse', '--short', 'HEAD');
  const changed = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
  const started = Date.now();
  try {
    console.log('Generating the PostgreSQL dataset…');
    const data = await createPostgresDataset(PG, 'tg_bench_writes_data', 1);
    cleanups.push(() => data.drop());
    const db = new Client({ connectionString: data.url });
    await db.connect();
    cleanups.push(() => db.end());
    // What writes need (see the header): generated keys, a unique email, W3's statuses.
    const step = Math.floor(ORDERS / (W3_ROWS * CONNECTIONS));
    if (step < 1) throw new Error(`BENCH_CONNECTIONS ${CONNECTIONS} is too many for W3's statuses`);
    await db.query(`
      ALTER TABLE order_lines ALTER id ADD GENERATED BY DEFAULT AS IDENTITY (START WITH ${LINES + 1});
      ALTER TABLE customers ALTER id ADD GENERATED BY DEFAULT AS IDENTITY (START WITH ${CUSTOMERS + 1});
      ALTER TABLE customers ADD email varchar(200);
      UPDATE customers SET email = 'customer' || id || '@example.com';
      ALTER TABLE customers ALTER email SET NOT NULL, ADD CONSTRAINT customers_email UNIQUE (email);
      UPDATE orders SET status = 'batch_' || ((id / ${step}) % ${CONNECTIONS} + 1)
        WHERE id % ${step} = 0 AND id / ${step} <= ${W3_ROWS * CONNECTIONS};`);
    // Fresh statistics before the import reads them (and VACUUM outside the multi-statement transaction).
    await db.query('VACUUM ANALYZE');
    const count = async (sql, values) => Number((await db.query(sql, values)).rows[0].n);
    for (let k = 0; k < CONNECTIONS; k++) {
      const n = await count('SELECT count(*) AS n FROM orders WHERE status = $1', [w3Status(k)]);
      if (n !== W3_ROWS) throw new Error(`${w3Status(k)} has ${n} orders, not ${W3_ROWS}`);
    }
    /** Back to the dataset's rows: what W1/W2 added goes, and the dead rows with it. */
    const reset = async (workload) => {
      if (workload === 'w1') {
        await db.query(`DELETE FROM order_lines WHERE id > ${LINES}`);
        await db.query('VACUUM order_lines');
      } else if (workload === 'w2') {
        await db.query(`DELETE FROM customers WHERE id > ${CUSTOMERS}`);
        await db.query('VACUUM customers');
      } else {
        await db.query('VACUUM orders');
      }
    };

    const meta = await emptyPostgresDatabase(PG, 'tg_bench_writes_meta');
    cleanups.push(() => meta.drop());
    const { child: service, base } = await startService({
      NODE_ENV: 'production',
      DATABASE_URL: meta.url,
      REDIS_URL: REDIS,
      PLATFORM_SECRET: 'bench-platform-secret-0123456789-abcdefgh',
      ADMIN_EMAIL: 'bench@localhost',
      ADMIN_PASSWORD: 'bench-password',
      DATA_DIR: dir,
      DEMO: '0',
    });
    children.push(service);

    // The app, over the builder REST as a user would set it up.
    const { token } = await rest(base)('POST', '/api/auth/login', { email: 'bench@localhost', password: 'bench-password' });
    const call = rest(base, token);
    const app = await call('POST', '/api/apps', { name: 'bench-writes', address: 'bench-writes' });
    const ds = await call('POST', `/api/apps/${app.id}/datasources`, { name: 'bench', type: 'postgres', url: data.url });
    await call('POST', `/api/apps/${app.id}/model/import`, {
      datasourceId: ds.id,
      tables: ['public.customers', 'public.products', 'public.orders', 'public.order_lines'],
    });
    const apis = [
      ['order_lines', { select: true, insert: true, update: false, delete: false }],
      ['customers', { select: true, insert: true, update: true, delete: false }],
      ['orders', { select: true, insert: false, update: true, delete: false }],
    ];
    for (const [table, actions] of apis) {
      const api = await call('POST', `/api/apps/${app.id}/apis`, { name: table, table, actions });
      await call('POST', `/api/apps/${app.id}/apis/${api.id}/publish`);
    }
    await call('POST', `/api/apps/${app.id}/versions/publish`);
    const { key } = await call('POST', '/api/admin/api-keys', {
      name: 'bench writes',
      scope: [{ appId: app.id, endpoints: 'all' }],
      rateLimitPerMinute: 1_000_000_000,
      pointsPerMinute: 1_000_000_000,
    });
    const endpoint = `${base}/api/graphql/bench-writes`;
    const graphql = async (body) => {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(body),
      });
      return res.json();
    };

    // The mutation fields as the schema has them now (introspection, as a client would read it).
    const TYPE = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
    const schema = await graphql({
      query: `{ __type(name: "Mutation") { fields { name args { name type { ${TYPE} } } type { ${TYPE} } } } }`,
    });
    const fields = new Map((schema.data?.__type?.fields ?? []).map((f) => [f.name, f]));
    const typeText = (t) => (t.kind === 'NON_NULL' ? `${typeText(t.ofType)}!` : t.kind === 'LIST' ? `[${typeText(t.ofType)}]` : t.name);
    const named = (t) => (t.ofType ? named(t.ofType) : t);
    const argType = (field, arg) => {
      const a = fields.get(field)?.args.find((x) => x.name === arg);
      if (!a) throw new Error(`${field} has no argument ${arg}; the schema's mutations: ${[...fields.keys()].join(', ')}`);
      return typeText(a.type);
    };
    const typeFields = async (name) =>
      (await graphql({ query: `{ __type(name: "${name}") { fields { name } enumValues { name } } }` })).data?.__type ?? {};

    /** After `times` W1 requests: every line of w1Rows() is there `times` times, and nothing else. */
    const w1Lines = async (times) => {
      const all = await count(`SELECT count(*) AS n FROM order_lines WHERE id > ${LINES}`);
      const values = w1Rows().flatMap((r) => [r.order_id, r.product_id, r.quantity, r.price]);
      const matched = await count(
        `SELECT count(*) AS n FROM order_lines l JOIN (VALUES ${w1Rows().map((_, i) => `($${4 * i + 1}::int, $${4 * i + 2}::int, $${4 * i + 3}::int, $${4 * i + 4}::numeric)`).join(', ')})
           AS v (order_id, product_id, quantity, price) USING (order_id, product_id, quantity, price) WHERE l.id > ${LINES}`,
        values,
      );
      if (all !== times * BATCH || matched !== times * BATCH) throw new Error(`W1: ${all} rows added, ${matched} of them as sent; expected ${times * BATCH}`);
      return `${BATCH} lines as sent`;
    };

    /** After `times` W2 requests: 250 customers added by each, the last one's 250 existing updated. */
    const w2Written = async (times, tag) => {
      const added = await count(`SELECT count(*) AS n FROM customers WHERE id > ${CUSTOMERS}`);
      const updated = await count(`SELECT count(*) AS n FROM customers WHERE id <= ${CUSTOMERS} AND name = $1`, [`Synced ${tag} 0`]);
      if (added !== (times * BATCH) / 2 || updated !== BATCH / 2) throw new Error(`W2: ${added} customers added, ${updated} updated by ${tag}; expected ${(times * BATCH) / 2}, ${BATCH / 2}`);
      return `${BATCH / 2} customers added, ${BATCH / 2} updated`;
    };

    /** W3's rows of the first status all carry the total of `tag`'s request, and no other order does. */
    const w3Updated = async (tag) => {
      const n = await count('SELECT count(*) AS n FROM orders WHERE status = $1 AND total = $2', [w3Status(0), w3Total(tag)]);
      const all = await count('SELECT count(*) AS n FROM orders WHERE total = $1', [w3Total(tag)]);
      if (n !== W3_ROWS || all !== W3_ROWS) throw new Error(`W3: ${n} orders of ${w3Status(0)} (${all} in all) have total ${w3Total(tag)}; expected ${W3_ROWS}`);
      return `${W3_ROWS} orders updated, no other`;
    };

    /** Each workload: the service's request (per connection `state`), the rows per request, checks. */
    const workloads = [];
    workloads.push({
      name: 'w1',
      label: `W1: addManyOrder_lines of ${BATCH} order lines`,
      floorLabel: `INSERT INTO order_lines … VALUES × ${BATCH}, bound parameters`,
      rowsPerRequest: BATCH,
      body: () => ({
        query: `mutation W1($rows: ${argType('addManyOrder_lines', 'rows')}) { addManyOrder_lines(rows: $rows) { affected } }`,
        variables: { rows: w1Rows() },
      }),
      async checkService(answer) {
        if (answer.data?.addManyOrder_lines?.affected !== BATCH) throw new Error(`W1 service answered ${JSON.stringify(answer).slice(0, 300)}`);
        return w1Lines(1);
      },
      async checkFloor(rowCount) {
        if (rowCount !== BATCH) throw new Error(`W1 floor wrote ${rowCount} rows`);
        return w1Lines(2);
      },
    });
    const upsert = fields.get('upsertManyCustomers');
    let w2Skipped = null;
    const w2Label = `W2: upsertManyCustomers of ${BATCH} customers on email, half existing`;
    if (!upsert) {
      w2Skipped = 'the schema has no upsertManyCustomers (upsertMany<Base> is not in this build yet)';
    } else {
      const onArg = upsert.args.find((a) => a.name === 'on');
      const onValues = onArg ? ((await typeFields(named(onArg.type).name)).enumValues ?? []).map((v) => v.name) : [];
      const on = onValues.find((v) => /email/i.test(v));
      const answer = named(upsert.type);
      const answerFields = answer.kind === 'OBJECT' ? ((await typeFields(answer.name)).fields ?? []).map((f) => f.name) : [];
      // The counts where the answer has them ({inserted, updated, …}; or {affected} as addMany's),
      // never the rows; else the least an object answer can select; a scalar answer takes none.
      const counts = ['inserted', 'updated', 'affected'].filter((f) => answerFields.includes(f));
      const selection = answer.kind !== 'OBJECT' ? '' : `{ ${counts.length ? counts.join(' ') : '__typename'} }`;
      if (!on) {
        w2Skipped = `upsertManyCustomers has no \`on\` value naming email (on: ${onValues.join(', ') || 'none'})`;
      } else {
        const rowsType = argType('upsertManyCustomers', 'rows');
        workloads.push({
          name: 'w2',
          label: `${w2Label} (selecting ${selection || 'nothing'})`,
          floorLabel: `INSERT INTO customers … VALUES × ${BATCH} ON CONFLICT (email) DO UPDATE SET name, city`,
          rowsPerRequest: BATCH,
          // A new body per request: the 250 new emails must be new every time.
          body: (n, tag) => ({
            query: `mutation W2($rows: ${rowsType}) { upsertManyCustomers(rows: $rows, on: ${on}) ${selection} }`,
            variables: { rows: w2Rows(tag, n) },
          }),
          async checkService(answer) {
            if (answer.errors || !answer.data?.upsertManyCustomers) throw new Error(`W2 service answered ${JSON.stringify(answer).slice(0, 300)}`);
            const { affected, inserted, updated } = answer.data.upsertManyCustomers;
            const expected = { affected: BATCH, inserted: BATCH / 2, updated: BATCH / 2 };
            for (const [name, value] of Object.entries({ affected, inserted, updated })) {
              if (value !== undefined && value !== expected[name]) throw new Error(`W2 service answered ${name} ${value}, not ${expected[name]}`);
            }
            return w2Written(1, 'check-s');
          },
          async checkFloor(rowCount) {
            if (rowCount !== BATCH) throw new Error(`W2 floor wrote ${rowCount} rows`);
            return w2Written(2, 'check-f');
          },
        });
      }
    }
    if (w2Skipped) {
      workloads.push({ name: 'w2', label: w2Label, skipped: w2Skipped });
      console.log(`w2: skipped: ${w2Skipped}`);
    }
    workloads.push({
      name: 'w3',
      label: `W3: updateManyOrders of one status (${W3_ROWS} orders) setting total`,
      floorLabel: 'UPDATE orders SET total = $2 WHERE status = $1',
      rowsPerRequest: W3_ROWS,
      body: (n, tag, k) => ({
        query: `mutation W3($where: ${argType('updateManyOrders', 'where')}, $set: ${argType('updateManyOrders', 'set')}, $atMost: ${argType('updateManyOrders', 'atMost')}) { updateManyOrders(where: $where, set: $set, atMost: $atMost) { affected } }`,
        variables: { where: { status: { eq: w3Status(k) } }, set: { total: w3Total(tag) }, atMost: W3_AT_MOST },
      }),
      async checkService(answer) {
        if (answer.data?.updateManyOrders?.affected !== W3_ROWS) throw new Error(`W3 service answered ${JSON.stringify(answer).slice(0, 300)}`);
        return w3Updated('check-s');
      },
      async checkFloor(rowCount) {
        if (rowCount !== W3_ROWS) throw new Error(`W3 floor updated ${rowCount} rows`);
        return w3Updated('check-f');
      },
    });

    const floorProcess = fork(__filename, ['--floor', data.url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(floorProcess);
    await new Promise((resolve) => floorProcess.once('message', resolve));
    const floorCall = (message) =>
      new Promise((resolve, reject) => {
        floorProcess.once('message', (m) => (m.error ? reject(new Error(m.error)) : resolve(m)));
        floorProcess.send(message);
      });

    /** One timed run of the floor: rows/s, p50/p99, the floor process's CPU ms per request. */
    const floorRun = async (w, seconds, tag) => {
      const cpu0 = cpuMs(floorProcess.pid);
      const r = await floorCall({ workload: w.name, seconds, connections: CONNECTIONS, tag });
      const cpu = cpuMs(floorProcess.pid) - cpu0;
      if (r.firstError) console.log(`  floor error: ${r.firstError}`);
      return {
        rowsPerSecond: Math.round((r.requests * w.rowsPerRequest) / r.seconds),
        requests: r.requests,
        p50: r.p50,
        p99: r.p99,
        cpu: r.requests ? cpu / r.requests : 0,
        errors: r.errors,
      };
    };

    /**
     * One timed run of the service with autocannon. Each connection keeps its own `state`
     * (autocannon deep-copies the request per connection), which gives W3 one status per
     * connection; W2 numbers its requests across connections. A GraphQL error (HTTP 200 with
     * `errors`) counts as an error, as a non-2xx does.
     */
    const serviceRun = async (w, seconds, tag) => {
      let next = 0;
      let connection = 0;
      const used = new Set();
      const cpu0 = cpuMs(service.pid);
      const r = await new Promise((resolve, reject) => {
        autocannon(
          {
            url: endpoint,
            connections: CONNECTIONS,
            duration: seconds,
            timeout: 30,
            verifyBody: (body) => !body.includes('"errors"'),
            requests: [
              {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-api-key': key },
                state: {},
                setupRequest: (req) => {
                  req.state.k ??= connection++;
                  used.add(req.state.k);
                  return { ...req, body: JSON.stringify(w.body(next++, tag, req.state.k)) };
                },
              },
            ],
          },
          (error, result) => (error ? reject(error) : resolve(result)),
        );
      });
      const cpu = cpuMs(service.pid) - cpu0;
      if (w.name === 'w3' && used.size !== CONNECTIONS) {
        throw new Error(`W3: ${used.size} statuses used by ${CONNECTIONS} connections; each connection needs its own`);
      }
      // A refused request is non-2xx, or 200 with `errors` (a mismatch), or both.
      const refused = Math.max(r.non2xx, r.mismatches);
      const ok = r.requests.total - refused;
      return {
        rowsPerSecond: Math.round((ok * w.rowsPerRequest) / r.duration),
        requests: r.requests.total,
        p50: r.latency.p50,
        p99: r.latency.p99,
        cpu: r.requests.total ? cpu / r.requests.total : 0,
        errors: r.errors + refused,
      };
    };

    const results = [];
    for (const w of workloads) {
      if (!WORKLOADS.includes(w.name)) continue;
      if (w.skipped) {
        results.push({ w, skipped: w.skipped });
        continue;
      }
      await reset(w.name);
      console.log(`${w.name}: one request of each side, then counts…`);
      const byService = await w.checkService(await graphql(w.body(0, 'check-s', 0)));
      const { rowCount } = await floorCall({ workload: w.name, once: true, tag: 'check-f' });
      const byFloor = await w.checkFloor(rowCount);
      const checked = `service: ${byService}; floor: ${byFloor}`;
      console.log(`  ${checked}`);
      await reset(w.name);
      console.log(`${w.name}: warm-up (${WARMUP_SECONDS} s each)…`);
      await floorRun(w, WARMUP_SECONDS, 'warm-f');
      await reset(w.name);
      await serviceRun(w, WARMUP_SECONDS, 'warm-s');
      const floorRounds = [];
      const serviceRounds = [];
      for (let round = 1; round <= ROUNDS; round++) {
        await reset(w.name);
        console.log(`${w.name}: floor (round ${round} of ${ROUNDS})…`);
        floorRounds.push(await floorRun(w, SECONDS, `f${round}`));
        await reset(w.name);
        console.log(`${w.name}: service (round ${round} of ${ROUNDS})…`);
        serviceRounds.push(await serviceRun(w, SECONDS, `s${round}`));
      }
      await reset(w.name);
      const median = (rounds) => [...rounds].sort((a, b) => a.rowsPerSecond - b.rowsPerSecond)[Math.floor((rounds.length - 1) / 2)];
      results.push({ w, checked, f: median(floorRounds), s: median(serviceRounds), floorRounds, serviceRounds });
    }

    const loadAfter = loadavg();
    const busyAfter = busiest();
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    const ratio = (a, b) => (b ? (a / b).toFixed(2) : '–');
    const ms = (x) => (x >= 10 ? x.toFixed(0) : x.toFixed(2));
    // Under a load that drifts, each round against the floor's round just before it says more than
    // the two medians, which may come from different moments.
    const pairedRatio = (floorRounds, serviceRounds) => {
      const ratios = floorRounds.map((f, i) => serviceRounds[i].rowsPerSecond / f.rowsPerSecond).sort((a, b) => a - b);
      return ratios[Math.floor((ratios.length - 1) / 2)].toFixed(2);
    };
    const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
    const otherLoad = loadBefore[0] >= 0.5;
    const lines = [
      `# Write benchmark ${stamp}`,
      '',
      `Machine: ${cpus().length} cores, node ${process.version}. Load average before the run ${load(loadBefore)}, after ${load(loadAfter)} (1, 5, 15 min); ` +
        (otherLoad
          ? `**numbers taken with other load present** (other engineers' tests on the same machine; the busiest processes before the run: ${busyBefore.join('; ')}; after: ${busyAfter.join('; ')}). Read the ratios rather than the absolute rates.`
          : 'the machine was otherwise idle.'),
      '',
      `Built from ${head || 'an unknown commit'}${changed ? ` plus ${changed} uncommitted or new files in src/ (work in progress in the checkout at the time, measured as built)` : ''}.`,
      '',
      `The service as in production (built, NODE_ENV=production, PostgreSQL metadata, Redis, a key with a high ceiling), one app with Table APIs on order_lines (insert), customers (insert, update) and orders (update) of bench/dataset.js's PostgreSQL dataset at scale 1 (10,000 customers, 100,000 orders, 300,000 order lines), plus generated keys on order_lines and customers, a unique customers.email and ${CONNECTIONS} statuses of ${W3_ROWS} orders each. Requests carry their rows as variables. The floor: the same statement with bound parameters through \`pg\` from a child process, a pool of ${POOL_SIZE} (the service's default DATASOURCE_POOL_SIZE), answering nothing. ${CONNECTIONS} concurrent requests on each side (autocannon connections / floor workers), ${SECONDS} s per round after ${WARMUP_SECONDS} s of warm-up per side; floor and service take turns for ${ROUNDS} rounds and each side's round with the median rows/s is shown. Rows W1/W2 added are deleted and the table vacuumed before every round. Every workload was checked once before timing (below). Run time ${minutes} min.`,
      '',
      '| workload | floor rows/s | service rows/s | service / floor | service / floor, median of the rounds | p50 / p99 ms (floor) | p50 / p99 ms (service) | CPU ms/request (floor / service) | requests (floor / service) | errors (floor / service) |',
      '|---|---:|---:|---:|---:|---|---|---|---:|---:|',
      ...results.map(({ w, f, s, floorRounds, serviceRounds, skipped }) =>
        skipped
          ? `| ${w.label} | – | – | – | – | – | – | – | – | skipped: ${skipped} |`
          : `| ${w.label} | ${f.rowsPerSecond} | ${s.rowsPerSecond} | ${ratio(s.rowsPerSecond, f.rowsPerSecond)} | ${pairedRatio(floorRounds, serviceRounds)} | ${f.p50} / ${f.p99} | ${s.p50} / ${s.p99} | ${ms(f.cpu)} / ${ms(s.cpu)} (${ratio(s.cpu, f.cpu)}×) | ${f.requests} / ${s.requests} | ${f.errors} / ${s.errors} |`,
      ),
      '',
      'Latency: the service\'s is autocannon\'s (the HTTP request, end to end); the floor\'s is `pool.query` timed in the floor process. ' +
        'CPU ms/request is the process\'s own (utime + stime from /proc): the service\'s whole work (HTTP, GraphQL, planning, the transaction), or the floor child\'s (building the statement, `pg`). PostgreSQL\'s own CPU is not shown: other databases on the same server were busy.',
      '',
      '| workload | floor statement | check before timing | rows/s of each round (floor; service) |',
      '|---|---|---|---|',
      ...results.filter((r) => !r.skipped).map(({ w, checked, floorRounds, serviceRounds }) =>
        `| ${w.name.toUpperCase()} | \`${w.floorLabel}\` | ${checked} | ${floorRounds.map((r) => r.rowsPerSecond).join(', ')}; ${serviceRounds.map((r) => r.rowsPerSecond).join(', ')} |`,
      ),
      '',
    ];
    const report = lines.join('\n');
    // Only a run of every workload is a result; a partial one is printed.
    if (['w1', 'w2', 'w3'].every((n) => WORKLOADS.includes(n))) {
      mkdirSync(join(__dirname, 'results'), { recursive: true });
      writeFileSync(join(__dirname, 'results', `writes-${stamp}.md`), report);
    }
    console.log(`\n${report}`);
  } finally {
    await stop();
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--floor') {
  floorChild(process.argv[3]).catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
