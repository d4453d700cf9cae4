import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DomainError } from '../common/domain-error';
import { describeWith, SERVICE_URLS } from '../../test/support/services';
import {
  checkDatasourceUrl,
  confineSqliteUrl,
  ensureSqliteAppFolder,
  parseMssqlUrlParts,
  parseMysqlUrl,
  parsePostgresUrl,
  parseSqliteUrl,
  postgresClientConfig,
  redactUrl,
  storedSqliteUrl,
  postgresTls,
} from './datasource-urls';
import { PostgresDialect } from './postgres/dialect';

/** The refusal `run` throws: an INVALID_INPUT DomainError. */
function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('INVALID_INPUT');
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('PostgreSQL URLs', () => {
  it('reads host, port, user, password, database, sslmode and application_name', () => {
    expect(
      parsePostgresUrl(
        'postgresql://app:p%40ss@db.example.com:6543/shop?sslmode=verify-full&application_name=reports',
      ),
    ).toEqual({
      host: 'db.example.com',
      port: 6543,
      user: 'app',
      password: 'p@ss',
      database: 'shop',
      sslMode: 'verify-full',
      applicationName: 'reports',
      connectTimeoutSeconds: undefined,
    });
  });

  it('defaults: port 5432, database = user, sslmode disable, application_name tablegraph, empty password', () => {
    expect(parsePostgresUrl('postgres://me@[::1]')).toEqual({
      host: '::1',
      port: 5432,
      user: 'me',
      password: '',
      database: 'me',
      sslMode: 'disable',
      applicationName: 'tablegraph',
      connectTimeoutSeconds: undefined,
    });
  });

  it('hands pg explicit options only: no connection string, a password function, TLS built here', () => {
    const options = postgresClientConfig('postgres://u@h/db?sslmode=require&connect_timeout=7');
    expect(Object.keys(options).sort()).toEqual([
      'application_name',
      'connectionTimeoutMillis',
      'database',
      'host',
      'password',
      'port',
      'ssl',
      'user',
    ]);
    expect(options.connectionTimeoutMillis).toBe(7000);
    // A function, so pg never falls back to PGPASSWORD or the service's ~/.pgpass.
    expect(options.password()).toBe('');
    expect(options.ssl).toEqual({ rejectUnauthorized: false });
  });

  it('builds TLS per sslmode without any file', () => {
    expect(postgresTls('disable')).toBe(false);
    expect(postgresTls('prefer')).toEqual({ rejectUnauthorized: false });
    expect(postgresTls('require')).toEqual({ rejectUnauthorized: false });
    expect(postgresTls('verify-full')).toEqual({ rejectUnauthorized: true });
  });

  it.each([
    ['sslrootcert', '/dev/zero'],
    ['sslcert', '/etc/passwd'],
    ['sslkey', '/etc/shadow'],
    ['sslcrl', '/tmp/x'],
    ['sslpassword', 'x'],
    ['passfile', '/root/.pgpass'],
    ['host', '/var/run/postgresql'],
    ['hostaddr', '10.0.0.1'],
    ['port', '5433'],
    ['options', '-c statement_timeout=0'],
    ['service', 'prod'],
    ['target_session_attrs', 'any'],
    ['keepalives', '1'],
    ['ssl', 'true'],
    ['SSLMODE', 'allow'],
  ])('refuses the parameter %s, naming it and listing the accepted ones', (name, value) => {
    const error = refusal(() =>
      parsePostgresUrl(`postgres://u:secretpw@h/db?${name}=${encodeURIComponent(value)}`),
    );
    expect(error.message).toContain(
      `Unknown postgres datasource URL parameter "${name}"; accepted: sslmode, application_name, connect_timeout`,
    );
    expect(error.message).not.toContain(value);
    expect(error.message).not.toContain('secretpw');
  });

  it.each([
    ['a percent-encoded socket path', 'postgres://u@%2Fvar%2Frun%2Fpostgresql/db', /socket paths/],
    ['a lower-case encoded socket path', 'postgres://u@%2ftmp/db', /socket paths/],
    ['no host (libpq would use the default socket)', 'postgres://u@/db', /postgres:\/\/user/],
    ['no host at all', 'postgres:///db', /names no host/],
    ['several hosts', 'postgres://u@a,b/db', /several hosts/],
    ['several hosts with ports', 'postgres://u@a:5432,b:5432/db', /postgres:\/\/user/],
  ])('refuses %s', (_, url, message) => {
    const error = refusal(() => parsePostgresUrl(url));
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/\/var\/run|\/tmp/);
  });

  it.each([
    ['sslmode=verify-ca', /"sslmode" takes disable, prefer, require, verify-full/],
    ['sslmode=allow', /"sslmode" takes/],
    ['sslmode=disable&sslmode=require', /"sslmode" more than once/],
    ['application_name=%0Aevil', /"application_name" takes/],
    ['connect_timeout=0', /"connect_timeout" takes whole seconds, 1 to 999/],
    ['connect_timeout=1000', /"connect_timeout" takes whole seconds/],
  ])('refuses %s', (query, message) => {
    expect(refusal(() => parsePostgresUrl(`postgres://u@h/db?${query}`)).message).toMatch(message);
  });

  it.each([
    'mysql://u@h/db',
    'postgres://h/db',
    'postgres://u@h/db/more',
    'postgres://u@h/db#frag',
    'not a url',
  ])('refuses %s', (url) => {
    refusal(() => parsePostgresUrl(url));
  });
});

describeWith('postgres')('PostgreSQL URLs on a real server', () => {
  it('opens with sslmode=disable and application_name, as the URL says', async () => {
    const url = new URL(SERVICE_URLS.postgres);
    url.search = '?sslmode=disable&application_name=tg-url-spec';
    const pool = await new PostgresDialect().open(url.toString(), {
      poolSize: 1,
      statementTimeoutMs: 5000,
      acquireTimeoutMs: 5000,
    });
    try {
      const { rows } = await pool.run({
        sql: `SELECT current_setting('application_name') AS name, current_user AS "user"`,
        params: [],
      });
      expect(rows[0]).toEqual({ name: 'tg-url-spec', user: url.username });
    } finally {
      await pool.close();
    }
  });

  it('the same URL with sslrootcert never reaches pg', () => {
    const url = new URL(SERVICE_URLS.postgres);
    url.search = '?sslrootcert=/dev/zero';
    const error = refusal(() => new PostgresDialect().clientConfig(url.toString()));
    expect(error.message).toMatch(/"sslrootcert"/);
  });

  it('pg itself still reads the file when given the connection string (why we never do)', async () => {
    const url = new URL(SERVICE_URLS.postgres);
    url.search = '?sslrootcert=/no/such/tg-file.pem';
    // pg-connection-string reads sslrootcert synchronously while building the client.
    expect(() => new Client({ connectionString: url.toString() })).toThrow(/ENOENT/);
  });
});

describe('MySQL URLs', () => {
  it('reads host, port, credentials, database and ssl', () => {
    expect(parseMysqlUrl('mariadb://root:p%40ss@[::1]:3307/x?ssl=true')).toEqual({
      host: '::1',
      port: 3307,
      user: 'root',
      password: 'p@ss',
      database: 'x',
      ssl: true,
    });
  });

  it.each([
    'socketPath',
    'localInfile',
    'infileStreamFactory',
    'flags',
    'multipleStatements',
    'dateStrings',
    'sslca',
  ])('refuses the parameter %s, naming it and listing ssl', (name) => {
    const error = refusal(() => parseMysqlUrl(`mysql://u:secretpw@h/db?${name}=%2Ftmp%2Fx`));
    expect(error.message).toContain(
      `Unknown mysql datasource URL parameter "${name}"; accepted: ssl`,
    );
    expect(error.message).not.toContain('/tmp');
    expect(error.message).not.toContain('secretpw');
  });

  it.each([
    ['a socket path as host', 'mysql://u@%2Ftmp%2Fmysql.sock/db', /socket paths/],
    ['several hosts', 'mysql://u@a,b/db', /several hosts/],
    ['an ssl profile name', 'mysql://u@h/db?ssl=Amazon%20RDS', /"ssl" takes true or false/],
    ['no database', 'mysql://u@h/', /name the database/],
  ])('refuses %s', (_, url, message) => {
    expect(refusal(() => parseMysqlUrl(url)).message).toMatch(message);
  });
});

describe('SQL Server URLs', () => {
  it('reads the parts; parameter names ignore case', () => {
    expect(
      parseMssqlUrlParts(
        'sqlserver://sa:pw@db.example.com/shop?ENCRYPT=no&instancename=SQLEXPRESS&connectTimeout=2500',
      ),
    ).toEqual({
      server: 'db.example.com',
      port: 1433,
      user: 'sa',
      password: 'pw',
      database: 'shop',
      encrypt: false,
      trustServerCertificate: undefined,
      instanceName: 'SQLEXPRESS',
      connectTimeout: 2500,
      requestTimeout: undefined,
    });
  });

  it.each([
    [
      'an unknown parameter',
      'mssql://u@h/db?domain=CORP',
      /"domain"; accepted: encrypt, trustServerCertificate, instanceName, connectTimeout, requestTimeout/,
    ],
    ['a socket path as host', 'mssql://u@%2Ftmp%2Fx/db', /socket paths/],
    ['several hosts', 'mssql://u@a,b/db', /several hosts/],
    [
      'an instance name that is a path',
      'mssql://u@h/db?instanceName=..%2Fx',
      /"instanceName" takes/,
    ],
  ])('refuses %s', (_, url, message) => {
    expect(refusal(() => parseMssqlUrlParts(url)).message).toMatch(message);
  });
});

describe('SQLite URLs (text rules)', () => {
  it.each([
    ['sqlite:sales.db', 'sales.db'],
    ['sqlite:2024/sales-v2.sqlite', '2024/sales-v2.sqlite'],
  ])('%s names %s', (url, file) => {
    expect(parseSqliteUrl(url)).toBe(file);
  });

  it.each([
    ['sqlite:/etc/passwd', /not an absolute path/],
    ['sqlite:\\\\server\\share.db', /not an absolute path/],
    ['sqlite:C:/x.db', /not an absolute path/],
    ['sqlite:../other-app/sales.db', /may not contain "\.\."/],
    ['sqlite:sub/../../x.db', /may not contain "\.\."/],
    ['sqlite:.hidden.db', /not starting with "\."/],
    ['sqlite:./sales.db', /not starting with "\."/],
    ['sqlite:a//b.db', /letters, digits/],
    ['sqlite:file:sales.db?mode=ro', /letters, digits/],
    ['sqlite:sales.db?mode=memory', /letters, digits/],
    ['sqlite:', /sqlite:<file>/],
    ['file:sales.db', /sqlite:<file>/],
  ])('refuses %s', (url, message) => {
    expect(refusal(() => parseSqliteUrl(url)).message).toMatch(message);
  });
});

describe('SQLite files confined to the app folder (real files)', () => {
  const APP_A = '11111111-1111-4111-8111-111111111111';
  const APP_B = '22222222-2222-4222-8222-222222222222';
  let base: string;
  let root: string;
  let store: string;

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'tg-urls-'));
    root = join(base, 'datasources');
    store = join(base, 'platform.db');
    writeFileSync(store, 'metadata');
    writeFileSync(join(ensureSqliteAppFolder(root, APP_A), 'sales.db'), '');
    ensureSqliteAppFolder(root, APP_B);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  /** Refuses like `refusal`, and proves the message holds no server path. */
  const refused = (url: string, appId = APP_A) => {
    const error = refusal(() => confineSqliteUrl(url, root, appId));
    expect(error.message).not.toContain(base);
    expect(error.message).not.toContain(tmpdir());
    return error.message;
  };

  it("resolves a file of the app's folder to its real path", () => {
    mkdirSync(join(root, APP_A, '2024'));
    writeFileSync(join(root, APP_A, '2024', 'q1.db'), '');
    expect(confineSqliteUrl('sqlite:sales.db', root, APP_A)).toBe(
      `sqlite:${join(root, APP_A, 'sales.db')}`,
    );
    expect(confineSqliteUrl('sqlite:2024/q1.db', root, APP_A)).toBe(
      `sqlite:${join(root, APP_A, '2024', 'q1.db')}`,
    );
  });

  it('a missing file is named relative to the app folder only', () => {
    expect(refused('sqlite:nope.db')).toBe(
      "No SQLite database file nope.db in this app's datasource folder",
    );
  });

  it("another app's file is not there for app B, and no path reaches it", () => {
    expect(refused('sqlite:sales.db', APP_B)).toBe(
      "No SQLite database file sales.db in this app's datasource folder",
    );
    expect(refused(`sqlite:../${APP_A}/sales.db`, APP_B)).toMatch(/may not contain "\.\."/);
    expect(refused(`sqlite:${join(root, APP_A, 'sales.db')}`, APP_B)).toMatch(
      /not an absolute path/,
    );
  });

  it('refuses the metadata store by absolute path and by ..', () => {
    expect(refused(`sqlite:${store}`)).toMatch(/not an absolute path/);
    expect(refused('sqlite:../../platform.db')).toMatch(/may not contain/);
  });

  it('refuses a symbolic link to the metadata store', () => {
    symlinkSync(store, join(root, APP_A, 'store.db'));
    expect(refused('sqlite:store.db')).toBe(
      "store.db in this app's datasource folder is a symbolic link; SQLite datasources are plain files",
    );
  });

  it("refuses a symbolic link even to a file of the app's own folder", () => {
    symlinkSync(join(root, APP_A, 'sales.db'), join(root, APP_A, 'alias.db'));
    expect(refused('sqlite:alias.db')).toMatch(/alias\.db .* is a symbolic link/);
  });

  it("refuses a symbolic link to another app's file", () => {
    symlinkSync(join(root, APP_A, 'sales.db'), join(root, APP_B, 'sales.db'));
    expect(refused('sqlite:sales.db', APP_B)).toMatch(/is a symbolic link/);
  });

  it('refuses a symlinked subfolder', () => {
    symlinkSync(base, join(root, APP_A, 'up'));
    expect(refused('sqlite:up/platform.db')).toBe(
      "up in this app's datasource folder is a symbolic link; SQLite datasources are plain files",
    );
  });

  it('refuses an app folder that is a symbolic link', () => {
    rmSync(join(root, APP_B), { recursive: true });
    symlinkSync(join(root, APP_A), join(root, APP_B));
    expect(refused('sqlite:sales.db', APP_B)).toMatch(/datasource folder is a symbolic link/);
  });

  it('accepts a root that is itself a symbolic link (the operator chose it)', () => {
    const linkedRoot = join(base, 'linked-root');
    symlinkSync(root, linkedRoot);
    expect(confineSqliteUrl('sqlite:sales.db', linkedRoot, APP_A)).toBe(
      `sqlite:${join(root, APP_A, 'sales.db')}`,
    );
  });

  it('refuses a FIFO and a folder: only regular files', () => {
    execFileSync('mkfifo', [join(root, APP_A, 'pipe.db')]);
    mkdirSync(join(root, APP_A, 'dir.db'));
    expect(refused('sqlite:pipe.db')).toBe(
      "pipe.db in this app's datasource folder is not a regular file",
    );
    expect(refused('sqlite:dir.db')).toBe(
      "dir.db in this app's datasource folder is not a regular file",
    );
    expect(refused('sqlite:sales.db/x.db')).toMatch(/No SQLite database file sales\.db\/x\.db/);
  });

  it('an app whose folder does not exist yet has no files', () => {
    expect(refused('sqlite:sales.db', '33333333-3333-4333-8333-333333333333')).toMatch(
      /No SQLite database file sales\.db/,
    );
  });

  it('refuses an app id that is not a plain id (a bug, never a caller input)', () => {
    expect(() => confineSqliteUrl('sqlite:sales.db', root, '../x')).toThrow(/Not an app id/);
  });
});

describe('storedSqliteUrl', () => {
  it("reads an absolute path inside the app's folder as the relative name it stands for", () => {
    const root = mkdtempSync(join(tmpdir(), 'tg-stored-'));
    try {
      const app = '44444444-4444-4444-8444-444444444444';
      expect(storedSqliteUrl(`sqlite:${join(root, app, 'sales.db')}`, root, app)).toBe(
        'sqlite:sales.db',
      );
      expect(storedSqliteUrl(`sqlite:${join(root, app, '2024', 'q1.db')}`, root, app)).toBe(
        'sqlite:2024/q1.db',
      );
      // Anything else stays as it is, and confineSqliteUrl refuses it when it is opened.
      expect(storedSqliteUrl(`sqlite:${join(root, 'sales.db')}`, root, app)).toBe(
        `sqlite:${join(root, 'sales.db')}`,
      );
      expect(storedSqliteUrl('sqlite:sales.db', root, app)).toBe('sqlite:sales.db');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('checkDatasourceUrl', () => {
  it('applies each type’s rules and refuses unknown types', () => {
    expect(() => checkDatasourceUrl('postgres', 'postgres://u@h/db?sslmode=disable')).not.toThrow();
    expect(() => checkDatasourceUrl('mysql', 'mysql://u@h/db')).not.toThrow();
    expect(() => checkDatasourceUrl('mssql', 'mssql://u@h/db')).not.toThrow();
    expect(() => checkDatasourceUrl('sqlite', 'sqlite:a.db')).not.toThrow();
    expect(
      refusal(() => checkDatasourceUrl('postgres', 'postgres://u@h/db?sslcert=x')).message,
    ).toMatch(/"sslcert"/);
    expect(refusal(() => checkDatasourceUrl('oracle', 'x')).message).toMatch(
      /"oracle" is not supported/,
    );
  });
});

describe("redactUrl (issue 22 item 9: by the URL's parts, never inside words)", () => {
  it('leaves words that contain the password alone', () => {
    const url = 'postgres://bob:p@db.example.com:5432/shop';
    expect(redactUrl('Connection terminated unexpectedly', url)).toBe(
      'Connection terminated unexpectedly',
    );
    expect(redactUrl('Received unexpected copyData message from backend.', url)).toBe(
      'Received unexpected copyData message from backend.',
    );
    // A one-digit password leaves addresses and numbers as they are.
    expect(redactUrl('connect ECONNREFUSED 127.0.0.1:5432', 'postgres://bob:1@127.0.0.1/x')).toBe(
      'connect ECONNREFUSED 127.0.0.1:5432',
    );
  });

  it('replaces the URL itself, as written and percent-decoded', () => {
    const url = 'postgres://bob:s%40cret@db.example.com:5432/shop';
    expect(redactUrl(`cannot open ${url} now`, url)).toBe('cannot open <datasource url> now');
    expect(redactUrl('cannot open postgres://bob:s@cret@db.example.com:5432/shop', url)).toBe(
      'cannot open <datasource url>',
    );
  });

  it('removes the user information of any URL-looking text, whatever its host', () => {
    const url = 'postgres://bob:hunter2@db.example.com/shop';
    expect(redactUrl('redirected to postgresql://bob:hunter2@10.0.0.5:5433/other?x=1', url)).toBe(
      'redirected to postgresql://***@10.0.0.5:5433/other?x=1',
    );
    // A password with a raw @, as a driver may print it once decoded.
    expect(redactUrl('see mysql://root:a@b@host/db', url)).toBe('see mysql://***@host/db');
  });

  it('replaces the password where it stands as a whole token', () => {
    const url = 'mysql://app:Tr0ub4dor@db/shop';
    expect(redactUrl('password "Tr0ub4dor" is wrong', url)).toBe('password "***" is wrong');
    expect(redactUrl('password=Tr0ub4dor, user=app', url)).toBe('password=***, user=app');
    expect(redactUrl('it was Tr0ub4dor.', url)).toBe('it was ***.');
    // Inside a longer token it is part of something else.
    expect(redactUrl('xTr0ub4dorx', url)).toBe('xTr0ub4dorx');
  });

  it('treats the password as text, not as a pattern', () => {
    const url = 'postgres://bob:a.%2B*@db/shop';
    expect(redactUrl("password 'a.+*' and 'abbb'", url)).toBe("password '***' and 'abbb'");
  });

  it('leaves a message without secrets, and a URL that is no URL, as they are', () => {
    expect(redactUrl('file is not a database', 'sqlite:/srv/data/a.db')).toBe(
      'file is not a database',
    );
    expect(redactUrl('cannot open sqlite:/srv/data/a.db', 'sqlite:/srv/data/a.db')).toBe(
      'cannot open <datasource url>',
    );
  });
});
