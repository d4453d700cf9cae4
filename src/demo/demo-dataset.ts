import Database from 'better-sqlite3';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

/** Order statuses of the demo dataset (the `OrderStatus` enum, CONTRACT.md §9). */
export const DEMO_ORDER_STATUSES = ['PENDING', 'PAID', 'SHIPPED', 'CANCELLED'];

/**
 * Writes the demo sales dataset to a fresh SQLite file: 8 customers, 6 products, 20 orders,
 * 40 order lines, with foreign keys between them. Deterministic (no randomness), so the README's
 * examples show the same rows everywhere.
 */
export function writeDemoDataset(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  rmSync(file, { force: true });
  const db = new Database(file);
  try {
    db.exec(`
      PRAGMA foreign_keys = ON;
      CREATE TABLE customers (
        id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, email VARCHAR(200) NOT NULL UNIQUE,
        city VARCHAR(100), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);
      CREATE TABLE products (
        id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, price DECIMAL(10,2) NOT NULL,
        stock INTEGER NOT NULL DEFAULT 0, active BOOLEAN NOT NULL DEFAULT 1);
      CREATE TABLE orders (
        id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
        status VARCHAR(20) NOT NULL DEFAULT 'PENDING', ordered_at DATETIME NOT NULL, total DECIMAL(12,2));
      CREATE TABLE order_lines (
        id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
        product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL, unit_price DECIMAL(10,2) NOT NULL);
    `);
    const cities = ['Lisboa', 'Porto', 'São Paulo', 'Recife', 'Berlin', null];
    const names = [
      'Ana Souza',
      'Bruno Lima',
      'Carla Dias',
      'Diego Alves',
      'Eva Müller',
      'Fábio Rocha',
      'Gil Santos',
      'Helena Costa',
    ];
    const insertCustomer = db.prepare(
      'INSERT INTO customers (id, name, email, city, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    names.forEach((name, i) =>
      insertCustomer.run(
        i + 1,
        name,
        `${name.split(' ')[0].toLowerCase()}@example.com`,
        cities[i % cities.length],
        `2024-01-${String(i + 1).padStart(2, '0')} 09:30:00`,
      ),
    );
    const products: [string, string, number][] = [
      ['Espresso beans 1kg', '24.90', 40],
      ['Green tea 100g', '7.50', 120],
      ['Ceramic mug', '12.00', 60],
      ['Pour-over kettle', '59.00', 15],
      ['Paper filters (100)', '4.20', 300],
      ['Hand grinder', '89.90', 8],
    ];
    const insertProduct = db.prepare(
      'INSERT INTO products (id, name, price, stock) VALUES (?, ?, ?, ?)',
    );
    products.forEach(([name, price, stock], i) => insertProduct.run(i + 1, name, price, stock));
    const insertOrder = db.prepare(
      'INSERT INTO orders (id, customer_id, status, ordered_at, total) VALUES (?, ?, ?, ?, ?)',
    );
    const insertLine = db.prepare(
      'INSERT INTO order_lines (order_id, product_id, quantity, unit_price) VALUES (?, ?, ?, ?)',
    );
    for (let o = 1; o <= 20; o++) {
      const lines: [number, number][] = [];
      for (let l = 0; l < (o % 3) + 1; l++)
        lines.push([((o + l * 2) % products.length) + 1, ((o + l) % 4) + 1]);
      const cents = lines.reduce(
        (sum, [p, q]) => sum + Math.round(Number(products[p - 1][1]) * 100) * q,
        0,
      );
      insertOrder.run(
        o,
        ((o * 5) % names.length) + 1,
        DEMO_ORDER_STATUSES[o % 4],
        `2024-02-${String(o).padStart(2, '0')} 1${o % 10}:15:00`,
        (cents / 100).toFixed(2),
      );
      for (const [p, q] of lines) insertLine.run(o, p, q, products[p - 1][1]);
    }
  } finally {
    db.close();
  }
}
