import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join, sep } from 'node:path';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { invalidInput } from '../common/domain-error';

/*
 * The URL rules of the four datasource types (CONTRACT.md §8: "Datasource URLs accept only the
 * parameters the README lists for their type; no URL can name a file, a socket or a path outside
 * the app's own SQLite folder"). Every driver option is built from the parts read here, never by
 * handing a driver the URL: `pg` (through pg-connection-string) would read `sslrootcert`,
 * `sslcert` and `sslkey` as server files and take `host=/path` as a Unix socket; `mysql2` applies
 * URL parameters as driver options. Messages name a refused parameter but never echo a value, a
 * password or a server path.
 */

/** Query parameters each type accepts, as the README lists them (names as written in a URL). */
export const URL_PARAMETERS = {
  postgres: ['sslmode', 'application_name', 'connect_timeout'],
  mysql: ['ssl'],
  mssql: ['encrypt', 'trustServerCertificate', 'instanceName', 'connectTimeout', 'requestTimeout'],
  sqlite: [],
} as const;

/** A parameter name as a message may show it: printable, at most 64 characters. */
function shownName(name: string): string {
  const printable = name.replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(printable.length > 64 ? `${printable.slice(0, 64)}…` : printable);
}

/**
 * The query parameters of `parsed`, each at most once and each among `allowed`.
 * @param shape what a URL of the type looks like, appended to the refusal.
 * @param caseInsensitive SQL Server's keywords ignore case; libpq's and mysql2's do not.
 * @returns the values by the allowed spelling.
 * @throws DomainError INVALID_INPUT naming the refused parameter and listing the accepted ones.
 */
function readParameters(
  type: 'postgres' | 'mysql' | 'mssql',
  parsed: URL,
  shape: string,
  caseInsensitive = false,
): Map<string, string> {
  const allowed: readonly string[] = URL_PARAMETERS[type];
  const canonical = (key: string) =>
    allowed.find((name) =>
      caseInsensitive ? name.toLowerCase() === key.toLowerCase() : name === key,
    );
  const values = new Map<string, string>();
  for (const [key, value] of parsed.searchParams) {
    const name = canonical(key);
    if (!name)
      throw invalidInput(
        `Unknown ${type} datasource URL parameter ${shownName(key)}; accepted: ${allowed.join(', ')}. ${shape}`,
      );
    if (values.has(name))
      throw invalidInput(`The ${type} datasource URL gives the parameter "${name}" more than once`);
    values.set(name, value);
  }
  return values;
}

/** Percent-decodes one URL part. @throws DomainError INVALID_INPUT on a malformed escape. */
function decodePart(type: string, part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalidInput(`The ${type} datasource URL has an invalid percent-encoding`);
  }
}

/** A DNS name (RFC 1123 letters, digits, hyphens; underscores as container names use them). */
const HOST_NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]*)(?:\.[A-Za-z0-9_-]+)*\.?$/;

/**
 * The one network host of a URL: a host name, an IPv4 address or a bracketed IPv6 address. A
 * socket path (`/…` or `%2F…`, which libpq and `pg` take as a Unix socket), several hosts
 * (`a,b`, libpq's multi-host form) and anything else are refused.
 * @throws DomainError INVALID_INPUT saying which rule the host breaks (the host is not echoed).
 */
export function networkHost(type: string, parsed: URL): string {
  const raw = parsed.hostname;
  if (!raw) throw invalidInput(`The ${type} datasource URL names no host`);
  if (raw.includes(','))
    throw invalidInput(`The ${type} datasource URL names several hosts; give exactly one`);
  if (raw.startsWith('/') || raw.includes('%') || raw.includes('/'))
    throw invalidInput(
      `The host of a ${type} datasource URL is a host name or an IP address; socket paths are not accepted`,
    );
  if (raw.startsWith('[') && raw.endsWith(']')) {
    const address = raw.slice(1, -1);
    if (!isIPv6(address)) throw invalidInput(`The ${type} datasource URL has an invalid IPv6 host`);
    return address;
  }
  if (!HOST_NAME.test(raw) || raw.length > 253)
    throw invalidInput(`The host of a ${type} datasource URL is a host name or an IP address`);
  return raw;
}

/** Parses `url` as a WHATWG URL of one of `protocols`, refusing a fragment. */
function parseUrl(type: string, url: string, protocols: string[], shape: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidInput(shape);
  }
  if (!protocols.includes(parsed.protocol.toLowerCase())) throw invalidInput(shape);
  if (parsed.hash)
    throw invalidInput(`The ${type} datasource URL has a fragment (#…); percent-encode a "#"`);
  return parsed;
}

/** The database named by a URL's path: one segment, percent-decoded; undefined when absent. */
function databaseOf(type: string, parsed: URL): string | undefined {
  const path = parsed.pathname.replace(/^\//, '');
  if (!path) return undefined;
  const database = decodePart(type, path);
  if (path.includes('/'))
    throw invalidInput(`The ${type} datasource URL path is the database name only`);
  return database;
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/**
 * libpq `sslmode` values accepted (PostgreSQL docs, "SSL Support", Table "SSL Mode
 * Descriptions"); `allow` and `verify-ca` are not: the first is plaintext-first and the second
 * needs a root certificate file.
 */
export const POSTGRES_SSL_MODES = ['disable', 'prefer', 'require', 'verify-full'] as const;
export type PostgresSslMode = (typeof POSTGRES_SSL_MODES)[number];

/** What a `postgres://` URL gives; every `pg` option is built from these and nothing else. */
export interface PostgresUrlParts {
  host: string;
  port: number;
  user: string;
  /** The empty string when the URL has none (never pg's fallbacks, see {@link postgresClientOptions}). */
  password: string;
  database: string;
  sslMode: PostgresSslMode;
  applicationName: string;
  /** `connect_timeout`, whole seconds (1–999); undefined when the URL gives none. */
  connectTimeoutSeconds: number | undefined;
}

const POSTGRES_SHAPE =
  'A postgres datasource URL is postgres://user:password@host:5432/database[?sslmode=disable|prefer|require|verify-full]';

/**
 * Reads `postgres://user:password@host:port/database?sslmode=…&application_name=…`
 * (`postgresql://` too). One host, a host name or an IP address; port 5432 by default; the user is
 * required; the database defaults to the user's name (libpq's rule). Query parameters:
 * `sslmode` (default `disable`, pg's own default), `application_name` (default `tablegraph`;
 * printable ASCII, at most 63 bytes, PostgreSQL's NAMEDATALEN − 1) and `connect_timeout` (whole
 * seconds, 1–999; libpq's 0, "wait forever", is refused). Anything else (`sslrootcert`,
 * `sslcert`, `sslkey`, `host`, `options`, …) is refused by name.
 * @throws DomainError INVALID_INPUT.
 */
export function parsePostgresUrl(url: string): PostgresUrlParts {
  const parsed = parseUrl('postgres', url, ['postgres:', 'postgresql:'], POSTGRES_SHAPE);
  const params = readParameters('postgres', parsed, POSTGRES_SHAPE);
  const host = networkHost('postgres', parsed);
  const user = parsed.username ? decodePart('postgres', parsed.username) : '';
  if (!user) throw invalidInput(`${POSTGRES_SHAPE}: name the user`);
  const sslMode = (params.get('sslmode') ?? 'disable') as PostgresSslMode;
  if (!POSTGRES_SSL_MODES.includes(sslMode))
    throw invalidInput(
      `The postgres datasource URL parameter "sslmode" takes ${POSTGRES_SSL_MODES.join(', ')}`,
    );
  const applicationName = params.get('application_name') ?? 'tablegraph';
  if (!/^[\x20-\x7e]{1,63}$/.test(applicationName))
    throw invalidInput(
      'The postgres datasource URL parameter "application_name" takes 1 to 63 printable ASCII characters',
    );
  const timeout = params.get('connect_timeout');
  if (timeout !== undefined && !/^[1-9]\d{0,2}$/.test(timeout))
    throw invalidInput(
      'The postgres datasource URL parameter "connect_timeout" takes whole seconds, 1 to 999',
    );
  return {
    host,
    port: parsed.port ? Number(parsed.port) : 5432,
    user,
    password: parsed.password ? decodePart('postgres', parsed.password) : '',
    database: databaseOf('postgres', parsed) ?? user,
    sslMode,
    applicationName,
    connectTimeoutSeconds: timeout === undefined ? undefined : Number(timeout),
  };
}

/**
 * The TLS options of an `sslmode`, built here rather than by pg-connection-string:
 * `disable` → no TLS; `prefer` and `require` → TLS without certificate verification (`pg` has no
 * plaintext fallback, so `prefer` is `require`, as pg-connection-string treats it);
 * `verify-full` → TLS verifying the chain against the CAs Node.js trusts (its bundled list, plus
 * `NODE_EXTRA_CA_CERTS`, or the system store under `--use-openssl-ca`) and the host name
 * (`pg` sets `servername` for a host name; Node's `checkServerIdentity` checks it).
 */
export function postgresTls(mode: PostgresSslMode): false | TlsOptions {
  switch (mode) {
    case 'disable':
      return false;
    case 'prefer':
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-full':
      return { rejectUnauthorized: true };
  }
}

/** The `pg` client settings of a URL (node-postgres `ClientConfig` names). */
export interface PostgresClientConfig {
  host: string;
  port: number;
  user: string;
  /** A function: `pg` then never falls back to `PGPASSWORD` or the service's `~/.pgpass`. */
  password: () => string;
  database: string;
  ssl: false | TlsOptions;
  application_name: string;
  /** From `connect_timeout`; the pool may bound it further. */
  connectionTimeoutMillis?: number;
}

/**
 * The explicit `pg` client settings of a URL: no connection string reaches `pg`, so no URL
 * parameter can make it read a file, and every value is set so `pg` takes none from the service's
 * environment (`PGHOST`, `PGUSER`, `PGDATABASE`, `PGSSLMODE`, `PGAPPNAME`, `PGPASSWORD`,
 * `~/.pgpass`: node-postgres `ConnectionParameters` and `Client#_getPassword`).
 * @throws DomainError INVALID_INPUT (see {@link parsePostgresUrl}).
 */
export function postgresClientConfig(url: string): PostgresClientConfig {
  const parts = parsePostgresUrl(url);
  return {
    host: parts.host,
    port: parts.port,
    user: parts.user,
    password: () => parts.password,
    database: parts.database,
    ssl: postgresTls(parts.sslMode),
    application_name: parts.applicationName,
    ...(parts.connectTimeoutSeconds === undefined
      ? {}
      : { connectionTimeoutMillis: parts.connectTimeoutSeconds * 1000 }),
  };
}

// ---------------------------------------------------------------------------------------------
// MySQL / MariaDB

/** The connection settings a `mysql://` URL gives. */
export interface MysqlUrlParts {
  host: string;
  port: number;
  user: string | undefined;
  password: string | undefined;
  database: string;
  /** TLS requested (`?ssl=true`): mysql2 verifies the server certificate. */
  ssl: boolean;
}

const MYSQL_SHAPE =
  'A mysql datasource URL is mysql://user:password@host:3306/database[?ssl=true|false]';

/**
 * Reads a `mysql://user:password@host:port/database` (or `mariadb://`) URL. One host (a host
 * name or an IP address; never a socket path, which would become mysql2's `socketPath`); the
 * database is required: it is the one schema the datasource lists and qualifies tables with. The
 * only query parameter is `ssl=true|false`; any other is refused by name, because mysql2 would
 * otherwise apply URL parameters as driver options over the adapter's own (date strings, exact
 * numbers, time zone, `LOCAL INFILE`).
 * @throws DomainError INVALID_INPUT saying what a URL looks like.
 */
export function parseMysqlUrl(url: string): MysqlUrlParts {
  const parsed = parseUrl('mysql', url, ['mysql:', 'mariadb:'], MYSQL_SHAPE);
  const params = readParameters('mysql', parsed, MYSQL_SHAPE);
  const database = databaseOf('mysql', parsed);
  if (!database) throw invalidInput(`${MYSQL_SHAPE}: name the database after the host`);
  const ssl = params.get('ssl') ?? 'false';
  if (ssl !== 'true' && ssl !== 'false')
    throw invalidInput('The mysql datasource URL parameter "ssl" takes true or false');
  return {
    host: networkHost('mysql', parsed),
    port: parsed.port ? Number(parsed.port) : 3306,
    user: parsed.username ? decodePart('mysql', parsed.username) : undefined,
    password: parsed.password ? decodePart('mysql', parsed.password) : undefined,
    database,
    ssl: ssl === 'true',
  };
}

// ---------------------------------------------------------------------------------------------
// SQL Server

/** What an `mssql://` URL gives; `mssql-pool.ts` builds the pool configuration from it. */
export interface MssqlUrlParts {
  server: string;
  port: number;
  user: string | undefined;
  password: string | undefined;
  database: string | undefined;
  encrypt: boolean | undefined;
  trustServerCertificate: boolean | undefined;
  instanceName: string | undefined;
  /** Milliseconds. */
  connectTimeout: number | undefined;
  /** Milliseconds. */
  requestTimeout: number | undefined;
}

const MSSQL_SHAPE =
  'A mssql datasource URL is mssql://user:password@host:1433/database[?encrypt=true&trustServerCertificate=false]';

/**
 * Reads `mssql://user:password@host:port/database?encrypt=true&…` (`sqlserver://` too). One host,
 * a host name or an IP address; port 1433 by default (SQL Server docs, "Configure a Server to
 * Listen on a Specific TCP Port"); the database may be left out (the login's default database).
 * Query parameters, case-insensitive: `encrypt`, `trustServerCertificate` (`true|false|1|0|yes|no`),
 * `instanceName` (letters, digits, `_`, `$`, `-`; resolved through SQL Browser), `connectTimeout`
 * and `requestTimeout` (whole milliseconds). Anything else is refused by name.
 * @throws DomainError INVALID_INPUT, never echoing the password.
 */
export function parseMssqlUrlParts(url: string): MssqlUrlParts {
  if (!/^(mssql|sqlserver):\/\//i.test(url))
    throw invalidInput('A mssql datasource URL starts with mssql:// or sqlserver://');
  const parsed = parseUrl(
    'mssql',
    url,
    ['mssql:', 'sqlserver:'],
    `The mssql datasource URL is not a valid URL. ${MSSQL_SHAPE}`,
  );
  const params = readParameters('mssql', parsed, MSSQL_SHAPE, true);
  const boolean = (name: string): boolean | undefined => {
    const value = params.get(name)?.toLowerCase();
    if (value === undefined) return undefined;
    if (value === 'true' || value === '1' || value === 'yes') return true;
    if (value === 'false' || value === '0' || value === 'no') return false;
    throw invalidInput(`The mssql datasource URL parameter "${name}" takes true or false`);
  };
  const milliseconds = (name: string): number | undefined => {
    const value = params.get(name);
    if (value === undefined) return undefined;
    if (!/^\d{1,9}$/.test(value))
      throw invalidInput(`The mssql datasource URL parameter "${name}" takes whole milliseconds`);
    return Number(value);
  };
  const instanceName = params.get('instanceName');
  if (instanceName !== undefined && !/^[A-Za-z0-9_$-]{1,64}$/.test(instanceName))
    throw invalidInput(
      'The mssql datasource URL parameter "instanceName" takes an instance name (letters, digits, _, $, -)',
    );
  return {
    server: networkHost('mssql', parsed),
    port: parsed.port ? Number(parsed.port) : 1433,
    user: parsed.username ? decodePart('mssql', parsed.username) : undefined,
    password: parsed.password ? decodePart('mssql', parsed.password) : undefined,
    database: databaseOf('mssql', parsed),
    encrypt: boolean('encrypt'),
    trustServerCertificate: boolean('trustServerCertificate'),
    instanceName,
    connectTimeout: milliseconds('connectTimeout'),
    requestTimeout: milliseconds('requestTimeout'),
  };
}

// ---------------------------------------------------------------------------------------------
// SQLite

/** One path segment of a SQLite datasource file: no leading dot (so no `.`, `..`, hidden files). */
const SQLITE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

const SQLITE_SHAPE =
  "A sqlite datasource URL is sqlite:<file>, the file relative to this app's datasource folder, e.g. sqlite:sales.db";

/**
 * The file a `sqlite:<file>` URL names, relative to the app's datasource folder, checked as text
 * only: no absolute path, no `..`, no empty or hidden segment, segments of letters, digits, `_`,
 * `.` and `-` (so no `file:` URI, query string or NUL), at most 255 characters. No parameters.
 * @returns the relative path (`/`-separated).
 * @throws DomainError INVALID_INPUT.
 */
export function parseSqliteUrl(url: string): string {
  if (!url.startsWith('sqlite:')) throw invalidInput(SQLITE_SHAPE);
  const file = url.slice('sqlite:'.length);
  if (!file) throw invalidInput(SQLITE_SHAPE);
  if (file.startsWith('/') || file.startsWith('\\') || /^[A-Za-z]:/.test(file))
    throw invalidInput(
      "A sqlite datasource URL names a file relative to this app's own datasource folder " +
        '(<SQLITE_DATASOURCE_DIR>/<app id>/), not an absolute path: e.g. sqlite:sales.db',
    );
  const segments = file.split('/');
  if (segments.includes('..'))
    throw invalidInput(
      'A sqlite datasource URL may not contain ".."; name a file inside this app\'s datasource folder',
    );
  if (file.length > 255 || !segments.every((s) => SQLITE_SEGMENT.test(s)))
    throw invalidInput(
      `${SQLITE_SHAPE}; each part of the name is letters, digits, "_", "." and "-", not starting with "."`,
    );
  return segments.join('/');
}

/** An app id as a folder name: the ids this service mints are UUIDs. */
const APP_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * The folder of an app's SQLite datasource files: `<root>/<appId>` (not resolved).
 * @throws Error when `appId` is not a plain id (a bug, never a caller's input).
 */
export function sqliteAppFolder(root: string, appId: string): string {
  if (!APP_ID.test(appId)) throw new Error(`Not an app id: ${JSON.stringify(appId)}`);
  return join(root, appId);
}

/** `lstat`, or null when nothing is there (or it cannot be looked at). */
function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/**
 * Resolves a `sqlite:<file>` URL inside the app's own folder `<root>/<appId>/` and proves the
 * file is there, for real:
 * - the text rules of {@link parseSqliteUrl};
 * - the app folder is a real folder, not a symbolic link (`root` itself may be one: the operator
 *   chose it);
 * - every segment below the app folder is looked at with `lstat`: a symbolic link anywhere is
 *   refused, the segments before the last are folders and the last is a regular file (never a
 *   FIFO, device or socket);
 * - the real path (`fs.realpathSync`) lies inside the app folder's real path.
 * Messages name the file relative to the app folder only, never a server path.
 * @param root `SQLITE_DATASOURCE_DIR`.
 * @returns `sqlite:<real absolute path>`, the URL the SQLite dialect opens.
 * @throws DomainError INVALID_INPUT.
 */
export function confineSqliteUrl(url: string, root: string, appId: string): string {
  const file = parseSqliteUrl(url);
  const missing = () =>
    invalidInput(`No SQLite database file ${file} in this app's datasource folder`);
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    throw missing();
  }
  // Below a real root, a folder that is not a symbolic link is its own real path.
  const folder = sqliteAppFolder(realRoot, appId);
  const folderStat = lstatOrNull(folder);
  if (!folderStat) throw missing();
  if (folderStat.isSymbolicLink() || !folderStat.isDirectory())
    throw invalidInput(
      "This app's datasource folder is a symbolic link or not a folder; SQLite datasources are files in a plain folder",
    );
  const segments = file.split('/');
  let path = folder;
  segments.forEach((segment, index) => {
    path = join(path, segment);
    const stat = lstatOrNull(path);
    const shown = segments.slice(0, index + 1).join('/');
    if (!stat) throw missing();
    if (stat.isSymbolicLink())
      throw invalidInput(
        `${shown} in this app's datasource folder is a symbolic link; SQLite datasources are plain files`,
      );
    const last = index === segments.length - 1;
    if (!last && !stat.isDirectory()) throw missing();
    if (last && !stat.isFile())
      throw invalidInput(`${shown} in this app's datasource folder is not a regular file`);
  });
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw missing();
  }
  if (!real.startsWith(folder + sep)) throw missing();
  return `sqlite:${real}`;
}

/**
 * Creates the app's SQLite datasource folder `<root>/<appId>/` when it is not there (mode 0750),
 * so an operator finds it ready for the app's files. Folders are created on first use: the first
 * SQLite registration of the app, or the demo seeding. Something already there (even a symbolic
 * link) is left as it is; {@link confineSqliteUrl} then judges it.
 * @returns the folder (not resolved).
 */
export function ensureSqliteAppFolder(root: string, appId: string): string {
  const folder = sqliteAppFolder(root, appId);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o750 });
  } catch {
    /* something else is there: confineSqliteUrl refuses it with a message fit for a builder */
  }
  return folder;
}

/**
 * Checks a datasource URL against its type's rules without opening anything: the parameters the
 * README lists, one network host, and for SQLite a file named relative to the app's folder. A
 * refusal is a 400 before any driver sees the URL, so a hostile URL costs no connection attempt.
 * @throws DomainError INVALID_INPUT.
 */
export function checkDatasourceUrl(type: string, url: string): void {
  switch (type) {
    case 'postgres':
      parsePostgresUrl(url);
      return;
    case 'mysql':
      parseMysqlUrl(url);
      return;
    case 'mssql':
      parseMssqlUrlParts(url);
      return;
    case 'sqlite':
      parseSqliteUrl(url);
      return;
    default:
      throw invalidInput(
        `Datasource type ${shownName(type)} is not supported; use postgres, mysql, mssql or sqlite`,
      );
  }
}

/**
 * A stored SQLite URL as {@link confineSqliteUrl} takes it. Datasources saved with the absolute
 * path of a file inside their app's folder (`sqlite:<root>/<appId>/sales.db`, as stored before
 * URLs were kept as the builder wrote them) become `sqlite:sales.db`; any other absolute path
 * stays, and is refused when opened. Relative URLs pass unchanged.
 */
export function storedSqliteUrl(url: string, root: string, appId: string): string {
  if (!url.startsWith('sqlite:/')) return url;
  const file = url.slice('sqlite:'.length);
  const folders = [sqliteAppFolder(root, appId)];
  try {
    folders.push(sqliteAppFolder(realpathSync(root), appId));
  } catch {
    /* no root: the URL stays absolute and is refused when opened */
  }
  const folder = folders.find((f) => file.startsWith(f + sep));
  return folder ? `sqlite:${file.slice(folder.length + 1)}` : url;
}

/**
 * What stands for the URL in a redacted message, and for a password or the user information of
 * any URL in it.
 */
const REDACTED_URL = '<datasource url>';
const REDACTED = '***';

/** Characters that may stand right before a password for it to count as a whole token. */
const TOKEN_BEFORE = String.raw`(?<=^|[\s'"\x60(\[{<=:,])`;
/** Characters that may stand right after a password for it to count as a whole token. */
const TOKEN_AFTER = String.raw`(?=$|[\s'"\x60)\]}>,;:.!?])`;

/**
 * A URL's user information, in any URL-looking text: `scheme://user:password@`, up to the last
 * `@` before the host (a password may hold a raw `@` once a driver decoded it).
 */
const URL_USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#'"\x60<>]*@/gi;

/**
 * A driver message (for logs) with nothing of a datasource URL's secrets in it (issue 22, item 9),
 * by the URL's parts rather than by substrings:
 * - the URL itself, as written and percent-decoded, becomes `<datasource url>`;
 * - the user information of any URL-looking text (`postgres://bob:secret@…`, however the driver
 *   rewrote the rest) becomes `***@`;
 * - the URL's password, where it stands as a whole token (between spaces, quotes, brackets, `=`,
 *   `:` or `,` and the end of a phrase), becomes `***`. A password never replaces letters inside a
 *   word: with the password `p`, "unexpectedly" stays as it is (it became "unex***ectedly").
 * A URL that does not parse (`sqlite:<file>` has no secret) only has its text replaced.
 * @param message the driver's message.
 * @param url the datasource URL as the builder gave it.
 */
export function redactUrl(message: string, url: string): string {
  const forms = new Set([url]);
  try {
    forms.add(decodeURIComponent(url));
  } catch {
    /* a malformed escape: the URL as written only */
  }
  let out = message;
  for (const form of [...forms].filter(Boolean).sort((a, b) => b.length - a.length))
    out = out.split(form).join(REDACTED_URL);
  out = out.replace(URL_USER_INFO, `$1${REDACTED}@`);
  let password = '';
  try {
    const raw = new URL(url).password;
    password = raw ? decodeURIComponent(raw) : '';
  } catch {
    /* not a URL with a password */
  }
  if (!password) return out;
  const escaped = password.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return out.replace(new RegExp(`${TOKEN_BEFORE}${escaped}${TOKEN_AFTER}`, 'g'), REDACTED);
}

/** A login (user name and password) standing in for a datasource URL's own. */
export interface DatasourceLogin {
  user: string;
  password: string;
}

/**
 * `url` (a network datasource URL: postgres, mysql, mssql) with its user name and password
 * replaced by `login`'s, percent-encoded; host, port, database and parameters stay. A datasource's
 * read-only login (README "Datasources") opens with it, so it always reaches the same database as
 * the datasource, whatever URL the datasource is given later. The result passes
 * {@link checkDatasourceUrl} as `url` does.
 * @throws DomainError INVALID_INPUT for SQLite (a file has no login) or a URL that does not parse,
 *   never echoing either password.
 */
export function urlWithLogin(type: string, url: string, login: DatasourceLogin): string {
  if (type === 'sqlite')
    throw invalidInput(
      'A SQLite datasource has no logins: its query-kind SQL APIs run under PRAGMA query_only',
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidInput(`The ${type} datasource URL cannot take a login`);
  }
  parsed.username = encodeURIComponent(login.user);
  parsed.password = encodeURIComponent(login.password);
  const result = parsed.toString();
  checkDatasourceUrl(type, result);
  return result;
}
