'use strict';
/**
 * The benchmark dataset of issue 8, generated deterministically in SQL: customers, products,
 * orders (status among new/paid/shipped/cancelled, a numeric total, a placed_at) and order lines,
 * shaped as users' databases are (issue 25 item 5): `status`, `total` and `placed_at` are
 * nullable, and 1 % of the orders that are not shipped have a NULL in one of them (status NULL for
 * id ≡ 1, total for id ≡ 3, placed_at for id ≡ 5 (mod 100); shipped orders are id ≡ 2 (mod 4)), so
 * the planner sees real NULLs while every workload's answer is the same under any NULL order
 * (PostGraphile sorts by the database's default; the contract puts NULLs last under DESC). The
 * indexes a DBA would make: every foreign key and `orders (status, placed_at DESC, id)`.
 * `scale` 1 is 10,000 customers, 1,000 products, 100,000 orders and 300,000 lines; BENCH_BIG's
 * second dataset (bench/run.js) is scale 33⅓: 10 million lines.
 */
const Database = require('better-sqlite3');
const mysql = require('mysql2/promise');
const { Client } = require('pg');

const size = (scale) => ({
  customers: Math.round(10_000 * scale),
  products: Math.round(1_000 * scale),
  orders: Math.round(100_000 * scale),
  // Three lines per order, so every line's order exists at any scale.
  lines: 3 * Math.round(100_000 * scale),
});

/** Creates database `name` on the PostgreSQL server at `adminUrl` with the dataset; returns {url, drop}. */
async function createPostgresDataset(adminUrl, name, scale = 1) {
  const n = size(scale);
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  // A failed or cancelled load leaves no database and no open connection behind.
  const fail = async (error) => {
    await db.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`).catch(() => undefined);
    await admin.end().catch(() => undefined);
    throw error;
  };
  await db.query(`
    CREATE TABLE customers (id integer PRIMARY KEY, name varchar(100) NOT NULL, city varchar(100));
    CREATE TABLE products (id integer PRIMARY KEY, name varchar(100) NOT NULL, price numeric(10,2) NOT NULL);
    CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer NOT NULL,
      status varchar(20), total numeric(12,2), placed_at timestamptz);
    CREATE TABLE order_lines (id integer PRIMARY KEY, order_id integer NOT NULL,
      product_id integer NOT NULL, quantity integer NOT NULL, price numeric(10,2) NOT NULL);
    INSERT INTO customers SELECT g, 'Customer ' || g, 'City ' || (g % 50) FROM generate_series(1, ${n.customers}) g;
    INSERT INTO products SELECT g, 'Product ' || g, (g % 90) + 9.99 FROM generate_series(1, ${n.products}) g;
    INSERT INTO orders SELECT g, 1 + (g::bigint * 7919) % ${n.customers},
      CASE WHEN g % 100 = 1 THEN NULL ELSE (ARRAY['new','paid','shipped','cancelled'])[1 + g % 4] END,
      CASE WHEN g % 100 = 3 THEN NULL ELSE ((g * 37) % 500) + 0.25 END,
      CASE WHEN g % 100 = 5 THEN NULL ELSE timestamptz '2024-01-01 00:00:00+00' + g * interval '5 minutes' END
      FROM generate_series(1, ${n.orders}) g;
    INSERT INTO order_lines SELECT g, 1 + (g - 1) / 3, 1 + (g * 31) % ${n.products}, 1 + g % 5, ((g * 13) % 90) + 0.5
      FROM generate_series(1, ${n.lines}) g;
    -- Foreign keys added after the rows: one validating scan each, not a trigger per row (10
    -- million of them on BENCH_BIG's dataset).
    ALTER TABLE orders ADD FOREIGN KEY (customer_id) REFERENCES customers(id);
    ALTER TABLE order_lines ADD FOREIGN KEY (order_id) REFERENCES orders(id),
      ADD FOREIGN KEY (product_id) REFERENCES products(id);
    CREATE INDEX orders_customer ON orders (customer_id);
    CREATE INDEX lines_order ON order_lines (order_id);
    CREATE INDEX lines_product ON order_lines (product_id);
    CREATE INDEX orders_status_placed ON orders (status, placed_at DESC, id);
    -- Q6's per-parent pages (issue 25 item 2), shaped as the MySQL "employees" sample's
    -- departments and dept_emp: 9 departments over 331,606 rows, the foreign key indexed.
    CREATE TABLE departments (dept_no varchar(4) PRIMARY KEY, dept_name varchar(40) NOT NULL);
    CREATE TABLE dept_emp (emp_no integer NOT NULL, dept_no varchar(4) NOT NULL,
      from_date date NOT NULL, PRIMARY KEY (emp_no, dept_no));
    INSERT INTO departments SELECT 'd00' || g, 'Department ' || g FROM generate_series(1, 9) g;
    INSERT INTO dept_emp SELECT g, 'd00' || (1 + g % 9), date '1985-01-01' + (g % 5000)
      FROM generate_series(1, 331606) g;
    ALTER TABLE dept_emp ADD FOREIGN KEY (dept_no) REFERENCES departments(dept_no);
    CREATE INDEX dept_emp_dept ON dept_emp (dept_no);
    ANALYZE;`).catch(fail);
  await db.end();
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.end();
    },
  };
}

/** The same dataset in a MariaDB/MySQL database `name` (sequence engine of MariaDB). */
async function createMysqlDataset(adminUrl, name, scale = 1) {
  const n = size(scale);
  const conn = await mysql.createConnection({ uri: adminUrl, multipleStatements: true });
  await conn.query(`DROP DATABASE IF EXISTS \`${name}\`; CREATE DATABASE \`${name}\`; USE \`${name}\`;`);
  await conn.query(`
    CREATE TABLE customers (id int PRIMARY KEY, name varchar(100) NOT NULL, city varchar(100));
    CREATE TABLE products (id int PRIMARY KEY, name varchar(100) NOT NULL, price decimal(10,2) NOT NULL);
    CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, status varchar(20) NULL,
      total decimal(12,2) NULL, placed_at timestamp(3) NULL, FOREIGN KEY (customer_id) REFERENCES customers(id));
    CREATE TABLE order_lines (id int PRIMARY KEY, order_id int NOT NULL, product_id int NOT NULL, quantity int NOT NULL,
      price decimal(10,2) NOT NULL, FOREIGN KEY (order_id) REFERENCES orders(id), FOREIGN KEY (product_id) REFERENCES products(id));
    SET time_zone = '+00:00';
    INSERT INTO customers SELECT seq, CONCAT('Customer ', seq), CONCAT('City ', seq % 50) FROM seq_1_to_${n.customers};
    INSERT INTO products SELECT seq, CONCAT('Product ', seq), (seq % 90) + 9.99 FROM seq_1_to_${n.products};
    INSERT INTO orders SELECT seq, 1 + (seq * 7919) % ${n.customers},
      IF(seq % 100 = 1, NULL, ELT(1 + seq % 4, 'new','paid','shipped','cancelled')),
      IF(seq % 100 = 3, NULL, ((seq * 37) % 500) + 0.25),
      IF(seq % 100 = 5, NULL, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL (seq * 5) MINUTE) FROM seq_1_to_${n.orders};
    INSERT INTO order_lines SELECT seq, 1 + (seq - 1) DIV 3, 1 + (seq * 31) % ${n.products}, 1 + seq % 5, ((seq * 13) % 90) + 0.5
      FROM seq_1_to_${n.lines};
    CREATE INDEX orders_status_placed ON orders (status, placed_at DESC, id);
    ANALYZE TABLE customers, products, orders, order_lines;`);
  await conn.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = await mysql.createConnection({ uri: adminUrl });
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await c.end();
    },
  };
}

/** The same dataset in a SQLite file. */
function createSqliteDataset(file, scale = 1) {
  const n = size(scale);
  const db = new Database(file);
  db.exec(`
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, city VARCHAR(100));
    CREATE TABLE products (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, price DECIMAL(10,2) NOT NULL);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
      status VARCHAR(20), total DECIMAL(12,2), placed_at DATETIME);
    CREATE TABLE order_lines (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
      product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL, price DECIMAL(10,2) NOT NULL);
    WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${n.customers})
      INSERT INTO customers SELECT n, 'Customer ' || n, 'City ' || (n % 50) FROM g;
    WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${n.products})
      INSERT INTO products SELECT n, 'Product ' || n, (n % 90) + 9.99 FROM g;
    WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${n.orders})
      INSERT INTO orders SELECT n, 1 + (n * 7919) % ${n.customers},
        CASE WHEN n % 100 = 1 THEN NULL WHEN n % 4 = 0 THEN 'new' WHEN n % 4 = 1 THEN 'paid' WHEN n % 4 = 2 THEN 'shipped' ELSE 'cancelled' END,
        CASE WHEN n % 100 = 3 THEN NULL ELSE ((n * 37) % 500) + 0.25 END,
        CASE WHEN n % 100 = 5 THEN NULL ELSE datetime('2024-01-01 00:00:00', '+' || (n * 5) || ' minutes') END FROM g;
    WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${n.lines})
      INSERT INTO order_lines SELECT n, 1 + (n - 1) / 3, 1 + (n * 31) % ${n.products}, 1 + n % 5, ((n * 13) % 90) + 0.5 FROM g;
    CREATE INDEX orders_customer ON orders (customer_id);
    CREATE INDEX lines_order ON order_lines (order_id);
    CREATE INDEX lines_product ON order_lines (product_id);
    CREATE INDEX orders_status_placed ON orders (status, placed_at DESC, id);
    ANALYZE;`);
  db.close();
}

module.exports = { createPostgresDataset, createMysqlDataset, createSqliteDataset, size };
