import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MysqlDatabase } from './mysql-fixture';
import type { PgDatabase } from './postgres-fixture';

/**
 * The e2e sales dataset: customers, orders, order lines with foreign keys, built the same on
 * every database. Names hold LIKE specials (`%`, `_`, `\`, `[`), mixed case and non-ASCII; some
 * cities and ship dates are empty; customer 6 has no orders. Tests derive expected answers from
 * these arrays.
 */
export const CUSTOMERS = [
  {
    id: 1,
    name: 'Ana Souza',
    email: 'ana@example.com',
    city: 'Lisboa',
    created_at: '2024-01-05 10:00:00',
  },
  {
    id: 2,
    name: 'Bruno 100% Lima',
    email: 'bruno@example.com',
    city: 'Porto',
    created_at: '2024-01-06 11:30:00.250',
  },
  {
    id: 3,
    name: 'Carla_Dias',
    email: 'carla@example.com',
    city: null,
    created_at: '2024-01-07 09:15:00',
  },
  {
    id: 4,
    name: 'Diego \\ Alves',
    email: 'diego@example.com',
    city: 'São Paulo',
    created_at: '2024-01-08 23:59:59',
  },
  {
    id: 5,
    name: 'Eva [Müller]',
    email: 'eva@example.com',
    city: 'Berlin',
    created_at: '2024-01-09 00:00:00',
  },
  {
    id: 6,
    name: 'fábio rocha',
    email: 'fabio@example.com',
    city: null,
    created_at: '2024-01-10 08:00:00',
  },
];

const STATUSES = ['PAID', 'PENDING', 'SHIPPED'];

export const ORDERS = Array.from({ length: 12 }, (_, k) => {
  const i = k + 1;
  return {
    id: i,
    customer_id: ((i - 1) % 5) + 1,
    status: STATUSES[i % 3],
    total: `${i * 10}.50`,
    placed_at: `2024-03-${String(i).padStart(2, '0')} 12:00:00`,
    ship_date: i % 4 === 0 ? null : `2024-03-${String(i + 1).padStart(2, '0')}`,
    big: i === 1 ? '9007199254740993' : String(i),
  };
});

export const ORDER_LINES = ORDERS.flatMap((o) =>
  Array.from({ length: (o.id % 3) + 1 }, (_, j) => ({
    order_id: o.id,
    product: `P${j + 1}`,
    quantity: j + 1,
    unit_price: (1.25 * (j + 1)).toFixed(2),
  })),
).map((line, k) => ({ id: k + 1, ...line }));

/**
 * Creates and fills the three tables in a PostgreSQL database (orders.placed_at is timestamptz),
 * with their foreign keys indexed.
 */
export async function loadSalesIntoPostgres(db: PgDatabase): Promise<void> {
  await db.exec(`
    CREATE TABLE customers (id serial PRIMARY KEY, name varchar(100) NOT NULL, email varchar(200) NOT NULL UNIQUE,
      city varchar(100), created_at timestamp NOT NULL DEFAULT now());
    CREATE TABLE orders (id serial PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers(id),
      status varchar(20) NOT NULL, total numeric(10,2) NOT NULL, placed_at timestamptz NOT NULL, ship_date date, big bigint);
    CREATE TABLE order_lines (id serial PRIMARY KEY, order_id integer NOT NULL REFERENCES orders(id),
      product text NOT NULL, quantity integer NOT NULL, unit_price numeric(10,2) NOT NULL);
    -- The foreign keys indexed, as a DBA would: one-to-many pages are then read per parent
    -- (ADR 0015), and every PostgreSQL suite's navigation goes that way.
    CREATE INDEX orders_customer_id ON orders (customer_id);
    CREATE INDEX order_lines_order_id ON order_lines (order_id);`);
  for (const c of CUSTOMERS)
    await db.exec('INSERT INTO customers VALUES ($1,$2,$3,$4,$5)', [
      c.id,
      c.name,
      c.email,
      c.city,
      c.created_at,
    ]);
  for (const o of ORDERS) {
    await db.exec('INSERT INTO orders VALUES ($1,$2,$3,$4,$5,$6,$7)', [
      o.id,
      o.customer_id,
      o.status,
      o.total,
      `${o.placed_at}+00`,
      o.ship_date,
      o.big,
    ]);
  }
  for (const l of ORDER_LINES)
    await db.exec('INSERT INTO order_lines VALUES ($1,$2,$3,$4,$5)', [
      l.id,
      l.order_id,
      l.product,
      l.quantity,
      l.unit_price,
    ]);
}

/**
 * Writes the three tables to `sales.db` in the service's SQLite datasource folder
 * (`<DATA_DIR>/datasources`); returns the URL a builder would send, e.g. `sqlite:sales.db`.
 */
export function loadSalesIntoSqlite(dataDir: string, fileName = 'sales.db'): string {
  mkdirSync(join(dataDir, 'datasources'), { recursive: true });
  const file = join(dataDir, 'datasources', fileName);
  const db = new Database(file);
  db.exec(`
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, email VARCHAR(200) NOT NULL UNIQUE,
      city VARCHAR(100), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
      status VARCHAR(20) NOT NULL, total DECIMAL(10,2) NOT NULL, placed_at DATETIME NOT NULL, ship_date DATE, big BIGINT);
    CREATE TABLE order_lines (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
      product TEXT NOT NULL, quantity INTEGER NOT NULL, unit_price DECIMAL(10,2) NOT NULL);`);
  const c = db.prepare('INSERT INTO customers VALUES (?,?,?,?,?)');
  for (const r of CUSTOMERS) c.run(r.id, r.name, r.email, r.city, r.created_at);
  const o = db.prepare('INSERT INTO orders VALUES (?,?,?,?,?,?,?)');
  for (const r of ORDERS)
    o.run(r.id, r.customer_id, r.status, r.total, r.placed_at, r.ship_date, BigInt(r.big));
  const l = db.prepare('INSERT INTO order_lines VALUES (?,?,?,?,?)');
  for (const r of ORDER_LINES) l.run(r.id, r.order_id, r.product, r.quantity, r.unit_price);
  db.close();
  return `sqlite:${fileName}`;
}

/** Creates and fills the three tables in a MariaDB/MySQL database (orders.placed_at is TIMESTAMP). */
export async function loadSalesIntoMysql(db: MysqlDatabase): Promise<void> {
  await db.exec(`
    CREATE TABLE customers (id int AUTO_INCREMENT PRIMARY KEY, name varchar(100) NOT NULL, email varchar(200) NOT NULL UNIQUE,
      city varchar(100), created_at datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3));
    CREATE TABLE orders (id int AUTO_INCREMENT PRIMARY KEY, customer_id int NOT NULL, status varchar(20) NOT NULL,
      total decimal(10,2) NOT NULL, placed_at timestamp(3) NOT NULL, ship_date date, big bigint,
      FOREIGN KEY (customer_id) REFERENCES customers(id));
    CREATE TABLE order_lines (id int AUTO_INCREMENT PRIMARY KEY, order_id int NOT NULL, product text NOT NULL,
      quantity int NOT NULL, unit_price decimal(10,2) NOT NULL, FOREIGN KEY (order_id) REFERENCES orders(id));`);
  for (const c of CUSTOMERS)
    await db.exec('INSERT INTO customers VALUES (?,?,?,?,?)', [
      c.id,
      c.name,
      c.email,
      c.city,
      c.created_at,
    ]);
  for (const o of ORDERS)
    await db.exec('INSERT INTO orders VALUES (?,?,?,?,?,?,?)', [
      o.id,
      o.customer_id,
      o.status,
      o.total,
      o.placed_at,
      o.ship_date,
      o.big,
    ]);
  for (const l of ORDER_LINES)
    await db.exec('INSERT INTO order_lines VALUES (?,?,?,?,?)', [
      l.id,
      l.order_id,
      l.product,
      l.quantity,
      l.unit_price,
    ]);
}
