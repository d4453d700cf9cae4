import pLimit from 'p-limit';
import type { GraphQLFormattedError } from 'graphql';
import type { CompiledQuery, StatementResult } from '../../datasources/core/dialect';
import type { DatasourceConnection } from '../../datasources/datasource-pools.service';
import { RequestRefusal } from './compiled-operation';

/** Runs one statement in the request's transaction. */
export type TransactionRun = (query: CompiledQuery) => Promise<StatementResult>;

/** The code of a mutation field whose writes were rolled back with the request (README "Writing rows"). */
export const ROLLED_BACK = 'ROLLED_BACK';

/**
 * A mutation field not run because an earlier one of the request failed: answered with
 * {@link ROLLED_BACK} (`formatExecutionError`).
 */
export class NotRun extends Error {
  constructor(failed: string) {
    super(`Not run: ${failed} failed, so nothing of this request is written`);
    this.name = 'NotRun';
  }
}

/** Thrown into the pool's transaction to end it with a rollback; never reaches a caller. */
const ROLLBACK = Symbol('rollback');

/**
 * One transaction for every statement of a mutation request on its datasource (issue 24 item 5,
 * README "Writing rows"): opened on the first statement, committed when the whole operation
 * answered without an error, rolled back otherwise, so a request's mutation fields are written
 * together or not at all. Its statements run one at a time, in the order they are asked for (a
 * transaction is one connection: the drivers queue on it, SQL Server's refuses a second request
 * while one runs). Once a mutation field failed ({@link fail}), the later ones are not run.
 */
export class RequestTransaction {
  private opened: Promise<TransactionRun> | null = null;
  private settle: ((commit: boolean) => void) | null = null;
  private finished: Promise<void> | null = null;
  private readonly oneAtATime = pLimit(1);
  private failedField: string | null = null;

  /**
   * The transaction's statement runner on `conn` (the request's only datasource for mutations):
   * `conn.transaction` is entered on the first call and held until {@link end}.
   * @throws what beginning the transaction threw (a pool with no free connection, a server down).
   */
  run(conn: Pick<DatasourceConnection, 'transaction'>): Promise<TransactionRun> {
    if (!this.opened) {
      this.opened = new Promise<TransactionRun>((handOver, refuse) => {
        this.finished = conn
          .transaction(
            (run) =>
              new Promise<void>((commit, rollback) => {
                this.settle = (ok) => (ok ? commit() : rollback(ROLLBACK));
                handOver((query) => this.oneAtATime(() => run(query)));
              }),
          )
          .catch((error: unknown) => {
            if (error !== ROLLBACK) throw error;
          });
        // A transaction that could not begin never handed its runner over.
        this.finished.catch(refuse);
      });
    }
    return this.opened;
  }

  /** Notes that the mutation field `field` (its response key) failed: the later ones are not run. */
  fail(field: string): void {
    this.failedField ??= field;
  }

  /**
   * @throws NotRun when an earlier mutation field of the request failed: this one is not run,
   * since nothing of the request will be written.
   */
  refuseAfterFailure(): void {
    if (this.failedField !== null) throw new NotRun(this.failedField);
  }

  /**
   * Commits (`commit`) or rolls back the transaction, when one was opened, and waits for it. A
   * rollback never throws: whatever failed, nothing was written.
   * @throws what the commit threw (the database refused it, or the connection was lost): then
   * nothing was written.
   */
  async end(commit: boolean): Promise<void> {
    if (!this.opened) return;
    // The runner was handed over (or beginning failed, and `finished` says so below).
    await this.opened.catch(() => undefined);
    this.settle?.(commit);
    // A rollback that failed (the connection was lost, the transaction never began) wrote nothing.
    if (commit) await this.finished;
    else await this.finished?.catch(() => undefined);
  }
}

/**
 * The answer of a mutation request whose transaction rolled back: every root field `null` (so no
 * rolled-back row is ever shown), or `data: null` when a root field is non-null (GraphQL spec
 * "Handling Field Errors": its null propagates to the whole data), the errors that caused it, and
 * for each other root field one {@link ROLLED_BACK} error saying that it was not written.
 * @param roots each root field's response key, and whether its type is non-null.
 */
export function rolledBackAnswer(
  roots: readonly { key: string; nonNull: boolean }[],
  errors: readonly GraphQLFormattedError[],
): { errors: GraphQLFormattedError[]; data: Record<string, null> | null } {
  const answered = new Set(errors.map((e) => e.path?.[0]).filter((k) => k !== undefined));
  const causes = errors.filter((e) => e.extensions?.code !== ROLLED_BACK);
  const cause =
    causes.find((e) => e.path?.[0] !== undefined)?.path?.[0] ?? 'a statement of this request';
  const out = [...errors];
  for (const { key } of roots) {
    if (answered.has(key)) continue;
    out.push({
      message: `Not written: ${cause} failed, and the mutations of one request are written together or not at all`,
      path: [key],
      extensions: { code: ROLLED_BACK },
    });
  }
  const data = roots.some((r) => r.nonNull)
    ? null
    : Object.fromEntries(roots.map((r) => [r.key, null]));
  return { errors: out, data };
}

/**
 * The one datasource the mutation fields of a request write (a request is one transaction, on
 * one database), or null when they write none.
 * @throws RequestRefusal 400 BAD_USER_INPUT when they write to more than one: send them in
 * separate requests.
 */
export function mutationDatasource(
  rootFieldNames: readonly string[],
  datasourceOf: (field: string) => string | undefined,
): string | null {
  const ids = new Map<string, string>();
  for (const name of rootFieldNames) {
    const id = datasourceOf(name);
    if (id !== undefined && !ids.has(id)) ids.set(id, name);
  }
  if (ids.size > 1) {
    const [first, second] = [...ids.values()];
    throw RequestRefusal.of(
      400,
      'BAD_USER_INPUT',
      `${first} and ${second} write to different datasources; a request is one transaction on one database, so send them in separate requests`,
    );
  }
  return ids.keys().next().value ?? null;
}
