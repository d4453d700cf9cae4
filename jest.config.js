/**
 * Two projects: `unit` (pure functions, *.spec.ts next to the code) and `e2e` (the Nest app over
 * HTTP against real PostgreSQL, SQLite and, where configured, Redis; test/e2e/*.e2e-spec.ts).
 * ts-jest runs in transpile-only mode (isolatedModules) so the suite does not type-check twice;
 * `npm run typecheck` does that.
 */
const tsJest = ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.json' }];
// NestJS 12 and a few other dependencies ship as ES modules only. Node 20.19 `require`s them
// natively, but Jest's module runtime cannot before Node 24.9, so Jest (only) compiles them to
// CommonJS with Babel; the service itself runs them unchanged.
const ESM_PACKAGES = ['@nestjs', 'lru-cache', 'file-type', 'strtok3', 'token-types', 'peek-readable', 'uint8array-extras', '@tokenizer', 'load-esm'];
const esmToCjs = [
  'babel-jest',
  { babelrc: false, configFile: false, plugins: [require.resolve('./test/support/babel-esm-require.js'), 'babel-plugin-transform-import-meta', '@babel/plugin-transform-dynamic-import', '@babel/plugin-transform-modules-commonjs'] },
];
const transform = {
  '^.+\\.ts$': tsJest,
  [`node_modules/(${ESM_PACKAGES.join('|')})/.+\\.m?js$`]: esmToCjs,
};
const transformIgnorePatterns = [`node_modules/(?!(${ESM_PACKAGES.join('|')})/)`];
module.exports = {
  testTimeout: 60000,
  // Probes PostgreSQL, MariaDB and Redis once; see test/support/global-setup.ts.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  transform,
  transformIgnorePatterns,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/src'],
      testMatch: ['**/*.spec.ts'],
      transform,
      transformIgnorePatterns,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/e2e'],
      testMatch: ['**/*.e2e-spec.ts'],
      transform,
      transformIgnorePatterns,
    },
  ],
};
