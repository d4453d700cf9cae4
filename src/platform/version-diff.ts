import type {
  ApiActions,
  FieldsTree,
  ModelEnum,
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from './version-definition';

/**
 * What a builder's working version changes against the app's main version, in words (issue 27
 * item 5): what "Publish working version" would make live. Read by
 * `GET /api/apps/:appId/versions/diff` and shown in the publish confirmation.
 */

/** The part of a version a change is in. */
export type ChangeArea = 'api' | 'table' | 'enum' | 'rule';

/** One changed thing: a Table API (by id), a model table or enum (by name), or a role's rules. */
export interface VersionChange {
  area: ChangeArea;
  change: 'added' | 'removed' | 'changed';
  /** The Table API's name (in the working version when it has one), table, enum or role. */
  name: string;
  /** What changed, one plain sentence each (e.g. `public switched on: select`). */
  details: string[];
}

/** The answer of `GET /api/apps/:appId/versions/diff`. */
export interface VersionDiff {
  /** Main's revision: what API keys, app users and anonymous callers reach now. */
  mainRevision: number;
  /** The builder's working version's revision; null when they have none (nothing to publish). */
  workingRevision: number | null;
  /** Every change, Table APIs first, then tables, enums and rules; empty when none. */
  changes: VersionChange[];
}

/** The action names in the order the pages show them. */
const ACTIONS = ['select', 'insert', 'update', 'delete', 'aggregate'] as const;

/** The actions switched on in `actions`, in words (`select, insert`; `none`). */
export function actionsInWords(actions: ApiActions): string {
  const on = ACTIONS.filter((a) => actions[a] === true);
  return on.length ? on.join(', ') : 'none';
}

/** Sentences for the actions switched on and off between two sets of switches. */
function switchChanges(label: string, before: ApiActions, after: ApiActions): string[] {
  const on = ACTIONS.filter((a) => !before[a] && after[a] === true);
  const off = ACTIONS.filter((a) => before[a] === true && !after[a]);
  const lines: string[] = [];
  if (on.length) lines.push(`${label} switched on: ${on.join(', ')}`);
  if (off.length) lines.push(`${label} switched off: ${off.join(', ')}`);
  return lines;
}

/** The dotted paths of a fields tree (`customer.name`); `null` (every column) as `*`. */
function fieldPaths(tree: FieldsTree | null, prefix = ''): string[] {
  if (tree === null) return ['* (every column)'];
  return Object.entries(tree).flatMap(([name, value]) =>
    value === true ? [`${prefix}${name}`] : fieldPaths(value, `${prefix}${name}.`),
  );
}

/** Sentences naming what is in `after` and not in `before`, and the reverse. */
function listChanges(what: string, before: string[], after: string[]): string[] {
  const had = new Set(before);
  const has = new Set(after);
  const added = after.filter((x) => !had.has(x));
  const removed = before.filter((x) => !has.has(x));
  const lines: string[] = [];
  if (added.length) lines.push(`${what} added: ${added.join(', ')}`);
  if (removed.length) lines.push(`${what} removed: ${removed.join(', ')}`);
  return lines;
}

/** How a Table API reads to callers: its table, state, actions and public switches. */
function apiSummary(api: TableApiDefinition): string[] {
  return [
    `table ${api.table}, ${api.status === 'published' ? 'published' : 'draft (unreachable)'}`,
    `actions: ${actionsInWords(api.actions)}`,
    `public: ${actionsInWords(api.public)}`,
    `fields: ${fieldPaths(api.fields).join(', ')}`,
  ];
}

function diffApis(main: TableApiDefinition[], working: TableApiDefinition[]): VersionChange[] {
  const before = new Map(main.map((a) => [a.id, a]));
  const after = new Map(working.map((a) => [a.id, a]));
  const changes: VersionChange[] = [];
  for (const api of working) {
    const old = before.get(api.id);
    if (!old) {
      changes.push({ area: 'api', change: 'added', name: api.name, details: apiSummary(api) });
      continue;
    }
    const details: string[] = [];
    if (old.name !== api.name) details.push(`renamed from ${old.name}`);
    if (old.table !== api.table) details.push(`table ${old.table} → ${api.table}`);
    if (old.status !== api.status)
      details.push(
        api.status === 'published'
          ? 'published: callers reach it'
          : 'back to draft: callers no longer reach it',
      );
    details.push(...switchChanges('actions', old.actions, api.actions));
    details.push(...switchChanges('public', old.public, api.public));
    details.push(...listChanges('fields', fieldPaths(old.fields), fieldPaths(api.fields)));
    if (details.length) changes.push({ area: 'api', change: 'changed', name: api.name, details });
  }
  for (const api of main)
    if (!after.has(api.id))
      changes.push({
        area: 'api',
        change: 'removed',
        name: api.name,
        details: [`table ${api.table}: its operations leave the schema`],
      });
  return changes;
}

/** A column as the diff names it: `name (dbType)`. */
const columnWords = (c: ModelTable['columns'][number]) => `${c.name} (${c.dbType})`;

function diffTables(main: ModelTable[], working: ModelTable[]): VersionChange[] {
  const before = new Map(main.map((t) => [t.name, t]));
  const after = new Map(working.map((t) => [t.name, t]));
  const changes: VersionChange[] = [];
  for (const table of working) {
    const old = before.get(table.name);
    if (!old) {
      changes.push({
        area: 'table',
        change: 'added',
        name: table.name,
        details: [
          `imported${table.readOnly ? ' (a view)' : ''}${table.active ? '' : ', inactive'}`,
          `columns: ${table.columns.map(columnWords).join(', ')}`,
        ],
      });
      continue;
    }
    const details: string[] = [];
    if (old.active !== table.active) details.push(table.active ? 'activated' : 'deactivated');
    details.push(
      ...listChanges(
        'columns',
        old.columns.map((c) => c.name),
        table.columns.map((c) => c.name),
      ),
    );
    const oldColumns = new Map(old.columns.map((c) => [c.name, c]));
    for (const column of table.columns) {
      const was = oldColumns.get(column.name);
      if (!was) continue;
      if (was.dbType !== column.dbType)
        details.push(`column ${column.name}: type ${was.dbType} → ${column.dbType}`);
      if ((was.enum ?? null) !== (column.enum ?? null))
        details.push(
          `column ${column.name}: enum ${was.enum ?? 'none'} → ${column.enum ?? 'none'}`,
        );
    }
    if (old.primaryKey.join(',') !== table.primaryKey.join(','))
      details.push(
        `primary key (${old.primaryKey.join(', ') || 'none'}) → (${table.primaryKey.join(', ') || 'none'})`,
      );
    if (details.length)
      changes.push({ area: 'table', change: 'changed', name: table.name, details });
  }
  for (const table of main)
    if (!after.has(table.name))
      changes.push({
        area: 'table',
        change: 'removed',
        name: table.name,
        details: ['removed from the model'],
      });
  return changes;
}

/** An enum's values in words: `PAID (Paid)`. */
const valueWords = (v: ModelEnum['values'][number]) =>
  v.label && v.label !== v.value ? `${v.value} (${v.label})` : v.value;

function diffEnums(main: ModelEnum[], working: ModelEnum[]): VersionChange[] {
  const before = new Map(main.map((e) => [e.name, e]));
  const after = new Map(working.map((e) => [e.name, e]));
  const changes: VersionChange[] = [];
  for (const e of working) {
    const old = before.get(e.name);
    if (!old) {
      changes.push({
        area: 'enum',
        change: 'added',
        name: e.name,
        details: [`values: ${e.values.map(valueWords).join(', ')}`],
      });
      continue;
    }
    const details = listChanges(
      'values',
      old.values.map((v) => v.value),
      e.values.map((v) => v.value),
    );
    const oldValues = new Map(old.values.map((v) => [v.value, v]));
    for (const value of e.values) {
      const was = oldValues.get(value.value);
      if (was && (was.label !== value.label || was.color !== value.color))
        details.push(`value ${value.value}: label or color changed`);
    }
    if ((old.description ?? null) !== (e.description ?? null)) details.push('description changed');
    if (details.length) changes.push({ area: 'enum', change: 'changed', name: e.name, details });
  }
  for (const e of main)
    if (!after.has(e.name))
      changes.push({ area: 'enum', change: 'removed', name: e.name, details: ['removed'] });
  return changes;
}

/** The `where` of each table of one role's rules (CONTRACT.md §4 shape), as compact JSON. */
function roleRules(rules: unknown): Map<string, string> {
  const tables = (rules as { tables?: Record<string, { where?: unknown }> } | null)?.tables ?? {};
  return new Map(Object.entries(tables).map(([table, rule]) => [table, stableJson(rule?.where)]));
}

/** JSON with object keys sorted, so equal rules compare equal whatever order they were sent in. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}

function diffRules(
  main: Record<string, unknown>,
  working: Record<string, unknown>,
): VersionChange[] {
  const changes: VersionChange[] = [];
  const roles = [...new Set([...Object.keys(working), ...Object.keys(main)])];
  for (const role of roles) {
    const before = role in main ? roleRules(main[role]) : null;
    const after = role in working ? roleRules(working[role]) : null;
    const details: string[] = [];
    for (const [table, where] of after ?? []) {
      const was = before?.get(table);
      if (was === undefined) details.push(`${table}: rule added, rows where ${where}`);
      else if (was !== where) details.push(`${table}: rule changed from ${was} to ${where}`);
    }
    for (const [table] of before ?? [])
      if (!after?.has(table)) details.push(`${table}: rule removed (every row)`);
    if (!before) changes.push({ area: 'rule', change: 'added', name: role, details });
    else if (!after) changes.push({ area: 'rule', change: 'removed', name: role, details });
    else if (details.length) changes.push({ area: 'rule', change: 'changed', name: role, details });
  }
  return changes;
}

/**
 * Every change from `main` to `working`: Table APIs matched by id (renames show as changes),
 * model tables and enums by name, rules by role and table (compared as key-sorted JSON).
 */
export function diffVersions(main: VersionDefinition, working: VersionDefinition): VersionChange[] {
  return [
    ...diffApis(main.apis, working.apis),
    ...diffTables(main.tables, working.tables),
    ...diffEnums(main.enums ?? [], working.enums ?? []),
    ...diffRules(main.permissions ?? {}, working.permissions ?? {}),
  ];
}
