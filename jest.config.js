/**
 * Projects: `unit` (pure functions, *.spec.ts next to the code), and `e2e` and `e2e-variables` (the
 * Nest app over HTTP against real PostgreSQL, MariaDB, SQLite and Redis; test/e2e/*.e2e-spec.ts),
 * the same suites with GraphQL arguments sent as written and as variables (E2E_FORMS below).
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
// The e2e suites run twice (issue 21): GraphQL arguments as the tests wrote them (`e2e`), and as
// declared variables with JSON values, as Apollo Client, urql and codegen clients send them
// (`e2e-variables`). GRAPHQL_FORM=literal|variables runs one form only.
const E2E_FORMS = process.env.GRAPHQL_FORM ? [process.env.GRAPHQL_FORM] : ['literal', 'variables'];
if (!E2E_FORMS.every((form) => form === 'literal' || form === 'variables')) {
  throw new Error(`GRAPHQL_FORM must be literal or variables, not ${process.env.GRAPHQL_FORM}`);
}
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
      roots: ['<rootDir>/src', '<rootDir>/test/support'],
      testMatch: ['**/*.spec.ts'],
      transform,
      transformIgnorePatterns,
    },
    ...E2E_FORMS.map((form) => ({
      displayName: form === 'literal' ? 'e2e' : `e2e-${form}`,
      testEnvironment: 'node',
      roots: ['<rootDir>/test/e2e'],
      testMatch: ['**/*.e2e-spec.ts'],
      // Read by test/support/graphql-form.ts: how the harness sends GraphQL arguments.
      globals: { GRAPHQL_FORM: form },
      transform,
      transformIgnorePatterns,
    })),
  ],
};
