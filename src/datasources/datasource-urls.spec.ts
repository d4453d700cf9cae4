import { postgresClientConfig } from './datasource-urls';

/** PostgreSQL datasource URLs are allow-listed (CONTRACT.md §8): no files, no sockets. */
describe('postgresClientConfig', () => {
  it('builds the client settings field by field', () => {
    expect(
      postgresClientConfig('postgres://ana:p%40ss@db.example.com:6543/shop?sslmode=verify-full'),
    ).toEqual({
      host: 'db.example.com',
      port: 6543,
      user: 'ana',
      password: 'p@ss',
      database: 'shop',
      ssl: { rejectUnauthorized: true, servername: 'db.example.com' },
    });
    expect(postgresClientConfig('postgresql://u@127.0.0.1/db').ssl).toBe(false);
    expect(postgresClientConfig('postgres://u@h/db?sslmode=require').ssl).toEqual({
      rejectUnauthorized: false,
    });
  });

  it.each([
    ['sslrootcert=/dev/zero', 'sslrootcert'],
    ['sslcert=/etc/passwd', 'sslcert'],
    ['sslkey=/etc/shadow', 'sslkey'],
    ['host=/var/run/postgresql', 'host'],
    ['options=-c%20statement_timeout%3D0', 'options'],
  ])('refuses the parameter in ?%s, naming it and the allowed ones', (query, name) => {
    expect(() => postgresClientConfig(`postgres://u@h/db?${query}`)).toThrow(
      new RegExp(`"${name}".*allowed parameters: sslmode, application_name, connect_timeout`),
    );
  });

  it('refuses socket paths, host lists and odd sslmodes', () => {
    expect(() => postgresClientConfig('postgres://u@%2Fvar%2Frun%2Fpostgresql/db')).toThrow(
      /network host/,
    );
    expect(() => postgresClientConfig('postgres://u@a,b/db')).toThrow(/network host/);
    expect(() => postgresClientConfig('postgres://u@h/db?sslmode=verify-ca')).toThrow(/sslmode/);
    expect(() => postgresClientConfig('mysql://u@h/db')).toThrow(/postgres:\/\//);
    expect(() => postgresClientConfig('postgres://u@h/')).toThrow(/one database/);
  });
});
