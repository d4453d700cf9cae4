import type { DatasourceType } from './core/dialect';

/*
 * Why a datasource connection could not be opened, in the three answers a builder gets
 * (issue 22, item 9). The driver's own words would tell a closed port (`ECONNREFUSED`) from a
 * silent one (a timeout), an HTTP server (`Connection terminated unexpectedly`), another database
 * (`Received unexpected copyData message`) and a PostgreSQL server (`role … does not exist`):
 * registration would be a port scanner of the service's network. So every network, TLS and
 * protocol failure is one answer, `unreachable`; only what a server of the type the builder named
 * says after it answered the protocol (the login refused, no such database) is told apart, as
 * CONTRACT.md §3 asks for "the driver's reason" and the builder must know which part of the URL to
 * fix. A successful registration tells as much (a server of that type is there), and these two
 * are read only from the server's own error codes, never from its text.
 */

/** `login`: the server refused the user or password; `database`: it has no such database. */
export type ConnectFailure = 'login' | 'database' | 'unreachable';

/**
 * PostgreSQL SQLSTATEs of a refused login (PostgreSQL docs, Appendix A): class 28
 * (`invalid_authorization_specification`, `invalid_password`: a wrong password, an unknown role,
 * no `pg_hba.conf` entry) and 42501 (`insufficient_privilege`: no CONNECT right on the database).
 */
const POSTGRES_LOGIN = /^(28[0-9A-Z]{3}|42501)$/;
/** SQLSTATE 3D000 `invalid_catalog_name`: the database does not exist (checked after the login). */
const POSTGRES_NO_DATABASE = '3D000';

/**
 * MySQL/MariaDB server error numbers of a refused login (MySQL "Server Error Message Reference"):
 * 1044 ER_DBACCESS_DENIED_ERROR, 1045 ER_ACCESS_DENIED_ERROR, 1130 ER_HOST_NOT_PRIVILEGED,
 * 1251 ER_NOT_SUPPORTED_AUTH_MODE, 1698 ER_ACCESS_DENIED_NO_PASSWORD_ERROR.
 */
const MYSQL_LOGIN = new Set([1044, 1045, 1130, 1251, 1698]);
/** 1049 ER_BAD_DB_ERROR: unknown database. */
const MYSQL_NO_DATABASE = 1049;

/**
 * The answer a failed connection attempt gets: `login` or `database` only from the server's own
 * error code (PostgreSQL SQLSTATE, MySQL/MariaDB error number, SQL Server's `ELOGIN`, which the
 * mssql driver gives a failed login and a database the login cannot open alike), `unreachable`
 * for everything else (refused, reset, timed out, DNS, TLS, another protocol, a server busy or
 * starting). SQLite opens a confined file, not a network address: its failures are not judged here.
 */
export function connectFailureOf(type: DatasourceType, error: unknown): ConnectFailure {
  const e = (error ?? {}) as { code?: unknown; errno?: unknown; sqlState?: unknown };
  switch (type) {
    case 'postgres':
      if (typeof e.code !== 'string') return 'unreachable';
      if (e.code === POSTGRES_NO_DATABASE) return 'database';
      return POSTGRES_LOGIN.test(e.code) ? 'login' : 'unreachable';
    case 'mysql':
      // mysql2 gives a server's error packet its number; a network error has only a `code`.
      if (typeof e.errno !== 'number' || typeof e.sqlState !== 'string') return 'unreachable';
      if (e.errno === MYSQL_NO_DATABASE) return 'database';
      return MYSQL_LOGIN.has(e.errno) ? 'login' : 'unreachable';
    case 'mssql':
      return e.code === 'ELOGIN' ? 'login' : 'unreachable';
    default:
      return 'unreachable';
  }
}
