/**
 * Two projects: `unit` (pure functions, *.spec.ts next to the code) and `e2e` (the Nest app over
 * HTTP against real PostgreSQL, SQLite and, where configured, Redis; test/e2e/*.e2e-spec.ts).
 * ts-jest runs in transpile-only mode (isolatedModules) so the suite does not type-check twice;
 * `npm run typecheck` does that.
 */
const tsJest = ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.json' }];
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/src', '<rootDir>/test/unit'],
      testMatch: ['**/*.spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/e2e'],
      testMatch: ['**/*.e2e-spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
      testTimeout: 60000,
    },
  ],
};
