import { Injectable } from '@nestjs/common';
import { invalidInput } from '../common/domain-error';
import { VersionsService } from '../platform/versions.service';
import { checkRoleRules, Permissions, RoleRules, RuleSubject } from './row-rules';

/** Role names: a letter or `_`, then letters, digits, `_` or `-`, at most 63 characters. */
export const ROLE_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,62}$/;

/** A subject with every attribute, so a rule's `$user.<attribute>` values pass the check at save. */
const ANY_USER: RuleSubject = {
  id: 'user',
  attributes: new Proxy(
    {},
    {
      getOwnPropertyDescriptor: () => ({ value: 'x', configurable: true, enumerable: true }),
      get: () => 'x',
    },
  ),
};

/**
 * Row rules per role (CONTRACT.md §4), part of the builder's working version and published with
 * it. A rule is checked against the model before it is saved: every table must exist and every
 * column, navigation and operator must be known (the same strict planner that evaluates it per
 * request), and navigation keys must not form a cycle or nest too deep.
 */
@Injectable()
export class PermissionsService {
  constructor(private readonly versions: VersionsService) {}

  /** Every role's rules in the builder's working version (or main's). */
  async list(appId: string, accountId: string): Promise<Permissions> {
    return ((await this.versions.readForBuilder(appId, accountId)).permissions ??
      {}) as Permissions;
  }

  /**
   * Replaces one role's rules (`PUT /api/apps/:appId/permissions/:role`), checked by
   * `checkRoleRules` (navigation keys included: a cycle through the role's own rules, or more than
   * `RULE_NESTING_LIMIT` nested relations, is refused).
   * @throws DomainError INVALID_INPUT listing every problem by its path in the rules
   * (`tables.orders.where.customer: table customers has no column or navigation x`).
   */
  async put(appId: string, accountId: string, role: string, rules: RoleRules): Promise<RoleRules> {
    if (!ROLE_NAME.test(role)) {
      throw invalidInput(
        'A role name is a letter or _, then letters, digits, _ or -, at most 63 characters',
      );
    }
    return this.versions.edit(appId, accountId, (def) => {
      const problems = checkRoleRules(rules, def.tables, ANY_USER);
      if (problems.length)
        throw invalidInput(`The rules of role ${role} cannot be saved`, problems);
      def.permissions = { ...(def.permissions ?? {}), [role]: { tables: rules.tables } };
      return { tables: rules.tables };
    });
  }

  /** Removes one role's rules (its callers then see every row of every table). */
  async remove(appId: string, accountId: string, role: string): Promise<void> {
    await this.versions.edit(appId, accountId, (def) => {
      const next = { ...(def.permissions ?? {}) } as Permissions;
      delete next[role];
      def.permissions = next;
    });
  }
}
