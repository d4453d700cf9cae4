import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Where the metadata store lives: embedded SQLite file or a PostgreSQL URL. */
export type MetadataStoreConfig =
  { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

/**
 * The validated process configuration (CONTRACT.md §1). Built once at start by {@link loadConfig};
 * nothing else in `src/` reads `process.env`.
 */
export interface AppConfig {
  /** HTTP port, 1–65535. */
  port: number;
  /** Bind address. */
  host: string;
  production: boolean;
  metadataStore: MetadataStoreConfig;
  /** `redis://…` or null (in-process state, single instance). */
  redisUrl: string | null;
  /** At least 32 characters; signs session tokens and encrypts datasource credentials. */
  platformSecret: string;
  /** Where the secret came from, for the start-up log (never the secret itself). */
  platformSecretSource: 'env' | 'generated' | 'file';
  adminEmail: string;
  /** Null when the first administrator's password is to be generated and printed once. */
  adminPassword: string | null;
  demo: boolean;
  /** Requests per minute of a new API key when none is given; positive integer. */
  apiKeyRateLimitPerMinute: number;
  /**
   * Cost points per minute of a new API key when none is given (`API_KEY_POINTS_PER_MINUTE`,
   * default 10,000; README "Cost budgets"); positive integer.
   */
  apiKeyPointsPerMinute: number;
  /** Folder for generated local state (dev secret, embedded databases). */
  dataDir: string;
  /** The only folder SQLite datasources may be opened from (a builder must not reach other files). */
  sqliteDatasourceDir: string;
  /** Ceilings on what one GraphQL request may cost (CONTRACT.md §6 Limits). */
  limits: RequestLimits;
  /** Datasource pools and statement deadlines (CONTRACT.md §6 Limits, last row). */
  datasources: DatasourceLimits;
  /** Rate limits, logs, metrics and shutdown (CONTRACT.md §6 429, §8). */
  operations: OperationsConfig;
  /** The Node HTTP server's connection limits and deadlines (issue 22 item 7). */
  http: HttpServerConfig;
  /** `OPENAPI_PUBLIC`: serve Swagger UI and the OpenAPI document; default on outside production. */
  openApiPublic: boolean;
  /**
   * `WEBHOOKS_ALLOW_PRIVATE_TARGETS` (default off; tests and development only, README "Webhooks"):
   * webhook URLs may reach loopback and private addresses. Off, they are refused at save and at
   * every delivery after DNS resolution.
   */
  webhooksAllowPrivateTargets: boolean;
}

/**
 * What the Node HTTP server allows (issue 22 item 7): slow or idle sockets cannot pile up until
 * the process runs out of descriptors.
 */
export interface HttpServerConfig {
  /** `HTTP_HEADERS_TIMEOUT_MS`: time to receive a request's headers, default 10,000. */
  headersTimeoutMs: number;
  /** `HTTP_REQUEST_TIMEOUT_MS`: time to receive a whole request, default 30,000 (≥ the headers'). */
  requestTimeoutMs: number;
  /** `HTTP_MAX_CONNECTIONS`: open connections of the server, default 800; more are closed at once. */
  maxConnections: number;
  /**
   * `HTTP_MAX_CONNECTIONS_PER_ADDRESS`: open connections of one client address (an IPv6 address
   * counted by its /64), default 100, 0 for no cap; the extra sockets are closed at once. Counted
   * on the socket's address: behind a load balancer (`TRUST_PROXY` > 0) the default is 0.
   */
  maxConnectionsPerAddress: number;
}

/** Pino's levels, quietest last; `LOG_LEVEL` takes one of them. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How the service runs among others (CONTRACT.md §6 429, §8 Operations). */
export interface OperationsConfig {
  /**
   * `ANONYMOUS_RATE_LIMIT_PER_MINUTE`: requests per minute one client address may send to one
   * app's endpoint without credentials, default 300.
   */
  anonymousRateLimitPerMinute: number;
  /**
   * `TRUST_PROXY`: how many proxies (load balancers) in front of the service append to
   * `X-Forwarded-For`, default 0 (the client address is the connection's). Set it to the number
   * of hops when instances run behind a load balancer, or every caller shares its address.
   */
  trustProxyHops: number;
  /** `METRICS_TOKEN`: the bearer token `GET /metrics` requires (≥ 16 characters); unset: no metrics route. */
  metricsToken: string | null;
  /** `SHUTDOWN_TIMEOUT_MS`: how long `SIGTERM` waits for in-flight requests, default 10,000. */
  shutdownTimeoutMs: number;
  /** `LOG_LEVEL`: default `info` in production, `warn` otherwise (a quiet start). */
  logLevel: LogLevel;
  /**
   * `APP_USER_RATE_LIMIT_PER_MINUTE`: requests per minute one app user may send to the GraphQL
   * endpoint, default 600.
   */
  appUserRateLimitPerMinute: number;
}

/**
 * What one GraphQL request may cost; every ceiling is checked before any SQL runs
 * (CONTRACT.md §6 Limits). Each is configurable by the environment variable named in its doc.
 */
export interface RequestLimits {
  /** `LIMIT_QUERY_BYTES`: query text size in bytes (UTF-8), default 100 KB. */
  queryBytes: number;
  /** `LIMIT_QUERY_TOKENS`: GraphQL tokens in one query text, default 10,000. */
  queryTokens: number;
  /** `LIMIT_FRAGMENT_SPREADS`: fragment spreads in one document, default 1,000. */
  fragmentSpreads: number;
  /** `LIMIT_ROWS`: worst-case rows of one request (the cost estimate), default 100,000. */
  rows: number;
  /**
   * `LIMIT_STATEMENTS`: SQL statements of one request (root fields × navigation levels, fragments
   * expanded), default 300 (CONTRACT.md §6 Limits).
   */
  statements: number;
  /** `LIMIT_SKIP`: the largest `skip`, default 100,000. */
  skip: number;
  /** `LIMIT_IN_LIST`: items in one `in`/`nin` list, default 1,000. */
  inList: number;
  /** `LIMIT_BOOLEAN_ITEMS`: `and`/`or` items in one request, default 100. */
  booleanItems: number;
  /**
   * `LIMIT_SCANNED_ROWS`: rows the counts and aggregates of one request may scan together, each
   * charged its table's estimated rows (10,000 when its statistics are unknown), default 10,000,000
   * (README "Limits").
   */
  scannedRows: number;
  /**
   * `LIMIT_RELATION_FILTERS`: relation filters (many-to-one keys and `some`/`none`/`every`) in
   * one request, default 8: PostgreSQL's planning time grows fast with them (README "Limits").
   */
  relationFilters: number;
  /** `LIMIT_BULK_ROWS`: rows one `addMany<Base>` (or any `rows` list) may carry, default 1,000. */
  bulkRows: number;
  /** `LIMIT_RESPONSE_BYTES`: bytes of row data one request may read, default 32 MiB. */
  responseBytes: number;
  /** `DOCUMENT_CACHE_BYTES`: bytes of compiled documents kept for all schemas together, default 32 MiB. */
  documentCacheBytes: number;
  /**
   * `SCHEMA_CACHE_BYTES`: estimated heap of the cached schemas of every app together (a version's
   * types and each audience's root types), default 640 MiB: 2,000 apps of 20 tables (~0.27 MiB
   * each) with room to spare, within 1 GB of RSS (`npm run bench:apps`).
   */
  schemaCacheBytes: number;
  /**
   * `SCHEMA_BUILDS_PER_APP_PER_SECOND`: schemas (a version's types or an audience's view) one app
   * may cause to be built per second in this process, default 10; over it a request that needs a
   * new schema answers 429 with `retry-after`.
   */
  schemaBuildsPerAppPerSecond: number;
}

/** Datasource pools and deadlines (CONTRACT.md §6 Limits; DESIGN.md Datasources). */
export interface DatasourceLimits {
  /** `STATEMENT_TIMEOUT_MS`: one SQL statement's run time in milliseconds, default 5,000. */
  statementTimeoutMs: number;
  /** `DATASOURCE_POOL_SIZE`: connections (and concurrent statements) per datasource, default 10. */
  poolSize: number;
  /** `DATASOURCE_ACQUIRE_TIMEOUT_MS`: wait for a free connection before `DATASOURCE_UNAVAILABLE`, default 2,000. */
  acquireTimeoutMs: number;
}

/** A configuration value that cannot be used; the message names the variable and what to change. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function intIn(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === '1' || raw === 'true') return true;
  if (raw === '0' || raw === 'false') return false;
  throw new ConfigError(name, `must be 1 or 0, got "${raw}"`);
}

function metadataStore(env: Env, dataDir: string): MetadataStoreConfig {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '')
    return { kind: 'sqlite', file: resolve(dataDir, 'platform.db') };
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length);
    if (!file)
      throw new ConfigError(
        'DATABASE_URL',
        'sqlite: needs a file, as in sqlite:./data/platform.db',
      );
    return { kind: 'sqlite', file: file === ':memory:' ? file : resolve(file) };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: raw };
  }
  throw new ConfigError('DATABASE_URL', 'must start with postgres:// or sqlite:');
}

function platformSecret(env: Env, production: boolean, dataDir: string) {
  const raw = env.PLATFORM_SECRET;
  if (raw !== undefined && raw !== '') {
    if (raw.length < 32) throw new ConfigError('PLATFORM_SECRET', 'must be at least 32 characters');
    return { secret: raw, source: 'env' as const };
  }
  if (production) throw new ConfigError('PLATFORM_SECRET', 'is required when NODE_ENV=production');
  // Development only: generated once and kept beside the embedded store so sessions and encrypted
  // datasource credentials survive restarts.
  const file = resolve(dataDir, 'platform-secret');
  if (existsSync(file))
    return { secret: readFileSync(file, 'utf8').trim(), source: 'file' as const };
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return { secret, source: 'generated' as const };
}

/**
 * Reads and validates the environment (CONTRACT.md §1).
 *
 * @param env the environment, usually `process.env`.
 * @param defaults.demo the `DEMO` default: `true` under `npm start`, else `false`.
 * @throws ConfigError naming the first variable that cannot be used.
 */
export function loadConfig(env: Env, defaults: { demo: boolean }): AppConfig {
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.DATA_DIR || './data');
  const host = env.HOST || '127.0.0.1';
  const email = env.ADMIN_EMAIL || 'admin@localhost';
  if (!/^[^\s@]+@[^\s@]+$/.test(email))
    throw new ConfigError('ADMIN_EMAIL', 'is not an email address');
  const password = env.ADMIN_PASSWORD || null;
  if (password !== null && password.length < 8) {
    throw new ConfigError('ADMIN_PASSWORD', 'must be at least 8 characters');
  }
  if (production && !env.ADMIN_PASSWORD) {
    throw new ConfigError('ADMIN_PASSWORD', 'is required when NODE_ENV=production');
  }
  const redisUrl = env.REDIS_URL || null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', 'must start with redis:// or rediss://');
  }
  const store = metadataStore(env, dataDir);
  const secret = platformSecret(env, production, dataDir);
  return {
    port: intIn(env, 'PORT', 3000, 1, 65535),
    host,
    production,
    metadataStore: store,
    redisUrl,
    platformSecret: secret.secret,
    platformSecretSource: secret.source,
    adminEmail: email.toLowerCase(),
    adminPassword: password,
    demo: flag(env, 'DEMO', defaults.demo),
    apiKeyRateLimitPerMinute: intIn(env, 'API_KEY_RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000_000),
    apiKeyPointsPerMinute: intIn(env, 'API_KEY_POINTS_PER_MINUTE', 10_000, 1, 1_000_000_000),
    dataDir,
    sqliteDatasourceDir: resolve(env.SQLITE_DATASOURCE_DIR || resolve(dataDir, 'datasources')),
    limits: {
      queryBytes: intIn(env, 'LIMIT_QUERY_BYTES', 100_000, 100, 10_000_000),
      queryTokens: intIn(env, 'LIMIT_QUERY_TOKENS', 10_000, 10, 1_000_000),
      fragmentSpreads: intIn(env, 'LIMIT_FRAGMENT_SPREADS', 1_000, 0, 100_000),
      rows: intIn(env, 'LIMIT_ROWS', 100_000, 1, 100_000_000),
      statements: intIn(env, 'LIMIT_STATEMENTS', 300, 1, 100_000),
      skip: intIn(env, 'LIMIT_SKIP', 100_000, 0, 1_000_000_000),
      inList: intIn(env, 'LIMIT_IN_LIST', 1_000, 1, 100_000),
      booleanItems: intIn(env, 'LIMIT_BOOLEAN_ITEMS', 100, 1, 100_000),
      scannedRows: intIn(env, 'LIMIT_SCANNED_ROWS', 10_000_000, 1, 1_000_000_000_000),
      relationFilters: intIn(env, 'LIMIT_RELATION_FILTERS', 8, 0, 1_000),
      bulkRows: intIn(env, 'LIMIT_BULK_ROWS', 1_000, 1, 100_000),
      responseBytes: intIn(env, 'LIMIT_RESPONSE_BYTES', 32 * 1024 * 1024, 1024, 2 ** 31 - 1),
      documentCacheBytes: intIn(env, 'DOCUMENT_CACHE_BYTES', 32 * 1024 * 1024, 0, 2 ** 31 - 1),
      schemaCacheBytes: intIn(env, 'SCHEMA_CACHE_BYTES', 640 * 1024 * 1024, 1, 2 ** 40),
      schemaBuildsPerAppPerSecond: intIn(env, 'SCHEMA_BUILDS_PER_APP_PER_SECOND', 10, 1, 10_000),
    },
    datasources: {
      statementTimeoutMs: intIn(env, 'STATEMENT_TIMEOUT_MS', 5_000, 100, 3_600_000),
      poolSize: intIn(env, 'DATASOURCE_POOL_SIZE', 10, 1, 1_000),
      acquireTimeoutMs: intIn(env, 'DATASOURCE_ACQUIRE_TIMEOUT_MS', 2_000, 10, 600_000),
    },
    operations: operations(env, production),
    http: httpServer(env),
    openApiPublic: flag(env, 'OPENAPI_PUBLIC', !production),
    webhooksAllowPrivateTargets: flag(env, 'WEBHOOKS_ALLOW_PRIVATE_TARGETS', false),
  };
}

function httpServer(env: Env): HttpServerConfig {
  const headersTimeoutMs = intIn(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 1_000, 600_000);
  const requestTimeoutMs = intIn(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1_000, 3_600_000);
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(
      'HTTP_REQUEST_TIMEOUT_MS',
      `must be at least HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs})`,
    );
  }
  const behindProxy = intIn(env, 'TRUST_PROXY', 0, 0, 10) > 0;
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    maxConnections: intIn(env, 'HTTP_MAX_CONNECTIONS', 800, 1, 1_000_000),
    maxConnectionsPerAddress: intIn(
      env,
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS',
      behindProxy ? 0 : 100,
      0,
      1_000_000,
    ),
  };
}

function operations(env: Env, production: boolean): OperationsConfig {
  const token = env.METRICS_TOKEN || null;
  if (token !== null && (token.length < 16 || /\s/.test(token))) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters without spaces');
  }
  const level = env.LOG_LEVEL || (production ? 'info' : 'warn');
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  }
  return {
    anonymousRateLimitPerMinute: intIn(
      env,
      'ANONYMOUS_RATE_LIMIT_PER_MINUTE',
      300,
      1,
      1_000_000_000,
    ),
    trustProxyHops: intIn(env, 'TRUST_PROXY', 0, 0, 10),
    metricsToken: token,
    shutdownTimeoutMs: intIn(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    logLevel: level as LogLevel,
    appUserRateLimitPerMinute: intIn(env, 'APP_USER_RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000_000),
  };
}

/** The process's own configuration: `process.env`, with `DEMO` on by default under `npm start`. */
export function loadProcessConfig(): AppConfig {
  return loadConfig(process.env, { demo: process.env.npm_lifecycle_event === 'start' });
}
