/**
 * Addresses of the real services the e2e suites use (DESIGN.md "Tests"), overridable by
 * TEST_POSTGRES_URL, TEST_MYSQL_URL, TEST_REDIS_URL, TEST_MSSQL_URL.
 */
export const SERVICE_URLS = {
  postgres: process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  mysql: process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test',
  redis: process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379',
  mssql: process.env.TEST_MSSQL_URL || '',
};

export type ServiceName = keyof typeof SERVICE_URLS;

/** Services the global setup found reachable (set in `TG_TEST_SERVICES`). */
export function serviceAvailable(name: ServiceName): boolean {
  return (process.env.TG_TEST_SERVICES ?? '').split(',').includes(name);
}

/**
 * `describe` when the service answers, else `describe.skip` (the global setup already printed
 * why, and under CI=true it failed the run instead).
 */
export function describeWith(name: ServiceName): jest.Describe {
  return serviceAvailable(name) ? describe : describe.skip;
}
