'use strict';
/**
 * Benchmark dataset: customers → orders → order_lines in a fresh SQLite file (and, when
 * BENCH_POSTGRES_URL is set, in a fresh PostgreSQL database). Deterministic sizes:
 * `customers` × `ordersPerCustomer` orders × `linesPerOrder` lines.
 */
const Database = require('better-sqlite3');
const { Client } = require('pg');
const { mkdirSync, rmSync } = require('node:fs');
const { dirname } = require('node:path');

const SCHEMA = {
  sqlite: `
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, city VARCHAR(100), created_at DATETIME NOT NULL);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), status VARCHAR(20) NOT NULL, total DECIMAL(12,2) NOT NULL);
    CREATE INDEX orders_customer ON orders(customer_id);
    CREATE TABLE order_lines (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), product TEXT NOT NULL, quantity INTEGER NOT NULL);
    CREATE INDEX lines_order ON order_lines(order_id);`,
  postgres: `
    CREATE TABLE customers (id serial PRIMARY KEY, name varchar(100) NOT NULL, city varchar(100), created_at timestamp NOT NULL);
    CREATE TABLE orders (id serial PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers(id), status varchar(20) NOT NULL, total numeric(12,2) NOT NULL);
    CREATE INDEX orders_customer ON orders(customer_id);
    CREATE TABLE order_lines (id serial PRIMARY KEY, order_id integer NOT NULL REFERENCES orders(id), product text NOT NULL, quantity integer NOT NULL);
    CREATE INDEX lines_order ON order_lines(order_id);`,
};

const STATUSES = ['PAID', 'PENDING', 'SHIPPED', 'CANCELLED'];

function* rows(size) {
  let orderId = 0;
  let lineId = 0;
  for (let c = 1; c <= size.customers; c++) {
    yield ['customers', [c, `Customer ${c}`, c % 7 === 0 ? null : `City ${c % 50}`, '2024-01-01 10:00:00']];
    for (let o = 0; o < size.ordersPerCustomer; o++) {
      orderId++;
      yield ['orders', [orderId, c, STATUSES[orderId % 4], ((orderId * 37) % 10000) / 100 + 1]];
      for (let l = 0; l < size.linesPerOrder; l++) yield ['order_lines', [++lineId, orderId, `P${(lineId % 40) + 1}`, (lineId % 5) + 1]];
    }
  }
}

/** Writes the dataset to `file`; returns its `sqlite:` URL. */
function createSqliteDataset(file, size) {
  mkdirSync(dirname(file), { recursive: true });
  rmSync(file, { force: true });
  const db = new Database(file);
  db.exec(SCHEMA.sqlite);
  const insert = {
    customers: db.prepare('INSERT INTO customers VALUES (?,?,?,?)'),
    orders: db.prepare('INSERT INTO orders VALUES (?,?,?,?)'),
    order_lines: db.prepare('INSERT INTO order_lines VALUES (?,?,?,?)'),
  };
  db.transaction(() => {
    for (const [table, values] of rows(size)) insert[table].run(...values);
  })();
  db.close();
  return `sqlite:${file}`;
}

/** Creates database `name` on the server of `adminUrl` with the dataset; returns its URL and a drop function. */
async function createPostgresDataset(adminUrl, name, size) {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  await db.query(SCHEMA.postgres);
  const batches = { customers: [], orders: [], order_lines: [] };
  const flush = async (table) => {
    const list = batches[table];
    if (!list.length) return;
    const width = list[0].length;
    const params = list.flat();
    const tuples = list.map((_, i) => `(${Array.from({ length: width }, (_, j) => `$${i * width + j + 1}`).join(',')})`);
    await db.query(`INSERT INTO ${table} VALUES ${tuples.join(',')}`, params);
    batches[table] = [];
  };
  for (const [table, values] of rows(size)) {
    batches[table].push(values);
    if (batches[table].length >= 1000) {
      // Parents first, so foreign keys hold.
      for (const t of ['customers', 'orders', 'order_lines']) await flush(t);
    }
  }
  for (const t of ['customers', 'orders', 'order_lines']) await flush(t);
  await db.end();
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

module.exports = { createSqliteDataset, createPostgresDataset };
