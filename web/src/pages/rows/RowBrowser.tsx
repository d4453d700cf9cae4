import { useState } from 'react';
import { Link } from 'react-router';
import { seg } from '../../shared/api';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import type { App, ModelTable, TableApi } from '../../shared/types';
import { ErrorMessage, Loading, StatusBadge, StatusMessage } from '../../shared/ui';
import { useLoad } from '../../shared/use-load';
import { AddRowForm } from './AddRowForm';
import { FilterForm } from './FilterForm';
import { problemOf, type Problem } from './graphql';
import { RowGrid, type Editing } from './RowGrid';
import {
  keyLabel,
  keyOf,
  readRows,
  whereOf,
  write,
  type Condition,
  type Row,
  type Sort,
} from './row-queries';
import { readRowSchema, type RowSchema } from './row-schema';
import { editText, parseValue } from './values';

/** Rows per page the reader may choose. */
const PAGE_SIZES = [10, 25, 50, 100];

/**
 * One table's rows through one of its Table APIs (issue 27 item 6). The API's operations are read
 * from the builder's schema ({@link readRowSchema}); rows come from `get<Base>` with the `where`
 * the filter conditions make, the `order` of the sorted column header and `take`/`skip` of the
 * page, with `count<Base>` for the total; a row is edited in place and saved with
 * `update<Base>` (only changed columns sent), added with `add<Base>`, deleted with
 * `delete<Base>` after a confirmation, each offered only when the API has that operation.
 */
export function RowBrowser({
  app,
  table,
  apis,
}: {
  app: App;
  table: ModelTable;
  apis: TableApi[];
}) {
  const [apiId, setApiId] = useState(apis[0]!.id);
  const api = apis.find((a) => a.id === apiId) ?? apis[0]!;
  const schema = useLoad(() => readRowSchema(app.address, api.name), `${api.id}:${api.name}`);
  return (
    <>
      <div className="rows-api">
        {apis.length > 1 ? (
          <div className="field">
            <label htmlFor="rows-api">Table API</label>
            <select id="rows-api" value={api.id} onChange={(e) => setApiId(e.target.value)}>
              {apis.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          </div>
        ) : (
          <p>
            Through the Table API <strong>{api.name}</strong>
          </p>
        )}
        <StatusBadge status={api.status} />
        <Link to={`/apps/${seg(app.id)}/apis/${seg(api.id)}`}>
          Edit {api.name}
          <span className="visually-hidden"> in the Table API editor</span>
        </Link>
      </div>
      {schema.loading && !schema.data && <Loading what={`the operations of ${api.name}`} />}
      <ErrorMessage error={schema.error} />
      {schema.data && !schema.loading && (
        <Browser key={api.id} app={app} table={table} schema={schema.data} />
      )}
    </>
  );
}

/** The browser for one API whose schema is read. */
function Browser({ app, table, schema }: { app: App; table: ModelTable; schema: RowSchema }) {
  const [conditions, setConditions] = useState<Condition[]>([]);
  const [where, setWhere] = useState<Record<string, unknown> | null>(null);
  const [sort, setSort] = useState<Sort | null>(null);
  const [pageSize, setPageSize] = useState(25);
  const [page, setPage] = useState(0);
  const [reloads, setReloads] = useState(0);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [saving, setSaving] = useState(false);
  const [deleting, setDeleting] = useState<Record<string, unknown> | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);

  const rows = useLoad(
    () => readRows(app.address, schema, where, sort, pageSize, page * pageSize),
    JSON.stringify({ where, sort, pageSize, page, reloads }),
  );

  /** Clears the answer of the last action. */
  const clear = () => {
    setNotice(null);
    setProblem(null);
  };

  function applyFilters(next: Condition[]): boolean {
    clear();
    try {
      setWhere(whereOf(schema, next));
      setConditions(next);
      setPage(0);
      setEditing(null);
      return true;
    } catch (e) {
      setProblem(problemOf(e));
      return false;
    }
  }

  function sortBy(column: string) {
    setEditing(null);
    setPage(0);
    setSort((old) =>
      old?.column !== column
        ? { column, direction: 'ASC' }
        : old.direction === 'ASC'
          ? { column, direction: 'DESC' }
          : null,
    );
  }

  /** Saves the row being edited: `update<Base>` with its key and the changed columns only. */
  async function save() {
    if (!editing || !schema.update) return;
    clear();
    const row = rows.data?.rows.find((r) => keyLabel(keyOf(schema, r) ?? {}) === editing.label);
    if (!row) return setEditing(null);
    const changed: Record<string, unknown> = {};
    try {
      for (const [name, text] of Object.entries(editing.values)) {
        const column = schema.columns.find((c) => c.name === name)!;
        if (text !== editText(column, row[name])) changed[name] = parseValue(column, text);
      }
    } catch (e) {
      return setProblem({ ...problemOf(e), field: null });
    }
    if (Object.keys(changed).length === 0) {
      setEditing(null);
      return setNotice(`Row ${editing.label}: nothing changed.`);
    }
    setSaving(true);
    try {
      const saved = await write<Row | null>(
        app.address,
        schema,
        schema.update,
        { ...editing.key, ...changed },
        true,
      );
      if (saved === null)
        throw new Error(
          `Row ${editing.label} was not saved: it no longer exists, or your rules hide it.`,
        );
      setNotice(`Saved row ${editing.label}: ${Object.keys(changed).join(', ')}.`);
      setEditing(null);
      setReloads((n) => n + 1);
    } catch (e) {
      setProblem(problemOf(e));
    } finally {
      setSaving(false);
    }
  }

  async function remove(key: Record<string, unknown>) {
    clear();
    const done = await write<boolean>(app.address, schema, schema.remove!, key, false);
    if (!done)
      throw new Error(
        `Row ${keyLabel(key)} was not deleted: it no longer exists, or your rules hide it.`,
      );
    setDeleting(null);
    setNotice(`Deleted row ${keyLabel(key)}.`);
    setReloads((n) => n + 1);
    // The dialog and the row are gone: the keyboard goes on from the grid.
    setTimeout(() => document.getElementById('rows-grid')?.focus());
  }

  const data = rows.data;
  const first = page * pageSize + 1;
  const shown = data?.rows.length ?? 0;
  const pages = data?.total != null ? Math.max(1, Math.ceil(data.total / pageSize)) : null;
  const editable = schema.update
    ? schema.update.args.filter((a) => !schema.key.includes(a.name))
    : [];
  const keyShown =
    schema.key.length > 0 && schema.key.every((k) => schema.columns.some((c) => c.name === k));

  return (
    <>
      <p className="hint">
        Operations:{' '}
        {[schema.get, schema.count, schema.add?.name, schema.update?.name, schema.remove?.name]
          .filter(Boolean)
          .join(', ')}
        .{' '}
        {!keyShown &&
          (schema.update || schema.remove) &&
          `The API leaves out the key column (${schema.key.join(', ') || 'none'}), so rows cannot be edited or deleted here.`}
      </p>
      <FilterForm schema={schema} applied={conditions} onApply={applyFilters} />
      <div className="rows-feedback">
        {notice && <StatusMessage>{notice}</StatusMessage>}
        <ErrorMessage error={problem} id="rows-problem" />
      </div>
      <ErrorMessage error={rows.error} />
      <div className="rows-bar">
        <p role="status" className="rows-count">
          {rows.loading
            ? 'Loading rows…'
            : shown === 0
              ? where
                ? 'No rows match the filters.'
                : page > 0
                  ? 'No rows on this page.'
                  : 'The table has no rows.'
              : `Rows ${first}–${first + shown - 1}${data?.total != null ? ` of ${data.total}` : ''}`}
          {sort &&
            !rows.loading &&
            `, sorted by ${sort.column} ${sort.direction === 'ASC' ? 'ascending' : 'descending'}`}
        </p>
      </div>
      {schema.add && (
        <AddRowForm
          app={app}
          schema={schema}
          onAdded={(line) => {
            clear();
            setNotice(line);
            setReloads((n) => n + 1);
          }}
        />
      )}
      {data && (
        <RowGrid
          table={table.name}
          schema={schema}
          rows={data.rows}
          busy={rows.loading}
          sort={sort}
          onSort={sortBy}
          editable={keyShown ? editable.map((a) => a.name) : []}
          deletable={keyShown && !!schema.remove}
          editing={editing}
          saving={saving}
          invalidField={problem?.field ?? null}
          onEdit={(next) => {
            if (next === null || editing === null) clear();
            setEditing(next);
          }}
          onSave={save}
          onDelete={(key) => {
            clear();
            setDeleting(key);
          }}
        />
      )}
      <nav aria-label="Pages of rows" className="rows-pages">
        <button
          type="button"
          className="button button--secondary"
          disabled={page === 0 || rows.loading}
          onClick={() => {
            setEditing(null);
            setPage(page - 1);
          }}
        >
          Previous page
        </button>
        <span>
          Page {page + 1}
          {pages !== null && ` of ${pages}`}
        </span>
        <button
          type="button"
          className="button button--secondary"
          disabled={!data?.more || rows.loading}
          onClick={() => {
            setEditing(null);
            setPage(page + 1);
          }}
        >
          Next page
        </button>
        <div className="field rows-size">
          <label htmlFor="rows-page-size">Rows per page</label>
          <select
            id="rows-page-size"
            value={pageSize}
            onChange={(e) => {
              setEditing(null);
              setPageSize(Number(e.target.value));
              setPage(0);
            }}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
      </nav>
      {data && (
        <details className="rows-sent">
          <summary>GraphQL sent</summary>
          <pre>{data.query}</pre>
          <pre>{JSON.stringify(data.variables, null, 2)}</pre>
        </details>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete row ${keyLabel(deleting)} of ${table.name}?`}
          confirmLabel="Delete row"
          onConfirm={() => remove(deleting)}
          onClose={() => setDeleting(null)}
        >
          <p>{schema.remove!.name} deletes it from the database now; this cannot be undone.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
