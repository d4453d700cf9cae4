import { requiredColumns } from '../data-model/model-graph';
import type {
  ModelTable,
  SqlApiDefinition,
  TableApiDefinition,
} from '../platform/version-definition';
import type { ChangeActor, RowChange, SqlApiCall } from './change-capture';

/** Returned rows an SQL API call's body carries at most; `rowsReturned` says how many there were. */
export const SQL_API_BODY_ROWS = 1_000;

/**
 * The columns of `table` a Table API includes (CONTRACT.md §3 `fields`): every column when the
 * tree is null; else the tree's columns, plus the table's required columns while insert or update
 * is active.
 */
export function includedColumns(api: TableApiDefinition, table: ModelTable): Set<string> {
  if (!api.fields) return new Set(table.columns.map((c) => c.name));
  const names = new Set(
    Object.entries(api.fields)
      .filter(([, v]) => v === true)
      .map(([k]) => k),
  );
  if (api.actions.insert || api.actions.update)
    for (const c of requiredColumns(table)) names.add(c.name);
  return names;
}

function only(
  row: Record<string, unknown> | null,
  columns: Set<string>,
): Record<string, unknown> | null {
  if (!row) return null;
  return Object.fromEntries(Object.entries(row).filter(([k]) => columns.has(k)));
}

/** JSON with the values JSON has no form for: 64-bit integers as text, bytes as base64. */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
    return v;
  });
}

/**
 * The body of one event for one webhook (README "Webhooks", Standard Webhooks "Payload
 * structure"): `{type: "<api>.<event>", timestamp, data: {api, key, old, new, origin, actor}}`,
 * the rows cut to the API's included columns. Serialised once and stored, so every attempt
 * signs and sends the same bytes.
 */
export function webhookBody(
  api: TableApiDefinition,
  table: ModelTable,
  change: RowChange,
  actor: ChangeActor,
  at: Date,
): string {
  const columns = includedColumns(api, table);
  return toJson({
    type: `${api.name}.${change.event}`,
    timestamp: at.toISOString(),
    data: {
      api: api.name,
      key: change.key,
      old: only(change.old, columns),
      new: only(change.new, columns),
      origin: 'graphql',
      actor,
    },
  });
}

/**
 * The body of one committed call of a mutation-kind SQL API for one webhook (README "Webhooks"):
 * `{type: "<SQL API>.executed", timestamp, data: {api, arguments, affected, rows, rowsReturned,
 * origin, actor}}`. `rows` holds the first {@link SQL_API_BODY_ROWS} rows the statement returned
 * (RETURNING), `rowsReturned` their number. No table, key or old/new row: the statement is the
 * builder's and the service cannot tell which rows of which tables it changed, nor how.
 */
export function sqlApiBody(
  api: SqlApiDefinition,
  call: SqlApiCall,
  actor: ChangeActor,
  at: Date,
): string {
  return toJson({
    type: `${api.name}.executed`,
    timestamp: at.toISOString(),
    data: {
      api: api.name,
      arguments: call.arguments,
      affected: call.affected,
      rows: call.rows.slice(0, SQL_API_BODY_ROWS),
      rowsReturned: call.rows.length,
      origin: 'graphql',
      actor,
    },
  });
}
