import type { CompileLimits } from '../../src/graphql-gateway/request/compiled-operation';

/**
 * The per-request ceilings at the contract's defaults (CONTRACT.md §6 Limits; `AppConfig.limits`),
 * as the unit specs of the compiler and the cost check hand them in. Spread and override the one a
 * test is about.
 */
export const CONTRACT_LIMITS: Readonly<CompileLimits> = {
  queryBytes: 100_000,
  queryTokens: 10_000,
  fragmentSpreads: 1_000,
  rows: 100_000,
  statements: 300,
  skip: 100_000,
  inList: 1_000,
  booleanItems: 100,
  scannedRows: 10_000_000,
  relationFilters: 8,
  bulkRows: 1_000,
};
