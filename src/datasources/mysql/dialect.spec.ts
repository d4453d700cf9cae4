import mysql from 'mysql2/promise';
import { ALL_ROWS } from '../core/dialect';
import type { ColumnKind, CompiledQuery, Condition, CountPlan, SelectPlan } from '../core/dialect';
import { MysqlDecimal, parseMysqlUrl, toMysqlParameter } from './pool';
import { escapeMysqlLike } from './compiler';
import { mariadbJsonColumns, mysqlEnumValues, mysqlKind } from './introspection';
import { MysqlDialect } from './dialect';
import { singlePrecision } from './values';
import { ROW_NUMBER_ALIAS } from '../core/sql-compiler';
import { modelColumn } from '../../../test/support/model-column';

/**
 * Golden tests of the MySQL/MariaDB adapter's SQL (CONTRACT.md §6: the `where` language, order,
 * take/skip, writes), for the same plans as sql-compiler.spec.ts: exact SQL text and parameters.
 * Plus capabilities by server version, the type mapping, binding and formatting of values.
 */

const my = new MysqlDialect();

/** The case-insensitive literal LIKE of a quoted column against the next placeholder. */
const like = (column: string) =>
  `LOWER(CONVERT(${column} USING utf8mb4) COLLATE utf8mb4_bin) LIKE LOWER(CONVERT(? USING utf8mb4) COLLATE utf8mb4_bin) ESCAPE '|'`;

/**
 * Asserts that no value is inlined in the SQL text: outside quoted identifiers there is no string
 * literal (other than `ESCAPE '|'`), no number (other than `1=1`/`1=0`, the `utf8mb4` names and
 * the all-rows LIMIT), every string parameter is absent from the text, and there is exactly one
 * `?` per parameter.
 */
function expectAllValuesBound(q: CompiledQuery): void {
  const outsideIdentifiers = q.sql.replace(/`(?:[^`]|``)*`/g, '``');
  const bare = outsideIdentifiers
    .replace(/ ESCAPE '\|'/g, '')
    .replace(/utf8mb4(_bin)?/g, 'CHARSET')
    .replace(/\b1=[01]\b/g, 'TRUTH')
    .replace(/LIMIT 18446744073709551615 /g, 'LIMIT ');
  expect(bare).not.toMatch(/'/);
  expect(bare).not.toMatch(/\d/);
  expect(bare).not.toMatch(/\$/);
  for (const p of q.params) {
    if (typeof p === 'string' && p.length > 1) expect(outsideIdentifiers).not.toContain(p);
  }
  expect(outsideIdentifiers.split('?').length - 1).toBe(q.params.length);
}

function select(plan: SelectPlan): CompiledQuery {
  const q = my.compileSelect(plan);
  expectAllValuesBound(q);
  return q;
}

function count(plan: CountPlan): CompiledQuery {
  const q = my.compileCount(plan);
  expectAllValuesBound(q);
  return q;
}

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

const col = (name: string, kind: ColumnKind, dbType = kind as string) =>
  modelColumn(name, kind, { dbType });

describe('MysqlDialect golden SQL', () => {
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
      expect(
        select(customers({ kind: 'compare', column: 'name', op, value: 'Ada Lovelace' })),
      ).toEqual({
        sql: `SELECT \`id\`, \`name\` FROM \`customer\` WHERE \`name\` ${sql} ? ORDER BY \`id\` ASC`,
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
            { kind: 'compare', column: 'vip', op: 'eq', value: 1 },
            { kind: 'compare', column: 'balance', op: 'lt', value: 9007199254740993n },
          ],
        },
      });
      expect(q).toEqual({
        sql: 'SELECT COUNT(*) AS `count` FROM `customer` WHERE (`age` >= ? AND `vip` = ? AND `balance` < ?)',
        params: [4711, 1, 9007199254740993n],
      });
    });
  });

  describe('null tests', () => {
    it('eq null is IS NULL, neq null IS NOT NULL, with no parameter', () => {
      expect(select(customers({ kind: 'null', column: 'email', negated: false }))).toEqual({
        sql: 'SELECT `id`, `name` FROM `customer` WHERE `email` IS NULL ORDER BY `id` ASC',
        params: [],
      });
      expect(select(customers({ kind: 'null', column: 'email', negated: true }))).toEqual({
        sql: 'SELECT `id`, `name` FROM `customer` WHERE `email` IS NOT NULL ORDER BY `id` ASC',
        params: [],
      });
    });
  });

  describe('in / nin', () => {
    it('in binds one parameter per value; nin is NOT IN', () => {
      expect(
        select(customers({ kind: 'in', column: 'id', values: [1101, 1102, 1103], negated: false })),
      ).toEqual({
        sql: 'SELECT `id`, `name` FROM `customer` WHERE `id` IN (?, ?, ?) ORDER BY `id` ASC',
        params: [1101, 1102, 1103],
      });
      expect(
        select(customers({ kind: 'in', column: 'name', values: ['Ada', 'Grace'], negated: true })),
      ).toEqual({
        sql: 'SELECT `id`, `name` FROM `customer` WHERE `name` NOT IN (?, ?) ORDER BY `id` ASC',
        params: ['Ada', 'Grace'],
      });
    });

    it('in: [] matches nothing (1=0), nin: [] everything (1=1)', () => {
      expect(select(customers({ kind: 'in', column: 'id', values: [], negated: false }))).toEqual({
        sql: 'SELECT `id`, `name` FROM `customer` WHERE 1=0 ORDER BY `id` ASC',
        params: [],
      });
      expect(select(customers({ kind: 'in', column: 'id', values: [], negated: true }))).toEqual({
        sql: 'SELECT `id`, `name` FROM `customer` WHERE 1=1 ORDER BY `id` ASC',
        params: [],
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
      '$mode: both sides lower-cased under utf8mb4_bin, ESCAPE |, pattern $pattern bound',
      ({ mode, pattern }) => {
        expect(
          select(customers({ kind: 'like', column: 'name', mode, value: 'lovelace' })),
        ).toEqual({
          sql: `SELECT \`id\`, \`name\` FROM \`customer\` WHERE ${like('`name`')} ORDER BY \`id\` ASC`,
          params: [pattern],
        });
      },
    );

    it('escapes %, _ and | with |; leaves \\, [ and ] alone (contains)', () => {
      const q = count({
        scope: ALL_ROWS,
        table: { schema: null, name: 'product' },
        where: { kind: 'like', column: 'title', mode: 'contains', value: '50%_off\\[sale]|x' },
      });
      expect(q).toEqual({
        sql: `SELECT COUNT(*) AS \`count\` FROM \`product\` WHERE ${like('`title`')}`,
        params: ['%50|%|_off\\[sale]||x%'],
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
        where: { kind: 'like', column: 'title', mode: 'endsWith', value: 'c\\d|' },
      });
      expect(starts.params).toEqual(['[a]|_b|%%']);
      expect(ends.params).toEqual(['%c\\d||']);
    });

    it('a value made only of specials is fully escaped; the SQL never holds a backslash', () => {
      const q = count({
        scope: ALL_ROWS,
        table: { schema: null, name: 'product' },
        where: { kind: 'like', column: 'title', mode: 'contains', value: '%%__||\\\\' },
      });
      expect(q.params).toEqual(['%|%|%|_|_||||\\\\%']);
      expect(q.sql).not.toContain('\\');
    });

    it('escapeMysqlLike', () => {
      expect(escapeMysqlLike('a%b_c|d\\e[f]')).toBe('a|%b|_c||d\\e[f]');
      expect(escapeMysqlLike('plain text')).toBe('plain text');
      expect(escapeMysqlLike('')).toBe('');
    });
  });

  describe('and / or', () => {
    it('and: [] is true (no WHERE), or: [] false (1=0)', () => {
      expect(
        count({ scope: ALL_ROWS, table: { schema: null, name: 'customer' }, where: TRUE }),
      ).toEqual({
        sql: 'SELECT COUNT(*) AS `count` FROM `customer`',
        params: [],
      });
      expect(
        count({
          scope: ALL_ROWS,
          table: { schema: null, name: 'customer' },
          where: { kind: 'or', items: [] },
        }),
      ).toEqual({
        sql: 'SELECT COUNT(*) AS `count` FROM `customer` WHERE 1=0',
        params: [],
      });
    });

    it('nests and/or with parentheses, parameters in text order', () => {
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
      expect(select(customers(where))).toEqual({
        sql:
          `SELECT \`id\`, \`name\` FROM \`customer\` WHERE ((\`name\` = ? OR ${like('`email`')} OR 1=1)` +
          ' AND `id` > ? AND 1=0 AND (`deleted_at` IS NULL AND `tier` IN (?, ?))) ORDER BY `id` ASC',
        params: ['Ada', '%@example.org', 500, 'gold', 'platinum'],
      });
    });

    it('a single-item and/or is still parenthesised', () => {
      expect(
        count({
          scope: ALL_ROWS,
          table: { schema: null, name: 'customer' },
          where: {
            kind: 'or',
            items: [{ kind: 'compare', column: 'name', op: 'neq', value: 'Bob' }],
          },
        }),
      ).toEqual({
        sql: 'SELECT COUNT(*) AS `count` FROM `customer` WHERE (`name` <> ?)',
        params: ['Bob'],
      });
    });
  });

  describe('order', () => {
    it('multi-column order needs no NULLS clause: MySQL sorts NULL first under ASC, last under DESC', () => {
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
      expect(q).toEqual({
        sql: 'SELECT `id`, `name`, `email` FROM `customer` ORDER BY `name` DESC, `email` ASC, `id` ASC',
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

    it('take only: LIMIT ? after the filter parameters', () => {
      expect(select(base(25, 0))).toEqual({
        sql: 'SELECT `id` FROM `customer` WHERE `name` = ? ORDER BY `id` DESC LIMIT ?',
        params: ['Ada', 25],
      });
    });

    it('take and skip: LIMIT ? OFFSET ?', () => {
      expect(select(base(25, 50))).toEqual({
        sql: 'SELECT `id` FROM `customer` WHERE `name` = ? ORDER BY `id` DESC LIMIT ? OFFSET ?',
        params: ['Ada', 25, 50],
      });
    });

    it('take: 0 is a bound LIMIT of 0', () => {
      const q = select(base(0, 0));
      expect(q.sql.endsWith(' LIMIT ?')).toBe(true);
      expect(q.params).toEqual(['Ada', 0]);
    });

    it('skip without take: MySQL has no bare OFFSET, so LIMIT is the largest row count', () => {
      expect(select(base(null, 50))).toEqual({
        sql: 'SELECT `id` FROM `customer` WHERE `name` = ? ORDER BY `id` DESC LIMIT 18446744073709551615 OFFSET ?',
        params: ['Ada', 50],
      });
    });

    it('no take and no skip: no pagination clause', () => {
      expect(select(base(null, 0))).toEqual({
        sql: 'SELECT `id` FROM `customer` WHERE `name` = ? ORDER BY `id` DESC',
        params: ['Ada'],
      });
    });
  });

  describe('partitioned select (batched one-to-many)', () => {
    const plan = (take: number | null, skip: number): SelectPlan => ({
      scope: ALL_ROWS,
      table: { schema: 'shop', name: 'orders' },
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
      expect(select(plan(3, 1))).toEqual({
        sql:
          'SELECT `id`, `customer_id`, `status` FROM (' +
          'SELECT `id`, `customer_id`, `status`, ROW_NUMBER() OVER (PARTITION BY `customer_id` ' +
          'ORDER BY `placed_at` DESC, `id` ASC) AS `__tg_rn` ' +
          'FROM `shop`.`orders` WHERE (`customer_id` IN (?, ?) AND `status` = ?)' +
          ') `__tg_p` WHERE `__tg_rn` > ? AND `__tg_rn` <= ? ORDER BY `__tg_rn`',
        params: [101, 102, 'paid', 1, 4],
      });
      expect(ROW_NUMBER_ALIAS).toBe('__tg_rn');
    });

    it('without take only the lower bound; never LIMIT/OFFSET', () => {
      const q = select(plan(null, 0));
      expect(q.sql.endsWith(') `__tg_p` WHERE `__tg_rn` > ? ORDER BY `__tg_rn`')).toBe(true);
      expect(q.params).toEqual([101, 102, 'paid', 0]);
      expect(select(plan(10, 20)).sql).not.toMatch(/LIMIT|OFFSET/);
    });
  });

  describe('identifiers', () => {
    it('qualifies tables with their database and doubles embedded backticks', () => {
      const q = select({
        scope: ALL_ROWS,
        table: { schema: 'we`ird', name: 'my `table`' },
        columns: ['id', 'say `hi`'],
        where: { kind: 'compare', column: 'say `hi`', op: 'eq', value: 'hello' },
        order: [{ column: 'say `hi`', direction: 'ASC' }],
        take: 10,
        skip: 0,
      });
      expect(q).toEqual({
        sql: 'SELECT `id`, `say ``hi``` FROM `we``ird`.`my ``table``` WHERE `say ``hi``` = ? ORDER BY `say ``hi``` ASC LIMIT ?',
        params: ['hello', 10],
      });
      expect(my.quote('`')).toBe('````');
      expect(my.quote('a"b')).toBe('`a"b`');
    });

    it('keeps a hostile-looking value out of the SQL text', () => {
      const evil = `x'); DROP TABLE customer; --`;
      const q = select(
        customers({
          kind: 'in',
          column: 'name',
          values: [evil, `O'Brien`, 'back\\slash'],
          negated: false,
        }),
      );
      expect(q.params).toEqual([evil, `O'Brien`, 'back\\slash']);
      expect(q.sql).not.toContain('DROP');
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
      expect(
        count({ scope: ALL_ROWS, table: { schema: 'shop', name: 'customer' }, where }),
      ).toEqual({
        sql: `SELECT COUNT(*) AS \`count\` FROM \`shop\`.\`customer\` WHERE (${like('`name`')} OR \`email\` IS NOT NULL)`,
        params: ['Ad%'],
      });
    });
  });

  describe('writes', () => {
    const table = { schema: 'shop', name: 'customer' };

    it('insert with RETURNING (MariaDB ≥ 10.5)', () => {
      const q = my.compileInsert({
        table,
        values: [
          { column: 'name', value: 'Ada' },
          { column: 'vip', value: 1 },
        ],
        returning: ['id', 'name', 'created_at'],
        kinds: { id: 'int', name: 'text', created_at: 'timestamptz' },
      });
      expect(q).toEqual({
        sql: 'INSERT INTO `shop`.`customer` (`name`, `vip`) VALUES (?, ?) RETURNING `id`, `name`, `created_at`',
        params: ['Ada', 1],
      });
      expectAllValuesBound(q);
    });

    // Text that is not WKT falls through to the column, which refuses it (review item 20).
    it('spatial columns are written from and read as WKT text, the text still a bound parameter', () => {
      const kinds = { id: 'int', spot: 'other' } as const;
      const insert = my.compileInsert({
        table,
        values: [{ column: 'spot', value: 'POINT(1 2)' }],
        returning: ['id', 'spot'],
        kinds,
      });
      expect(insert).toEqual({
        sql: 'INSERT INTO `shop`.`customer` (`spot`) VALUES ((SELECT COALESCE(ST_GeomFromText(wkt.v), wkt.v) FROM (SELECT ? AS v) wkt)) RETURNING `id`, ST_AsText(`spot`) AS `spot`',
        params: ['POINT(1 2)'],
      });
      const update = my.compileUpdate({
        table,
        set: [{ column: 'spot', value: 'POINT(3 4)' }],
        where: { kind: 'compare', column: 'id', op: 'eq', value: 1 },
        scope: { kind: 'and', items: [] },
        returning: [],
        kinds,
      });
      expect(update.sql).toBe(
        'UPDATE `shop`.`customer` SET `spot` = (SELECT COALESCE(ST_GeomFromText(wkt.v), wkt.v) FROM (SELECT ? AS v) wkt) WHERE `id` = ?',
      );
      expectAllValuesBound(insert);
      expectAllValuesBound(update);
    });

    it('insert without RETURNING (MySQL)', () => {
      const q = my.compileInsert({
        table,
        values: [{ column: 'name', value: `O'Brien` }],
        returning: [],
      });
      expect(q).toEqual({
        sql: 'INSERT INTO `shop`.`customer` (`name`) VALUES (?)',
        params: [`O'Brien`],
      });
      expectAllValuesBound(q);
    });

    it('insert of defaults only is () VALUES () (no DEFAULT VALUES in MySQL)', () => {
      expect(my.compileInsert({ table, values: [], returning: [] })).toEqual({
        sql: 'INSERT INTO `shop`.`customer` () VALUES ()',
        params: [],
      });
      expect(my.compileInsert({ table, values: [], returning: ['id'] })).toEqual({
        sql: 'INSERT INTO `shop`.`customer` () VALUES () RETURNING `id`',
        params: [],
      });
    });

    it('update: SET then WHERE, and never RETURNING even when asked', () => {
      const plan = {
        scope: ALL_ROWS,
        table,
        set: [
          { column: 'name', value: 'Grace' },
          { column: 'email', value: null },
        ],
        where: { kind: 'compare' as const, column: 'id', op: 'eq' as const, value: 7 },
        returning: [],
      };
      const q = my.compileUpdate(plan);
      expect(q).toEqual({
        sql: 'UPDATE `shop`.`customer` SET `name` = ?, `email` = ? WHERE `id` = ?',
        params: ['Grace', null, 7],
      });
      expectAllValuesBound(q);
      expect(my.compileUpdate({ ...plan, returning: ['id', 'name'] })).toEqual(q);
    });

    it('delete by key', () => {
      const q = my.compileDelete({
        scope: ALL_ROWS,
        table,
        where: {
          kind: 'and',
          items: [
            { kind: 'compare', column: 'tenant', op: 'eq', value: 3 },
            { kind: 'compare', column: 'id', op: 'eq', value: 9007199254740993n },
          ],
        },
      });
      expect(q).toEqual({
        sql: 'DELETE FROM `shop`.`customer` WHERE (`tenant` = ? AND `id` = ?)',
        params: [3, 9007199254740993n],
      });
      expectAllValuesBound(q);
    });
  });
});

describe('MysqlDialect capabilities', () => {
  it.each([
    ['10.11.19-MariaDB-0+deb12u1', true],
    ['10.5.0-MariaDB', true],
    ['10.5.27-MariaDB-log', true],
    ['11.4.2-MariaDB', true],
    ['5.5.5-10.6.12-MariaDB', true],
    ['10.4.34-MariaDB', false],
    ['10.3.39-MariaDB-0ubuntu0.20.04.2', false],
    ['5.5.68-MariaDB', false],
    ['8.0.36', false],
    ['8.4.3', false],
    ['9.1.0', false],
    ['5.7.44-log', false],
    ['', false],
  ])('%s: insertReturning %s, updateReturning never', (version, insertReturning) => {
    expect(my.capabilities(version)).toEqual({
      insertReturning,
      updateReturning: false,
      upsertMatchesAnyKey: true,
    });
  });

  it('an unknown version is treated as MySQL', () => {
    expect(my.capabilities(null)).toEqual({
      insertReturning: false,
      updateReturning: false,
      upsertMatchesAnyKey: true,
    });
  });
});

describe('mysqlKind', () => {
  it.each([
    ['tinyint', 'tinyint(1)', 'boolean'],
    ['tinyint', 'tinyint(1) unsigned', 'boolean'],
    ['tinyint', 'tinyint(4)', 'int'],
    ['tinyint', 'tinyint', 'int'],
    ['tinyint', 'tinyint(3) unsigned', 'int'],
    ['bit', 'bit(1)', 'boolean'],
    ['bit', 'bit(8)', 'bigint'],
    ['smallint', 'smallint(6)', 'int'],
    ['mediumint', 'mediumint(8) unsigned', 'int'],
    ['int', 'int(11)', 'int'],
    ['int', 'int', 'int'],
    ['int', 'int(10) unsigned', 'bigint'],
    ['bigint', 'bigint(20)', 'bigint'],
    ['bigint', 'bigint(20) unsigned', 'bigint'],
    ['year', 'year(4)', 'int'],
    ['decimal', 'decimal(12,2)', 'decimal'],
    ['decimal', 'decimal(65,30) unsigned', 'decimal'],
    ['float', 'float', 'float'],
    ['double', 'double(10,4)', 'float'],
    ['date', 'date', 'date'],
    ['datetime', 'datetime(6)', 'timestamp'],
    ['timestamp', 'timestamp(3)', 'timestamptz'],
    ['time', 'time', 'duration'],
    ['time', 'time(6)', 'duration'],
    ['json', 'json', 'json'],
    ['longtext', 'longtext', 'text'],
    ['uuid', 'uuid', 'uuid'],
    ['varchar', 'varchar(255)', 'text'],
    ['char', 'char(36)', 'text'],
    ['enum', "enum('a','b')", 'text'],
    ['set', "set('x','y')", 'text'],
    ['varbinary', 'varbinary(16)', 'binary'],
    ['blob', 'blob', 'binary'],
    ['geometry', 'geometry', 'other'],
    ['point', 'point', 'other'],
    ['set', "set('a','b')", 'text'],
    ['INT', 'INT(11)', 'int'],
  ])('%s / %s → %s', (dataType, columnType, kind) => {
    expect(mysqlKind(dataType, columnType)).toBe(kind);
  });
});

describe('mysqlEnumValues (ENUM values from COLUMN_TYPE, as MariaDB and MySQL print them)', () => {
  it.each([
    ["enum('a','b')", ['a', 'b']],
    ["enum('happy','sad','on hold')", ['happy', 'sad', 'on hold']],
    // A quote inside a value is doubled; commas and parentheses inside quotes are the value's.
    ["enum('it''s','e,f','x)y','(')", ["it's", 'e,f', 'x)y', '(']],
    // Backslashes and control characters come as MySQL string escapes (`\\`, `\n`, …).
    [
      "enum('c\\\\d','nl\\nx','tab\tx','z\\Z','nul\\0')",
      ['c\\d', 'nl\nx', 'tab\tx', 'z\x1a', 'nul\0'],
    ],
    ["enum('','TRUE','1st')", ['', 'TRUE', '1st']],
    ["ENUM('é ü','😀')", ['é ü', '😀']],
  ])('%s', (columnType, values) => {
    expect(mysqlEnumValues(columnType)).toEqual(values);
  });

  it.each(["set('a','b')", 'varchar(10)', "enum('a", 'enum(a)'])(
    '%s is not read as an ENUM',
    (t) => {
      expect(mysqlEnumValues(t)).toBeNull();
    },
  );
});

describe('MysqlDialect values', () => {
  it('bindValue: booleans as 1/0', () => {
    expect(my.bindValue(col('vip', 'boolean', 'tinyint(1)'), true)).toBe(1);
    expect(my.bindValue(col('vip', 'boolean', 'bit(1)'), false)).toBe(0);
    expect(my.bindValue(col('vip', 'boolean'), null)).toBeNull();
    expect(my.bindValue(col('vip', 'boolean'), undefined)).toBeNull();
  });

  it('bindValue: 64-bit integer text as BigInt, numbers unchanged', () => {
    expect(my.bindValue(col('id', 'bigint', 'bigint(20)'), '9007199254740993')).toBe(
      9007199254740993n,
    );
    expect(my.bindValue(col('id', 'bigint', 'bigint(20) unsigned'), '18446744073709551615')).toBe(
      18446744073709551615n,
    );
    expect(my.bindValue(col('id', 'int'), 42)).toBe(42);
    expect(my.bindValue(col('id', 'int'), '-7')).toBe(-7n);
  });

  it('bindValue: decimals as exact DECIMAL parameters', () => {
    const text = my.bindValue(
      col('price', 'decimal', 'decimal(40,10)'),
      '123456789012345678.1234567891',
    );
    expect(text).toBeInstanceOf(MysqlDecimal);
    expect(String(text)).toBe('123456789012345678.1234567891');
    expect(JSON.stringify({ v: text })).toBe('{"v":"123456789012345678.1234567891"}');
    expect(String(my.bindValue(col('price', 'decimal'), 12.5))).toBe('12.5');
    expect(my.bindValue(col('price', 'decimal'), 'abc')).toBe('abc');
  });

  it('bindValue: a DateTime with an offset becomes the UTC instant; local date-times lose the T', () => {
    const ts = col('at', 'timestamptz', 'timestamp(3)');
    expect(my.bindValue(ts, '2024-01-02T08:34:05.123+05:30')).toBe('2024-01-02 03:04:05.123');
    expect(my.bindValue(ts, '2024-01-01T23:00:00-03:00')).toBe('2024-01-02 02:00:00.000');
    expect(my.bindValue(ts, '2024-01-02T03:04:05Z')).toBe('2024-01-02 03:04:05.000');
    expect(my.bindValue(ts, new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)))).toBe(
      '2024-01-02 03:04:05.006',
    );
    expect(my.bindValue(ts, '2024-01-02 03:04:05')).toBe('2024-01-02 03:04:05');
    expect(my.bindValue(col('at', 'timestamp', 'datetime'), '2024-01-02T03:04:05.5')).toBe(
      '2024-01-02 03:04:05.5',
    );
    expect(my.bindValue(col('on', 'date'), '2024-01-02')).toBe('2024-01-02');
  });

  it('bindValue: any JSON value as its JSON text (a string too)', () => {
    expect(my.bindValue(col('doc', 'json'), { a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(my.bindValue(col('doc', 'json'), 'abc')).toBe('"abc"');
    expect(my.bindValue(col('doc', 'json'), true)).toBe('true');
  });

  it('formatValue: dates and times as text, independent of any zone', () => {
    expect(
      my.formatValue(col('at', 'timestamp', 'datetime(6)'), '2024-01-02 03:04:05.123456'),
    ).toBe('2024-01-02T03:04:05.123');
    expect(my.formatValue(col('at', 'timestamp', 'datetime'), '2024-01-02 03:04:05')).toBe(
      '2024-01-02T03:04:05',
    );
    expect(my.formatValue(col('at', 'timestamptz', 'timestamp'), '2024-01-02 03:04:05')).toBe(
      '2024-01-02T03:04:05.000Z',
    );
    expect(
      my.formatValue(col('at', 'timestamptz', 'timestamp(6)'), '2024-01-02 03:04:05.123456'),
    ).toBe('2024-01-02T03:04:05.123Z');
    expect(my.formatValue(col('on', 'date'), '2024-01-02')).toBe('2024-01-02');
    expect(my.formatValue(col('at', 'timestamp', 'datetime'), '0000-00-00 00:00:00')).toBeNull();
    expect(my.formatValue(col('on', 'date'), '0000-00-00')).toBeNull();
  });

  it('formatValue: booleans from tinyint(1) and bit(1); wider bits as integers', () => {
    const b = col('vip', 'boolean', 'tinyint(1)');
    expect(my.formatValue(b, 1)).toBe(true);
    expect(my.formatValue(b, 0)).toBe(false);
    expect(my.formatValue(b, 2)).toBe(true);
    expect(my.formatValue(col('vip', 'boolean', 'bit(1)'), Buffer.from([1]))).toBe(true);
    expect(my.formatValue(col('vip', 'boolean', 'bit(1)'), Buffer.from([0]))).toBe(false);
    expect(
      my.formatValue(
        col('flags', 'bigint', 'bit(64)'),
        Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
      ),
    ).toBe('18446744073709551615');
  });

  it('formatValue: exact numbers as text, FLOAT with its shortest digits', () => {
    expect(my.formatValue(col('n', 'bigint', 'bigint(20)'), '9223372036854775807')).toBe(
      '9223372036854775807',
    );
    expect(
      my.formatValue(col('n', 'decimal', 'decimal(40,10)'), '123456789012345678.1234567891'),
    ).toBe('123456789012345678.1234567891');
    expect(my.formatValue(col('f', 'float', 'float'), 1.100000023841858)).toBe(1.1);
    expect(my.formatValue(col('f', 'float', 'double'), 0.1)).toBe(0.1);
    expect(my.formatValue(col('n', 'int', 'int(11)'), 42)).toBe(42);
    expect(my.formatValue(col('n', 'int', 'int(11)'), null)).toBeNull();
  });
});

describe('mysql-pool helpers', () => {
  it('parseMysqlUrl reads host, port, credentials and database', () => {
    expect(parseMysqlUrl('mysql://app:p%40ss@db.example.com:3307/shop')).toEqual({
      host: 'db.example.com',
      port: 3307,
      user: 'app',
      password: 'p@ss',
      database: 'shop',
      ssl: false,
    });
    expect(parseMysqlUrl('mariadb://root@[::1]/x?ssl=true')).toEqual({
      host: '::1',
      port: 3306,
      user: 'root',
      password: undefined,
      database: 'x',
      ssl: true,
    });
  });

  it.each([
    'postgres://u@h/db',
    'mysql://u@h:3306',
    'mysql://u@h:3306/',
    'mysql://u@h/db?dateStrings=false',
    'mysql://u@h/db?multipleStatements=true',
    'not a url',
  ])('parseMysqlUrl refuses %s', (url) => {
    expect(() => parseMysqlUrl(url)).toThrow(/mysql:\/\/user:password@host:3306\/database/);
  });

  it('toMysqlParameter: integers as LONGLONG, decimals as DECIMAL, undefined as NULL', () => {
    const T = mysql.Types as unknown as Record<string, number>;
    const typed = (v: unknown) =>
      toMysqlParameter(v) as { type: number; value: unknown; unsigned: boolean };
    expect(typed(25)).toMatchObject({ type: T.LONGLONG, value: 25n, unsigned: false });
    expect(typed(-3n)).toMatchObject({ type: T.LONGLONG, value: -3n, unsigned: false });
    expect(typed(18446744073709551615n)).toMatchObject({
      type: T.LONGLONG,
      value: 18446744073709551615n,
      unsigned: true,
    });
    expect(toMysqlParameter(18446744073709551616n)).toBe('18446744073709551616');
    expect(typed(new MysqlDecimal('1.50'))).toMatchObject({ type: T.DECIMAL, value: '1.50' });
    expect(typed(true)).toMatchObject({ type: T.TINY });
    expect(toMysqlParameter(undefined)).toBeNull();
    expect(toMysqlParameter(1.5)).toBe(1.5);
    expect(toMysqlParameter('text')).toBe('text');
    expect(toMysqlParameter(null)).toBeNull();
  });
});

describe('mariadbJsonColumns: MariaDB\'s JSON is LONGTEXT + CHECK (json_valid(col)) (MariaDB "JSON Data Type")', () => {
  it('takes exactly json_valid(`col`) clauses, as MariaDB 10.11 prints them in CHECK_CONSTRAINTS', () => {
    expect(
      mariadbJsonColumns([
        { table_name: 'docs', check_clause: 'json_valid(`j`)' },
        { table_name: 'docs', check_clause: 'json_valid(`we``ird`)' },
        { table_name: 'docs', check_clause: '`q` > 0' },
        { table_name: 'docs', check_clause: 'json_valid(`a`) or `a` is null' },
        { table_name: 'docs', check_clause: null },
      ]),
    ).toEqual([
      { table: 'docs', column: 'j' },
      { table: 'docs', column: 'we`ird' },
    ]);
  });
});

describe('FLOAT filter values (review item 21)', () => {
  const dialect = new MysqlDialect();
  it('binds a FLOAT value rounded to single precision, as the column widened to DOUBLE compares', () => {
    const float = modelColumn('x', 'float', { dbType: 'float' });
    expect(dialect.bindValue(float, 0.1)).toBe(0.10000000149011612);
    expect(dialect.bindValue(float, '3.14159')).toBe(3.141590118408203);
    expect(dialect.bindValue(float, 16777217)).toBe(16777216);
    expect(dialect.bindValue(modelColumn('d', 'float', { dbType: 'double' }), 0.1)).toBe(0.1);
  });

  it('leaves what single precision cannot hold, and what is no number, as it is', () => {
    expect(singlePrecision(1e39)).toBe(1e39);
    expect(singlePrecision(-1e300)).toBe(-1e300);
    expect(singlePrecision('abc')).toBe('abc');
    expect(singlePrecision('')).toBe('');
  });
});
