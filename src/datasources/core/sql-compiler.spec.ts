import { ALL_ROWS } from './dialect';
import type { CompiledQuery, Condition, CountPlan, SelectPlan } from './dialect';
import { PostgresDialect } from '../postgres/dialect';
import { escapeLike, likePattern, ROW_NUMBER_ALIAS } from './sql-compiler';
import { SqliteDialect } from '../sqlite/dialect';

/**
 * Golden tests of the shared SQL compiler through its two adapters (CONTRACT.md §6: the `where`
 * language, order, take/skip). Every expectation is the exact SQL text and parameter list, for
 * PostgreSQL and SQLite side by side.
 */

const pg = new PostgresDialect();
const lite = new SqliteDialect();

/**
 * Asserts that no value is inlined in the SQL text: outside quoted identifiers there is no string
 * literal (other than the `ESCAPE '\'` clause), no number (other than `1=1`/`1=0` and SQLite's
 * `LIMIT -1`), every string parameter is absent from the text, and there is exactly one
 * placeholder per parameter, in order.
 */
function expectAllValuesBound(q: CompiledQuery, dialect: 'pg' | 'sqlite'): void {
  const outsideIdentifiers = q.sql.replace(/"(?:[^"]|"")*"/g, '""');
  const bare = outsideIdentifiers
    .replace(/ ESCAPE '\\'/g, '')
    .replace(/\$\d+/g, '?')
    .replace(/\b1=[01]\b/g, 'TRUTH')
    .replace(/LIMIT -1 /g, 'LIMIT ');
  expect(bare).not.toMatch(/'/);
  expect(bare).not.toMatch(/\d/);
  for (const p of q.params) {
    if (typeof p === 'string' && p.length > 1) expect(outsideIdentifiers).not.toContain(p);
  }
  if (dialect === 'pg') {
    const used = [...q.sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
    expect(used).toEqual(q.params.map((_, i) => i + 1));
  } else {
    expect(q.sql).not.toMatch(/\$\d/);
    expect(outsideIdentifiers.split('?').length - 1).toBe(q.params.length);
  }
}

function select(plan: SelectPlan): { pg: CompiledQuery; sqlite: CompiledQuery } {
  const out = { pg: pg.compileSelect(plan), sqlite: lite.compileSelect(plan) };
  expectAllValuesBound(out.pg, 'pg');
  expectAllValuesBound(out.sqlite, 'sqlite');
  return out;
}

function count(plan: CountPlan): { pg: CompiledQuery; sqlite: CompiledQuery } {
  const out = { pg: pg.compileCount(plan), sqlite: lite.compileCount(plan) };
  expectAllValuesBound(out.pg, 'pg');
  expectAllValuesBound(out.sqlite, 'sqlite');
  return out;
}

/** A one-table read of `customer` by id, with the given filter and no page. */
function customers(where: Condition): SelectPlan {
  return {
    scope: ALL_ROWS,
    table: { schema: null, name: 'customer' },
    columns: ['id', 'name'],
    where,
    order: [{ column: 'id', direction: 'ASC' }],
    take: null,
    skip: 0,
  };
}

const TRUE: Condition = { kind: 'and', items: [] };

describe('SqlCompiler golden SQL (PostgreSQL | SQLite)', () => {
  describe('comparison operators', () => {
    const cases: { op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'; sql: string }[] = [
      { op: 'eq', sql: '=' },
      { op: 'neq', sql: '<>' },
      { op: 'gt', sql: '>' },
      { op: 'gte', sql: '>=' },
      { op: 'lt', sql: '<' },
      { op: 'lte', sql: '<=' },
    ];
    it.each(cases)('$op compiles to $sql with one bound parameter', ({ op, sql }) => {
      const q = select(customers({ kind: 'compare', column: 'name', op, value: 'Ada Lovelace' }));
      expect(q.pg).toEqual({
        sql: `SELECT "id", "name" FROM "customer" WHERE "name" ${sql} $1 ORDER BY "id" ASC NULLS FIRST`,
        params: ['Ada Lovelace'],
      });
      expect(q.sqlite).toEqual({
        sql: `SELECT "id", "name" FROM "customer" WHERE "name" ${sql} ? ORDER BY "id" ASC`,
        params: ['Ada Lovelace'],
      });
    });

    it('binds numbers, booleans and bigints as parameters, never as text', () => {
      const q = count({
        scope: ALL_ROWS,
        table: { schema: null, name: 'customer' },
        where: {
          kind: 'and',
          items: [
            { kind: 'compare', column: 'age', op: 'gte', value: 4711 },
            { kind: 'compare', column: 'vip', op: 'eq', value: true },
            { kind: 'compare', column: 'balance', op: 'lt', value: 9007199254740993n },
          ],
        },
      });
      expect(q.pg).toEqual({
        sql: 'SELECT COUNT(*) AS "count" FROM "customer" WHERE ("age" >= $1 AND "vip" = $2 AND "balance" < $3)',
        params: [4711, true, 9007199254740993n],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT COUNT(*) AS "count" FROM "customer" WHERE ("age" >= ? AND "vip" = ? AND "balance" < ?)',
        params: [4711, true, 9007199254740993n],
      });
    });
  });

  describe('null tests', () => {
    it('eq null is IS NULL, with no parameter', () => {
      const q = select(customers({ kind: 'null', column: 'email', negated: false }));
      expect(q.pg).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE "email" IS NULL ORDER BY "id" ASC NULLS FIRST',
        params: [],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE "email" IS NULL ORDER BY "id" ASC',
        params: [],
      });
    });

    it('neq null is IS NOT NULL, with no parameter', () => {
      const q = select(customers({ kind: 'null', column: 'email', negated: true }));
      expect(q.pg).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE "email" IS NOT NULL ORDER BY "id" ASC NULLS FIRST',
        params: [],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE "email" IS NOT NULL ORDER BY "id" ASC',
        params: [],
      });
    });
  });

  describe('in / nin', () => {
    it('in binds one parameter per value', () => {
      const q = select(
        customers({ kind: 'in', column: 'id', values: [1101, 1102, 1103], negated: false }),
      );
      expect(q.pg).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE "id" IN ($1, $2, $3) ORDER BY "id" ASC NULLS FIRST',
        params: [1101, 1102, 1103],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE "id" IN (?, ?, ?) ORDER BY "id" ASC',
        params: [1101, 1102, 1103],
      });
    });

    it('nin is NOT IN', () => {
      const q = select(
        customers({ kind: 'in', column: 'name', values: ['Ada', 'Grace'], negated: true }),
      );
      expect(q.pg).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE "name" NOT IN ($1, $2) ORDER BY "id" ASC NULLS FIRST',
        params: ['Ada', 'Grace'],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE "name" NOT IN (?, ?) ORDER BY "id" ASC',
        params: ['Ada', 'Grace'],
      });
    });

    it('in: [] matches nothing (1=0)', () => {
      const q = select(customers({ kind: 'in', column: 'id', values: [], negated: false }));
      expect(q.pg).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE 1=0 ORDER BY "id" ASC NULLS FIRST',
        params: [],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE 1=0 ORDER BY "id" ASC',
        params: [],
      });
    });

    it('nin: [] matches everything (1=1)', () => {
      const q = select(customers({ kind: 'in', column: 'id', values: [], negated: true }));
      expect(q.pg).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE 1=1 ORDER BY "id" ASC NULLS FIRST',
        params: [],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE 1=1 ORDER BY "id" ASC',
        params: [],
      });
    });
  });

  describe('comparisons of a date-and-time column', () => {
    it('compare the values themselves on PostgreSQL, and one text form on SQLite (strftime)', () => {
      const plan = customers({
        kind: 'and',
        items: [
          {
            kind: 'compare',
            column: 'seen',
            op: 'gte',
            value: '2024-01-10 08:00',
            timestamp: true,
          },
          {
            kind: 'in',
            column: 'seen',
            values: ['2024-01-10 08:00:00.5'],
            negated: true,
            timestamp: true,
          },
        ],
      });
      expect(pg.compileSelect(plan)).toEqual({
        sql: 'SELECT "id", "name" FROM "customer" WHERE ("seen" >= $1 AND "seen" NOT IN ($2)) ORDER BY "id" ASC NULLS FIRST',
        params: ['2024-01-10 08:00', '2024-01-10 08:00:00.5'],
      });
      const f = (sql: string) => `strftime('%Y-%m-%d %H:%M:%f', ${sql})`;
      expect(lite.compileSelect(plan)).toEqual({
        sql: `SELECT "id", "name" FROM "customer" WHERE (${f('"seen"')} >= ${f('?')} AND ${f('"seen"')} NOT IN (${f('?')})) ORDER BY "id" ASC`,
        params: ['2024-01-10 08:00', '2024-01-10 08:00:00.5'],
      });
    });
  });

  describe('contains / startsWith / endsWith', () => {
    const cases: { mode: 'contains' | 'startsWith' | 'endsWith'; pattern: string }[] = [
      { mode: 'contains', pattern: '%lovelace%' },
      { mode: 'startsWith', pattern: 'lovelace%' },
      { mode: 'endsWith', pattern: '%lovelace' },
    ];
    it.each(cases)(
      '$mode: case-insensitive LIKE with ESCAPE, pattern $pattern bound',
      ({ mode, pattern }) => {
        const q = select(customers({ kind: 'like', column: 'name', mode, value: 'lovelace' }));
        expect(q.pg).toEqual({
          sql: `SELECT "id", "name" FROM "customer" WHERE "name"::text ILIKE $1 ESCAPE '\\' ORDER BY "id" ASC NULLS FIRST`,
          params: [pattern],
        });
        expect(q.sqlite).toEqual({
          sql: `SELECT "id", "name" FROM "customer" WHERE tg_casefold("name") LIKE tg_casefold(?) ESCAPE '\\' ORDER BY "id" ASC`,
          params: [pattern],
        });
      },
    );

    it('escapes %, _ and \\ but leaves [ and ] alone (contains)', () => {
      const value = '50%_off\\[sale]';
      const q = count({
        scope: ALL_ROWS,
        table: { schema: null, name: 'product' },
        where: { kind: 'like', column: 'title', mode: 'contains', value },
      });
      // % → \%, _ → \_, \ → \\, [ and ] unchanged; then wrapped in %…%.
      const escaped = '%50\\%\\_off\\\\[sale]%';
      expect(q.pg).toEqual({
        sql: `SELECT COUNT(*) AS "count" FROM "product" WHERE "title"::text ILIKE $1 ESCAPE '\\'`,
        params: [escaped],
      });
      expect(q.sqlite).toEqual({
        sql: `SELECT COUNT(*) AS "count" FROM "product" WHERE tg_casefold("title") LIKE tg_casefold(?) ESCAPE '\\'`,
        params: [escaped],
      });
    });

    it('escapes in startsWith and endsWith the same way', () => {
      const starts = count({
        scope: ALL_ROWS,
        table: { schema: null, name: 'product' },
        where: { kind: 'like', column: 'title', mode: 'startsWith', value: '[a]_b%' },
      });
      const ends = count({
        scope: ALL_ROWS,
        table: { schema: null, name: 'product' },
        where: { kind: 'like', column: 'title', mode: 'endsWith', value: 'c\\d' },
      });
      expect(starts.pg.params).toEqual(['[a]\\_b\\%%']);
      expect(starts.sqlite.params).toEqual(['[a]\\_b\\%%']);
      expect(ends.pg.params).toEqual(['%c\\\\d']);
      expect(ends.sqlite.params).toEqual(['%c\\\\d']);
    });

    it('a value made only of specials is fully escaped', () => {
      const q = count({
        scope: ALL_ROWS,
        table: { schema: null, name: 'product' },
        where: { kind: 'like', column: 'title', mode: 'contains', value: '%%__\\\\' },
      });
      expect(q.pg.params).toEqual(['%\\%\\%\\_\\_\\\\\\\\%']);
      expect(q.sqlite.params).toEqual(['%\\%\\%\\_\\_\\\\\\\\%']);
    });

    it('escapeLike and likePattern', () => {
      expect(escapeLike('a%b_c\\d[e]')).toBe('a\\%b\\_c\\\\d[e]');
      expect(escapeLike('[x]', '%_[')).toBe('\\[x]');
      expect(escapeLike('plain text')).toBe('plain text');
      expect(likePattern('x', 'contains')).toBe('%x%');
      expect(likePattern('x', 'startsWith')).toBe('x%');
      expect(likePattern('x', 'endsWith')).toBe('%x');
    });
  });

  describe('and / or', () => {
    it('and: [] is true: no WHERE clause at all', () => {
      const q = count({
        scope: ALL_ROWS,
        table: { schema: null, name: 'customer' },
        where: { kind: 'and', items: [] },
      });
      expect(q.pg).toEqual({
        sql: 'SELECT COUNT(*) AS "count" FROM "customer"',
        params: [],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT COUNT(*) AS "count" FROM "customer"',
        params: [],
      });
    });

    it('or: [] is false (1=0)', () => {
      const q = count({
        scope: ALL_ROWS,
        table: { schema: null, name: 'customer' },
        where: { kind: 'or', items: [] },
      });
      expect(q.pg).toEqual({
        sql: 'SELECT COUNT(*) AS "count" FROM "customer" WHERE 1=0',
        params: [],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT COUNT(*) AS "count" FROM "customer" WHERE 1=0',
        params: [],
      });
    });

    it('nests and/or with parentheses, parameters numbered in text order', () => {
      const where: Condition = {
        kind: 'and',
        items: [
          {
            kind: 'or',
            items: [
              { kind: 'compare', column: 'name', op: 'eq', value: 'Ada' },
              { kind: 'like', column: 'email', mode: 'endsWith', value: '@example.org' },
              { kind: 'and', items: [] },
            ],
          },
          { kind: 'compare', column: 'id', op: 'gt', value: 500 },
          { kind: 'or', items: [] },
          {
            kind: 'and',
            items: [
              { kind: 'null', column: 'deleted_at', negated: false },
              { kind: 'in', column: 'tier', values: ['gold', 'platinum'], negated: false },
            ],
          },
        ],
      };
      const q = select(customers(where));
      expect(q.pg).toEqual({
        sql:
          'SELECT "id", "name" FROM "customer" WHERE (("name" = $1 OR "email"::text ILIKE $2 ESCAPE \'\\\' OR 1=1)' +
          ' AND "id" > $3 AND 1=0 AND ("deleted_at" IS NULL AND "tier" IN ($4, $5))) ORDER BY "id" ASC NULLS FIRST',
        params: ['Ada', '%@example.org', 500, 'gold', 'platinum'],
      });
      expect(q.sqlite).toEqual({
        sql:
          'SELECT "id", "name" FROM "customer" WHERE (("name" = ? OR tg_casefold("email") LIKE tg_casefold(?) ESCAPE \'\\\' OR 1=1)' +
          ' AND "id" > ? AND 1=0 AND ("deleted_at" IS NULL AND "tier" IN (?, ?))) ORDER BY "id" ASC',
        params: ['Ada', '%@example.org', 500, 'gold', 'platinum'],
      });
    });

    it('a single-item and/or is still parenthesised', () => {
      const q = count({
        scope: ALL_ROWS,
        table: { schema: null, name: 'customer' },
        where: {
          kind: 'or',
          items: [{ kind: 'compare', column: 'name', op: 'neq', value: 'Bob' }],
        },
      });
      expect(q.pg).toEqual({
        sql: 'SELECT COUNT(*) AS "count" FROM "customer" WHERE ("name" <> $1)',
        params: ['Bob'],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT COUNT(*) AS "count" FROM "customer" WHERE ("name" <> ?)',
        params: ['Bob'],
      });
    });
  });

  describe('order', () => {
    it('multi-column order: NULLS FIRST under ASC and NULLS LAST under DESC on PostgreSQL; SQLite needs none', () => {
      const q = select({
        scope: ALL_ROWS,
        table: { schema: null, name: 'customer' },
        columns: ['id', 'name', 'email'],
        where: TRUE,
        order: [
          { column: 'name', direction: 'DESC' },
          { column: 'email', direction: 'ASC' },
          { column: 'id', direction: 'ASC' },
        ],
        take: null,
        skip: 0,
      });
      expect(q.pg).toEqual({
        sql:
          'SELECT "id", "name", "email" FROM "customer"' +
          ' ORDER BY "name" DESC NULLS LAST, "email" ASC NULLS FIRST, "id" ASC NULLS FIRST',
        params: [],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id", "name", "email" FROM "customer" ORDER BY "name" DESC, "email" ASC, "id" ASC',
        params: [],
      });
    });
  });

  describe('pagination', () => {
    const base = (take: number | null, skip: number): SelectPlan => ({
      scope: ALL_ROWS,
      table: { schema: null, name: 'customer' },
      columns: ['id'],
      where: { kind: 'compare', column: 'name', op: 'eq', value: 'Ada' },
      order: [{ column: 'id', direction: 'DESC' }],
      take,
      skip,
    });

    it('take only: LIMIT after the filter parameters', () => {
      const q = select(base(25, 0));
      expect(q.pg).toEqual({
        sql: 'SELECT "id" FROM "customer" WHERE "name" = $1 ORDER BY "id" DESC NULLS LAST LIMIT $2',
        params: ['Ada', 25],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id" FROM "customer" WHERE "name" = ? ORDER BY "id" DESC LIMIT ?',
        params: ['Ada', 25],
      });
    });

    it('take and skip: LIMIT and OFFSET', () => {
      const q = select(base(25, 50));
      expect(q.pg).toEqual({
        sql: 'SELECT "id" FROM "customer" WHERE "name" = $1 ORDER BY "id" DESC NULLS LAST LIMIT $2 OFFSET $3',
        params: ['Ada', 25, 50],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id" FROM "customer" WHERE "name" = ? ORDER BY "id" DESC LIMIT ? OFFSET ?',
        params: ['Ada', 25, 50],
      });
    });

    it('take: 0 is a bound LIMIT of 0', () => {
      const q = select(base(0, 0));
      expect(q.pg.sql.endsWith(' LIMIT $2')).toBe(true);
      expect(q.pg.params).toEqual(['Ada', 0]);
      expect(q.sqlite.sql.endsWith(' LIMIT ?')).toBe(true);
      expect(q.sqlite.params).toEqual(['Ada', 0]);
    });

    it('skip without take: OFFSET only on PostgreSQL, LIMIT -1 OFFSET on SQLite', () => {
      const q = select(base(null, 50));
      expect(q.pg).toEqual({
        sql: 'SELECT "id" FROM "customer" WHERE "name" = $1 ORDER BY "id" DESC NULLS LAST OFFSET $2',
        params: ['Ada', 50],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id" FROM "customer" WHERE "name" = ? ORDER BY "id" DESC LIMIT -1 OFFSET ?',
        params: ['Ada', 50],
      });
    });

    it('no take and no skip: no pagination clause', () => {
      const q = select(base(null, 0));
      expect(q.pg).toEqual({
        sql: 'SELECT "id" FROM "customer" WHERE "name" = $1 ORDER BY "id" DESC NULLS LAST',
        params: ['Ada'],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id" FROM "customer" WHERE "name" = ? ORDER BY "id" DESC',
        params: ['Ada'],
      });
    });
  });

  describe('partitioned select (batched one-to-many)', () => {
    const plan = (take: number | null, skip: number): SelectPlan => ({
      scope: ALL_ROWS,
      table: { schema: null, name: 'orders' },
      columns: ['id', 'customer_id', 'status'],
      where: {
        kind: 'and',
        items: [
          { kind: 'in', column: 'customer_id', values: [101, 102], negated: false },
          { kind: 'compare', column: 'status', op: 'eq', value: 'paid' },
        ],
      },
      order: [
        { column: 'placed_at', direction: 'DESC' },
        { column: 'id', direction: 'ASC' },
      ],
      take,
      skip,
      partition: { column: 'customer_id' },
    });

    it('numbers rows per partition with ROW_NUMBER and pages on the row number', () => {
      const q = select(plan(3, 1));
      expect(q.pg).toEqual({
        sql:
          'SELECT "id", "customer_id", "status" FROM (' +
          'SELECT "id", "customer_id", "status", ROW_NUMBER() OVER (PARTITION BY "customer_id" ' +
          'ORDER BY "placed_at" DESC NULLS LAST, "id" ASC NULLS FIRST) AS "__tg_rn" ' +
          'FROM "orders" WHERE ("customer_id" IN ($1, $2) AND "status" = $3)' +
          ') "__tg_p" WHERE "__tg_rn" > $4 AND "__tg_rn" <= $5 ORDER BY "__tg_rn"',
        params: [101, 102, 'paid', 1, 4],
      });
      expect(q.sqlite).toEqual({
        sql:
          'SELECT "id", "customer_id", "status" FROM (' +
          'SELECT "id", "customer_id", "status", ROW_NUMBER() OVER (PARTITION BY "customer_id" ' +
          'ORDER BY "placed_at" DESC, "id" ASC) AS "__tg_rn" ' +
          'FROM "orders" WHERE ("customer_id" IN (?, ?) AND "status" = ?)' +
          ') "__tg_p" WHERE "__tg_rn" > ? AND "__tg_rn" <= ? ORDER BY "__tg_rn"',
        params: [101, 102, 'paid', 1, 4],
      });
      expect(ROW_NUMBER_ALIAS).toBe('__tg_rn');
    });

    it('without take only the lower bound is applied', () => {
      const q = select(plan(null, 0));
      expect(q.pg.sql.endsWith(') "__tg_p" WHERE "__tg_rn" > $4 ORDER BY "__tg_rn"')).toBe(true);
      expect(q.pg.params).toEqual([101, 102, 'paid', 0]);
      expect(q.sqlite.sql.endsWith(') "__tg_p" WHERE "__tg_rn" > ? ORDER BY "__tg_rn"')).toBe(true);
      expect(q.sqlite.params).toEqual([101, 102, 'paid', 0]);
    });

    it('take: 0 bounds the row number to an empty range', () => {
      const q = select(plan(0, 5));
      expect(q.pg.sql.endsWith('WHERE "__tg_rn" > $4 AND "__tg_rn" <= $5 ORDER BY "__tg_rn"')).toBe(
        true,
      );
      expect(q.pg.params.slice(3)).toEqual([5, 5]);
      expect(q.sqlite.params.slice(3)).toEqual([5, 5]);
    });

    it('never adds LIMIT/OFFSET to a partitioned read', () => {
      const q = select(plan(10, 20));
      expect(q.pg.sql).not.toMatch(/LIMIT|OFFSET/);
      expect(q.sqlite.sql).not.toMatch(/LIMIT|OFFSET/);
    });
  });

  describe('identifiers', () => {
    it('schema-qualifies table names', () => {
      const q = select({
        scope: ALL_ROWS,
        table: { schema: 'sales', name: 'order_line' },
        columns: ['order_id', 'line_no'],
        where: TRUE,
        order: [
          { column: 'order_id', direction: 'ASC' },
          { column: 'line_no', direction: 'ASC' },
        ],
        take: 10,
        skip: 0,
      });
      expect(q.pg).toEqual({
        sql:
          'SELECT "order_id", "line_no" FROM "sales"."order_line"' +
          ' ORDER BY "order_id" ASC NULLS FIRST, "line_no" ASC NULLS FIRST LIMIT $1',
        params: [10],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "order_id", "line_no" FROM "sales"."order_line" ORDER BY "order_id" ASC, "line_no" ASC LIMIT ?',
        params: [10],
      });
      const c = count({
        scope: ALL_ROWS,
        table: { schema: 'sales', name: 'order_line' },
        where: TRUE,
      });
      expect(c.pg.sql).toBe('SELECT COUNT(*) AS "count" FROM "sales"."order_line"');
      expect(c.sqlite.sql).toBe('SELECT COUNT(*) AS "count" FROM "sales"."order_line"');
    });

    it('doubles an embedded double quote in schema, table and column names', () => {
      const q = select({
        scope: ALL_ROWS,
        table: { schema: 'we"ird', name: 'my "table"' },
        columns: ['id', 'say "hi"'],
        where: { kind: 'compare', column: 'say "hi"', op: 'eq', value: 'hello' },
        order: [{ column: 'say "hi"', direction: 'ASC' }],
        take: null,
        skip: 0,
      });
      expect(q.pg).toEqual({
        sql:
          'SELECT "id", "say ""hi""" FROM "we""ird"."my ""table""" WHERE "say ""hi""" = $1' +
          ' ORDER BY "say ""hi""" ASC NULLS FIRST',
        params: ['hello'],
      });
      expect(q.sqlite).toEqual({
        sql: 'SELECT "id", "say ""hi""" FROM "we""ird"."my ""table""" WHERE "say ""hi""" = ? ORDER BY "say ""hi""" ASC',
        params: ['hello'],
      });
      expect(pg.quote('a"b')).toBe('"a""b"');
      expect(lite.quote('"')).toBe('""""');
    });

    it('keeps a hostile-looking value out of the SQL text', () => {
      const evil = `x'); DROP TABLE customer; --`;
      const q = select(
        customers({ kind: 'in', column: 'name', values: [evil, `O'Brien`], negated: false }),
      );
      expect(q.pg.params).toEqual([evil, `O'Brien`]);
      expect(q.sqlite.params).toEqual([evil, `O'Brien`]);
      expect(q.pg.sql).not.toContain('DROP');
      expect(q.sqlite.sql).not.toContain('DROP');
    });
  });

  describe('count', () => {
    it('SELECT COUNT(*) with the same predicate as a select', () => {
      const where: Condition = {
        kind: 'or',
        items: [
          { kind: 'like', column: 'name', mode: 'startsWith', value: 'Ad' },
          { kind: 'null', column: 'email', negated: true },
        ],
      };
      const q = count({ scope: ALL_ROWS, table: { schema: 'public', name: 'customer' }, where });
      expect(q.pg).toEqual({
        sql: `SELECT COUNT(*) AS "count" FROM "public"."customer" WHERE ("name"::text ILIKE $1 ESCAPE '\\' OR "email" IS NOT NULL)`,
        params: ['Ad%'],
      });
      expect(q.sqlite).toEqual({
        sql: `SELECT COUNT(*) AS "count" FROM "public"."customer" WHERE (tg_casefold("name") LIKE tg_casefold(?) ESCAPE '\\' OR "email" IS NOT NULL)`,
        params: ['Ad%'],
      });
    });
  });
});
