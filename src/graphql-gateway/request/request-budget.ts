import type { Cancellation } from '../../common/cancellation';
import { DomainError, ErrorCode } from '../../common/domain-error';
import { rowBytes, type RowSink } from '../../datasources/core/row-bytes';

/** Per-request ceilings on what execution may read (`AppConfig.limits`). */
export interface BudgetLimits {
  rows: number;
  responseBytes: number;
}

/**
 * What one request has read, checked as rows arrive: the cost estimate bounds rows before any SQL
 * runs, and this budget aborts what the estimate could not see (wide text, many large values)
 * before it fills the process's memory (issue: "a per-request budget of rows and response bytes").
 * Exceeding it aborts the request's signal, so its other statements are cancelled too. Pools
 * charge rows as they arrive ({@link RowSink}, sizes by `rowBytes`), so a page past the budget
 * stops being read at the row that passed it (issue 22 item 10).
 */
export class RequestBudget implements RowSink {
  private rows = 0;
  private bytes = 0;
  /** The refusal once the budget ran out; later statements fail with it at once. */
  exceeded: DomainError | null = null;

  constructor(
    private readonly limits: BudgetLimits,
    private readonly abort: Cancellation,
  ) {}

  /**
   * Adds the rows one statement returned, where no pool charged them as they arrived.
   * @throws DomainError QUERY_TOO_COMPLEX naming the ceiling that ran out.
   */
  charge(rows: readonly Record<string, unknown>[]): void {
    let bytes = 0;
    for (const row of rows) bytes += rowBytes(row);
    this.chargeRows(rows.length, bytes);
  }

  /** Rows the request's statements returned so far (its actual cost, README "Cost budgets"). */
  get rowsRead(): number {
    return this.rows;
  }

  /** Bytes the request may still read (0 once over). */
  bytesLeft(): number {
    return Math.max(0, this.limits.responseBytes - this.bytes);
  }

  /**
   * Adds `rows` rows of `bytes` bytes as a pool reads them ({@link RowSink}).
   * @throws DomainError QUERY_TOO_COMPLEX naming the ceiling that ran out.
   */
  chargeRows(rows: number, bytes: number): void {
    if (this.exceeded) throw this.exceeded;
    this.rows += rows;
    this.bytes += bytes;
    if (this.rows > this.limits.rows) {
      this.fail(
        `The request read more than ${this.limits.rows.toLocaleString('en-US')} rows; give smaller take values or select fewer nested levels`,
      );
    }
    if (this.bytes > this.limits.responseBytes) {
      this.fail(
        `The request read more than ${this.limits.responseBytes.toLocaleString('en-US')} bytes of data; select fewer columns or fewer rows per page`,
      );
    }
  }

  private fail(message: string): never {
    this.exceeded = new DomainError(ErrorCode.QueryTooComplex, message);
    this.abort.abort(this.exceeded);
    throw this.exceeded;
  }
}
