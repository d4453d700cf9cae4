import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { CompiledQuery, Condition } from '../../datasources/core/dialect';
import type { ModelTable } from '../../platform/version-definition';
import { admitsEveryRow } from '../request/row-scopes';
import { hasLiteralArguments, variableArgumentsKey } from './arguments';

/**
 * A root read's statement (null: `take: 0`, nothing to run) and the columns it reads. Planned from
 * the arguments, the caller's scope and the dialect only, so a field occurrence read by a caller no
 * row rule bounds is planned once (issue 8 item 1: the SQL of a cached operation is not built again
 * per request): once per occurrence when its arguments are literals, once per occurrence and
 * distinct variable values when they read variables (issue 25 item 3). Literal arguments' reads
 * are kept per field occurrence in a WeakMap: they live as long as the cached operation, whose
 * document the cache charges by its text (a statement's SQL and values are bounded by that text);
 * variables' reads in {@link VARIABLE_READS}, bounded by bytes.
 */
export interface PlannedRead {
  query: CompiledQuery | null;
  columns: string[];
  /**
   * Tables whose row rules the statement applies besides the read table's: those of its relation
   * filters' subqueries (`ConsultedScopes`). The read is kept, and reused, only for a caller whose
   * scope of each admits every row, so no caller runs SQL holding another caller's rule.
   */
  related?: Iterable<ModelTable>;
}

/**
 * Bytes a kept read of variables is charged: its key and SQL text (two bytes a character), its
 * parameters (a text's characters, 32 bytes for any other value), and the entry with its columns.
 * Estimates of the heap held, rounded up. The arguments the read was planned from are charged by
 * `arguments.ts`'s cache.
 */
function readBytes(read: PlannedRead, key: string): number {
  let bytes = 512 + key.length * 2 + read.columns.length * 64;
  if (read.query) bytes += read.query.sql.length * 2 + paramBytes(read.query.params);
  return bytes;
}

/** A statement's parameters: texts and bytes by their length, lists by their items, 32 a value. */
function paramBytes(params: readonly unknown[]): number {
  let bytes = 0;
  for (const p of params) {
    if (typeof p === 'string') bytes += 32 + p.length * 2;
    else if (p instanceof Uint8Array) bytes += 32 + p.byteLength;
    else if (Array.isArray(p)) bytes += 32 + paramBytes(p);
    else bytes += 32;
  }
  return bytes;
}

/**
 * The longest SQL text a read of variables is kept with, in characters: the statements of the
 * operations clients repeat are a few KB; a larger one (a filter of thousands of `in` values) is
 * planned per request, as before, rather than crowding out many small ones.
 */
const MAX_KEPT_SQL_CHARS = 64 * 1024;

/**
 * Reads planned from variables, per field occurrence and distinct variable values
 * (`variableArgumentsKey`: the same key means the same arguments, so the same statement; a
 * variable that changes the statement's shape, a filter key present or absent or null, another
 * length of an `in` list, another page, gives another key). Shared by every schema and bounded by
 * bytes ({@link readBytes}); entries of a dropped document go as the least recently used.
 */
const VARIABLE_READS = new LRUCache<string, PlannedRead>({
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (read, key) => readBytes(read, key),
});

/**
 * The planned statement of a root read for this request: the one kept for the field occurrence
 * (and, when its arguments read variables, for these variable values) when {@link PlannedRead}
 * allows, else `plan()` now (kept when it allows). `scopeOf` gives this caller's scope of a related
 * table ({@link PlannedRead.related}). `plan` must depend only on the field occurrence's
 * arguments, the caller's scopes and the datasource's dialect, as every root read's does.
 */
export function plannedRead(
  kept: WeakMap<readonly FieldNode[], PlannedRead>,
  info: GraphQLResolveInfo,
  scope: Condition,
  plan: () => PlannedRead,
  scopeOf: (table: ModelTable) => Condition,
): PlannedRead {
  if (!admitsEveryRow(scope)) return plan();
  const unbounded = (read: PlannedRead) =>
    [...(read.related ?? [])].every((table) => admitsEveryRow(scopeOf(table)));
  if (hasLiteralArguments(info)) {
    let read = kept.get(info.fieldNodes);
    if (read && !unbounded(read)) read = undefined;
    if (!read) {
      read = plan();
      if (unbounded(read)) kept.set(info.fieldNodes, read);
    }
    return read;
  }
  const key = variableArgumentsKey(info);
  if (key === undefined) return plan();
  let read = VARIABLE_READS.get(key);
  if (read && !unbounded(read)) read = undefined;
  if (!read) {
    read = plan();
    if (unbounded(read) && (read.query?.sql.length ?? 0) <= MAX_KEPT_SQL_CHARS) {
      VARIABLE_READS.set(key, read);
    }
  }
  return read;
}
