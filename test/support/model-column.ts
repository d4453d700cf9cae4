import type { ColumnKind, ModelColumn } from '../../src/datasources/core/dialect';

/**
 * A model column as introspection gives one: nullable, no default, not generated, no length, no
 * enum, its database type named like its kind; `extra` overrides any field. The one starting
 * point of the unit specs that build model tables by hand.
 */
export function modelColumn(
  name: string,
  kind: ColumnKind = 'int',
  extra: Partial<ModelColumn> = {},
): ModelColumn {
  return {
    name,
    dbType: kind,
    kind,
    nullable: true,
    hasDefault: false,
    generated: false,
    maxLength: null,
    enum: null,
    ...extra,
  };
}
