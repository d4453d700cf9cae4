import type { FieldsTree, ModelTable } from '../../shared/types';

/**
 * Operations on the included-fields tree of a Table API (CONTRACT.md §3): `true` for a column,
 * a nested tree for a navigation field, to any depth. Every operation returns a new tree and
 * keeps the rule the service checks: a navigation field holds at least one field, so unticking
 * the last field of one leaves it out.
 */

/** Every column of a table: what `fields: null` means. */
export function allColumns(table: ModelTable): FieldsTree {
  return Object.fromEntries(table.fields.map((f) => [f.name, true] as const));
}

/**
 * The columns an insert must carry (not null, no default, not generated): locked in the API
 * while insert or update is on (`requiredColumns` in `src/data-model/model-graph.ts`).
 */
export function requiredColumnNames(table: ModelTable): string[] {
  return table.fields
    .filter((f) => !f.nullable && !f.hasDefault && !f.generated)
    .map((f) => f.name);
}

/** The fields a navigation starts with when ticked: the target's primary key (or first column). */
export function startingFields(target: ModelTable): FieldsTree {
  const key = target.primaryKey.length
    ? target.primaryKey
    : target.fields.slice(0, 1).map((f) => f.name);
  return Object.fromEntries(key.map((name) => [name, true] as const));
}

/** `tree` without `name`. */
function without(tree: FieldsTree, name: string): FieldsTree {
  return Object.fromEntries(Object.entries(tree).filter(([key]) => key !== name));
}

/** The subtree of the navigation at `path` (names from the root), or undefined when not included. */
export function subtreeAt(tree: FieldsTree, path: string[]): FieldsTree | undefined {
  let level: FieldsTree | undefined = tree;
  for (const name of path) {
    const next: true | FieldsTree | undefined = level?.[name];
    level = typeof next === 'object' ? next : undefined;
  }
  return level;
}

/** `tree` with `change` applied at `path`; a navigation left empty on the way is left out. */
function updateAt(
  tree: FieldsTree,
  path: string[],
  change: (level: FieldsTree) => FieldsTree,
): FieldsTree {
  if (path.length === 0) return change(tree);
  const [head, ...rest] = path;
  const current = tree[head];
  const inner = updateAt(typeof current === 'object' ? current : {}, rest, change);
  const others = without(tree, head);
  return Object.keys(inner).length ? { ...others, [head]: inner } : others;
}

/** Ticks or unticks a column at `path` (ticking one inside a navigation includes the navigation). */
export function setColumn(
  tree: FieldsTree,
  path: string[],
  column: string,
  on: boolean,
): FieldsTree {
  return updateAt(tree, path, (level) => {
    const others = without(level, column);
    return on ? { ...others, [column]: true } : others;
  });
}

/** Includes a navigation at `path` with `fields`, or leaves it out with everything below it. */
export function setNavigation(
  tree: FieldsTree,
  path: string[],
  navigation: string,
  fields: FieldsTree | null,
): FieldsTree {
  return updateAt(tree, path, (level) => {
    const others = without(level, navigation);
    return fields ? { ...others, [navigation]: fields } : others;
  });
}

/** The tree with the root-level `columns` ticked (what the service forces in anyway). */
export function withColumns(tree: FieldsTree, columns: string[]): FieldsTree {
  return columns.reduce((t, c) => (t[c] === true ? t : { ...t, [c]: true as const }), tree);
}

/** Whether two trees include the same fields. */
export function sameTree(a: FieldsTree | null, b: FieldsTree | null): boolean {
  if (a === null || b === null) return a === b;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => {
    const x = a[k];
    const y = b[k];
    if (x === true || y === true) return x === y;
    return y !== undefined && sameTree(x, y);
  });
}
