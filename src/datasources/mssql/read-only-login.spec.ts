import { EventEmitter } from 'node:events';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { DomainError } from '../../common/domain-error';
import { DatasourcePoolsService } from '../datasource-pools.service';
import { urlWithLogin } from '../datasource-urls';
import { MSSQL_LOGIN_WRITES_SQL, mssqlLoginWrites } from './read-only-login';

/**
 * SQL Server's read-only login (issue 26 item 4, README "Datasources") without a SQL Server (none
 * runs in the suite; a live one only with TEST_MSSQL_URL): the `mssql` driver is replaced by a
 * recorder of which login each connection pool was opened with and which statements ran on it,
 * so the test proves the service's own choice: a query kind's read-only transaction runs on the
 * read-only login's pool, every other statement on the datasource's own, and without a read-only
 * login the read is refused before any connection. What SQL Server answers the login check with
 * is recorded rows below; the statement itself is golden.
 */

const mockLog: string[] = [];

jest.mock('mssql', () => {
  class Request extends EventEmitter {
    stream = false;
    constructor(private readonly user: string) {
      super();
    }
    input(): this {
      return this;
    }
    cancel(): void {}
    query(sql: string): Promise<{ rowsAffected: number[] }> {
      mockLog.push(`${this.user}: ${sql.slice(0, 40)}`);
      this.emit('row', { server: 'sql1', database: 'shop', store_copy: null, who: this.user });
      return Promise.resolve({ rowsAffected: [1] });
    }
  }
  class ConnectionPool {
    readonly user: string;
    constructor(config: { user: string }) {
      this.user = config.user;
      mockLog.push(`open ${config.user}`);
    }
    on(): this {
      return this;
    }
    connect(): Promise<void> {
      return Promise.resolve();
    }
    request(): Request {
      return new Request(this.user);
    }
    close(): Promise<void> {
      mockLog.push(`close ${this.user}`);
      return Promise.resolve();
    }
  }
  class Transaction {
    constructor(private readonly pool: ConnectionPool) {}
    begin(): Promise<void> {
      mockLog.push(`${this.pool.user}: begin`);
      return Promise.resolve();
    }
    request(): Request {
      return new Request(this.pool.user);
    }
    commit(): Promise<void> {
      return Promise.resolve();
    }
    rollback(): Promise<void> {
      mockLog.push(`${this.pool.user}: rollback`);
      return Promise.resolve();
    }
  }
  return { ConnectionPool, Transaction };
});

const URL = 'mssql://owner:owner-pw@127.0.0.1:1433/shop';
const config = {
  datasources: { statementTimeoutMs: 1_000, acquireTimeoutMs: 1_000, poolSize: 4 },
} as AppConfig;
/** An in-memory metadata store: nothing a datasource could reach. */
const metadata = { options: { type: 'better-sqlite3', database: ':memory:' } } as DataSource;

describe('DatasourcePoolsService on SQL Server: which login a query kind reads with', () => {
  let pools: DatasourcePoolsService;
  beforeEach(() => {
    mockLog.splice(0);
    pools = new DatasourcePoolsService(config, metadata);
  });
  afterEach(() => pools.onApplicationShutdown());

  it('refuses a read-only transaction without a read-only login, opening nothing', async () => {
    const conn = pools.connection('ds-1', 'mssql', URL);
    const refusal = await conn
      .readOnly((run) => run({ sql: 'SELECT 1 AS x', params: [] }))
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refusal).toBeInstanceOf(DomainError);
    expect((refusal as DomainError).code).toBe('API_UNAVAILABLE');
    expect((refusal as DomainError).message).toMatch(/has no read-only login/);
    expect(mockLog).toEqual([]);
    // Table APIs and mutation kinds still run, with the datasource's own login.
    const { rows } = await conn.run({ sql: 'SELECT 1 AS x', params: [] });
    expect(rows).toEqual([expect.objectContaining({ who: 'owner' })]);
  });

  it("reads with the read-only login's own pool, and runs everything else with the datasource's", async () => {
    const readOnlyUrl = urlWithLogin('mssql', URL, { user: 'reporter', password: 'r:p@ss/1' });
    const conn = pools.connection('ds-2', 'mssql', URL, readOnlyUrl);
    const read = await conn.readOnly((run) => run({ sql: 'SELECT who', params: [] }));
    expect(read.rows).toEqual([expect.objectContaining({ who: 'reporter' })]);
    const written = await conn.transaction((run) => run({ sql: 'UPDATE t SET a = 1', params: [] }));
    expect(written.affected).toBe(1);
    const plain = await conn.run({ sql: 'SELECT who', params: [] });
    expect(plain.rows).toEqual([expect.objectContaining({ who: 'owner' })]);
    expect(mockLog.filter((l) => l.startsWith('open'))).toEqual(['open reporter', 'open owner']);
    expect(mockLog).toContain('reporter: begin');
    expect(mockLog).toContain('reporter: rollback');
    expect(mockLog).not.toContain('reporter: UPDATE t SET a = 1');
    // Closing the datasource closes both pools.
    await pools.close('ds-2');
    expect(mockLog.filter((l) => l.startsWith('close')).sort()).toEqual([
      'close owner',
      'close reporter',
    ]);
  });
});

describe('urlWithLogin: the datasource URL with another login', () => {
  it("keeps host, port, database and parameters, and encodes the login's characters", () => {
    const url = urlWithLogin(
      'mssql',
      'mssql://owner:owner-pw@db.example.com:1433/shop?encrypt=true&trustServerCertificate=false',
      { user: 'read@er', password: 'p:w/@%#?' },
    );
    const parsed = new globalThis.URL(url);
    expect([parsed.hostname, parsed.port, parsed.pathname, parsed.search]).toEqual([
      'db.example.com',
      '1433',
      '/shop',
      '?encrypt=true&trustServerCertificate=false',
    ]);
    expect(decodeURIComponent(parsed.username)).toBe('read@er');
    expect(decodeURIComponent(parsed.password)).toBe('p:w/@%#?');
  });

  it('refuses SQLite, which has no logins', () => {
    expect(() => urlWithLogin('sqlite', 'sqlite:sales.db', { user: 'a', password: 'b' })).toThrow(
      /SQLite datasource has no logins/,
    );
  });
});

describe('mssqlLoginWrites: what a login may write', () => {
  it('asks the roles and the write permissions of every user table and view (golden)', () => {
    expect(MSSQL_LOGIN_WRITES_SQL).toBe(
      "WITH w AS (SELECT QUOTENAME(SCHEMA_NAME(o.schema_id)) + N'.' + QUOTENAME(o.name) AS [name] " +
        "FROM sys.objects o WHERE o.type IN ('U', 'V') AND o.is_ms_shipped = 0), " +
        "writable AS (SELECT w.[name] FROM w WHERE HAS_PERMS_BY_NAME(w.[name], N'OBJECT', N'INSERT') = 1 " +
        "OR HAS_PERMS_BY_NAME(w.[name], N'OBJECT', N'UPDATE') = 1 " +
        "OR HAS_PERMS_BY_NAME(w.[name], N'OBJECT', N'DELETE') = 1) " +
        "SELECT CAST(ISNULL(IS_SRVROLEMEMBER('sysadmin'), 0) AS INT) AS [sysadmin], " +
        "CAST(ISNULL(IS_ROLEMEMBER('db_owner'), 0) AS INT) AS [db_owner], " +
        "CAST(ISNULL(IS_ROLEMEMBER('db_datawriter'), 0) AS INT) AS [db_datawriter], " +
        '(SELECT COUNT(*) FROM writable) AS [writable], ' +
        "STUFF((SELECT TOP 3 N', ' + x.[name] FROM writable x ORDER BY x.[name] " +
        "FOR XML PATH(''), TYPE).value('.', 'NVARCHAR(MAX)'), 1, 2, N'') AS [examples]",
    );
  });

  const answering = (row: Record<string, unknown>) => () =>
    Promise.resolve({ rows: [row], affected: undefined });

  it('finds nothing for a login of SELECT only', async () => {
    expect(
      await mssqlLoginWrites(
        answering({ sysadmin: 0, db_owner: 0, db_datawriter: 0, writable: 0, examples: null }),
      ),
    ).toEqual([]);
  });

  it('names each role and the tables a writing login may write', async () => {
    expect(
      await mssqlLoginWrites(
        answering({
          sysadmin: 1,
          db_owner: 1,
          db_datawriter: 0,
          writable: 5,
          examples: '[dbo].[customers], [dbo].[order_lines], [dbo].[orders]',
        }),
      ),
    ).toEqual([
      'the login is a member of sysadmin',
      'the login is a member of db_owner',
      'the login may write 5 tables ([dbo].[customers], [dbo].[order_lines], [dbo].[orders], …)',
    ]);
    expect(
      await mssqlLoginWrites(
        answering({
          sysadmin: 0,
          db_owner: 0,
          db_datawriter: 1,
          writable: 1,
          examples: '[dbo].[t]',
        }),
      ),
    ).toEqual([
      'the login is a member of db_datawriter',
      'the login may write 1 table ([dbo].[t])',
    ]);
  });
});
