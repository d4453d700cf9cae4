import { ALL_ROWS } from '../datasources/core/dialect';
import type {
  CompiledQuery,
  Condition,
  Dialect,
  StatementResult,
} from '../datasources/core/dialect';
import { shapeRows, tableRef } from '../graphql-gateway/query-planner';
import type { ModelTable, WebhookEvent } from '../platform/version-definition';

/** Who made a change, as a webhook body names it (README "Webhooks"). */
export interface ChangeActor {
  kind: 'key' | 'user' | 'builder' | 'anonymous';
  id: string | null;
}

/**
 * One committed change of one row, all of its table's columns in the contract's value forms
 * (CONTRACT.md §6 Values, `shapeRows`); each webhook keeps its API's included columns.
 */
export interface RowChange {
  table: string;
  event: WebhookEvent;
  key: Record<string, unknown>;
  old: Record<string, unknown> | null;
  new: Record<string, unknown> | null;
}

/**
 * One committed call of a mutation-kind SQL API (README "Webhooks"): what the caller sent and
 * what the statement answered. Its statement is opaque, so no table, key or row event is claimed.
 */
export interface SqlApiCall {
  /** The SQL API's id. */
  apiId: string;
  /** The GraphQL arguments as the caller gave them (implicit `:user_…` values left out). */
  arguments: Record<string, unknown>;
  /** Rows the statement inserted, updated or deleted, as the database counts them. */
  affected: number;
  /** The rows it returned (RETURNING), in the contract's value forms; [] when it returns none. */
  rows: Record<string, unknown>[];
}

/** Runs one statement in the request's transaction, with its dialect. */
export interface CaptureConnection {
  dialect: Dialect;
  run: (query: CompiledQuery) => Promise<StatementResult>;
}

/** Whether any webhook of the main version listens to `event` on a Table API of `table`. */
export type WatchedTables = (table: string, event: WebhookEvent) => boolean;

/** Rows read before an update or delete, to pair with what the write left (see {@link changesAfter}). */
export interface SeenRows {
  table: ModelTable;
  rows: Record<string, unknown>[];
  raw: Record<string, unknown>[];
}

/** Key values per statement when reading rows back by key (far below every database's limit). */
const KEYS_PER_READ = 300;

/**
 * A mutation request's changes for webhooks (issue 28 item 1, README "Webhooks"): the write
 * operations tell it which rows they change, it reads those rows inside the request's
 * transaction (only for tables a main-version webhook listens to), and once the transaction
 * committed ({@link committed}) hands them to the outbox. Nothing is recorded for a request that
 * rolled back: {@link committed} is called only after the commit.
 */
export class ChangeCapture {
  readonly changes: RowChange[] = [];
  /** The request's SQL API calls, in order (see {@link sqlApiCalled}). */
  readonly calls: SqlApiCall[] = [];
  private watched: Promise<WatchedTables> | null = null;

  /**
   * @param watchedTables reads which tables the main version's webhooks listen to; called once,
   * when a write first asks (a request that writes nothing pays nothing).
   */
  constructor(
    private readonly watchedTables: () => Promise<WatchedTables>,
    readonly actor: ChangeActor,
    private readonly onCommit: (capture: ChangeCapture) => Promise<void>,
  ) {}

  /** Whether `event` on `table` is listened to (the main version's webhooks, cached per revision). */
  async watches(table: ModelTable, event: WebhookEvent): Promise<boolean> {
    this.watched ??= this.watchedTables();
    return (await this.watched)(table.name, event);
  }

  /** Records changes. */
  record(change: RowChange): void {
    this.changes.push(change);
  }

  /** Writes the outbox rows of a committed request; never throws (a failure is logged). */
  async committed(): Promise<void> {
    if (this.changes.length || this.calls.length) await this.onCommit(this);
  }
}

/** Every column of `table`, by name. */
function allColumns(table: ModelTable): string[] {
  return table.columns.map((c) => c.name);
}

/** A shaped row with values a JSON body can carry: an unreadable value is null. */
function plain(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = v instanceof Error ? null : v;
  return out;
}

function keyOf(table: ModelTable, row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(table.primaryKey.map((c) => [c, row[c] ?? null]));
}

/** Reads `where` within `scope`, every column, at most `take` rows, by primary key. */
async function readRows(
  conn: CaptureConnection,
  table: ModelTable,
  where: Condition,
  scope: Condition,
  take: number,
): Promise<Record<string, unknown>[]> {
  const { rows } = await conn.run(
    conn.dialect.compileSelect({
      table: tableRef(table),
      columns: allColumns(table),
      where,
      scope,
      order: table.primaryKey.map((column) => ({ column, direction: 'ASC' })),
      take,
      skip: 0,
    }),
  );
  return rows;
}

/** The rows of `table` with these keys (raw values as the driver gave or took them). */
async function readByKeys(
  conn: CaptureConnection,
  table: ModelTable,
  keys: readonly Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += KEYS_PER_READ) {
    const slice = keys.slice(start, start + KEYS_PER_READ);
    const where: Condition = {
      kind: 'or',
      items: slice.map((key) => ({
        kind: 'and',
        items: table.primaryKey.map((column) => ({
          kind: 'compare',
          column,
          op: 'eq',
          value: key[column],
        })),
      })),
    } as Condition;
    out.push(...(await readRows(conn, table, where, ALL_ROWS, slice.length)));
  }
  return out;
}

function watchingContext(ctx: { changes?: ChangeCapture }): ChangeCapture | null {
  return ctx.changes ?? null;
}

/**
 * Before an update or delete: reads (in the request's transaction) the rows the write is about to
 * change, `where` within the caller's `scope`, every column, at most `take`; null when no webhook
 * listens to `event` on the table (then nothing is read).
 */
export async function changesBefore(
  ctx: { changes?: ChangeCapture },
  conn: CaptureConnection,
  table: ModelTable,
  event: 'updated' | 'deleted',
  where: Condition,
  scope: Condition,
  take: number,
): Promise<SeenRows | null> {
  const capture = watchingContext(ctx);
  if (!capture || !(await capture.watches(table, event))) return null;
  const raw = await readRows(conn, table, where, scope, take);
  return { table, raw, rows: shapeRows(table, allColumns(table), raw, conn.dialect).map(plain) };
}

/**
 * After the update or delete {@link changesBefore} prepared: records one change per row seen.
 * A delete's `new` is null. An update's `new` is the row read again by its key (the key of an
 * updated row does not change); a row whose values did not change is no event. A table without
 * a primary key cannot be read again: its updates carry `new: null` (README "Webhooks").
 */
export async function changesAfter(
  ctx: { changes?: ChangeCapture },
  conn: CaptureConnection,
  seen: SeenRows | null,
  event: 'updated' | 'deleted',
): Promise<void> {
  const capture = watchingContext(ctx);
  if (!capture || !seen || seen.rows.length === 0) return;
  const { table } = seen;
  if (event === 'deleted' || table.primaryKey.length === 0) {
    for (const old of seen.rows)
      capture.record({ table: table.name, event, key: keyOf(table, old), old, new: null });
    return;
  }
  const after = shapeRows(
    table,
    allColumns(table),
    await readByKeys(conn, table, seen.raw),
    conn.dialect,
  ).map(plain);
  const byKey = new Map(after.map((row) => [JSON.stringify(keyOf(table, row)), row]));
  for (const old of seen.rows) {
    const key = keyOf(table, old);
    const now = byKey.get(JSON.stringify(key)) ?? null;
    if (now && JSON.stringify(now) === JSON.stringify(old)) continue;
    capture.record({ table: table.name, event, key, old, new: now });
  }
}

/**
 * After an insert: records one `inserted` change per row, read again by key (every column, as
 * the database stored it: defaults and generated values included). A row whose key did not come
 * back (MySQL, or MariaDB before 10.5, with a generated key in a multi-row insert) carries the
 * sent values only (README "Webhooks").
 * @param rows per inserted row, what is known of it: the columns the insert returned or sent.
 */
export async function rowsInserted(
  ctx: { changes?: ChangeCapture },
  conn: CaptureConnection,
  table: ModelTable,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const capture = watchingContext(ctx);
  if (!capture || rows.length === 0 || !(await capture.watches(table, 'inserted'))) return;
  const key = table.primaryKey;
  const known = rows.filter((r) => key.length > 0 && key.every((c) => r[c] != null));
  const read = shapeRows(
    table,
    allColumns(table),
    await readByKeys(conn, table, known),
    conn.dialect,
  ).map(plain);
  for (const row of read)
    capture.record({
      table: table.name,
      event: 'inserted',
      key: keyOf(table, row),
      old: null,
      new: row,
    });
  for (const row of rows.filter((r) => !known.includes(r))) {
    const columns = table.columns.filter((c) => c.name in row).map((c) => c.name);
    const sent = plain(shapeRows(table, columns, [row], conn.dialect)[0]);
    capture.record({
      table: table.name,
      event: 'inserted',
      key: keyOf(table, sent),
      old: null,
      new: sent,
    });
  }
}

/** Rows read before an upsert by the key it matches on, and that condition to read them again. */
export interface SeenUpsert extends SeenRows {
  where: Condition;
  /** The rows sent: at most this many rows have those keys. */
  take: number;
}

/**
 * Before an upsert's statement: reads the rows the sent keys already name (`where`: the upsert
 * key's values, at most `take` rows, every column); null when no webhook listens to inserts or
 * updates of the table.
 */
export async function upsertBefore(
  ctx: { changes?: ChangeCapture },
  conn: CaptureConnection,
  table: ModelTable,
  where: Condition,
  take: number,
): Promise<SeenUpsert | null> {
  const capture = watchingContext(ctx);
  if (!capture) return null;
  const watched =
    (await capture.watches(table, 'inserted')) || (await capture.watches(table, 'updated'));
  if (!watched) return null;
  const raw = await readRows(conn, table, where, ALL_ROWS, take);
  const rows = shapeRows(table, allColumns(table), raw, conn.dialect).map(plain);
  return { table, raw, rows, where, take };
}

/**
 * After the upsert {@link upsertBefore} prepared: reads the rows by the same key values again; a
 * row that was not there is `inserted`, one that was and changed is `updated`, one left as it
 * was is no event (`UNCHANGED`).
 */
export async function upsertAfter(
  ctx: { changes?: ChangeCapture },
  conn: CaptureConnection,
  seen: SeenUpsert | null,
): Promise<void> {
  const capture = watchingContext(ctx);
  if (!capture || !seen) return;
  const { table } = seen;
  const after = shapeRows(
    table,
    allColumns(table),
    await readRows(conn, table, seen.where, ALL_ROWS, seen.take),
    conn.dialect,
  ).map(plain);
  const before = new Map(seen.rows.map((row) => [JSON.stringify(keyOf(table, row)), row]));
  for (const now of after) {
    const key = keyOf(table, now);
    const old = before.get(JSON.stringify(key)) ?? null;
    if (old && JSON.stringify(old) === JSON.stringify(now)) continue;
    capture.record({ table: table.name, event: old ? 'updated' : 'inserted', key, old, new: now });
  }
}

/**
 * After a mutation-kind SQL API's statement ran in the request's transaction: records the call
 * for the webhooks naming that SQL API (which ones is decided once the request committed, so a
 * call no webhook listens to costs one array entry). Rows are kept as shaped for the answer:
 * an unreadable value becomes null.
 */
export function sqlApiCalled(ctx: { changes?: ChangeCapture }, call: SqlApiCall): void {
  watchingContext(ctx)?.calls.push({ ...call, rows: call.rows.map(plain) });
}
