import { requiredColumns } from '../data-model/model-graph';
import type { ModelTable, TableApiDefinition } from '../platform/version-definition';
import type { ChangeActor, RowChange } from './change-capture';

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
