import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import type { CompiledQuery, Condition } from '../../datasources/core/dialect';
import type { ModelTable } from '../../platform/version-definition';
import { admitsEveryRow } from '../request/row-scopes';
import { hasLiteralArguments } from './arguments';

/**
 * A root read's statement (null: `take: 0`, nothing to run) and the columns it reads. Planned from
 * the arguments, the caller's scope and the dialect only, so a field occurrence whose arguments
 * are literals, read by a caller no row rule bounds, is planned once (issue 8 item 1: the SQL of a
 * cached operation is not built again per request). Kept per field occurrence in a WeakMap: it
 * lives as long as the cached operation, whose document the cache charges by its text (a
 * statement's SQL and values are bounded by that text).
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
 * The planned statement of a root read for this request: the one kept for the field occurrence
 * when {@link PlannedRead} allows, else `plan()` now (kept when it allows). `scopeOf` gives this
 * caller's scope of a related table ({@link PlannedRead.related}).
 */
export function plannedRead(
  kept: WeakMap<readonly FieldNode[], PlannedRead>,
  info: GraphQLResolveInfo,
  scope: Condition,
  plan: () => PlannedRead,
  scopeOf: (table: ModelTable) => Condition,
): PlannedRead {
  const keep = admitsEveryRow(scope) && hasLiteralArguments(info);
  const unbounded = (read: PlannedRead) =>
    [...(read.related ?? [])].every((table) => admitsEveryRow(scopeOf(table)));
  let read = keep ? kept.get(info.fieldNodes) : undefined;
  if (read && !unbounded(read)) read = undefined;
  if (!read) {
    read = plan();
    if (keep && unbounded(read)) kept.set(info.fieldNodes, read);
  }
  return read;
}
