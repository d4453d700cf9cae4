import type { DatasourceType } from './dialect';

/**
 * A builder's statement with `:name` placeholders, compiled for one dialect
 * (/tmp/sql-api-contract.md; issue 26 item 1).
 */
export interface ParsedStatement {
  /**
   * The statement text with each `:name` replaced by the dialect's placeholder (PostgreSQL `$n`,
   * one number per distinct name; MySQL/MariaDB and SQLite `?` per occurrence; SQL Server
   * `@p<n>` one per distinct name). No trailing `;`. It may end in a `--` comment: a caller that
   * wraps it puts a line break after it.
   */
  sql: string;
  /**
   * Parameter names in placeholder order, i.e. the order `params` must be given (for `?`
   * dialects a name used twice appears twice).
   */
  binds: string[];
  /** Distinct parameter names in first-appearance order. */
  names: string[];
  /**
   * Whether the statement starts (after comments, white space and opening parentheses) with
   * SELECT / WITH / VALUES / TABLE: a read. A hint only: a `WITH` may hold a data-modifying
   * PostgreSQL CTE, a SELECT may call a function that writes; the read-only transaction
   * (`SqlPool.readOnly`) is what keeps a read from writing.
   */
  isRead: boolean;
  /**
   * Set when the statement has an outer join (`LEFT`/`RIGHT`/`FULL` … `JOIN`, SQL Server `OUTER
   * APPLY`) or grouping sets (`ROLLUP`, `CUBE`, `GROUPING SETS`): a column read straight from a
   * table may then be NULL whatever its NOT NULL, so `Dialect.describeStatement` reports every
   * column's nullability as unknown. Absent otherwise (an addition to the contract's four fields).
   */
  outerJoin?: true;
}

/** Longest statement text accepted, in UTF-16 code units (checked before any scan). */
export const STATEMENT_MAX_LENGTH = 100_000;
/** Most distinct `:name` placeholders in one statement. */
export const STATEMENT_MAX_NAMES = 100;
/** What a placeholder name must look like (63: PostgreSQL's identifier length). */
export const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Refusal of a statement's text, with the 0-based character offset (`position`) and 1-based
 * `line`/`column` where the problem is. The message names the problem and the place, and quotes
 * no more of the text than a placeholder name.
 */
export class StatementTextError extends Error {
  readonly line: number;
  readonly column: number;

  constructor(
    problem: string,
    readonly position: number,
    text: string,
  ) {
    const { line, column } = lineColumn(text, position);
    super(`${problem} (line ${line}, column ${column})`);
    this.name = 'StatementTextError';
    this.line = line;
    this.column = column;
  }
}

/** 1-based line and column of a 0-based offset (a line ends at `\n`). */
function lineColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  const end = Math.min(position, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: position - start + 1 };
}

/** Lexical rules that differ between the databases. */
interface Lexicon {
  /** `"…"` is a string with backslash escapes (MySQL without ANSI_QUOTES), not an identifier. */
  doubleQuoteIsString: boolean;
  /** A backslash escapes the next character inside `'…'` (MySQL, unless NO_BACKSLASH_ESCAPES). */
  backslashInStrings: boolean;
  /** `` `…` `` is an identifier (MySQL; SQLite accepts it too). */
  backticks: boolean;
  /** `[…]` is an identifier (SQL Server, with `]]` for `]`; SQLite, with no escape). */
  brackets: 'doubled' | 'plain' | false;
  /** `/* … *\/` comments nest (PostgreSQL, SQL Server). */
  nestedComments: boolean;
  /** `#` starts a comment to the end of the line (MySQL). */
  hashComments: boolean;
  /** `--` starts a comment only when white space or a control character follows (MySQL). */
  dashDashNeedsSpace: boolean;
  /** `$tag$…$tag$` strings and `E'…'` strings with backslash escapes (PostgreSQL). */
  dollarQuotes: boolean;
  /** The placeholder of the n-th distinct name, or null when each occurrence is `?`. */
  placeholder: ((n: number) => string) | null;
  /** The database's own placeholder forms, refused outside literals (they would shift ours). */
  foreignPlaceholder: (text: string, i: number, prev: number) => boolean;
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdentStart = (c: number) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128;
const isIdentPart = (c: number) => isIdentStart(c) || isDigit(c) || c === 36; // `$` (PostgreSQL, MySQL)

const LEXICONS: Record<DatasourceType, Lexicon> = {
  postgres: {
    doubleQuoteIsString: false,
    backslashInStrings: false,
    backticks: false,
    brackets: false,
    nestedComments: true,
    hashComments: false,
    dashDashNeedsSpace: false,
    dollarQuotes: true,
    placeholder: (n) => `$${n}`,
    // `$1` outside a literal is PostgreSQL's own positional parameter.
    foreignPlaceholder: (t, i, prev) =>
      t.charCodeAt(i) === 36 && !isIdentPart(prev) && isDigit(t.charCodeAt(i + 1)),
  },
  mysql: {
    doubleQuoteIsString: true,
    backslashInStrings: true,
    backticks: true,
    brackets: false,
    nestedComments: false,
    hashComments: true,
    dashDashNeedsSpace: true,
    dollarQuotes: false,
    placeholder: null,
    foreignPlaceholder: (t, i) => t.charCodeAt(i) === 63, // `?`
  },
  sqlite: {
    doubleQuoteIsString: false,
    backslashInStrings: false,
    backticks: true,
    brackets: 'plain',
    nestedComments: false,
    hashComments: false,
    dashDashNeedsSpace: false,
    dollarQuotes: false,
    placeholder: null,
    // `?`, `?NNN`, `@name`, `$name` are SQLite parameters too (sqlite.org "Binding Values").
    foreignPlaceholder: (t, i, prev) => {
      const c = t.charCodeAt(i);
      return c === 63 || ((c === 64 || c === 36) && !isIdentPart(prev));
    },
  },
  mssql: {
    doubleQuoteIsString: false,
    backslashInStrings: false,
    backticks: false,
    brackets: 'doubled',
    nestedComments: true,
    hashComments: false,
    dashDashNeedsSpace: false,
    dollarQuotes: false,
    placeholder: (n) => `@p${n}`,
    // `@name` is a variable or parameter; `@@name` (a system function) is not refused.
    foreignPlaceholder: (t, i, prev) =>
      t.charCodeAt(i) === 64 &&
      t.charCodeAt(i + 1) !== 64 &&
      prev !== 64 &&
      isIdentStart(t.charCodeAt(i + 1)),
  },
};

/**
 * The statements an SQLite datasource's SQL API may hold. A SQLite file lives on the service's
 * own disk beside other apps' files: `ATTACH` would open any of them, `VACUUM INTO` write one
 * anywhere, a `PRAGMA` change the connection every later statement shares. What is not data
 * reading or writing is refused.
 */
const SQLITE_VERBS = new Set(['SELECT', 'WITH', 'VALUES', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE']);

/** The words before `JOIN` of an outer join (`LEFT OUTER JOIN` is caught by `OUTER`). */
const OUTER_JOIN_SIDES = new Set(['LEFT', 'RIGHT', 'FULL']);

/** Words that begin a read (contract: SELECT / WITH / VALUES / TABLE). */
const READ_WORDS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);

/**
 * Words that only begin a statement in T-SQL. SQL Server runs a batch of several statements
 * without any `;` between them (`SELECT 1 DELETE FROM t`), so in a statement that starts with
 * SELECT, one of these at the outer level (outside parentheses) is refused as a second statement.
 * A heuristic, not a T-SQL parser: the read-only login and the rolled-back transaction remain
 * what keeps a query kind from writing.
 */
const MSSQL_STATEMENT_WORDS = new Set([
  'ALTER',
  'BACKUP',
  'BEGIN',
  'BULK',
  'CHECKPOINT',
  'COMMIT',
  'CREATE',
  'DBCC',
  'DEALLOCATE',
  'DECLARE',
  'DELETE',
  'DENY',
  'DISABLE',
  'DROP',
  'ENABLE',
  'EXEC',
  'EXECUTE',
  'GO',
  'GRANT',
  'IF',
  'INSERT',
  'KILL',
  'MERGE',
  'OPEN',
  'PRINT',
  'RAISERROR',
  'RECONFIGURE',
  'RESTORE',
  'RETURN',
  'REVERT',
  'REVOKE',
  'ROLLBACK',
  'SAVE',
  'SET',
  'SETUSER',
  'SHUTDOWN',
  'THROW',
  'TRUNCATE',
  'UPDATE',
  'USE',
  'WAITFOR',
  'WHILE',
]);
/** The verbs of a T-SQL statement's body (after any `WITH` common table expressions). */
const MSSQL_MAIN_WORDS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE']);
/** Words after which a SELECT continues the same T-SQL statement. */
const MSSQL_SET_OPERATORS = new Set(['UNION', 'ALL', 'EXCEPT', 'INTERSECT']);

/**
 * Parses `text` for `type` and compiles its `:name` placeholders to the dialect's bound
 * parameters. The lexer knows each database's quoting (contract /tmp/sql-api-contract.md):
 * - `'…'` strings with `''` (all), backslash escapes on MySQL/MariaDB (the pool's `sql_mode` has
 *   no NO_BACKSLASH_ESCAPES), PostgreSQL `E'…'` with backslash escapes and `$tag$…$tag$`;
 * - identifiers `"…"` (`""`; a string with backslash escapes on MySQL, whose pool has no
 *   ANSI_QUOTES), `` `…` `` (MySQL, SQLite), `[…]` (SQL Server with `]]`, SQLite);
 * - comments `--` (MySQL: only before white space, MySQL "Comments"), `/* *\/` (nested on
 *   PostgreSQL and SQL Server), `#` (MySQL);
 * - `::` (a PostgreSQL cast) and `:=` (MySQL assignment) are not placeholders.
 *
 * @throws StatementTextError, with the position, for: text over {@link STATEMENT_MAX_LENGTH}
 *   (before scanning), a NUL character, a second statement (anything but white space or comments
 *   after a `;`; on SQL Server also a statement keyword after a complete SELECT), an unterminated
 *   literal, identifier or comment, a `:name` inside a string literal or comment (it would be text,
 *   never bound), a MySQL executable comment (`/*!`, `/*M!`: the server runs
 *   its content), the database's own placeholders (`?`, `$1`, `@name`), a placeholder name not
 *   matching {@link PLACEHOLDER_NAME}, more than {@link STATEMENT_MAX_NAMES} distinct names, an
 *   empty statement, and on SQLite a statement that is no SELECT/WITH/VALUES/INSERT/UPDATE/
 *   DELETE/REPLACE ({@link SQLITE_VERBS}).
 */
export function parseNamedStatement(text: string, type: DatasourceType): ParsedStatement {
  if (text.length > STATEMENT_MAX_LENGTH) {
    throw new StatementTextError(
      `The statement is longer than ${STATEMENT_MAX_LENGTH.toLocaleString('en-US')} characters`,
      STATEMENT_MAX_LENGTH,
      text.slice(0, STATEMENT_MAX_LENGTH),
    );
  }
  const lex = LEXICONS[type];
  const fail = (problem: string, at: number): never => {
    throw new StatementTextError(problem, at, text);
  };
  const n = text.length;
  let out = '';
  let copied = 0; // text[copied, i) is still to be copied to `out`
  const binds: string[] = [];
  const numbers = new Map<string, number>();
  let end = -1; // offset of the terminating `;`, once seen
  let firstWord: string | null = null;
  let firstWordStart = 0;
  let hasToken = false;
  // SQL Server's second-statement heuristic: parenthesis depth, the statement's main verb (after
  // any WITH) and the last word at depth 0.
  let depth = 0;
  let mainWord: string | null = null;
  let lastWord = '';
  let previousWord = ''; // the word before, at any depth
  let outerJoin = false;

  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;

    if (c === 0) fail('The statement contains a NUL character', i);

    // Comments, which may follow the terminating `;`.
    if (c === 45 && next === 45) {
      const after = i + 2 < n ? text.charCodeAt(i + 2) : 0;
      if (!lex.dashDashNeedsSpace || i + 2 >= n || after <= 32) {
        const eol = text.indexOf('\n', i + 2);
        i = refusePlaceholderIn(text, i, eol < 0 ? n : eol + 1, 'comment', fail);
        continue;
      }
    }
    if (c === 35 && lex.hashComments) {
      const eol = text.indexOf('\n', i + 1);
      i = refusePlaceholderIn(text, i, eol < 0 ? n : eol + 1, 'comment', fail);
      continue;
    }
    if (c === 47 && next === 42) {
      if (
        type === 'mysql' &&
        (text.charCodeAt(i + 2) === 33 ||
          (text.charCodeAt(i + 2) === 77 && text.charCodeAt(i + 3) === 33))
      ) {
        fail(
          'MySQL/MariaDB executable comments (/*! … */, /*M! … */) are not accepted: the server runs their content; write it as SQL',
          i,
        );
      }
      const start = i;
      i = skipBlockComment(text, i, lex.nestedComments, fail);
      i = refusePlaceholderIn(text, start, i, 'comment', fail);
      continue;
    }
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12) {
      i++;
      continue;
    }

    if (end >= 0) fail('Only one statement is accepted: remove what follows the ;', i);
    if (c === 59) {
      if (!hasToken) {
        // A `;` before the statement (T-SQL's `;WITH …` habit) ends nothing: dropped.
        copied = i + 1;
      } else end = i;
      i++;
      continue;
    }
    hasToken = true;
    if (firstWord === null && c !== 40 && !isIdentStart(c)) firstWord = '';

    // Literals and quoted identifiers.
    if (c === 39) {
      const escapes = lex.backslashInStrings || (lex.dollarQuotes && eStringPrefix(text, i));
      const start = i;
      i = skipQuoted(text, i, 39, escapes, 'string literal', fail);
      i = refusePlaceholderIn(text, start, i, 'string literal', fail);
      continue;
    }
    if (c === 34) {
      if (lex.doubleQuoteIsString) {
        const start = i;
        i = skipQuoted(text, i, 34, true, 'string literal', fail);
        i = refusePlaceholderIn(text, start, i, 'string literal', fail);
      } else i = skipQuoted(text, i, 34, false, 'quoted identifier', fail);
      continue;
    }
    if (c === 96 && lex.backticks) {
      i = skipQuoted(text, i, 96, false, 'quoted identifier', fail);
      continue;
    }
    if (c === 91 && lex.brackets) {
      if (lex.brackets === 'doubled') i = skipQuoted(text, i, 93, false, 'bracketed name', fail, 1);
      else {
        const close = text.indexOf(']', i + 1);
        if (close < 0) fail('Unterminated bracketed name: add the closing ]', i);
        i = close + 1;
      }
      continue;
    }
    if (c === 36 && lex.dollarQuotes && !isIdentPart(text.charCodeAt(i - 1))) {
      const tagEnd = dollarTagEnd(text, i);
      if (tagEnd > 0) {
        const tag = text.slice(i, tagEnd + 1);
        const close = text.indexOf(tag, tagEnd + 1);
        if (close < 0) fail(`Unterminated dollar-quoted string: add the closing ${tag}`, i);
        i = refusePlaceholderIn(text, i, close + tag.length, 'string literal', fail);
        continue;
      }
    }

    // Placeholders, casts and assignments.
    if (c === 58) {
      if (next === 58 || next === 61) {
        // `::type` (PostgreSQL cast) or `:=` (assignment): copied as they are.
        i += 2;
        continue;
      }
      if (isIdentStart(next) && next < 128) {
        let j = i + 1;
        while (j < n && isIdentPart(text.charCodeAt(j)) && text.charCodeAt(j) !== 36) j++;
        const name = text.slice(i + 1, j);
        if (!PLACEHOLDER_NAME.test(name)) {
          fail(
            'A placeholder name is letters, digits and _ (starting with a letter or _), at most 63 characters',
            i,
          );
        }
        let number = numbers.get(name);
        if (number === undefined) {
          if (numbers.size >= STATEMENT_MAX_NAMES)
            fail(`A statement takes at most ${STATEMENT_MAX_NAMES} distinct placeholders`, i);
          number = numbers.size + 1;
          numbers.set(name, number);
        }
        out += text.slice(copied, i) + (lex.placeholder ? lex.placeholder(number) : '?');
        copied = j;
        if (!lex.placeholder || !binds.includes(name)) binds.push(name);
        i = j;
        continue;
      }
    }
    if (lex.foreignPlaceholder(text, i, i > 0 ? text.charCodeAt(i - 1) : 0)) {
      fail(
        'Use :name placeholders only: the database’s own parameter markers (?, $1, @name) are not accepted',
        i,
      );
    }

    // Words (for isRead and SQL Server's heuristic) and everything else, one character at a time.
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentPart(text.charCodeAt(j))) j++;
      const word = text.slice(i, j).toUpperCase();
      if (firstWord === null) {
        firstWord = word;
        firstWordStart = i;
      }
      if (
        word === 'OUTER' ||
        word === 'ROLLUP' ||
        word === 'CUBE' ||
        (word === 'SETS' && previousWord === 'GROUPING') ||
        (word === 'JOIN' && OUTER_JOIN_SIDES.has(previousWord))
      ) {
        outerJoin = true;
      }
      previousWord = word;
      if (type === 'mssql' && depth === 0) {
        if (mainWord === null) {
          if (MSSQL_MAIN_WORDS.has(word)) mainWord = word;
        } else if (
          mainWord === 'SELECT' &&
          (MSSQL_STATEMENT_WORDS.has(word) ||
            (word === 'SELECT' && !MSSQL_SET_OPERATORS.has(lastWord)))
        ) {
          fail(
            'Only one statement is accepted: this word begins a second statement (SQL Server needs no ; between statements)',
            i,
          );
        }
        lastWord = word;
      }
      i = j;
      continue;
    }
    if (c === 40) depth++;
    else if (c === 41) depth = Math.max(0, depth - 1);
    if (firstWord === null && c !== 40) firstWord = '';
    i++;
  }

  if (!hasToken) fail('The statement is empty', 0);
  if (type === 'sqlite' && !SQLITE_VERBS.has(firstWord ?? '')) {
    fail(
      'On SQLite a statement is a SELECT, WITH, VALUES, INSERT, UPDATE, DELETE or REPLACE (ATTACH, PRAGMA, VACUUM and the like are not accepted)',
      firstWordStart,
    );
  }
  const stop = end >= 0 ? end : n;
  out += text.slice(copied, stop);
  return {
    sql: out.replace(/\s+$/, ''),
    binds,
    names: [...numbers.keys()],
    isRead: READ_WORDS.has(firstWord ?? ''),
    ...(outerJoin ? { outerJoin: true as const } : {}),
  };
}

/**
 * Whether the quote at `quote` opens a PostgreSQL `E'…'` string: an `E`/`e` right before it that
 * is a word of its own, not the end of one (PostgreSQL "String Constants with C-Style Escapes").
 */
function eStringPrefix(text: string, quote: number): boolean {
  const e = text.charCodeAt(quote - 1);
  if (quote < 1 || (e !== 69 && e !== 101)) return false;
  return quote < 2 || !isIdentPart(text.charCodeAt(quote - 2));
}

/**
 * Refuses a `:name` written inside a string literal or comment spanning `start` to `end`: it
 * would be sent as text, never bound, which is not what a builder who wrote it meant (issue 26,
 * PEERS.md §G5). `::` (a cast written in a comment), `:=` and a colon before anything but a
 * letter or `_` (`'10:30'`, `'http://…'`, `'{"a": 1}'`) are text as usual.
 * @returns `end`. @throws StatementTextError at the colon, saying how to write either meaning.
 */
function refusePlaceholderIn(
  text: string,
  start: number,
  end: number,
  what: 'string literal' | 'comment',
  fail: (problem: string, at: number) => never,
): number {
  let at = text.indexOf(':', start);
  while (at >= 0 && at < end) {
    const before = at > 0 ? text.charCodeAt(at - 1) : 0;
    const after = at + 1 < end ? text.charCodeAt(at + 1) : 0;
    if (before !== 58 && after !== 58 && isIdentStart(after) && after < 128) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at + 1, Math.min(end, at + 65)))?.[0];
      fail(
        `:${name} inside a ${what} is not a parameter: move it out of the ${what} to bind it (e.g. 'x' || :${name}), or write a space after the colon if it is text`,
        at,
      );
    }
    at = text.indexOf(':', at + 1);
  }
  return end;
}

/**
 * The offset just past the literal or quoted name opening at `start` and closing with `close`
 * (doubled to stand for itself; with `escapes`, a backslash also escapes the next character).
 * `open` is the opening's length (1). @throws StatementTextError when it never closes.
 */
function skipQuoted(
  text: string,
  start: number,
  close: number,
  escapes: boolean,
  what: string,
  fail: (problem: string, at: number) => never,
  open = 1,
): number {
  const n = text.length;
  let i = start + open;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (escapes && c === 92) {
      i += 2;
      continue;
    }
    if (c === close) {
      if (text.charCodeAt(i + 1) === close) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return fail(`Unterminated ${what}: add the closing ${String.fromCharCode(close)}`, start);
}

/**
 * The offset just past the block comment opening at `start`; with `nested`, each `/*` inside
 * opens a level its own `*\/` closes (PostgreSQL "Comments", SQL Server "Slash Star"). A loop
 * with a counter: any depth costs no stack. @throws StatementTextError when it never closes.
 */
function skipBlockComment(
  text: string,
  start: number,
  nested: boolean,
  fail: (problem: string, at: number) => never,
): number {
  const n = text.length;
  let level = 1;
  let i = start + 2;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 42 && text.charCodeAt(i + 1) === 47) {
      i += 2;
      if (--level === 0) return i;
      continue;
    }
    if (nested && c === 47 && text.charCodeAt(i + 1) === 42) {
      level++;
      i += 2;
      continue;
    }
    i++;
  }
  return fail('Unterminated comment: add the closing */', start);
}

/**
 * The offset of the closing `$` of a PostgreSQL dollar-quote tag opening at `start` (`$$` or
 * `$tag$`, the tag an identifier without `$`: PostgreSQL "Dollar-Quoted String Constants"), or
 * -1 when `start` opens no tag.
 */
function dollarTagEnd(text: string, start: number): number {
  let i = start + 1;
  if (text.charCodeAt(i) === 36) return i;
  if (!isIdentStart(text.charCodeAt(i))) return -1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 36) return i;
    if (!isIdentStart(c) && !isDigit(c)) return -1;
    i++;
  }
  return -1;
}

/**
 * Orders the named values for `statement.binds`: `params[i] = values[binds[i]]`.
 * @throws Error naming the first name that has no value (own property of `values`; `undefined`
 *   counts as missing, `null` is a value).
 */
export function bindNamedValues(
  statement: ParsedStatement,
  values: Record<string, unknown>,
): unknown[] {
  return statement.binds.map((name) => {
    if (!Object.prototype.hasOwnProperty.call(values, name) || values[name] === undefined) {
      throw new Error(`No value for the statement's parameter :${name}`);
    }
    return values[name];
  });
}
