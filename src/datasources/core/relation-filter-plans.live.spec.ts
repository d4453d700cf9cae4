import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { Client } from 'pg';
import { modelColumn } from '../../../test/support/model-column';
import { describeWith, SERVICE_URLS } from '../../../test/support/services';
import { buildApiTree, type RowNode } from '../../graphql-gateway/api-tree';
import { type FilterInput, planWhere, tableRef } from '../../graphql-gateway/query-planner';
import type { ModelTable, VersionDefinition } from '../../platform/version-definition';
import { ALL_ROWS, type CompiledQuery, type Condition, type Dialect } from './dialect';
import { MysqlDialect } from '../mysql/dialect';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';

/**
 * Issue 23, "EXPLAIN checks that a relation filter on an indexed foreign key uses the index": the
 * correlated EXISTS the planner and compiler write for `getCustomers(where: {orders: {some:
 * {status: {eq: "shipped"}}}}, take: 50)` must let each database read the child table, orders,
 * through the index on its foreign key `orders.customer_id`, and `getOrders(where: {customer:
 * {city: …}})` must read customers through their primary key. The filters go through the real
 * `planWhere` (GraphQL filter input to condition) and the dialect's compiler. Plans, not timings,
 * over 5,000 customers with 20 orders each, analyzed. Two checks per statement:
 *
 * - the plan each database chooses reads the child through the index, or, where reading the
 *   whole child once is a legitimate choice (PostgreSQL's hash join for an unlimited count,
 *   MariaDB's semi-join materialization), exactly that; never a scan of the child per parent row;
 * - with the alternatives priced out (PostgreSQL `enable_seqscan`/`enable_hashjoin`/
 *   `enable_mergejoin` off, MariaDB `exists_to_in`/`semijoin` off), the correlated subquery probes
 *   the index. This is what catches a compiled form the index cannot serve: wrapping the
 *   correlated column (`"__tg_r1"."customer_id" + 0 = …`, tried by hand) fails 24 of the 25 cases.
 *
 * MariaDB 10.11 materializes the subquery even for a page of 50: `ANALYZE` of the somePage SELECT
 * reads all 100,000 orders (r_rows), against about 70 rows through orders_customer_id with
 * exists_to_in off; the hand-written `id IN (SELECT customer_id …)` gets the same plan, so it is
 * the optimizer's cost model (it does not weigh LIMIT), not the compiled form.
 */

const CUSTOMERS = 5_000;
const ORDERS = 100_000;
/** A third of each customer's orders (but 1, 101, …): `some` finds its 50 among the first ~51. */
const SOME_STATUS = 'shipped';
/** Every order of 1 customer in 100 (1, 101, …): `none` finds its 50 among the first ~51. */
const NONE_STATUS = 'returned';

/** The model as introspection gives it: orders.customer_id references customers.id. */
function definition(schema: string | null): {
  customers: RowNode;
  orders: RowNode;
  tables: { customers: ModelTable; orders: ModelTable };
} {
  const table = (name: string, columns: string[], fk?: string): ModelTable => ({
    name,
    dbName: name,
    schema: schema as string,
    datasourceId: 'ds1',
    active: true,
    columns: columns.map((c) =>
      modelColumn(c, c === 'id' || c === 'customer_id' ? 'int' : 'text', {
        nullable: c !== 'id' && c !== 'customer_id',
      }),
    ),
    primaryKey: ['id'],
    foreignKeys: fk
      ? [
          {
            columns: [fk],
            referencedSchema: schema as string,
            referencedTable: 'customers',
            referencedColumns: ['id'],
          },
        ]
      : [],
  });
  const customers = table('customers', ['id', 'name', 'city', 'owner']);
  const orders = table('orders', ['id', 'customer_id', 'status', 'owner'], 'customer_id');
  const model: VersionDefinition = {
    tables: [customers, orders],
    enums: [],
    apis: [],
    permissions: {},
  };
  const off = { select: false, insert: false, update: false, delete: false };
  const tree = (name: string, fields: Record<string, unknown>) =>
    buildApiTree(model, {
      id: `api-${name}`,
      name,
      table: name,
      actions: { ...off, select: true },
      public: off,
      fields: fields as never,
      status: 'published',
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-01-01T00:00:00.000Z',
    })!;
  return {
    customers: tree('customers', { id: true, city: true, orders: { id: true, status: true } }),
    orders: tree('orders', { id: true, status: true, customer: { id: true, city: true } }),
    tables: { customers, orders },
  };
}

/** An app user whose row rule bounds both tables (`owner = 'u1'`), applied inside the subquery. */
const OWNER_RULE: Condition = { kind: 'compare', column: 'owner', op: 'eq', value: 'u1' };
const BUILDER = { of: () => ALL_ROWS };
const APP_USER = { of: () => OWNER_RULE };

/** The statements under test, compiled for one dialect as the get and count operations would. */
function statements(dialect: Dialect, schema: string | null) {
  const model = definition(schema);
  const some: FilterInput = { orders: { some: { status: { eq: SOME_STATUS } } } };
  const page = (node: RowNode, where: FilterInput, scopes = BUILDER, scope = ALL_ROWS) =>
    dialect.compileSelect({
      table: tableRef(node.table),
      columns: ['id'],
      where: planWhere(node, where, dialect, scopes),
      scope,
      order: [{ column: 'id', direction: 'ASC', nullable: false }],
      take: 50,
      skip: 0,
    });
  return {
    /** getCustomers(where: {orders: {some: {status: {eq: "shipped"}}}}, take: 50, order id ASC) */
    somePage: page(model.customers, some),
    /** The same for an app user: the orders rule joins the correlation inside the subquery. */
    somePageRuled: page(model.customers, some, APP_USER, OWNER_RULE),
    /** getCustomers(where: {orders: {none: {status: {eq: "returned"}}}}, take: 50): NOT EXISTS. */
    nonePage: page(model.customers, { orders: { none: { status: { eq: NONE_STATUS } } } }),
    /** countCustomers(where: {orders: {some: …}}): every customer is tested, no limit. */
    someCount: dialect.compileCount({
      table: tableRef(model.tables.customers),
      where: planWhere(model.customers, some, dialect, BUILDER),
      scope: ALL_ROWS,
    }),
    /** getOrders(where: {customer: {city: {eq: "Lisboa"}}}, take: 50): many-to-one. */
    manyToOnePage: page(model.orders, { customer: { city: { eq: 'Lisboa' } } }),
  };
}

type Statements = ReturnType<typeof statements>;

/** The same rows on every database: customer_id = 1 + i % 5,000, so each customer has 20 orders. */
const CITY_SQL = (i: string) =>
  `CASE WHEN ${i} % 100 = 0 THEN 'Lisboa' ELSE 'City' || (${i} % 37) END`;
const STATUS_SQL = (i: string, div: string) =>
  `CASE WHEN ${i} % 100 = 0 THEN '${NONE_STATUS}' WHEN (${i} ${div} ${CUSTOMERS}) % 3 = 0 THEN '${SOME_STATUS}'
    WHEN (${i} ${div} ${CUSTOMERS}) % 3 = 1 THEN 'paid' ELSE 'new' END`;
const OWNER_SQL = (i: string, m: number) => `CASE WHEN ${i} % ${m} = 0 THEN 'u1' ELSE 'u2' END`;

const KEYS: (keyof Statements)[] = [
  'somePage',
  'somePageRuled',
  'nonePage',
  'someCount',
  'manyToOnePage',
];
/** What each statement's subquery reads, and the index that serves its correlation. */
const CHILD: Record<keyof Statements, { table: string; pg: string; column: string }> = {
  somePage: { table: 'orders', pg: 'orders_customer_id', column: 'customer_id' },
  somePageRuled: { table: 'orders', pg: 'orders_customer_id', column: 'customer_id' },
  nonePage: { table: 'orders', pg: 'orders_customer_id', column: 'customer_id' },
  someCount: { table: 'orders', pg: 'orders_customer_id', column: 'customer_id' },
  manyToOnePage: { table: 'customers', pg: 'customers_pkey', column: 'id' },
};

// ---------------------------------------------------------------------------------------------

interface PgPlanNode {
  'Node Type': string;
  'Join Type'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Parent Relationship'?: string;
  Plans?: PgPlanNode[];
}

/**
 * A PostgreSQL JSON plan as one line per node, indented by depth, e.g. `  Index Scan on orders
 * using orders_customer_id (customer_id = customers.id)`, `[SubPlan]` marking a node run once per
 * outer row; readable in a failure message, matched by the assertions.
 */
function pgLines(node: PgPlanNode, depth = 0, inSubPlan = false): string[] {
  const sub = inSubPlan || node['Parent Relationship'] === 'SubPlan';
  const line = [
    '  '.repeat(depth) + node['Node Type'],
    node['Join Type'] && `(${node['Join Type']})`,
    node['Relation Name'] && `on ${node['Relation Name']}`,
    node['Index Name'] && `using ${node['Index Name']}`,
    node['Index Cond'],
    sub && '[SubPlan]',
  ]
    .filter(Boolean)
    .join(' ');
  return [line, ...(node.Plans ?? []).flatMap((c) => pgLines(c, depth + 1, sub))];
}

describeWith('postgres')(
  'relation filters read through the foreign-key index on PostgreSQL',
  () => {
    let admin: Client;
    let client: Client;
    let sql: Statements;
    const name = `tg_relplan_${randomBytes(4).toString('hex')}`;

    beforeAll(async () => {
      admin = new Client({ connectionString: SERVICE_URLS.postgres });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${name}"`);
      const url = new URL(SERVICE_URLS.postgres);
      url.pathname = `/${name}`;
      client = new Client({ connectionString: url.toString() });
      await client.connect();
      await client.query(`
        CREATE TABLE customers (id integer PRIMARY KEY, name text, city text, owner text);
        CREATE TABLE orders (id integer PRIMARY KEY,
          customer_id integer NOT NULL REFERENCES customers(id), status text, owner text);
        INSERT INTO customers SELECT g, 'c' || g, ${CITY_SQL('g')}, ${OWNER_SQL('g', 2)}
          FROM generate_series(1, ${CUSTOMERS}) g;
        INSERT INTO orders SELECT g, 1 + g % ${CUSTOMERS}, ${STATUS_SQL('g', '/')}, ${OWNER_SQL('g', 3)}
          FROM generate_series(1, ${ORDERS}) g;
        CREATE INDEX orders_customer_id ON orders (customer_id);
        ANALYZE customers;
        ANALYZE orders;`);
      sql = statements(new PostgresDialect(), 'public');
    });

    afterAll(async () => {
      await client?.end();
      await admin?.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin?.end();
    });

    const explain = async (q: CompiledQuery) => {
      const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${q.sql}`, q.params);
      return pgLines(rows[0]['QUERY PLAN'][0].Plan as PgPlanNode).join('\n');
    };
    /** The child read through its index, the correlation being the index condition. */
    const probe = (key: keyof Statements) =>
      new RegExp(
        `Index (Only )?Scan.* using ${CHILD[key].pg} \\(${CHILD[key].column} = \\w+\\.\\w+\\)`,
      );
    const seqScan = (key: keyof Statements) => new RegExp(`Seq Scan on ${CHILD[key].table}\\b`);

    it.each(['somePage', 'somePageRuled', 'nonePage', 'manyToOnePage'] as const)(
      '%s (take 50): the child read through the index, no scan of it',
      async (key) => {
        // Each page stops after its 50th row, found among the first ~50 parents: probing the
        // foreign-key index (or the primary key) from a nested loop costs ~50 probes, against a
        // read of the whole child. PostgreSQL may also walk that same index in customer_id order
        // beside customers_pkey in a merge (anti) join that stops at the 50th customer (its
        // choice for `none` here): index-served too, without a per-row condition.
        const plan = await explain(sql[key]);
        expect(plan).toMatch(
          new RegExp(`Index (Only )?Scan on ${CHILD[key].table} using ${CHILD[key].pg}`),
        );
        expect(plan).not.toMatch(seqScan(key));
        if (!/Merge Join/.test(plan)) expect(plan).toMatch(probe(key));
      },
    );

    it('someCount (no limit): the index, or one hashed read of orders, never a scan per customer', async () => {
      const plan = await explain(sql.someCount);
      // Every customer is tested, so reading orders once into a hash (a hash semi-join, or a
      // hash join over orders made unique by customer_id) may cost less than 5,000 index probes:
      // a legitimate plan. A Seq Scan of orders under a SubPlan, run again per customer, is not.
      expect(plan).not.toMatch(/Seq Scan on orders.*\[SubPlan\]/);
      if (!probe('someCount').test(plan)) {
        expect(plan.match(/Seq Scan on orders\b/g)).toHaveLength(1);
        expect(plan).toMatch(/Hash .*Join/);
        expect(plan).not.toMatch(/SubPlan/);
      }
    });

    it.each(KEYS)(
      '%s can be served by the index: with sequential scans and hash/merge joins priced out, it probes it',
      async (key) => {
        // Whatever the costs, a compiled form the index can serve must be served by it once the
        // alternatives are priced out (for this transaction only): a cast or function around the
        // correlated column would leave a Seq Scan of the child here.
        await client.query('BEGIN');
        try {
          await client.query(
            'SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off',
          );
          const plan = await explain(sql[key]);
          expect(plan).toMatch(probe(key));
          expect(plan).not.toMatch(seqScan(key));
        } finally {
          await client.query('ROLLBACK');
        }
      },
    );
  },
);

// ---------------------------------------------------------------------------------------------

interface MysqlExplainRow {
  select_type: string;
  table: string;
  type: string | null;
  key: string | null;
}

describeWith('mysql')('relation filters read through the foreign-key index on MariaDB', () => {
  let conn: mysql.Connection;
  let sql: Statements;
  const name = `tg_relplan_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    conn = await mysql.createConnection({ uri: SERVICE_URLS.mysql, multipleStatements: true });
    await conn.query(`CREATE DATABASE \`${name}\`; USE \`${name}\``);
    await conn.query(`
      CREATE TABLE customers (id int PRIMARY KEY, name varchar(40), city varchar(40), owner varchar(10));
      CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, status varchar(20), owner varchar(10),
        INDEX orders_customer_id (customer_id),
        CONSTRAINT orders_customer FOREIGN KEY (customer_id) REFERENCES customers (id));
      INSERT INTO customers SELECT seq, CONCAT('c', seq),
        CASE WHEN seq % 100 = 0 THEN 'Lisboa' ELSE CONCAT('City', seq % 37) END, ${OWNER_SQL('seq', 2)}
        FROM seq_1_to_${CUSTOMERS};
      INSERT INTO orders SELECT seq, 1 + seq % ${CUSTOMERS}, ${STATUS_SQL('seq', 'DIV')}, ${OWNER_SQL('seq', 3)}
        FROM seq_1_to_${ORDERS};
      ANALYZE TABLE customers, orders;`);
    sql = statements(new MysqlDialect(), null);
  });

  afterAll(async () => {
    await conn?.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await conn?.end();
  });

  /** The plan as `select_type table type key` lines, readable in a failure message. */
  const explain = async (q: CompiledQuery) => {
    const [rows] = await conn.query(`EXPLAIN ${q.sql}`, q.params);
    return (rows as MysqlExplainRow[])
      .map((r) => `${r.select_type} ${r.table} ${r.type} ${r.key ?? '-'}`)
      .join('\n');
  };
  const index = (key: keyof Statements) =>
    CHILD[key].table === 'orders' ? 'orders_customer_id' : 'PRIMARY';

  it.each(KEYS)(
    '%s: the subquery table is probed by its index, or read once (semi-join materialization)',
    async (key) => {
      const plan = await explain(sql[key]);
      // MariaDB turns EXISTS into a semi-join (exists_to_in) and may then choose to materialize
      // the subquery: one read of the child, deduplicated, joined by `distinct_key` (or, for the
      // many-to-one filter, to drive the join from the customers of one city). That reads the
      // child once, whatever the LIMIT (the semi-join optimizer does not weigh it), and is its
      // choice, not the compiled form's. What must never appear is a DEPENDENT SUBQUERY that
      // scans the child (`ALL`) once per parent row.
      expect(plan).not.toMatch(/DEPENDENT SUBQUERY __tg_r1 (ALL|index) /);
      const read = plan.split('\n').find((line) => line.includes(' __tg_r1 '))!;
      expect(read).toMatch(
        new RegExp(`(ref|eq_ref) ${index(key)}$|^(MATERIALIZED|PRIMARY) __tg_r1 ALL`),
      );
    },
  );

  it.each(KEYS)(
    '%s can be served by the index: as a correlated subquery (exists_to_in off) it probes it',
    async (key) => {
      // Kept as the correlated subquery the compiler wrote, run once per parent row, the child
      // must be read by `ref`/`eq_ref` on the foreign-key index (the primary key for the
      // many-to-one filter): a cast or function around the correlated column would make it ALL.
      await conn.query("SET SESSION optimizer_switch = 'exists_to_in=off,semijoin=off'");
      try {
        const plan = await explain(sql[key]);
        expect(plan).toMatch(new RegExp(`SUBQUERY __tg_r1 (ref|eq_ref) ${index(key)}$`, 'm'));
      } finally {
        await conn.query("SET SESSION optimizer_switch = 'default'");
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------

describe('relation filters read through the foreign-key index on SQLite', () => {
  let dir: string;
  let db: Database.Database;
  let sql: Statements;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tg-relplan-'));
    db = new Database(join(dir, 'plan.db'));
    db.exec(`
      CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT, owner TEXT);
      CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
        status TEXT, owner TEXT);
      WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${CUSTOMERS})
      INSERT INTO customers SELECT n, 'c' || n, ${CITY_SQL('n')}, ${OWNER_SQL('n', 2)} FROM g;
      WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${ORDERS})
      INSERT INTO orders SELECT n, 1 + n % ${CUSTOMERS}, ${STATUS_SQL('n', '/')}, ${OWNER_SQL('n', 3)} FROM g;
      CREATE INDEX orders_customer_id ON orders (customer_id);
      ANALYZE;`);
    sql = statements(new SqliteDialect(), null);
  });

  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** EXPLAIN QUERY PLAN's lines (`SEARCH __tg_r1 EXISTS USING INDEX orders_customer_id (customer_id=?)`). */
  const explain = (q: CompiledQuery) =>
    (
      db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(q.params as never[])) as {
        detail: string;
      }[]
    )
      .map((r) => r.detail)
      .join('\n');

  it.each(KEYS)('%s: the subquery table is searched by its index, never scanned', (key) => {
    const plan = explain(sql[key]);
    // SQLite has no hash join: a correlated EXISTS is a loop over the outer rows (SQLite 3.35+
    // may write it as a semi-join, `SEARCH … EXISTS`), so the index is the only way not to scan
    // the child once per outer row. No automatic (temporary) index either: the real one serves.
    const index =
      CHILD[key].table === 'orders'
        ? 'INDEX orders_customer_id \\(customer_id=\\?\\)'
        : 'INTEGER PRIMARY KEY \\(rowid=\\?\\)';
    expect(plan).toMatch(new RegExp(`SEARCH __tg_r1 (EXISTS )?USING (COVERING )?${index}`));
    expect(plan).not.toMatch(/SCAN __tg_r1/);
    expect(plan).not.toMatch(/AUTOMATIC/);
  });
});
