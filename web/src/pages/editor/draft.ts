import type { Actions, FieldsTree, ModelTable, TableApi } from '../../shared/types';
import { allColumns, sameTree, withColumns } from './fields-tree';

/** What the editor holds before it is saved. `fields: null`: every column, no navigation. */
export interface Draft {
  name: string;
  table: string | null;
  actions: Actions;
  public: Actions;
  fields: FieldsTree | null;
}

const NONE: Actions = { select: false, insert: false, update: false, delete: false };

/** A new API's starting point: select on, nothing public, no table yet. */
export const NEW_DRAFT: Draft = {
  name: '',
  table: null,
  actions: { ...NONE, select: true },
  public: NONE,
  fields: null,
};

/** The editable part of a saved API. */
export function draftOf(api: TableApi): Draft {
  return {
    name: api.name,
    table: api.table,
    actions: api.actions,
    public: api.public,
    fields: api.fields,
  };
}

/** Whether two drafts say the same. */
export function sameDraft(a: Draft, b: Draft): boolean {
  const same = (x: Actions, y: Actions) =>
    (Object.keys(x) as (keyof Actions)[]).every((k) => x[k] === y[k]);
  return (
    a.name === b.name &&
    a.table === b.table &&
    same(a.actions, b.actions) &&
    same(a.public, b.public) &&
    sameTree(a.fields, b.fields)
  );
}

/** Table API names: a letter, then up to 62 letters, digits or `_` (the service's rule). */
const API_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/** What keeps a draft from being saved, in words; empty when it may be sent. */
export function draftProblems(draft: Draft, table: ModelTable | undefined): string[] {
  const problems: string[] = [];
  if (!API_NAME.test(draft.name))
    problems.push('Name: start with a letter; then letters, digits or _ (at most 63 characters).');
  if (!draft.table) problems.push('Table: choose the table the API exposes.');
  else if (!table) problems.push(`Table: "${draft.table}" is no longer in the model.`);
  if (table && Object.keys(draft.fields ?? allColumns(table)).length === 0)
    problems.push('Included fields: tick at least one field.');
  return problems;
}

/**
 * The REST body of a draft (CONTRACT.md §3): the required columns are written into an explicit
 * tree (the service would force them in anyway); `fields` stays null (every column) when the
 * builder never changed it.
 */
export function bodyOf(draft: Draft, required: string[]) {
  return {
    name: draft.name,
    table: draft.table,
    actions: draft.actions,
    public: draft.public,
    fields: draft.fields === null ? null : withColumns(draft.fields, required),
  };
}

/** A suggested API name for a table: `order_lines` → `orderLines`. */
export function suggestedName(table: string): string {
  const camel = table.replace(/[^A-Za-z0-9]+(.)/g, (_, c: string) => c.toUpperCase());
  const name = camel.replace(/^[^A-Za-z]+/, '').replace(/[^A-Za-z0-9_]/g, '');
  return name.slice(0, 63);
}
