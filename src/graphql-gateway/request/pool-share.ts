import pLimit from 'p-limit';

/**
 * How many statements one request may run on one datasource at a time: a quarter of the pool,
 * at least one (CONTRACT.md §6 Limits: "one request runs at most a quarter of its datasource's
 * pool at a time, so 100 aliases stay allowed without starving other callers").
 * @param poolSize the datasource's connections (`DATASOURCE_POOL_SIZE`).
 */
export function statementsAtOnce(poolSize: number): number {
  return Math.max(1, Math.floor(poolSize / 4));
}

/**
 * Wraps one request's statement runner for one datasource so that at most
 * {@link statementsAtOnce} of its statements hold a connection at a time; the others wait in the
 * request's own queue (never the pool's, where they would delay other callers). A failed or
 * cancelled statement frees its place. `p-limit` 3 (CommonJS) keeps the queue: see
 * docs/dependencies.md.
 *
 * A request of one statement (one root field without navigations: `countStatements`) never runs
 * two at once, whatever its size (a root field is one statement, a mutation's are sequential), so
 * it gets `run` itself: the queue cost ~0.07 ms of CPU per request on the bench's Q1 (0.47 against
 * 0.40 ms, median of 3 rounds, twice).
 * @param statements the request's statements from the cost check (`RequestCost.statements`).
 * @param run runs one statement (a transaction counts as one: it holds one connection).
 */
export function shareOfPool<A extends unknown[], T>(
  poolSize: number,
  statements: number,
  run: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
  if (statements <= 1) return run;
  const limit = pLimit(statementsAtOnce(poolSize));
  return (...args: A) => limit(() => run(...args));
}
