/**
 * Where a pool charges the rows of a statement as they arrive from the driver (the request's
 * budget of rows and bytes, README "Limits"), so a page past the budget is never held whole.
 */
export interface RowSink {
  /**
   * Bytes the statement may still read: the limit of a reader that cannot call {@link chargeRows} per
   * row (the SQLite worker thread stops past it and charges what it read).
   */
  bytesLeft(): number;
  /**
   * Charges `rows` more rows of `bytes` bytes (estimated by `rowBytes`, row-bytes.ts), before
   * the next row is read. Throws the request's refusal once a ceiling is passed; the pool then
   * stops reading, ends the statement on the server and rejects with what it threw.
   */
  chargeRows(rows: number, bytes: number): void;
}

/** Bytes charged for a number, bigint, boolean or date: what most take written as JSON. */
export const FIXED_VALUE_BYTES = 8;
/** Bytes charged for an empty value (`null`, as JSON writes it). */
const NULL_BYTES = 4;

/**
 * The estimated size of one row as the answer will write it in JSON, in bytes: per column, its
 * name's length plus its value's size, where a string counts its length (UTF-16 code units) and
 * its two quotes, a Buffer or typed array the length of its base64 text (the `Base64` scalar)
 * and two quotes, null or undefined 4, a number, bigint, boolean or Date
 * {@link FIXED_VALUE_BYTES}, and an object or array (a parsed JSON value, a PostgreSQL array) the
 * sum of its keys and values. Linear in the row's size and cheap: lengths only, never a copy of
 * the row (no `JSON.stringify`); iterative, so a deeply nested JSON value cannot overflow the
 * stack.
 *
 * The one estimate of the request's byte budget (`LIMIT_RESPONSE_BYTES`, README "Limits"): pools
 * charge each row with it as it arrives from the driver (the SQLite worker thread before a row
 * leaves it), and the budget charges a statement's rows with it afterwards where no pool did.
 * @param row one row, column name to driver value.
 */
export function rowBytes(row: Readonly<Record<string, unknown>>): number {
  let bytes = 0;
  const pending: unknown[] = [];
  for (const key in row) {
    bytes += key.length;
    pending.push(row[key]);
  }
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') bytes += value.length + 2;
    else if (value === null || value === undefined) bytes += NULL_BYTES;
    else if (ArrayBuffer.isView(value)) bytes += Math.ceil(value.byteLength / 3) * 4 + 2;
    else if (value instanceof Date || typeof value !== 'object') bytes += FIXED_VALUE_BYTES;
    else if (Array.isArray(value)) for (const item of value) pending.push(item);
    else {
      const record = value as Record<string, unknown>;
      for (const key in record) {
        bytes += key.length;
        pending.push(record[key]);
      }
    }
  }
  return bytes;
}

/**
 * The rows of one statement as a pool reads them, each charged to the request's sink before it
 * is kept (see `RunOptions.rows`). Once the sink refuses a row, the rows kept so far are let go
 * and every later row is dropped: the pool stops reading and answers {@link refusal}.
 */
export class RowReader {
  /** The rows accepted so far, in arrival order (emptied on a refusal). */
  readonly rows: Record<string, unknown>[] = [];
  /** What the sink threw, once it refused a row; null while it accepts them. */
  refusal: { reason: unknown } | null = null;

  /** @param sink where rows are charged; none: every row is kept, uncharged. */
  constructor(private readonly sink: RowSink | undefined) {}

  /**
   * Charges and keeps one row.
   * @returns false once the sink refused (this row or an earlier one): stop reading.
   */
  accept(row: Record<string, unknown>): boolean {
    if (this.refusal) return false;
    try {
      this.sink?.chargeRows(1, rowBytes(row));
    } catch (reason) {
      this.refusal = { reason };
      this.rows.length = 0;
      return false;
    }
    this.rows.push(row);
    return true;
  }
}
