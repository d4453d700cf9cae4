/**
 * The client side of a statement deadline, shared by the pools whose server enforces the deadline
 * itself (PostgreSQL `statement_timeout`, MySQL/MariaDB `max_statement_time`/`MAX_EXECUTION_TIME`):
 * the server's error cannot arrive over a connection that went silent (pg #3399, #909), so the
 * client stops waiting a little after the deadline and gives the connection up.
 */

/** TCP keep-alive probes start after this long idle, so a peer that vanished is found (pg #909). */
export const KEEP_ALIVE_INITIAL_DELAY_MS = 10_000;

/**
 * How long the client waits for a statement: the statement deadline, then a quarter second (a
 * tenth of the deadline when that is longer, at most a second) for the server's own timeout error
 * to arrive. Past it the connection is taken for silent and given up.
 * @param statementTimeoutMs the statement deadline (`STATEMENT_TIMEOUT_MS`), in ms.
 * @returns the client's deadline, in ms.
 */
export function clientDeadlineMs(statementTimeoutMs: number): number {
  return statementTimeoutMs + Math.min(1_000, Math.max(250, Math.round(statementTimeoutMs / 10)));
}

/** A statement still unanswered at {@link clientDeadlineMs}: its connection went silent. */
export class ClientDeadlineExceeded extends Error {
  constructor(ms: number) {
    super(`No answer from the server within ${ms} ms`);
    this.name = 'ClientDeadlineExceeded';
  }
}
