import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from './app-config';

/** Configuration of CONTRACT.md §1: defaults, and one clear error naming the variable. */

const SECRET = 'x'.repeat(32);
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'tablegraph-config-spec-'));
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** An environment with a secret and a data folder outside the repository, plus `extra`. */
function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { PLATFORM_SECRET: SECRET, DATA_DIR: dataDir, ...extra };
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig defaults', () => {
  it('uses the documented defaults', () => {
    const config = loadConfig(env(), { demo: false });
    expect(config).toEqual({
      port: 3000,
      host: '127.0.0.1',
      production: false,
      metadataStore: { kind: 'sqlite', file: resolve(dataDir, 'platform.db') },
      redisUrl: null,
      platformSecret: SECRET,
      platformSecretSource: 'env',
      adminEmail: 'admin@localhost',
      adminPassword: null,
      demo: false,
      apiKeyRateLimitPerMinute: 600,
      apiKeyPointsPerMinute: 10_000,
      dataDir: resolve(dataDir),
      sqliteDatasourceDir: resolve(dataDir, 'datasources'),
      limits: {
        queryBytes: 100_000,
        queryTokens: 10_000,
        fragmentSpreads: 1_000,
        rows: 100_000,
        statements: 300,
        skip: 100_000,
        inList: 1_000,
        booleanItems: 100,
        bulkRows: 1_000,
        scannedRows: 10_000_000,
        relationFilters: 8,
        responseBytes: 32 * 1024 * 1024,
        documentCacheBytes: 32 * 1024 * 1024,
        schemaCacheBytes: 640 * 1024 * 1024,
        schemaBuildsPerAppPerSecond: 10,
      },
      datasources: { statementTimeoutMs: 5_000, poolSize: 10, acquireTimeoutMs: 2_000 },
      operations: {
        anonymousRateLimitPerMinute: 300,
        trustProxyHops: 0,
        metricsToken: null,
        shutdownTimeoutMs: 10_000,
        logLevel: 'warn',
        appUserRateLimitPerMinute: 600,
      },
      http: {
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        maxConnections: 800,
        maxConnectionsPerAddress: 100,
      },
      openApiPublic: true,
      webhooksAllowPrivateTargets: false,
    });
  });

  it('takes the DEMO default from the caller', () => {
    expect(loadConfig(env(), { demo: true }).demo).toBe(true);
    expect(loadConfig(env({ DEMO: '0' }), { demo: true }).demo).toBe(false);
    expect(loadConfig(env({ DEMO: '1' }), { demo: false }).demo).toBe(true);
  });

  it('treats empty values as unset', () => {
    const config = loadConfig(
      env({ PORT: '', DATABASE_URL: '', REDIS_URL: '', DEMO: '', HOST: '' }),
      { demo: false },
    );
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.metadataStore).toEqual({ kind: 'sqlite', file: resolve(dataDir, 'platform.db') });
    expect(config.redisUrl).toBeNull();
  });

  it('reads every variable', () => {
    const config = loadConfig(
      env({
        PORT: '8080',
        HOST: '0.0.0.0',
        DATABASE_URL: 'postgres://user:pw@db.internal:5432/platform',
        REDIS_URL: 'rediss://cache:6380/0',
        ADMIN_EMAIL: 'Root@Example.COM',
        ADMIN_PASSWORD: 'correct horse',
        DEMO: 'true',
        API_KEY_RATE_LIMIT_PER_MINUTE: '1200',
      }),
      { demo: false },
    );
    expect(config.port).toBe(8080);
    expect(config.host).toBe('0.0.0.0');
    expect(config.metadataStore).toEqual({
      kind: 'postgres',
      url: 'postgres://user:pw@db.internal:5432/platform',
    });
    expect(config.redisUrl).toBe('rediss://cache:6380/0');
    expect(config.adminEmail).toBe('root@example.com');
    expect(config.adminPassword).toBe('correct horse');
    expect(config.demo).toBe(true);
    expect(config.apiKeyRateLimitPerMinute).toBe(1200);
  });

  it('accepts a sqlite: DATABASE_URL (file resolved, :memory: kept)', () => {
    const file = join(dataDir, 'meta.db');
    expect(
      loadConfig(env({ DATABASE_URL: `sqlite:${file}` }), { demo: false }).metadataStore,
    ).toEqual({ kind: 'sqlite', file: resolve(file) });
    expect(
      loadConfig(env({ DATABASE_URL: 'sqlite::memory:' }), { demo: false }).metadataStore,
    ).toEqual({ kind: 'sqlite', file: ':memory:' });
  });

  it('in development without PLATFORM_SECRET, generates one into DATA_DIR once and reuses it', () => {
    const dir = join(dataDir, 'generated');
    const first = loadConfig({ DATA_DIR: dir }, { demo: false });
    expect(first.platformSecretSource).toBe('generated');
    expect(first.platformSecret.length).toBeGreaterThanOrEqual(32);
    const file = join(dir, 'platform-secret');
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.platformSecret);
    const second = loadConfig({ DATA_DIR: dir }, { demo: false });
    expect(second.platformSecretSource).toBe('file');
    expect(second.platformSecret).toBe(first.platformSecret);
  });
});

describe('HTTP server limits, OpenAPI and app-user throttle (issue 22 items 7, 12)', () => {
  it('reads the HTTP server limits', () => {
    const config = loadConfig(
      env({
        HTTP_HEADERS_TIMEOUT_MS: '5000',
        HTTP_REQUEST_TIMEOUT_MS: '20000',
        HTTP_MAX_CONNECTIONS: '300',
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: '7',
        APP_USER_RATE_LIMIT_PER_MINUTE: '42',
      }),
      { demo: false },
    );
    expect(config.http).toEqual({
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 20_000,
      maxConnections: 300,
      maxConnectionsPerAddress: 7,
    });
    expect(config.operations.appUserRateLimitPerMinute).toBe(42);
  });

  it('has no per-address cap by default behind a load balancer', () => {
    expect(
      loadConfig(env({ TRUST_PROXY: '1' }), { demo: false }).http.maxConnectionsPerAddress,
    ).toBe(0);
  });

  it('refuses a request timeout shorter than the headers timeout', () => {
    const error = configError(() =>
      loadConfig(env({ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' }), {
        demo: false,
      }),
    );
    expect(error.variable).toBe('HTTP_REQUEST_TIMEOUT_MS');
  });

  it('serves OpenAPI by default only outside production, and as configured', () => {
    const production = { NODE_ENV: 'production', ADMIN_PASSWORD: 'correct horse' };
    expect(loadConfig(env(production), { demo: false }).openApiPublic).toBe(false);
    expect(
      loadConfig(env({ ...production, OPENAPI_PUBLIC: '1' }), { demo: false }).openApiPublic,
    ).toBe(true);
    expect(loadConfig(env({ OPENAPI_PUBLIC: '0' }), { demo: false }).openApiPublic).toBe(false);
    expect(
      configError(() => loadConfig(env({ OPENAPI_PUBLIC: 'yes' }), { demo: false })).variable,
    ).toBe('OPENAPI_PUBLIC');
  });
});

describe('loadConfig refusals name the variable', () => {
  it.each(['abc', '70000', '65536', '-1', '80.5', ' 80'])('PORT=%j', (port) => {
    const error = configError(() => loadConfig(env({ PORT: port }), { demo: false }));
    expect(error.variable).toBe('PORT');
    expect(error.message.startsWith('PORT: ')).toBe(true);
    expect(error.message).toContain(`"${port}"`);
  });

  it.each([
    'mysql://db/platform',
    'platform.db',
    'sqlite:',
    'postgres://[bad/db',
    'postgres://u:p@host:99999/db',
  ])('DATABASE_URL=%j', (url) => {
    const error = configError(() => loadConfig(env({ DATABASE_URL: url }), { demo: false }));
    expect(error.variable).toBe('DATABASE_URL');
    expect(error.message.startsWith('DATABASE_URL: ')).toBe(true);
  });

  it.each(['http://cache:6379', 'cache:6379', 'redis:/cache'])('REDIS_URL=%j', (url) => {
    const error = configError(() => loadConfig(env({ REDIS_URL: url }), { demo: false }));
    expect(error.variable).toBe('REDIS_URL');
    expect(error.message).toBe('REDIS_URL: must start with redis:// or rediss://');
  });

  it('a PLATFORM_SECRET shorter than 32 characters', () => {
    const error = configError(() =>
      loadConfig(env({ PLATFORM_SECRET: 'y'.repeat(31) }), { demo: false }),
    );
    expect(error.variable).toBe('PLATFORM_SECRET');
    expect(error.message).toBe('PLATFORM_SECRET: must be at least 32 characters');
    expect(
      loadConfig(env({ PLATFORM_SECRET: 'y'.repeat(32) }), { demo: false }).platformSecret,
    ).toBe('y'.repeat(32));
  });

  it('ADMIN_EMAIL that is not an email, ADMIN_PASSWORD shorter than 8', () => {
    expect(
      configError(() => loadConfig(env({ ADMIN_EMAIL: 'admin' }), { demo: false })).variable,
    ).toBe('ADMIN_EMAIL');
    expect(
      configError(() => loadConfig(env({ ADMIN_PASSWORD: 'short' }), { demo: false })).variable,
    ).toBe('ADMIN_PASSWORD');
  });

  it('DEMO other than 1/0/true/false', () => {
    expect(configError(() => loadConfig(env({ DEMO: 'yes' }), { demo: false })).variable).toBe(
      'DEMO',
    );
  });

  it('API_KEY_RATE_LIMIT_PER_MINUTE must be a positive whole number', () => {
    expect(
      configError(() => loadConfig(env({ API_KEY_RATE_LIMIT_PER_MINUTE: '0' }), { demo: false }))
        .variable,
    ).toBe('API_KEY_RATE_LIMIT_PER_MINUTE');
    expect(
      configError(() => loadConfig(env({ API_KEY_RATE_LIMIT_PER_MINUTE: 'many' }), { demo: false }))
        .variable,
    ).toBe('API_KEY_RATE_LIMIT_PER_MINUTE');
  });
});

describe('loadConfig in production', () => {
  const production = { NODE_ENV: 'production', DATA_DIR: '' };

  it('requires PLATFORM_SECRET', () => {
    const dir = join(dataDir, 'prod-no-secret');
    const error = configError(() =>
      loadConfig({ ...production, DATA_DIR: dir, ADMIN_PASSWORD: 'long enough' }, { demo: false }),
    );
    expect(error.variable).toBe('PLATFORM_SECRET');
    expect(error.message).toBe('PLATFORM_SECRET: is required when NODE_ENV=production');
    // Nothing is generated in production.
    expect(existsSync(join(dir, 'platform-secret'))).toBe(false);
  });

  it('requires ADMIN_PASSWORD', () => {
    const error = configError(() =>
      loadConfig({ ...production, DATA_DIR: dataDir, PLATFORM_SECRET: SECRET }, { demo: false }),
    );
    expect(error.variable).toBe('ADMIN_PASSWORD');
    expect(error.message).toBe('ADMIN_PASSWORD: is required when NODE_ENV=production');
  });

  it('starts with both', () => {
    const config = loadConfig(
      { ...production, DATA_DIR: dataDir, PLATFORM_SECRET: SECRET, ADMIN_PASSWORD: 'long enough' },
      { demo: false },
    );
    expect(config.production).toBe(true);
    expect(config.platformSecretSource).toBe('env');
    expect(config.adminPassword).toBe('long enough');
    expect(config.operations.logLevel).toBe('info');
  });
});

describe('operations', () => {
  it('reads rate limits, proxies, the metrics token, the shutdown deadline and the log level', () => {
    const config = loadConfig(
      env({
        ANONYMOUS_RATE_LIMIT_PER_MINUTE: '20',
        TRUST_PROXY: '2',
        METRICS_TOKEN: 'a-metrics-token-16',
        SHUTDOWN_TIMEOUT_MS: '500',
        LOG_LEVEL: 'debug',
      }),
      { demo: false },
    );
    expect(config.operations).toEqual({
      anonymousRateLimitPerMinute: 20,
      trustProxyHops: 2,
      metricsToken: 'a-metrics-token-16',
      shutdownTimeoutMs: 500,
      logLevel: 'debug',
      appUserRateLimitPerMinute: 600,
    });
  });

  it('names the variable that cannot be used', () => {
    const variableOf = (vars: Record<string, string>) =>
      configError(() => loadConfig(env(vars), { demo: false })).variable;
    expect(variableOf({ METRICS_TOKEN: 'short' })).toBe('METRICS_TOKEN');
    expect(variableOf({ METRICS_TOKEN: 'has a space in it, long' })).toBe('METRICS_TOKEN');
    expect(variableOf({ LOG_LEVEL: 'loud' })).toBe('LOG_LEVEL');
    expect(variableOf({ TRUST_PROXY: 'true' })).toBe('TRUST_PROXY');
    expect(variableOf({ ANONYMOUS_RATE_LIMIT_PER_MINUTE: '0' })).toBe(
      'ANONYMOUS_RATE_LIMIT_PER_MINUTE',
    );
  });
});

describe('request and datasource limits', () => {
  it('reads each ceiling from its variable', () => {
    const config = loadConfig(
      env({ LIMIT_ROWS: '500', STATEMENT_TIMEOUT_MS: '250', LIMIT_IN_LIST: '7' }),
      { demo: false },
    );
    expect(config.limits.rows).toBe(500);
    expect(config.limits.inList).toBe(7);
    expect(config.datasources.statementTimeoutMs).toBe(250);
  });

  it('names the variable of a ceiling that is not a whole number in range', () => {
    expect(configError(() => loadConfig(env({ LIMIT_ROWS: '0' }), { demo: false })).variable).toBe(
      'LIMIT_ROWS',
    );
    expect(
      configError(() => loadConfig(env({ STATEMENT_TIMEOUT_MS: '5s' }), { demo: false })).variable,
    ).toBe('STATEMENT_TIMEOUT_MS');
  });
});
