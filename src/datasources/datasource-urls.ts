import type { ConnectionOptions } from 'node:tls';
import { invalidInput } from '../common/domain-error';

/**
 * Query parameters a PostgreSQL datasource URL may carry (README "Datasource URLs"). Anything
 * else is refused: `pg`'s own URL parser would read `sslrootcert`/`sslcert`/`sslkey` files or
 * connect to a socket `host`, which a builder must never make the server do (CONTRACT.md §8).
 */
export const POSTGRES_URL_PARAMETERS = ['sslmode', 'application_name', 'connect_timeout'];

/** `sslmode` values accepted, as libpq names them; `verify-full` checks the certificate and host. */
const SSL_MODES = ['disable', 'require', 'verify-full'];

/** What a PostgreSQL datasource URL becomes: `pg` client settings, built field by field. */
export interface PostgresClientConfig {
  host: string;
  port: number;
  user: string;
  password: string | undefined;
  database: string;
  ssl: false | ConnectionOptions;
  application_name?: string;
  connectionTimeoutMillis?: number;
}

/**
 * Parses a `postgres://user:password@host:port/database?sslmode=…` URL into client settings. The
 * host must be a network host name or address (never a socket path), one host only; only the
 * {@link POSTGRES_URL_PARAMETERS} are accepted. TLS options are built here, from the system's
 * certificate authorities; no URL can name a file.
 * @throws DomainError INVALID_INPUT naming what to change (never whether a server file exists).
 */
export function postgresClientConfig(url: string): PostgresClientConfig {
  if (!/^postgres(ql)?:\/\//.test(url))
    throw invalidInput('A postgres datasource URL starts with postgres://');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidInput(
      'The postgres datasource URL is not a valid URL: postgres://user:password@host:5432/database',
    );
  }
  const host = decodeURIComponent(parsed.hostname).replace(/^\[(.*)\]$/, '$1');
  if (!host || /[/\\,]/.test(host)) {
    throw invalidInput(
      'The postgres datasource URL needs one network host name or address (no socket paths, no host lists)',
    );
  }
  const unknown = [...parsed.searchParams.keys()].filter(
    (k) => !POSTGRES_URL_PARAMETERS.includes(k),
  );
  if (unknown.length) {
    throw invalidInput(
      `The postgres datasource URL does not accept ${unknown.map((k) => `"${k}"`).join(', ')}; allowed parameters: ${POSTGRES_URL_PARAMETERS.join(', ')}`,
    );
  }
  const sslmode = parsed.searchParams.get('sslmode') ?? 'disable';
  if (!SSL_MODES.includes(sslmode)) {
    throw invalidInput(`sslmode must be one of ${SSL_MODES.join(', ')}`);
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!database || database.includes('/'))
    throw invalidInput('The postgres datasource URL names one database: postgres://…/database');
  const port = parsed.port ? Number(parsed.port) : 5432;
  const timeout = parsed.searchParams.get('connect_timeout');
  if (timeout !== null && !/^\d{1,3}$/.test(timeout))
    throw invalidInput('connect_timeout is whole seconds, at most 999');
  return {
    host,
    port,
    user: decodeURIComponent(parsed.username) || 'postgres',
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    database,
    ssl:
      sslmode === 'disable'
        ? false
        : sslmode === 'require'
          ? { rejectUnauthorized: false }
          : { rejectUnauthorized: true, servername: host },
    ...(parsed.searchParams.has('application_name')
      ? { application_name: parsed.searchParams.get('application_name')!.slice(0, 63) }
      : {}),
    ...(timeout !== null ? { connectionTimeoutMillis: Number(timeout) * 1000 } : {}),
  };
}
