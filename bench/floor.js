'use strict';
/**
 * The raw-SQL floor (issue 8): plain `node:http` + a `pg` Pool, one hand-written SQL statement per
 * request, answering the same JSON as the service for the six workloads. Run as a child process
 * by bench/run.js (so its CPU time is its own): `node bench/floor.js <postgres url> <port>`.
 */
const http = require('node:http');
const { Pool } = require('pg');

const [url, port] = process.argv.slice(2);
const pool = new Pool({ connectionString: url, max: 10 });

const FILTER = `o.status = 'shipped' AND o.total > 100`;
const ORDER = 'o.placed_at DESC, o.id ASC';
const TS = `to_char(o.placed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const SQL = {
  // Q1: 50 orders, newest first, skip 100.
  q1: `SELECT json_build_object('getOrders', coalesce(json_agg(json_build_object(
         'id', o.id::text, 'status', o.status, 'total', o.total::text, 'placed_at', ${TS}) ORDER BY ${ORDER}), '[]'))::text AS body
       FROM (SELECT * FROM orders o WHERE ${FILTER} ORDER BY ${ORDER} LIMIT 50 OFFSET 100) o`,
  // Q2: Q1 + each order's customer and all its lines (by id) with their product, in one statement.
  q2: `SELECT json_build_object('getOrders', coalesce(json_agg(json_build_object(
         'id', o.id::text, 'status', o.status, 'total', o.total::text, 'placed_at', ${TS},
         'customer', json_build_object('id', c.id::text, 'name', c.name),
         'order_lines', l.lines) ORDER BY ${ORDER}), '[]'))::text AS body
       FROM (SELECT * FROM orders o WHERE ${FILTER} ORDER BY ${ORDER} LIMIT 50 OFFSET 100) o
       JOIN customers c ON c.id = o.customer_id
       CROSS JOIN LATERAL (
         SELECT coalesce(json_agg(json_build_object('id', x.id::text, 'quantity', x.quantity,
                  'product', json_build_object('id', p.id::text, 'name', p.name)) ORDER BY x.id), '[]') AS lines
         FROM (SELECT * FROM order_lines ol WHERE ol.order_id = o.id ORDER BY ol.id) x
         JOIN products p ON p.id = x.product_id) l`,
  // Q3: the count of Q1's filter.
  q3: `SELECT json_build_object('countOrders', count(*))::text AS body FROM orders o WHERE ${FILTER}`,
  // Q4: the 50 customers with the most revenue from shipped orders: count and exact sum (trailing
  // zeros dropped), by sum descending (an empty sum last) then customer.
  q4: `SELECT json_build_object('aggregateOrders', coalesce(json_agg(json_build_object(
         'key', json_build_object('customer_id', g.customer_id::text), 'count', g.n,
         'sum', json_build_object('total', trim_scale(g.s)::text)) ORDER BY g.s DESC NULLS LAST, g.customer_id), '[]'))::text AS body
       FROM (SELECT customer_id, count(*) AS n, sum(total) AS s FROM orders WHERE status = 'shipped'
             GROUP BY customer_id ORDER BY sum(total) DESC NULLS LAST, customer_id LIMIT 50) g`,
  // Q5: 50 orders whose customer is in one city and with a line of one product.
  q5: `SELECT json_build_object('getOrders', coalesce(json_agg(json_build_object(
         'id', o.id::text, 'status', o.status, 'total', o.total::text) ORDER BY o.id), '[]'))::text AS body
       FROM (SELECT * FROM orders o
             WHERE EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id AND c.city = 'City 7')
               AND EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id AND l.product_id = 17)
             ORDER BY o.id LIMIT 50) o`,
  // Q6: the first 9 departments, each with its first 5 employees by key (a page per parent).
  q6: `SELECT json_build_object('getDepartments', coalesce(json_agg(json_build_object(
         'dept_no', d.dept_no, 'dept_name', d.dept_name, 'dept_emp', e.list) ORDER BY d.dept_no), '[]'))::text AS body
       FROM (SELECT * FROM departments ORDER BY dept_no LIMIT 9) d
       CROSS JOIN LATERAL (
         SELECT coalesce(json_agg(json_build_object('emp_no', x.emp_no::text,
                  'from_date', to_char(x.from_date, 'YYYY-MM-DD')) ORDER BY x.emp_no), '[]') AS list
         FROM (SELECT * FROM dept_emp de WHERE de.dept_no = d.dept_no ORDER BY de.emp_no LIMIT 5) x) e`,
};

http
  .createServer(async (req, res) => {
    const sql = SQL[req.url.slice(1)];
    if (!sql) {
      res.writeHead(404).end();
      return;
    }
    req.resume();
    try {
      const { rows } = await pool.query(sql);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"data":${rows[0].body}}`);
    } catch (error) {
      res.writeHead(500).end(String(error.message));
    }
  })
  .listen(Number(port), '127.0.0.1', () => process.send?.('ready'));
