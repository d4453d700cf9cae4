import { RunningApp, startApp } from '../support/app-harness';
import { registerSalesDatabase, SALES_DIALECTS, SalesDialect } from '../support/sales-dialects';
import { CUSTOMERS, ORDER_LINES, ORDERS } from '../support/sales-fixture';

/**
 * Property test of `where` (README "Filters", "Values", "Decisions": null in other operators, a
 * column key given null adds no condition): seeded pseudo-random filter trees over the sales
 * fixture's orders, order lines and customers (with a few more rows than the fixture: empty
 * bigints, 64-bit extremes, millisecond timestamps, negative and zero totals). Every tree's
 * `get<Base>(where, order: [{id: ASC}])` and `count<Base>(where)` answer must equal what a
 * JavaScript oracle computes over the same rows with SQL's three-valued logic, on PostgreSQL,
 * MariaDB and SQLite, with the trees written as literals and sent as a `$w` variable.
 *
 * Operators are those whose meaning the README makes the same on every database: `eq neq gt gte
 * lt lte in nin` on keys, integers, 64-bit integers, decimals, dates and timestamps; on text
 * `eq neq in nin` with exact stored (or plainly absent) values, `gt`… only on values whose order
 * no collation changes (upper-case ASCII, a few city names), and `contains startsWith endsWith`
 * (literal and ignoring case on every database). `eq: null`, `neq: null`, other operators given
 * null, column keys given null, empty ops, `in: []`, `nin: []`, `and: []`, `or: []` and nested
 * `and`/`or` up to depth 3 are all generated. The filter input has no `not`.
 *
 * Besides the random trees: `eq` with every number, date and timestamp as the service read it
 * must find its row (README "Values"), and the smallest trees the generator found wrong are pinned
 * as regression cases.
 *
 * The seed is fixed (WHERE_SEED overrides it to explore); a failure prints it, the tree as
 * generated, a tree shrunk to a minimal reproduction (one request per try), and the differing ids.
 */

const SEED = Number(process.env.WHERE_SEED ?? 20260317);
const TREES = { orders: 150, lines: 60, customers: 60 };
/** Above every table's row count; the worst-case rows ceiling (100,000) sums the takes. */
const TAKE = 1000;

/** mulberry32: a tiny seeded generator, the same numbers on every run for a seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  /** A whole number in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

// ---------------------------------------------------------------------------------------------
// Rows, as the oracle sees them: integers as bigint, decimals as bigint thousandths, timestamps
// as epoch milliseconds, dates and text as strings; SQL NULL as null.

type Cell = bigint | string | number | null;
type Row = Record<string, Cell>;

const utcMs = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`);

/** `-12.5`, `"10.50"` → -12500n, 10500n (at most three decimals). */
function milli(value: string | number): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,3}))?$/.exec(String(value));
  if (!m) throw new Error(`not a decimal of at most three places: ${value}`);
  const abs = BigInt(m[2]) * 1000n + BigInt((m[3] ?? '').padEnd(3, '0'));
  return m[1] ? -abs : abs;
}

/** Extra rows, the same on every database (no backslash or quote in them). */
const MORE_CUSTOMERS = [
  { id: 7, name: 'Gil Ito', email: 'gil@example.com', city: 'Lisboa', at: '2024-01-11 10:00:00.5' },
  {
    id: 8,
    name: 'Hana Kato',
    email: 'hana@example.com',
    city: null,
    at: '2024-01-11 10:00:00.001',
  },
  { id: 9, name: 'Ivo Sá', email: 'ivo@example.com', city: 'Porto', at: '2024-01-11 10:00:00.999' },
  {
    id: 10,
    name: 'JOANA LUZ',
    email: 'joana@ex.com',
    city: 'Berlin',
    at: '2024-02-29 23:59:59.120',
  },
];

const BIGS = [
  null,
  '0',
  '-1',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740993',
  '9223372036854775807',
  '-9223372036854775808',
  '4',
];
const TOTALS = ['0.00', '0.05', '-3.10', '99999999.99', '12.30', '10.50', '-0.01', '120.50'];

/** Orders 13..40, from a generator of their own so the data never follows WHERE_SEED. */
const MORE_ORDERS = (() => {
  const rng = new Rng(7);
  return Array.from({ length: 28 }, (_, k) => {
    const id = 13 + k;
    const day = rng.int(1, 40);
    const date = new Date(Date.UTC(2024, 2, day, rng.int(0, 23), rng.int(0, 59), rng.int(0, 59)));
    const ms = rng.pick([0, 0, 0, 1, 250, 500, 999]);
    const placed = new Date(date.getTime() + ms).toISOString();
    return {
      id,
      customer_id: rng.int(1, 10),
      status: rng.pick(['PAID', 'PENDING', 'SHIPPED', 'CANCELLED']),
      total: rng.pick(TOTALS),
      placed_at: `${placed.slice(0, 10)} ${placed.slice(11, ms ? 23 : 19)}`,
      ship_date: rng.chance(0.3)
        ? null
        : new Date(Date.UTC(2024, 2, day + 1)).toISOString().slice(0, 10),
      big: rng.pick(BIGS),
    };
  });
})();

const sqlText = (v: string | null) => (v === null ? 'NULL' : `'${v}'`);

/** The extra rows as SQL for one database (PostgreSQL's timestamptz needs the offset). */
function moreRowsSql(type: SalesDialect['type']): string[] {
  const customers = MORE_CUSTOMERS.map(
    (c) => `(${c.id}, ${sqlText(c.name)}, ${sqlText(c.email)}, ${sqlText(c.city)}, '${c.at}')`,
  );
  const orders = MORE_ORDERS.map(
    (o) =>
      `(${o.id}, ${o.customer_id}, '${o.status}', '${o.total}', '${o.placed_at}${type === 'postgres' ? '+00' : ''}', ${sqlText(o.ship_date)}, ${o.big ?? 'NULL'})`,
  );
  return [
    `INSERT INTO customers (id, name, email, city, created_at) VALUES ${customers.join(', ')}`,
    `INSERT INTO orders (id, customer_id, status, total, placed_at, ship_date, big) VALUES ${orders.join(', ')}`,
  ];
}

const ORDER_ROWS: Row[] = [
  ...ORDERS.map((o) => ({ ...o, big: o.big as string | null })),
  ...MORE_ORDERS,
].map((o) => ({
  id: BigInt(o.id),
  customer_id: BigInt(o.customer_id),
  status: o.status,
  total: milli(o.total),
  placed_at: utcMs(o.placed_at),
  ship_date: o.ship_date,
  big: o.big === null ? null : BigInt(o.big),
}));

const CUSTOMER_ROWS: Row[] = [
  ...CUSTOMERS.map((c) => ({ ...c, at: c.created_at })),
  ...MORE_CUSTOMERS,
].map((c) => ({
  id: BigInt(c.id),
  name: c.name,
  email: c.email,
  city: c.city,
  created_at: utcMs(c.at),
}));

const LINE_ROWS: Row[] = ORDER_LINES.map((l) => ({
  id: BigInt(l.id),
  order_id: BigInt(l.order_id),
  product: l.product,
  quantity: BigInt(l.quantity),
  unit_price: milli(l.unit_price),
}));

// ---------------------------------------------------------------------------------------------
// Columns: how the oracle reads a filter value, and which values the generator draws from.

type Kind = 'integer' | 'decimal' | 'text' | 'date' | 'instant';
type Json = null | string | number | Json[] | { [key: string]: Json };

interface Column {
  name: string;
  kind: Kind;
  /** `gt`, `gte`, `lt`, `lte` allowed (text: only on values no collation orders differently). */
  ordered: boolean;
  /** `contains`, `startsWith`, `endsWith` allowed (text columns). */
  like: boolean;
  /** Filter values to draw from, as sent. */
  values(rng: Rng): Json;
  /** Stored texts for `contains`/`startsWith`/`endsWith` patterns. */
  texts?: string[];
  /** An instant column read as `LocalDateTime` (no offset) rather than `DateTime`. */
  local?: boolean;
}

/** The distinct non-empty values a column holds. */
const stored = (rows: Row[], name: string) =>
  [...new Set(rows.map((r) => r[name]).filter((v) => v !== null))] as (bigint | string | number)[];

/** An integer as sent: a number when it is safe in JSON, else text; sometimes text anyway. */
function integerValue(rng: Rng, v: bigint): Json {
  const safe = v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER);
  return safe && rng.chance(0.6) ? Number(v) : v.toString();
}

function integerColumn(name: string, rows: Row[], extremes: bigint[], int32 = false): Column {
  const pool = [...stored(rows, name), ...extremes] as bigint[];
  return {
    name,
    kind: 'integer',
    ordered: true,
    like: false,
    values(rng) {
      const v = rng.pick(pool) + BigInt(rng.pick([0, 0, 0, -1, 1]));
      // GraphQL Int takes 32-bit numbers only (text too, by coercion).
      if (int32 && (v > 2147483647n || v < -2147483648n)) return 0;
      return int32 && rng.chance(0.8) ? Number(v) : integerValue(rng, v);
    },
  };
}

/** A key column (`ID`: `eq neq in nin`). */
function keyColumn(name: string, rows: Row[]): Column {
  const column = integerColumn(name, rows, [0n, -1n, 3000000000n, -3000000000n]);
  return { ...column, ordered: false };
}

function decimalColumn(name: string, rows: Row[]): Column {
  const pool = stored(rows, name) as bigint[];
  const text = (m: bigint, places: number) => {
    const sign = m < 0n ? '-' : '';
    const abs = m < 0n ? -m : m;
    const frac = (abs % 1000n).toString().padStart(3, '0').slice(0, places);
    return `${sign}${abs / 1000n}${places ? `.${frac}` : ''}`;
  };
  return {
    name,
    kind: 'decimal',
    ordered: true,
    like: false,
    values(rng) {
      const m = rng.pick(pool) + BigInt(rng.pick([0, 0, 0, 5, -5, 10, -10, 1000, -1000]));
      const places = m % 10n !== 0n ? 3 : m % 1000n !== 0n ? rng.pick([2, 3]) : rng.pick([0, 2]);
      const t = text(m, places);
      return rng.chance(0.4) && Math.abs(Number(t)) < 1e9 ? Number(t) : t;
    },
  };
}

function textColumn(
  name: string,
  rows: Row[],
  absent: string[],
  options: { ordered?: string[]; like?: boolean } = {},
): Column {
  const values = stored(rows, name) as string[];
  const pool = options.ordered
    ? [...values, ...absent, ...options.ordered]
    : [...values, ...absent];
  return {
    name,
    kind: 'text',
    ordered: !!options.ordered,
    like: options.like ?? true,
    values: (rng) => rng.pick(pool),
    texts: values,
  };
}

function dateColumn(name: string, rows: Row[]): Column {
  const pool = [...(stored(rows, name) as string[]), '2024-02-29', '2024-12-31', '2023-01-01'];
  return {
    name,
    kind: 'date',
    ordered: true,
    like: false,
    values(rng) {
      const day = Date.parse(`${rng.pick(pool)}T00:00:00Z`) + rng.pick([0, 0, 1, -1]) * 86400000;
      return new Date(day).toISOString().slice(0, 10);
    },
  };
}

/**
 * A timestamp column: `DateTime` (an instant, sent with `Z` or an offset) or `LocalDateTime`
 * (sent as stored, `T` or space). Values are stored instants and their neighbours, in every
 * spelling of the same millisecond (`.5`, `.500`, none for a whole second, no seconds).
 */
function instantColumn(name: string, rows: Row[], local: boolean): Column {
  const pool = stored(rows, name) as number[];
  return {
    name,
    kind: 'instant',
    ordered: true,
    like: false,
    local,
    values(rng) {
      const ms = rng.pick(pool) + rng.pick([0, 0, 0, 1, -1, 1000, -1000, 86400000]);
      const offsetMin = local ? 0 : rng.pick([0, 0, 120, -180, 330]);
      const iso = new Date(ms + offsetMin * 60000).toISOString();
      const sep = rng.chance(0.7) ? 'T' : ' ';
      const fraction = iso.slice(20, 23);
      let clock = iso.slice(11, 19);
      if (fraction !== '000') {
        clock += `.${rng.chance(0.5) ? fraction : fraction.replace(/0+$/, '')}`;
      } else if (clock.endsWith(':00') && rng.chance(0.3)) {
        clock = clock.slice(0, 5);
      } else if (rng.chance(0.3)) {
        clock += rng.pick(['.000', '.0']);
      }
      const text = `${iso.slice(0, 10)}${sep}${clock}`;
      if (local) return text;
      if (offsetMin === 0) return `${text}${rng.pick(['Z', '+00:00'])}`;
      const abs = Math.abs(offsetMin);
      const hh = String(Math.floor(abs / 60)).padStart(2, '0');
      const mm = String(abs % 60).padStart(2, '0');
      return `${text}${offsetMin < 0 ? '-' : '+'}${hh}:${mm}`;
    },
  };
}

/** The oracle's reading of one filter value of a column. */
function oracleValue(column: Column, value: Json): bigint | string | number {
  switch (column.kind) {
    case 'integer':
      return BigInt(value as string | number);
    case 'decimal':
      return milli(value as string | number);
    case 'instant': {
      const text = String(value).replace(' ', 'T');
      return Date.parse(column.local ? `${text}Z` : text);
    }
    default:
      return String(value);
  }
}

interface Table {
  /** API name and `<Base>`. */
  api: string;
  base: string;
  rows: Row[];
  columns: Column[];
}

function tables(type: SalesDialect['type']): Table[] {
  return [
    {
      api: 'orders',
      base: 'Orders',
      rows: ORDER_ROWS,
      columns: [
        keyColumn('id', ORDER_ROWS),
        keyColumn('customer_id', ORDER_ROWS),
        textColumn('status', ORDER_ROWS, ['CANCELED', 'LOST'], {
          ordered: ['A', 'P', 'PA', 'PB', 'Q', 'SHIP', 'Z'],
        }),
        decimalColumn('total', ORDER_ROWS),
        // timestamptz on PostgreSQL, TIMESTAMP(3) on MariaDB: DateTime; SQLite DATETIME: local.
        instantColumn('placed_at', ORDER_ROWS, type === 'sqlite'),
        dateColumn('ship_date', ORDER_ROWS),
        integerColumn('big', ORDER_ROWS, [
          9223372036854775807n,
          -9223372036854775808n,
          9223372036854775808n,
          -9223372036854775809n,
        ]),
      ],
    },
    {
      api: 'lines',
      base: 'Lines',
      rows: LINE_ROWS,
      columns: [
        keyColumn('id', LINE_ROWS),
        keyColumn('order_id', LINE_ROWS),
        textColumn('product', LINE_ROWS, ['P9', 'Q'], { ordered: ['P', 'P0', 'P2A', 'Z'] }),
        integerColumn('quantity', LINE_ROWS, [2147483647n, -2147483648n], true),
        decimalColumn('unit_price', LINE_ROWS),
      ],
    },
    {
      api: 'customers',
      base: 'Customers',
      rows: CUSTOMER_ROWS,
      columns: [
        keyColumn('id', CUSTOMER_ROWS),
        textColumn('name', CUSTOMER_ROWS, ['Nobody']),
        textColumn('email', CUSTOMER_ROWS, ['zoe@example.com']),
        textColumn('city', CUSTOMER_ROWS, ['Madrid'], {
          ordered: ['A', 'B', 'L', 'M', 'P', 'S', 'T', 'Z'],
        }),
        instantColumn('created_at', CUSTOMER_ROWS, true),
      ],
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Trees and the oracle.

type Filter = { [key: string]: Json };
const LIKE_SPECIALS = ['%', '_', '\\', '[m', '100%', 'a_d', '%Lima', '', '@example.', 'ü', 'Ü'];

function randomCase(rng: Rng, text: string): string {
  return [...text]
    .map((ch) => (rng.chance(0.5) ? ch.toUpperCase() : ch.toLowerCase()))
    .join('')
    .normalize('NFC');
}

function likePattern(rng: Rng, column: Column): string {
  if (rng.chance(0.2)) return rng.pick(LIKE_SPECIALS);
  const chars = [...rng.pick(column.texts!)];
  const from = rng.int(0, chars.length - 1);
  const to = rng.int(from + 1, Math.min(chars.length, from + 5));
  return randomCase(rng, chars.slice(from, to).join(''));
}

function randomOps(rng: Rng, column: Column): Json {
  if (rng.chance(0.05)) return null; // a column key given null adds no condition
  const ops = ['eq', 'neq', 'in', 'nin', 'eq', 'neq', 'in', 'nin'];
  if (column.ordered) ops.push('gt', 'gte', 'lt', 'lte', 'gt', 'lt');
  if (column.like) ops.push('contains', 'startsWith', 'endsWith', 'contains');
  const count = rng.pick([0, 1, 1, 1, 1, 1, 1, 1, 2, 2]);
  const out: Filter = {};
  for (let i = 0; i < count; i++) {
    const op = rng.pick(ops);
    if (op === 'in' || op === 'nin') {
      out[op] = rng.chance(0.05)
        ? null
        : Array.from({ length: rng.pick([0, 1, 2, 2, 3, 4]) }, () => column.values(rng));
    } else if (op === 'contains' || op === 'startsWith' || op === 'endsWith') {
      out[op] = rng.chance(0.05) ? null : likePattern(rng, column);
    } else {
      const nullChance = op === 'eq' || op === 'neq' ? 0.2 : 0.05;
      out[op] = rng.chance(nullChance) ? null : column.values(rng);
    }
  }
  return out;
}

function randomFilter(rng: Rng, table: Table, depth: number): Filter {
  const out: Filter = {};
  const keys = rng.pick(depth === 0 ? [0, 1, 1, 2, 2, 3] : [0, 1, 1, 1, 2]);
  for (let i = 0; i < keys; i++) {
    const column = rng.pick(table.columns);
    out[column.name] = randomOps(rng, column);
  }
  if (depth < 3) {
    for (const op of ['and', 'or']) {
      if (rng.chance(depth === 0 ? 0.5 : 0.3)) {
        const n = rng.pick([0, 1, 2, 2, 3]);
        out[op] = Array.from({ length: n }, () => randomFilter(rng, table, depth + 1));
      }
    }
  }
  return out;
}

/** `and`/`or` items in a tree (LIMIT_BOOLEAN_ITEMS counts them per request). */
function booleanItems(filter: Filter): number {
  let n = 0;
  for (const key of ['and', 'or']) {
    const items = filter[key] as Filter[] | undefined;
    if (items) n += items.length + items.reduce((sum, f) => sum + booleanItems(f), 0);
  }
  return n;
}

function generateTrees(table: Table, count: number, seed: number): Filter[] {
  const rng = new Rng(seed);
  const out: Filter[] = [];
  while (out.length < count) {
    const tree = randomFilter(rng, table, 0);
    if (booleanItems(tree) <= 20) out.push(tree);
  }
  return out;
}

/** SQL's three values: true, false, and unknown (null). */
type Truth = boolean | null;
const and3 = (items: Truth[]): Truth =>
  items.includes(false) ? false : items.includes(null) ? null : true;
const or3 = (items: Truth[]): Truth =>
  items.includes(true) ? true : items.includes(null) ? null : false;

function compare(a: bigint | string | number, b: bigint | string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function opTruth(column: Column, op: string, value: Json, cell: Cell): Truth {
  if (op === 'eq' && value === null) return cell === null;
  if (op === 'neq' && value === null) return cell !== null;
  if (value === null) return false; // gt: null, in: null, contains: null … are never true
  if (op === 'in' || op === 'nin') {
    const list = value as Json[];
    if (list.length === 0) return op === 'nin'; // in: [] nothing, nin: [] everything
    if (cell === null) return null;
    const found = list.some((v) => compare(cell, oracleValue(column, v)) === 0);
    return op === 'in' ? found : !found;
  }
  if (cell === null) return null;
  if (op === 'contains' || op === 'startsWith' || op === 'endsWith') {
    const text = String(cell).toLowerCase();
    const pattern = String(value).toLowerCase();
    if (op === 'contains') return text.includes(pattern);
    return op === 'startsWith' ? text.startsWith(pattern) : text.endsWith(pattern);
  }
  const c = compare(cell, oracleValue(column, value));
  switch (op) {
    case 'eq':
      return c === 0;
    case 'neq':
      return c !== 0;
    case 'gt':
      return c > 0;
    case 'gte':
      return c >= 0;
    case 'lt':
      return c < 0;
    case 'lte':
      return c <= 0;
  }
  throw new Error(`unknown operator ${op}`);
}

function truth(table: Table, filter: Filter, row: Row): Truth {
  const items: Truth[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === 'and') items.push(and3((value as Filter[]).map((f) => truth(table, f, row))));
    else if (key === 'or') items.push(or3((value as Filter[]).map((f) => truth(table, f, row))));
    else if (value !== null) {
      const column = table.columns.find((c) => c.name === key)!;
      for (const [op, v] of Object.entries(value as Filter))
        items.push(opTruth(column, op, v, row[key]));
    }
  }
  return and3(items);
}

/** The ids a tree selects: rows for which the whole tree is true (unknown is left out). */
const expectedIds = (table: Table, filter: Filter) =>
  table.rows.filter((row) => truth(table, filter, row) === true).map((row) => Number(row.id));

/** A value as a GraphQL literal (JSON strings are GraphQL strings). */
function literal(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}: ${literal(v)}`)
      .join(', ')}}`;
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Smaller trees than `filter`: a key, an item, an operator or a list element fewer. */
function shrinkings(filter: Filter): Filter[] {
  const out: Filter[] = [];
  for (const [key, value] of Object.entries(filter)) {
    const without = { ...filter };
    delete without[key];
    out.push(without);
    if (key === 'and' || key === 'or') {
      const items = value as Filter[];
      items.forEach((item, i) => {
        out.push(item);
        out.push({ ...filter, [key]: items.filter((_, j) => j !== i) });
        for (const smaller of shrinkings(item))
          out.push({ ...filter, [key]: items.map((it, j) => (j === i ? smaller : it)) });
      });
    } else if (value !== null) {
      const ops = value as Filter;
      for (const [op, v] of Object.entries(ops)) {
        if (Object.keys(ops).length > 1) {
          const fewer = { ...ops };
          delete fewer[op];
          out.push({ ...filter, [key]: fewer });
        }
        if (Array.isArray(v))
          v.forEach((_, i) =>
            out.push({ ...filter, [key]: { ...ops, [op]: v.filter((__, j) => j !== i) } }),
          );
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Requests: several trees per request, with aliases; as literals or as `$wN` variables.

type Form = 'literal' | 'variable';

interface Outcome {
  /** Ids of `get<Base>`, in order, or the error the request answered. */
  ids?: number[];
  count?: number;
  error?: string;
}

/** Groups trees under the request ceilings: aliases, and/or items, tokens. */
/** GraphQL tokens of a text, roughly as the service counts them (LIMIT_QUERY_TOKENS). */
const tokens = (text: string) =>
  (text.match(/"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|[A-Za-z_]\w*|[{}[\]():$!]/g) ?? []).length;

/** Groups trees under the request ceilings: aliases (100), and/or items (100), tokens (10,000). */
function batches(trees: Filter[]): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  let items = 0;
  let size = 0;
  trees.forEach((tree, i) => {
    // Each tree is sent twice (get and count), with about 30 tokens of field around it.
    const treeItems = 2 * booleanItems(tree);
    const treeSize = 2 * tokens(literal(tree)) + 30;
    if (
      current.length &&
      (current.length >= 40 || items + treeItems > 80 || size + treeSize > 6000)
    ) {
      out.push(current);
      current = [];
      items = 0;
      size = 0;
    }
    current.push(i);
    items += treeItems;
    size += treeSize;
  });
  if (current.length) out.push(current);
  return out;
}

function document(
  table: Table,
  trees: Filter[],
  form: Form,
): { query: string; variables?: Filter } {
  const fields = trees.map((tree, i) => {
    const where = form === 'literal' ? literal(tree) : `$w${i}`;
    return `t${i}: get${table.base}(where: ${where}, order: [{id: ASC}], take: ${TAKE}) { id } c${i}: count${table.base}(where: ${where})`;
  });
  if (form === 'literal') return { query: `{ ${fields.join(' ')} }` };
  const declared = trees.map((_, i) => `$w${i}: ${table.base}Filter`).join(', ');
  return {
    query: `query(${declared}) { ${fields.join(' ')} }`,
    variables: Object.fromEntries(trees.map((tree, i) => [`w${i}`, tree])),
  };
}

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`where trees against an oracle on ${dialect.type} (seed ${SEED})`, () => {
    let run: RunningApp;
    let cleanup: () => Promise<void>;
    let address: string;
    let key: string;

    const send = async (table: Table, trees: Filter[], form: Form): Promise<Outcome[]> => {
      const res = await run.http('POST', `/api/graphql/${address}`, {
        body: document(table, trees, form),
        headers: { 'x-api-key': key },
      });
      if (res.status !== 200 || res.body.errors || !res.body.data) {
        const error = `${res.status} ${JSON.stringify(res.body.errors ?? res.body).slice(0, 600)}`;
        return trees.map(() => ({ error }));
      }
      return trees.map((_, i) => ({
        ids: res.body.data[`t${i}`].map((r: { id: string }) => Number(r.id)),
        count: res.body.data[`c${i}`],
      }));
    };

    /** Whether the service answered a tree as the oracle does: the same ids in order, the count. */
    const agrees = (expected: number[], outcome: Outcome) =>
      !outcome.error &&
      JSON.stringify(outcome.ids) === JSON.stringify(expected) &&
      outcome.count === expected.length;

    /** A smallest tree that still disagrees, found greedily (one request per try, bounded). */
    const shrink = async (table: Table, tree: Filter, form: Form): Promise<Filter> => {
      let current = tree;
      let budget = 120;
      for (let progress = true; progress && budget > 0;) {
        progress = false;
        for (const candidate of shrinkings(current)) {
          if (--budget < 0) break;
          const [outcome] = await send(table, [candidate], form);
          if (!agrees(expectedIds(table, candidate), outcome)) {
            current = candidate;
            progress = true;
            break;
          }
        }
      }
      return current;
    };

    /** The oracle's ids against the service's answer, for a failure message. */
    const difference = (expected: number[], outcome: Outcome, indent: string) => {
      if (outcome.error) return `${indent}error:    ${outcome.error}`;
      const got = outcome.ids ?? [];
      return [
        `${indent}expected: [${expected}] (count ${expected.length})`,
        `${indent}got:      [${got}] (count ${outcome.count})`,
        `${indent}missing:  [${expected.filter((id) => !got.includes(id))}]`,
        `${indent}extra:    [${got.filter((id) => !expected.includes(id))}]`,
      ].join('\n');
    };

    const describeMismatch = async (
      table: Table,
      tree: Filter,
      form: Form,
      outcome: Outcome,
    ): Promise<string> => {
      const minimal = await shrink(table, tree, form);
      const [minimalOutcome] = await send(table, [minimal], form);
      return [
        `WHERE_SEED=${SEED}, ${dialect.type}, ${table.api}, where as a ${form}`,
        `  tree:       ${literal(tree)}`,
        difference(expectedIds(table, tree), outcome, '    '),
        `  shrunk to:  ${literal(minimal)}`,
        difference(expectedIds(table, minimal), minimalOutcome, '    '),
      ].join('\n');
    };

    beforeAll(async () => {
      run = await startApp();
      const token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      for (const sql of moreRowsSql(dialect.type)) await db.exec(sql);
      address = `where-${dialect.type}`;
      const app = await run.http('POST', '/api/apps', { token, body: { name: 'Where', address } });
      expect(app.status).toBe(201);
      const appId = app.body.id as string;
      await registerSalesDatabase(run, token, appId, dialect.type, db);
      const select = { select: true, insert: false, update: false, delete: false };
      for (const [name, table] of [
        ['orders', 'orders'],
        ['lines', 'order_lines'],
        ['customers', 'customers'],
      ]) {
        const api = await run.http('POST', `/api/apps/${appId}/apis`, {
          token,
          body: { name, table, actions: select },
        });
        expect(api.status).toBe(201);
        const published = await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, {
          token,
        });
        expect(published.status).toBe(200);
      }
      const version = await run.http('POST', `/api/apps/${appId}/versions/publish`, { token });
      expect(version.status).toBe(200);
      const created = await run.http('POST', '/api/admin/api-keys', {
        token,
        body: { name: 'where', scope: [{ appId, endpoints: 'all' }] },
      });
      expect(created.status).toBe(201);
      key = created.body.key;
      // Every row is there, so a wrong answer below is the filter's.
      for (const table of tables(dialect.type)) {
        const [all] = await send(table, [{}], 'literal');
        expect(all).toEqual({ ids: table.rows.map((r) => Number(r.id)), count: table.rows.length });
      }
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    /**
     * Sends the trees in batches and compares every answer with the oracle; throws a message
     * with the seed, each differing tree (shrunk too) and the ids, and returns how many rows the
     * trees selected.
     */
    const check = async (table: Table, trees: Filter[], form: Form): Promise<number> => {
      const mismatches: string[] = [];
      let rowsSeen = 0;
      let failures = 0;
      for (const batch of batches(trees)) {
        const outcomes = await send(
          table,
          batch.map((i) => trees[i]),
          form,
        );
        for (const [k, i] of batch.entries()) {
          const expected = expectedIds(table, trees[i]);
          rowsSeen += expected.length;
          if (agrees(expected, outcomes[k])) continue;
          failures++;
          if (mismatches.length < 3)
            mismatches.push(await describeMismatch(table, trees[i], form, outcomes[k]));
        }
      }
      if (mismatches.length)
        throw new Error(
          `${failures} of ${trees.length} trees disagree with the oracle (first ${mismatches.length} shown):\n${mismatches.join('\n\n')}`,
        );
      return rowsSeen;
    };

    const TABLES = tables(dialect.type);
    const FORMS: Form[] = ['literal', 'variable'];
    const table = (api: string) => TABLES.find((t) => t.api === api)!;

    TABLES.forEach((t, index) => {
      const trees = generateTrees(t, TREES[t.api as keyof typeof TREES], SEED + index);
      it.each(FORMS)(
        `${t.api}: ${trees.length} random trees, where as a %s, match the oracle`,
        async (form) => {
          const rowsSeen = await check(t, trees, form);
          // The trees select something: neither every tree empty nor every tree everything.
          expect(rowsSeen).toBeGreaterThan(0);
          expect(rowsSeen).toBeLessThan(trees.length * t.rows.length);
        },
      );
    });

    it.each(FORMS)(
      'a value read finds its row: eq with every number, date and timestamp as read, where as a %s',
      async (form) => {
        for (const t of TABLES) {
          // Columns whose values have several spellings (numbers, dates, timestamps).
          const names = t.columns.filter((c) => c.kind !== 'text' && c.ordered).map((c) => c.name);
          const res = await run.http('POST', `/api/graphql/${address}`, {
            body: {
              query: `{ get${t.base}(order: [{id: ASC}], take: ${TAKE}) { ${names.join(' ')} } }`,
            },
            headers: { 'x-api-key': key },
          });
          expect(res.status).toBe(200);
          const rows = res.body.data[`get${t.base}`] as Record<string, string | number | null>[];
          const trees = rows.flatMap((row) =>
            names
              .filter((name) => row[name] !== null)
              .map((name) => ({ [name]: { eq: row[name] } })),
          );
          await check(t, trees, form);
        }
      },
    );

    /**
     * Smallest trees the generator found wrong (README "Values": a timestamp with at most three
     * fraction digits stands for that whole millisecond; DateTime input takes an offset with or
     * without seconds), kept as regression cases on every database.
     */
    const local = dialect.type === 'sqlite';
    const PINNED: [string, string, Filter][] = [
      // Customer 6 was written by the database as 2024-01-10 08:00:00.
      [
        'eq one millisecond before a whole second',
        'customers',
        { created_at: { eq: '2024-01-10T07:59:59.999' } },
      ],
      [
        'gt one millisecond before a whole second',
        'customers',
        { created_at: { gt: '2024-01-10T07:59:59.999' } },
      ],
      [
        'lte one millisecond before a whole second',
        'customers',
        { created_at: { lte: '2024-01-10T07:59:59.999' } },
      ],
      // Customer 3: 2024-01-07 09:15:00; customer 2: 2024-01-06 11:30:00.250.
      ['eq spelled with .000', 'customers', { created_at: { eq: '2024-01-07T09:15:00.000' } }],
      ['lt spelled with .0', 'customers', { created_at: { lt: '2024-01-07T09:15:00.0' } }],
      ['in spelled with .25', 'customers', { created_at: { in: ['2024-01-06T11:30:00.25'] } }],
      // Customer 7 was written as 2024-01-11 10:00:00.5.
      [
        'eq spelled with .500 on a value stored as .5',
        'customers',
        { created_at: { eq: '2024-01-11T10:00:00.500' } },
      ],
      // README "Values": a value outside the column's range makes nin match every filled field.
      [
        'nin with only a value outside the 64-bit range',
        'orders',
        { big: { nin: ['9223372036854775808'] } },
      ],
      [
        'nin with only a value below the 64-bit range',
        'orders',
        { big: { nin: ['-9223372036854775809'] } },
      ],
      // Order 12: 2024-03-12 12:00:00 UTC.
      [
        'an offset on a time without seconds',
        'orders',
        { placed_at: { eq: local ? '2024-03-12T12:00' : '2024-03-12T14:00+02:00' } },
      ],
    ];
    it.each(FORMS)('pinned minimal trees match the oracle, where as a %s', async (form) => {
      const failures: string[] = [];
      for (const [name, api, tree] of PINNED) {
        try {
          await check(table(api), [tree], form);
        } catch (error) {
          failures.push(`${name}: ${(error as Error).message}`);
        }
      }
      if (failures.length) throw new Error(failures.join('\n\n'));
    });
  });
}
