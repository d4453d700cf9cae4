import { connectFailureOf } from './connect-failures';
import { DatasourceErrors } from './datasources.errors';

/** Errors shaped as the drivers give them (node-postgres, mysql2, mssql/tedious, Node's net). */
const network = (code: string) =>
  Object.assign(new Error(`connect ${code} 10.0.0.5:5432`), { code });
const postgres = (code: string, message: string) => Object.assign(new Error(message), { code });
const mysql = (errno: number, message: string) =>
  Object.assign(new Error(message), { errno, code: 'ER_X', sqlState: '28000' });

describe('connectFailureOf (issue 22 item 9)', () => {
  it.each([
    ['a closed port', network('ECONNREFUSED')],
    ['a silent port', new Error('Connection terminated due to connection timeout')],
    ['an HTTP server', new Error('Connection terminated unexpectedly')],
    ['a MariaDB server', new Error('Received unexpected copyData message from backend.')],
    ['an unknown host', network('ENOTFOUND')],
    ['a server refusing more connections', postgres('53300', 'too many clients already')],
    ['a server starting up', postgres('57P03', 'the database system is starting up')],
    [
      'a TLS failure',
      Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
    ],
    ['the deadline of the service', new Error('The connection did not open within 7000 ms')],
  ])('postgres: %s is unreachable', (_, error) => {
    expect(connectFailureOf('postgres', error)).toBe('unreachable');
  });

  it('postgres: a refused login (class 28, no CONNECT right) and a missing database', () => {
    expect(connectFailureOf('postgres', postgres('28P01', 'password authentication failed'))).toBe(
      'login',
    );
    expect(connectFailureOf('postgres', postgres('28000', 'role "u" does not exist'))).toBe(
      'login',
    );
    expect(connectFailureOf('postgres', postgres('42501', 'permission denied for database'))).toBe(
      'login',
    );
    expect(connectFailureOf('postgres', postgres('3D000', 'database "x" does not exist'))).toBe(
      'database',
    );
  });

  it('mysql: server error numbers only; a network error with an errno is unreachable', () => {
    expect(connectFailureOf('mysql', mysql(1045, 'Access denied for user'))).toBe('login');
    expect(connectFailureOf('mysql', mysql(1044, 'Access denied for user to database'))).toBe(
      'login',
    );
    expect(connectFailureOf('mysql', mysql(1049, "Unknown database 'x'"))).toBe('database');
    expect(connectFailureOf('mysql', mysql(1040, 'Too many connections'))).toBe('unreachable');
    // Node's network errors carry a (negative) errno but no SQL state.
    expect(connectFailureOf('mysql', Object.assign(network('ECONNREFUSED'), { errno: -111 }))).toBe(
      'unreachable',
    );
    expect(
      connectFailureOf(
        'mysql',
        Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }),
      ),
    ).toBe('unreachable');
  });

  it('mssql: ELOGIN is the login, anything else unreachable', () => {
    expect(
      connectFailureOf('mssql', Object.assign(new Error('Login failed'), { code: 'ELOGIN' })),
    ).toBe('login');
    expect(connectFailureOf('mssql', Object.assign(new Error('x'), { code: 'ESOCKET' }))).toBe(
      'unreachable',
    );
    expect(connectFailureOf('mssql', undefined)).toBe('unreachable');
  });

  it('one message per kind and type, never a driver word', () => {
    const unreachable = DatasourceErrors.connectFailed('postgres', 'unreachable');
    expect(unreachable.code).toBe('DATASOURCE_UNREACHABLE');
    expect(unreachable.message).toBe(
      'Could not connect to the datasource: no PostgreSQL server accepted the connection at that ' +
        'host and port: it may be down, unreachable from the service, slow to answer or not a ' +
        'PostgreSQL server; check the host, the port and the TLS setting',
    );
    expect(DatasourceErrors.connectFailed('mysql', 'login').message).toMatch(
      /^Could not connect to the datasource: the MySQL\/MariaDB server refused the login/,
    );
    expect(DatasourceErrors.connectFailed('postgres', 'database').message).toMatch(
      /has no database of that name; check the database in the URL$/,
    );
  });
});
