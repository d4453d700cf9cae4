import type { Cancellation } from '../../common/cancellation';
import { DomainError, ErrorCode } from '../../common/domain-error';

/** Per-request ceilings on what execution may read (`AppConfig.limits`). */
export interface BudgetLimits {
  rows: number;
  responseBytes: number;
}

/** Approximate bytes of one driver value once written as JSON. */
function valueBytes(value: unknown): number {
  if (value === null || value === undefined) return 4;
  if (typeof value === 'string') return value.length + 2;
  if (Buffer.isBuffer(value)) return Math.ceil((value.length * 4) / 3) + 2;
  if (typeof value === 'object') return JSON.stringify(value)?.length ?? 4;
  return 8;
}

/**
 * What one request has read, checked as rows arrive: the cost estimate bounds rows before any SQL
 * runs, and this budget aborts what the estimate could not see (wide text, many large values)
 * before it fills the process's memory (issue: "a per-request budget of rows and response bytes").
 * Exceeding it aborts the request's signal, so its other statements are cancelled too.
 */
export class RequestBudget {
  private rows = 0;
  private bytes = 0;
  /** The refusal once the budget ran out; later statements fail with it at once. */
  exceeded: DomainError | null = null;

  constructor(
    private readonly limits: BudgetLimits,
    private readonly abort: Cancellation,
  ) {}

  /**
   * Adds the rows one statement returned.
   * @throws DomainError QUERY_TOO_COMPLEX naming the ceiling that ran out.
   */
  charge(rows: readonly Record<string, unknown>[]): void {
    if (this.exceeded) throw this.exceeded;
    this.rows += rows.length;
    for (const row of rows) for (const key in row) this.bytes += key.length + valueBytes(row[key]);
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
