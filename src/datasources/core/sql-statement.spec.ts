import type { DatasourceType } from './dialect';
import {
  bindNamedValues,
  parseNamedStatement,
  STATEMENT_MAX_LENGTH,
  StatementTextError,
} from './sql-statement';

const ALL: DatasourceType[] = ['postgres', 'mysql', 'sqlite', 'mssql'];

/** The refusal `parseNamedStatement` throws for `text`, or a failure when it accepts it. */
function refusal(text: string, type: DatasourceType): StatementTextError {
  try {
    const parsed = parseNamedStatement(text, type);
    throw new Error(`accepted on ${type}: ${JSON.stringify(parsed)}`);
  } catch (error) {
    if (!(error instanceof StatementTextError)) throw error;
    return error;
  }
}

describe('parseNamedStatement: placeholders per dialect', () => {
  const text = 'SELECT * FROM t WHERE a = :a AND b > :b OR a2 = :a';

  it('PostgreSQL numbers each distinct name once ($n)', () => {
    expect(parseNamedStatement(text, 'postgres')).toEqual({
      sql: 'SELECT * FROM t WHERE a = $1 AND b > $2 OR a2 = $1',
      binds: ['a', 'b'],
      names: ['a', 'b'],
      isRead: true,
    });
  });

  it('MySQL/MariaDB and SQLite give one ? per occurrence, binds repeating a name', () => {
    for (const type of ['mysql', 'sqlite'] as const) {
      expect(parseNamedStatement(text, type)).toEqual({
        sql: 'SELECT * FROM t WHERE a = ? AND b > ? OR a2 = ?',
        binds: ['a', 'b', 'a'],
        names: ['a', 'b'],
        isRead: true,
      });
    }
  });

  it('SQL Server numbers each distinct name once (@p<n>)', () => {
    expect(parseNamedStatement(text, 'mssql').sql).toBe(
      'SELECT * FROM t WHERE a = @p1 AND b > @p2 OR a2 = @p1',
    );
  });

  it('drops a trailing ; and the white space and comments after it', () => {
    for (const type of ALL) {
      expect(parseNamedStatement('SELECT :x ;  -- done\n /* really */ ', type).sql).toBe(
        `SELECT ${type === 'postgres' ? '$1' : type === 'mssql' ? '@p1' : '?'}`,
      );
    }
  });

  it('keeps a PostgreSQL ::cast and a := assignment', () => {
    expect(parseNamedStatement('SELECT :d::date, x::text[] FROM t', 'postgres').sql).toBe(
      'SELECT $1::date, x::text[] FROM t',
    );
    expect(parseNamedStatement('SELECT @n := :start + 1', 'mysql').sql).toBe('SELECT @n := ? + 1');
  });

  it('tells a read from a write by its first word, after comments and parentheses', () => {
    const read = (t: string) => parseNamedStatement(t, 'postgres').isRead;
    expect(read('/* hi */ -- x\n  select 1')).toBe(true);
    expect(read('WITH a AS (SELECT 1) SELECT * FROM a')).toBe(true);
    expect(read('((SELECT 1)) UNION (SELECT 2)')).toBe(true);
    expect(read('VALUES (1), (2)')).toBe(true);
    expect(read('TABLE t')).toBe(true);
    expect(read('INSERT INTO t VALUES (:a) RETURNING id')).toBe(false);
    expect(read("'select'")).toBe(false);
    expect(read('selected_rows()')).toBe(false);
  });

  it('marks outer joins and grouping sets (a table column may then be NULL)', () => {
    const outer = (t: string) => parseNamedStatement(t, 'mysql').outerJoin;
    expect(outer('SELECT a.x FROM a LEFT JOIN b ON b.id = a.b')).toBe(true);
    expect(outer('SELECT a.x FROM a FULL OUTER JOIN b ON true')).toBe(true);
    expect(outer('SELECT x, count(*) FROM a GROUP BY x WITH ROLLUP')).toBe(true);
    expect(outer('SELECT x FROM a GROUP BY GROUPING SETS ((x), ())')).toBe(true);
    expect(outer("SELECT LEFT(x, 2), 'LEFT JOIN' FROM a JOIN b ON true -- LEFT JOIN")).toBe(
      undefined,
    );
  });

  it('bindNamedValues orders values by binds and refuses a missing one', () => {
    const parsed = parseNamedStatement(text, 'mysql');
    expect(bindNamedValues(parsed, { b: 2, a: null, extra: 9 })).toEqual([null, 2, null]);
    expect(() => bindNamedValues(parsed, { a: 1 })).toThrow(':b');
    expect(() => bindNamedValues(parsed, { a: 1, b: undefined })).toThrow(':b');
    // A name inherited from Object.prototype is no value.
    const proto = parseNamedStatement('SELECT :constructor', 'postgres');
    expect(() => bindNamedValues(proto, {})).toThrow(':constructor');
  });
});

describe('parseNamedStatement: a :name inside a literal or comment is refused where it stands', () => {
  it.each(ALL)('%s: strings, comments', (type) => {
    // Text around the literals and comments is lexed as before: what follows them binds.
    const parsed = parseNamedStatement(
      "SELECT ': a', 'it''s 10:30' /* x::int */ -- :: \n, :e",
      type,
    );
    expect(parsed.names).toEqual(['e']);
    expect(parsed.sql).toContain("': a', 'it''s 10:30' /* x::int */ -- :: \n");
    // Each hidden :name is refused at its colon, saying how to write either meaning.
    const literal = "SELECT 'it''s :b', :e";
    const e = refusal(literal, type);
    expect(e.position).toBe(literal.indexOf(':b'));
    expect(e.message).toMatch(/:b inside a string literal is not a parameter/);
    expect(refusal('SELECT 1 /* :c */', type).message).toMatch(/:c inside a comment/);
    expect(refusal('SELECT 1 -- :d\n', type).position).toBe(12);
  });

  it('PostgreSQL: quoted identifiers, dollar quotes, E-strings, nested comments', () => {
    const parsed = parseNamedStatement(
      `SELECT ":a" , $$ b ' $$, $fn$ c $$ $fn$, E'\\' d', /* x /* e */ f */ :g`,
      'postgres',
    );
    expect(parsed.names).toEqual(['g']);
    expect(parsed.sql.endsWith('$1')).toBe(true);
    expect(refusal('SELECT $$ :b $$', 'postgres').position).toBe(10);
    expect(refusal('SELECT $fn$ :c $$ $fn$', 'postgres').message).toMatch(/:c inside a string/);
    const eString = "SELECT E'\\' :d'";
    expect(refusal(eString, 'postgres').position).toBe(eString.indexOf(':d'));
    expect(refusal('SELECT /* x /* :e */ */ 1', 'postgres').position).toBe(15);
    // A plain string ends at the first quote: a backslash escapes nothing there.
    expect(parseNamedStatement("SELECT 'a\\', :x", 'postgres').names).toEqual(['x']);
    // `e'` ending a word is no E-string prefix.
    expect(parseNamedStatement("SELECT some'\\', :x", 'postgres').names).toEqual(['x']);
    // `a$b$` is an identifier, not a dollar quote.
    expect(parseNamedStatement('SELECT a$b$, :x FROM t', 'postgres').names).toEqual(['x']);
    // JSON text with a space after each colon is text.
    expect(parseNamedStatement(`SELECT '{"a": true}'::jsonb`, 'postgres').names).toEqual([]);
  });

  it('MySQL/MariaDB: backslash escapes, "strings", backticks, # comments, -- only before space', () => {
    const parsed = parseNamedStatement(
      'SELECT \'a\\\' a\', "b\\" b", `c :c`, :d # e\n -- f\n',
      'mysql',
    );
    expect(parsed.names).toEqual(['d']);
    expect(refusal('SELECT "b\\" :b"', 'mysql').message).toMatch(/:b inside a string literal/);
    expect(refusal('SELECT 1 # :e\n', 'mysql').position).toBe(11);
    // `--1` is minus minus one on MySQL: what follows is SQL, so its `:x` is a placeholder.
    expect(parseNamedStatement('SELECT 1--1, :x', 'mysql').names).toEqual(['x']);
    expect(refusal('SELECT 1--1, :x', 'postgres').message).toMatch(/:x inside a comment/);
  });

  it('SQL Server: [brackets] with ]] and nested comments', () => {
    const parsed = parseNamedStatement('SELECT [a]] :a], /* /* b */ c */ :d', 'mssql');
    expect(parsed.names).toEqual(['d']);
    expect(parsed.sql).toBe('SELECT [a]] :a], /* /* b */ c */ @p1');
  });

  it('SQLite: [brackets] and backticks keep a colon as part of the name', () => {
    expect(parseNamedStatement('SELECT [x :a], `y :b`, :c', 'sqlite').names).toEqual(['c']);
  });
});

describe('parseNamedStatement: hostile statements', () => {
  it.each(ALL)('%s: a second statement after ; is refused with its position', (type) => {
    const e = refusal('SELECT 1;\n  DELETE FROM t', type);
    expect(e.position).toBe(12);
    expect(e.line).toBe(2);
    expect(e.column).toBe(3);
    expect(e.message).toMatch(/one statement/);
  });

  it.each(ALL)('%s: a ; inside a string or comment ends nothing', (type) => {
    expect(parseNamedStatement("SELECT ';' /* ; */ -- ;\n", type).sql).toBe(
      "SELECT ';' /* ; */ -- ;",
    );
  });

  it('a stacked statement hidden behind quoting one database reads differently is found', () => {
    // PostgreSQL: no backslash escape in a plain string, so the string ends after the backslash.
    expect(refusal("SELECT 'a\\'; DELETE FROM t; --'", 'postgres').position).toBe(13);
    // MySQL: the backslash escapes the quote, the ; is inside the string... up to the next quote.
    expect(parseNamedStatement("SELECT 'a\\'; DELETE FROM t; --'", 'mysql').sql).toBe(
      "SELECT 'a\\'; DELETE FROM t; --'",
    );
    // MySQL: `--x` is no comment, so the statement after the ; is seen.
    expect(refusal('SELECT 1 --x\n; DELETE FROM t', 'mysql').position).toBe(15);
    // PostgreSQL: a nested comment closes only at the second */.
    expect(parseNamedStatement('SELECT 1 /* /* */ ; DELETE FROM t */', 'postgres').sql).toBe(
      'SELECT 1 /* /* */ ; DELETE FROM t */',
    );
    expect(refusal('SELECT 1 /* /* */ ; DELETE FROM t', 'postgres').message).toMatch(
      /Unterminated comment/,
    );
    // MySQL: comments do not nest, so the first */ closes it and the ; ends the statement.
    expect(refusal('SELECT 1 /* /* */ ; DELETE FROM t', 'mysql').position).toBe(20);
    // A dollar-quoted string ends only at its own tag.
    expect(refusal('SELECT $a$ $$ ; $a$; DELETE FROM t', 'postgres').position).toBe(21);
  });

  it('MySQL executable comments are refused (the server runs their content)', () => {
    expect(refusal('SELECT 1 /*!50000 ; DELETE FROM t */', 'mysql').position).toBe(9);
    expect(refusal('SELECT 1 /*M! , 2 */', 'mysql').position).toBe(9);
    expect(parseNamedStatement('SELECT /*+ MAX_EXECUTION_TIME(10) */ 1', 'mysql').isRead).toBe(
      true,
    );
  });

  it('SQL Server: a second statement without ; is refused', () => {
    expect(refusal('SELECT * FROM t DELETE FROM t', 'mssql').position).toBe(16);
    expect(refusal('SELECT 1 SELECT 2', 'mssql').position).toBe(9);
    expect(refusal('WITH a AS (SELECT 1 x) SELECT x FROM a EXEC sp_who', 'mssql').position).toBe(
      39,
    );
    expect(
      parseNamedStatement(
        'SELECT a FROM t WITH (NOLOCK) UNION ALL SELECT b FROM (SELECT b FROM u) x EXCEPT SELECT 3',
        'mssql',
      ).isRead,
    ).toBe(true);
    expect(parseNamedStatement(';WITH a AS (SELECT 1 x) SELECT x FROM a', 'mssql').sql).toBe(
      'WITH a AS (SELECT 1 x) SELECT x FROM a',
    );
    expect(
      parseNamedStatement('UPDATE t SET a = :a OUTPUT inserted.id WHERE id = :id', 'mssql').sql,
    ).toBe('UPDATE t SET a = @p1 OUTPUT inserted.id WHERE id = @p2');
  });

  it.each([
    ['postgres', "SELECT 'abc", /Unterminated string literal/, 7],
    ['postgres', 'SELECT "abc', /Unterminated quoted identifier/, 7],
    ['postgres', 'SELECT $x$ abc $y$', /Unterminated dollar-quoted/, 7],
    ['postgres', "SELECT E'abc\\'", /Unterminated string literal/, 8],
    ['postgres', 'SELECT 1 /* abc', /Unterminated comment/, 9],
    ['mysql', 'SELECT `abc', /Unterminated quoted identifier/, 7],
    ['mysql', 'SELECT "abc\\"', /Unterminated string literal/, 7],
    ['mssql', 'SELECT [abc]]', /Unterminated bracketed name/, 7],
    ['sqlite', 'SELECT [abc', /Unterminated bracketed name/, 7],
  ] as const)('%s: unterminated %s refused at its start', (type, text, message, position) => {
    const e = refusal(text, type);
    expect(e.message).toMatch(message);
    expect(e.position).toBe(position);
  });

  it.each([
    ['postgres', 'SELECT $1'],
    ['mysql', 'SELECT ?'],
    ['sqlite', 'SELECT ?1'],
    ['sqlite', 'SELECT @a'],
    ['sqlite', 'SELECT $a'],
    ['mssql', 'SELECT @a'],
  ] as const)('%s: the database’s own marker in %s is refused', (type, text) => {
    expect(refusal(text, type).message).toMatch(/:name placeholders only/);
  });

  it('SQLite: only data statements (no ATTACH of another app’s file, no PRAGMA, no VACUUM INTO)', () => {
    for (const text of [
      "ATTACH DATABASE '/srv/apps/other/data.db' AS x",
      'PRAGMA query_only = OFF',
      "VACUUM INTO '/tmp/copy.db'",
      'DETACH x',
    ]) {
      expect(refusal(`/* c */ ${text}`, 'sqlite').position).toBe(8);
    }
    for (const text of [
      'SELECT 1',
      'WITH a AS (SELECT 1) SELECT * FROM a',
      'REPLACE INTO t VALUES (:a)',
    ]) {
      expect(parseNamedStatement(text, 'sqlite').sql).toBeTruthy();
    }
  });

  it('keeps markers that are not parameters: PostgreSQL jsonb ?, SQL Server @@', () => {
    expect(parseNamedStatement("SELECT d ? 'k' FROM t", 'postgres').names).toEqual([]);
    expect(parseNamedStatement('SELECT @@VERSION, :a', 'mssql').sql).toBe('SELECT @@VERSION, @p1');
  });

  it('refuses bad names, too many names, NUL and empty statements', () => {
    expect(refusal(`SELECT :${'a'.repeat(64)}`, 'postgres').position).toBe(7);
    const many = Array.from({ length: 101 }, (_, i) => `:p${i}`).join(', ');
    expect(refusal(`SELECT ${many}`, 'postgres').message).toMatch(/at most 100/);
    // The same name 500 times is one name.
    expect(
      parseNamedStatement(`SELECT ${Array(500).fill(':x').join(', ')}`, 'sqlite').binds,
    ).toHaveLength(500);
    expect(refusal('SELECT 1\0', 'postgres').position).toBe(8);
    for (const type of ALL) {
      expect(refusal('  -- nothing\n /* at all */ ;', type).message).toMatch(/empty/);
    }
  });

  it('refuses 1 MB of text before scanning it, and any depth of nested comments costs no stack', () => {
    const huge = `SELECT '${'x'.repeat(1_000_000)}`; // unterminated too: the length is seen first
    const e = refusal(huge, 'postgres');
    expect(e.message).toMatch(/longer than 100,000 characters/);
    expect(e.position).toBe(STATEMENT_MAX_LENGTH);

    const depth = 24_000;
    const nested = `SELECT 1 ${'/*'.repeat(depth)} ; x ${'*/'.repeat(depth)}`;
    expect(parseNamedStatement(nested, 'postgres').names).toEqual([]);
    expect(
      refusal(`SELECT 1 ${'/*'.repeat(depth)}${'*/'.repeat(depth - 1)}`, 'mssql').message,
    ).toMatch(/Unterminated comment/);
    // Not nested on MySQL: the first */ closes the comment, the rest is SQL.
    expect(refusal(`SELECT 1 /* /* */ */ ; :x`, 'mysql').position).toBe(23);
  });
});
