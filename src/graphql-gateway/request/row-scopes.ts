import { Logger } from '@nestjs/common';
import {
  ANONYMOUS_ROLE,
  API_KEY_ROLE,
  DeniedRule,
  Permissions,
  RuleError,
  rowScope,
  RuleSubject,
} from '../../app-access/row-rules';
import { DomainError } from '../../common/domain-error';
import { isIdColumn } from '../../data-model/model-graph';
import { ALL_ROWS, Condition, Dialect, ModelColumn } from '../../datasources/core/dialect';
import type { ModelTable } from '../../platform/version-definition';
import type { Caller } from '../gateway-context';
import { columnValue } from '../query-planner';

const logger = new Logger('RowRules');
/** Rules already reported as denying (logged once each, CONTRACT.md §4 "is logged"); bounded. */
const reported = new Set<string>();
const MAX_REPORTED = 10_000;

function reportDenied(rule: DeniedRule): void {
  const key = `${rule.role}\u0000${rule.table}\u0000${rule.reason}\u0000${rule.within ?? ''}`;
  if (reported.has(key)) return;
  if (reported.size >= MAX_REPORTED) reported.clear();
  reported.add(key);
  const where = rule.within ? ` inside the rule of ${rule.within}` : '';
  logger.warn(`Role ${rule.role} sees no row of ${rule.table}${where}: its rule ${rule.reason}`);
}

/**
 * The roles whose rules bound a caller and the subject their `$user` values come from
 * (CONTRACT.md §4); null for a builder, whom none bound. One place for every path that applies
 * rules: requests' {@link RowScopes} and subscriptions' change filters.
 */
export function rolesOf(
  caller: Caller,
): { roles: readonly string[]; subject: RuleSubject | null } | null {
  switch (caller.kind) {
    case 'builder':
      return null;
    case 'app-user':
      return {
        roles: caller.user.roles,
        subject: { id: caller.user.userId, attributes: caller.user.attributes },
      };
    case 'key':
      return { roles: [API_KEY_ROLE], subject: null };
    case 'anonymous':
      return { roles: [ANONYMOUS_ROLE], subject: null };
  }
}

/**
 * Whether a scope admits every row ({@link ALL_ROWS}: no rule bounds the caller), so no check of
 * a read or written row against it is needed.
 */
export function admitsEveryRow(scope: Condition): boolean {
  return scope.kind === 'and' && scope.items.length === 0;
}

/**
 * The per-request unit every read and write of a table row takes its scope from (DESIGN.md
 * "Table access: one entry point, a required scope"): the caller's row rule for a table, planned
 * once per table per request, values bound as parameters. Builders are bounded by none; a rule
 * that cannot be planned denies (fails closed) and is logged once. A rule's navigation keys carry
 * the caller's rules of the tables they reach inside their subqueries (`rowScope`, README "App
 * users and row rules").
 */
export class RowScopes {
  private readonly planned = new Map<string, Condition>();
  private readonly bounds: ReturnType<typeof rolesOf>;

  /**
   * @param model the version's model tables (`BuiltSchema.model`), where a rule's navigation keys
   * lead; without it a rule naming a navigation cannot be planned and denies.
   */
  constructor(
    private readonly permissions: Permissions,
    caller: Caller,
    private readonly model: readonly ModelTable[] = [],
  ) {
    this.bounds = rolesOf(caller);
  }

  /** The scope of `table` for this request's caller: {@link ALL_ROWS} when nothing bounds it. */
  of(table: ModelTable, dialect: Dialect): Condition {
    if (!this.bounds) return ALL_ROWS;
    let scope = this.planned.get(table.name);
    if (!scope) {
      const { roles, subject } = this.bounds;
      const bind = (column: ModelColumn, value: unknown, of: ModelTable) => {
        try {
          return columnValue({ isKey: (c: string) => isIdColumn(of, c) }, column, value, dialect);
        } catch (error) {
          if (error instanceof DomainError)
            throw new RuleError(`compares ${column.name} with a value it cannot hold`);
          throw error;
        }
      };
      scope = rowScope(this.permissions, roles, table, subject, bind, reportDenied, this.model);
      this.planned.set(table.name, scope);
    }
    return scope;
  }
}
