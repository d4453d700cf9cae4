import Database from 'better-sqlite3';
import fc from 'fast-check';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RunningApp, startApp } from '../support/app-harness';
import { createMysqlDatabase } from '../support/mysql-fixture';
import { createPgDatabase } from '../support/postgres-fixture';
import { registerSalesDatabase } from '../support/sales-dialects';
import { describeWith } from '../support/services';
import { publishTableApis, SELECT_ONLY } from '../support/table-apis';

/**
 * Issue 23, "a differential property test of aggregates": `aggregateItems(where, groupBy, take,
 * skip)` over generated rows must answer what an oracle written here in TypeScript computes from
 * the same rows (README "Aggregates"), on PostgreSQL, MariaDB and SQLite, in the literal and the
 * variables form (the harness lifts the arguments in the `e2e-variables` project). The oracle
 * never calls the service's code: sums are exact BigInt arithmetic (integers, and decimals as
 * cents), groups are ordered by their keys ascending in `groupBy` order with NULL first,
 * `take`/`skip` page the groups (without `groupBy`, the one group), and NULLs are left out of
 * countDistinct/sum/avg/min/max.
 *
 * The values are chosen so every database must agree (README "Aggregates", "Values"): text is
 * ASCII letters of both cases in a column of a binary collation on each database (PostgreSQL
 * `"C"`, MariaDB `utf8mb4_bin`, SQLite's default BINARY; "text groups follow the column's
 * collation", and MariaDB's default one would group `a` with `A`), so `A` < `B` < `a` everywhere;
 * booleans group false before true (and have no min/max); floats are multiples of 0.25 of
 * at most 2^40 so every partial sum is exact in a double, bigints are near ±2^53 (where a double
 * would lose digits) but a dozen of them stay far from the 64-bit overflow SQLite's SUM raises.
 * Two documented tolerances: `avg` is a Float (compared with a relative error of 1e-9), and
 * SQLite has no decimal type, so its decimal sums (and averages) are REAL, compared within the
 * error a double sum can carry (1e-14 of the values' magnitudes: 99999999.99 + -99999995.12 is
 * `"4.86999998986721"` there, README "Aggregates"); decimal keys and extremes are compared by value, since each database writes its own scale
 * (`"12.30"` on PostgreSQL and MariaDB, `"12.3"` on SQLite).
 *
 * The seed is fixed, 100 runs of up to 12 rows and 4 queries each, a few seconds per database
 * (AGGREGATE_SEED overrides the seed to explore, AGGREGATE_RUNS the run count); on a
 * failure fast-check shrinks the rows and queries (one insert and one request per try) and prints
 * the smallest case with the differences.
 */

const SEED = Number(process.env.AGGREGATE_SEED ?? 20261126);
const RUNS = Number(process.env.AGGREGATE_RUNS ?? 100);

// ---------------------------------------------------------------------------------------------
// Rows as the oracle sees them: bigints and decimals (in cents) as bigint, SQL NULL as null.

interface Row {
  n: number | null;
  big: bigint | null;
  dec: bigint | null;
  txt: string | null;
  flt: number | null;
  d: string | null;
  flag: boolean | null;
}

type ColumnName = keyof Row;
const COLUMNS: ColumnName[] = ['n', 'big', 'dec', 'txt', 'flt', 'd', 'flag'];
/** What `min`/`max` take: not booleans (README "Aggregates"). */
const EXTREMES: ColumnName[] = COLUMNS.filter((c) => c !== 'flag');
const NUMERIC: ColumnName[] = ['n', 'big', 'dec', 'flt'];

const TWO_53 = 2n ** 53n;

/** Small domains mixed with wide ones, so groups and equal values happen often. */
const VALUES: { [C in ColumnName]: fc.Arbitrary<NonNullable<Row[C]>> } = {
  n: fc.oneof(
    fc.constantFrom(-7, -1, 0, 1, 2, 100),
    fc.integer({ min: -2147483648, max: 2147483647 }),
  ),
  big: fc.oneof(
    fc.constantFrom(0n, 1n, -1n, TWO_53 - 1n, TWO_53, TWO_53 + 1n, TWO_53 + 3n, -TWO_53 - 1n),
    fc.bigInt({ min: -TWO_53 - 16n, max: TWO_53 + 16n }),
  ),
  dec: fc.oneof(
    fc.constantFrom(0n, 5n, -5n, 1230n, 1000n, -310n, 9999999999n),
    fc.bigInt({ min: -9999999999n, max: 9999999999n }),
  ),
  // Both cases, in a binary collation on every database (see CREATE): `a` and `A` differ.
  txt: fc.constantFrom('a', 'ab', 'b', 'c', 'zz', 'A', 'Ab', 'B'),
  flt: fc.oneof(
    fc.constantFrom(0, 0.5, -0.25, 1.5, 2, 2 ** 40),
    fc.integer({ min: -40000, max: 40000 }).map((k) => k / 4 + 0),
  ),
  d: fc.constantFrom('1999-12-31', '2024-01-01', '2024-01-15', '2024-02-29'),
  flag: fc.boolean(),
};

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 4 });

const rowArb: fc.Arbitrary<Row> = fc.record({
  n: nullable(VALUES.n),
  big: nullable(VALUES.big),
  dec: nullable(VALUES.dec),
  txt: nullable(VALUES.txt),
  flt: nullable(VALUES.flt),
  d: nullable(VALUES.d),
  flag: nullable(VALUES.flag),
});

/** Cents as the 2-place text the column stores and a Decimal input takes (`-5n` → `"-0.05"`). */
function decimalText(cents: bigint): string {
  const abs = cents < 0n ? -cents : cents;
  return `${cents < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** Canonical decimal text, as README "Aggregates" promises sums (`"71"`, `"60.5"`, `"0"`). */
function canonicalCents(cents: bigint): string {
  return decimalText(cents).replace(/0+$/, '').replace(/\.$/, '');
}

/** `"12.30"`, `"12.3"`, `"-0.05"`, `"100"` → cents; null for anything else (then reported). */
function centsOf(text: unknown): bigint | null {
  const m = /^(-?)(\d+)(?:\.(\d*?)0*)?$/.exec(String(text));
  if (!m || (m[3] ?? '').length > 2) return null;
  const abs = BigInt(m[2]) * 100n + BigInt((m[3] ?? '').padEnd(2, '0'));
  return m[1] ? -abs : abs;
}

/** A value as SQL literal text, the same on the three databases. */
function sqlLiteral(column: ColumnName, value: Row[ColumnName]): string {
  if (value === null) return 'NULL';
  if (column === 'flag') return value ? 'TRUE' : 'FALSE';
  if (column === 'dec') return decimalText(value as bigint);
  if (column === 'txt' || column === 'd') return `'${value as string}'`;
  return String(value);
}

// ---------------------------------------------------------------------------------------------
// Queries: `where` as an AND of simple comparisons, a `groupBy` subset in a random order, a page.

type Op = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin';
interface Comparison {
  column: ColumnName;
  op: Op;
  /** One value, null (`eq: null` / `neq: null` only) or a list for `in`/`nin`. */
  value: Row[ColumnName] | Row[ColumnName][];
}

interface Query {
  where: Comparison[];
  groupBy: ColumnName[];
  take: number | null;
  skip: number | null;
}

const comparisonArb: fc.Arbitrary<Comparison> = fc
  .constantFrom(...COLUMNS)
  .chain((column): fc.Arbitrary<Comparison> => {
    const value = VALUES[column] as fc.Arbitrary<Row[ColumnName]>;
    if (column === 'flag') {
      // BooleanFilter has `eq` and `neq` only.
      return fc.record({
        column: fc.constant(column),
        op: fc.constantFrom<Op>('eq', 'neq'),
        value: nullable(value),
      });
    }
    return fc.oneof(
      fc.record({
        column: fc.constant(column),
        op: fc.constantFrom<Op>('eq', 'neq', 'gt', 'gte', 'lt', 'lte'),
        value,
      }),
      fc.record({
        column: fc.constant(column),
        op: fc.constantFrom<Op>('eq', 'neq'),
        value: fc.constant(null),
      }),
      fc.record({
        column: fc.constant(column),
        op: fc.constantFrom<Op>('in', 'nin'),
        value: fc.array(value, { maxLength: 3 }),
      }),
    );
  });

const queryArb: fc.Arbitrary<Query> = fc.record({
  where: fc.array(comparisonArb, { maxLength: 3 }),
  groupBy: fc.shuffledSubarray(COLUMNS, { maxLength: 3 }),
  take: fc.option(fc.constantFrom(0, 1, 2, 5), { nil: null }),
  skip: fc.option(fc.constantFrom(0, 1, 3), { nil: null }),
});

/** A value as a GraphQL literal: BigInt, Decimal and Date inputs take text. */
function gqlValue(column: ColumnName, value: Row[ColumnName]): string {
  if (value === null) return 'null';
  if (column === 'n' || column === 'flt' || column === 'flag') return String(value);
  if (column === 'dec') return JSON.stringify(decimalText(value as bigint));
  return JSON.stringify(String(value));
}

const ALL = COLUMNS.join(' ');
const SELECTION = `{ key { ${ALL} } count countDistinct { ${ALL} } sum { ${NUMERIC.join(' ')} }
  avg { ${NUMERIC.join(' ')} } min { ${EXTREMES.join(' ')} } max { ${EXTREMES.join(' ')} } }`;

function fieldText(query: Query, alias: string): string {
  const args: string[] = [];
  if (query.where.length) {
    const items = query.where.map(({ column, op, value }) => {
      const text = Array.isArray(value)
        ? `[${value.map((v) => gqlValue(column, v)).join(', ')}]`
        : gqlValue(column, value);
      return `{${column}: {${op}: ${text}}}`;
    });
    args.push(`where: {and: [${items.join(', ')}]}`);
  }
  if (query.groupBy.length) args.push(`groupBy: [${query.groupBy.join(', ')}]`);
  if (query.take !== null) args.push(`take: ${query.take}`);
  if (query.skip !== null) args.push(`skip: ${query.skip}`);
  return `${alias}: aggregateItems${args.length ? `(${args.join(', ')})` : ''} ${SELECTION}`;
}

// ---------------------------------------------------------------------------------------------
// The oracle.

type Scalar = number | bigint | string | boolean;

/**
 * Order of two non-null values of one column: numbers, bigints, ISO dates, false before true, and
 * ASCII text by code point, as the binary collations of the `txt` column order it.
 */
function cmp(a: Scalar, b: Scalar): number {
  const x = typeof a === 'boolean' ? Number(a) : a;
  const y = typeof b === 'boolean' ? Number(b) : b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** SQL's answer to one comparison, unknown counted as false (a WHERE keeps only true). */
function holds(row: Row, { column, op, value }: Comparison): boolean {
  const cell = row[column];
  if (value === null) return op === 'eq' ? cell === null : cell !== null;
  if (Array.isArray(value)) {
    if (value.length === 0) return op === 'nin'; // README: in: [] nothing, nin: [] everything
    if (cell === null) return false;
    const found = value.some((v) => cmp(cell, v as Scalar) === 0);
    return op === 'in' ? found : !found;
  }
  if (cell === null) return false;
  const c = cmp(cell, value);
  return {
    eq: c === 0,
    neq: c !== 0,
    gt: c > 0,
    gte: c >= 0,
    lt: c < 0,
    lte: c <= 0,
    in: false,
    nin: false,
  }[op];
}

interface Expected {
  key: Record<ColumnName, Scalar | null>;
  count: number;
  countDistinct: Record<ColumnName, number>;
  sum: Record<string, bigint | number | null>;
  avg: Record<string, number | null>;
  /** Per numeric column, the sum of the values' magnitudes: what bounds a REAL sum's error. */
  magnitude: Record<string, number>;
  min: Record<ColumnName, Scalar | null>;
  max: Record<ColumnName, Scalar | null>;
}

function groupOf(rows: Row[], grouped: ColumnName[]): Expected {
  const key = {} as Expected['key'];
  const countDistinct = {} as Expected['countDistinct'];
  const min = {} as Expected['min'];
  const max = {} as Expected['max'];
  const sum: Expected['sum'] = {};
  const avg: Expected['avg'] = {};
  const magnitude: Expected['magnitude'] = {};
  for (const column of COLUMNS) {
    key[column] = grouped.includes(column) ? rows[0][column] : null;
    const values = rows.map((r) => r[column]).filter((v): v is Scalar => v !== null);
    const sorted = [...values].sort(cmp);
    countDistinct[column] = sorted.filter((v, i) => i === 0 || cmp(v, sorted[i - 1]) !== 0).length;
    min[column] = sorted.length ? sorted[0] : null;
    max[column] = sorted.length ? sorted[sorted.length - 1] : null;
    if (!NUMERIC.includes(column)) continue;
    magnitude[column] = values.reduce<number>(
      (s, v) => s + Math.abs(Number(v)) / (column === 'dec' ? 100 : 1),
      0,
    );
    if (!values.length) {
      sum[column] = null;
      avg[column] = null;
    } else if (column === 'flt') {
      // Multiples of 0.25 below 2^44 in magnitude: every partial sum is exact in a double.
      const total = (values as number[]).reduce((s, v) => s + v, 0);
      sum[column] = total;
      avg[column] = total / values.length;
    } else {
      const total = values.reduce<bigint>((s, v) => s + BigInt(v), 0n);
      sum[column] = total;
      avg[column] = Number(total) / (column === 'dec' ? 100 : 1) / values.length;
    }
  }
  return { key, count: rows.length, countDistinct, sum, avg, magnitude, min, max };
}

/** Keys ascending in `groupBy` order, NULL first. */
function compareKeys(a: Row, b: Row, grouped: ColumnName[]): number {
  for (const column of grouped) {
    const x = a[column];
    const y = b[column];
    if (x === null || y === null) {
      if (x !== y) return x === null ? -1 : 1;
      continue;
    }
    const c = cmp(x, y);
    if (c) return c;
  }
  return 0;
}

function oracle(rows: Row[], query: Query): Expected[] {
  const matching = rows.filter((row) => query.where.every((c) => holds(row, c)));
  const take = query.take ?? 100;
  const skip = query.skip ?? 0;
  if (!query.groupBy.length) return [groupOf(matching, [])].slice(skip, skip + take);
  const sorted = [...matching].sort((a, b) => compareKeys(a, b, query.groupBy));
  const groups: Row[][] = [];
  for (const row of sorted) {
    const last = groups[groups.length - 1];
    if (last && compareKeys(last[0], row, query.groupBy) === 0) last.push(row);
    else groups.push([row]);
  }
  return groups.slice(skip, skip + take).map((g) => groupOf(g, query.groupBy));
}

// ---------------------------------------------------------------------------------------------
// Comparing an answer with the oracle.

/**
 * A Float within a relative 1e-9 of the oracle's, or within `slack`: a sum of n doubles errs by
 * at most about n·2^-53 of the sum of the magnitudes, so cancelling values (99999999.99 and
 * -99999995.12 as SQLite REALs) leave an error far above 1e-9 of the small result.
 */
const close = (got: unknown, want: number, slack = 0) =>
  typeof got === 'number' &&
  Math.abs(got - want) <= Math.max(1e-9 * Math.max(1, Math.abs(want)), slack);

/** How the service must write a value of a column in `key`, `min` and `max`. */
function sameValue(column: ColumnName, got: unknown, want: Scalar | null): boolean {
  if (want === null) return got === null;
  if (column === 'dec') return centsOf(got) === want; // each database writes its own scale
  if (column === 'big') return got === String(want);
  return got === want;
}

/** The differences between one answered list of groups and the oracle's, as readable lines. */
function differences(
  got: Record<string, Record<string, unknown> | number>[],
  want: Expected[],
  sqlite: boolean,
): string[] {
  const out: string[] = [];
  if (!Array.isArray(got)) return [`not a list: ${JSON.stringify(got)}`];
  if (got.length !== want.length) out.push(`groups: got ${got.length}, want ${want.length}`);
  for (let i = 0; i < Math.min(got.length, want.length); i++) {
    const g = got[i] as Record<string, Record<string, unknown>>;
    const w = want[i];
    const at = (part: string, column: string, value: unknown, wanted: unknown) =>
      out.push(`group ${i} ${part}.${column}: got ${JSON.stringify(value)}, want ${wanted}`);
    if ((g.count as unknown) !== w.count) at('', 'count', g.count, w.count);
    for (const column of COLUMNS) {
      for (const part of ['key', 'min', 'max'] as const) {
        if (part !== 'key' && !EXTREMES.includes(column)) continue;
        if (!sameValue(column, g[part]?.[column], w[part][column]))
          at(part, column, g[part]?.[column], String(w[part][column]));
      }
      if (g.countDistinct?.[column] !== w.countDistinct[column])
        at('countDistinct', column, g.countDistinct?.[column], w.countDistinct[column]);
    }
    for (const column of NUMERIC) {
      const s = w.sum[column];
      const gs = g.sum?.[column];
      let sumOk: boolean;
      if (s === null) sumOk = gs === null;
      else if (column === 'flt') sumOk = gs === s;
      else if (column === 'dec')
        // SQLite has no decimal type: its decimal sums are REAL (README "Aggregates").
        sumOk = sqlite
          ? close(Number(gs), Number(s) / 100, 1e-14 * w.magnitude[column])
          : gs === canonicalCents(s as bigint);
      else sumOk = gs === String(s);
      if (!sumOk)
        at('sum', column, gs, column === 'dec' && s !== null ? canonicalCents(s as bigint) : s);
      const a = w.avg[column];
      const ga = g.avg?.[column];
      // avg divides the sum, so it carries the sum's error over the count of values.
      const slack = sqlite && column === 'dec' ? (1e-14 * w.magnitude[column]) / w.count : 0;
      if (a === null ? ga !== null : !close(ga, a, slack)) at('avg', column, ga, a);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The databases.

const CREATE = {
  postgres: `CREATE TABLE items (id integer PRIMARY KEY, n integer, big bigint, dec numeric(12,2),
    txt varchar(10) COLLATE "C", flt double precision, d date, flag boolean)`,
  mysql: `CREATE TABLE items (id int PRIMARY KEY, n int, big bigint, \`dec\` decimal(12,2),
    txt varchar(10) COLLATE utf8mb4_bin, flt double, d date, flag bool)`,
  // SQLite compares text with BINARY unless told otherwise.
  sqlite: `CREATE TABLE items (id INTEGER PRIMARY KEY, n INTEGER, big BIGINT, dec DECIMAL(12,2),
    txt VARCHAR(10), flt DOUBLE, d DATE, flag BOOLEAN)`,
};

interface ItemsDatabase {
  url: string;
  tables: string[];
  /** Runs SQL on the database itself, beside the service. */
  exec(sql: string): Promise<void>;
  cleanup(): Promise<void>;
}

const DATABASES: {
  type: keyof typeof CREATE;
  describe: jest.Describe;
  create(dataDir: string): Promise<ItemsDatabase>;
}[] = [
  {
    type: 'postgres',
    describe: describeWith('postgres'),
    async create() {
      const db = await createPgDatabase('tg_aggprop');
      await db.exec(CREATE.postgres);
      return {
        url: db.url,
        tables: ['public.items'],
        exec: async (sql) => void (await db.exec(sql)),
        cleanup: () => db.drop(),
      };
    },
  },
  {
    type: 'mysql',
    describe: describeWith('mysql'),
    async create() {
      const db = await createMysqlDatabase('tg_aggprop');
      await db.exec(CREATE.mysql);
      return {
        url: db.url,
        tables: ['items'],
        exec: async (sql) => void (await db.exec(sql)),
        cleanup: () => db.drop(),
      };
    },
  },
  {
    type: 'sqlite',
    describe,
    async create(dataDir) {
      // Staged where `placeSqliteFile` (in registerSalesDatabase) takes it from.
      mkdirSync(join(dataDir, 'datasources'), { recursive: true });
      const staged = new Database(join(dataDir, 'datasources', 'items.db'));
      staged.exec(CREATE.sqlite);
      staged.close();
      let db: Database.Database | null = null;
      return {
        url: 'sqlite:items.db',
        tables: ['items'],
        async exec(sql) {
          // Opened once the file has moved into the app's folder (after registration).
          if (!db) {
            const root = join(dataDir, 'datasources');
            const app = readdirSync(root).find((f) => existsSync(join(root, f, 'items.db')));
            db = new Database(join(root, app!, 'items.db'));
          }
          db.exec(sql);
        },
        cleanup: async () => void db?.close(),
      };
    },
  },
];

for (const database of DATABASES) {
  database.describe(`aggregateItems against an oracle on ${database.type} (seed ${SEED})`, () => {
    let run: RunningApp;
    let token: string;
    let db: ItemsDatabase;
    const address = `aggprop-${database.type}`;

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      db = await database.create(run.dataDir);
      const app = await run.http('POST', '/api/apps', {
        token,
        body: { name: 'Aggregate properties', address },
      });
      expect(app.status).toBe(201);
      await registerSalesDatabase(run, token, app.body.id, database.type, db);
      await publishTableApis(run, token, app.body.id, [
        {
          name: 'items',
          table: 'items',
          actions: { ...SELECT_ONLY, aggregate: true },
          fields: Object.fromEntries(['id', ...COLUMNS].map((c) => [c, true])),
        },
      ]);
    });

    afterAll(async () => {
      await run?.close();
      await db?.cleanup();
    });

    /** Replaces the table's rows by hand-written SQL (ids 1..n). */
    const load = async (rows: Row[]) => {
      await db.exec('DELETE FROM items');
      if (!rows.length) return;
      const tuples = rows.map(
        (row, i) => `(${[String(i + 1), ...COLUMNS.map((c) => sqlLiteral(c, row[c]))].join(', ')})`,
      );
      const names = COLUMNS.map((c) => (database.type === 'mysql' ? `\`${c}\`` : c));
      await db.exec(`INSERT INTO items (id, ${names.join(', ')}) VALUES ${tuples.join(', ')}`);
    };

    it(
      `answers ${RUNS} generated tables and queries as the oracle does`,
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(rowArb, { maxLength: 12, size: 'max' }),
            fc.array(queryArb, { minLength: 1, maxLength: 4, size: 'max' }),
            async (rows, queries) => {
              await load(rows);
              const query = `{ ${queries.map((q, i) => fieldText(q, `q${i}`)).join('\n')} }`;
              const res = await run.http('POST', `/api/graphql/${address}`, {
                token,
                body: { query },
              });
              if (res.status !== 200 || res.body.errors || !res.body.data) {
                throw new Error(
                  `${res.status} ${JSON.stringify(res.body).slice(0, 800)}\nquery: ${query}`,
                );
              }
              const found = queries.flatMap((q, i) =>
                differences(
                  res.body.data[`q${i}`],
                  oracle(rows, q),
                  database.type === 'sqlite',
                ).map((line) => `q${i}: ${line}`),
              );
              if (found.length) {
                throw new Error(`${found.join('\n')}\nquery: ${query}`);
              }
            },
          ),
          { seed: SEED, numRuns: RUNS },
        );
      },
      // Shrinking a failure re-runs the property many times; a pass takes a few seconds.
      300_000,
    );
  });
}
