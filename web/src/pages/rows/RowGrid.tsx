import { useEffect, useRef, type KeyboardEvent } from 'react';
import { keyLabel, keyOf, type Row, type Sort } from './row-queries';
import type { Column, RowSchema } from './row-schema';
import { ValueInput } from './ValueInput';
import { displayValue, editText } from './values';

/** The row being edited: its key, and the text of each editable column's control. */
export interface Editing {
  label: string;
  key: Record<string, unknown>;
  values: Record<string, string>;
  /** The column whose control takes the focus when editing starts. */
  focus: string | null;
}

/**
 * The rows as a grid (issue 27 item 6, as Supabase's table editor): a column header button sorts
 * by that column (again: the other way, a third time: unsorted; `aria-sort` says which); each
 * row's Edit button (or a double click on a cell) turns its editable cells into controls labelled
 * "<column>, row <key>", saved together with Save (or Enter) and dropped with Cancel (or Escape);
 * Delete asks first. The grid scrolls sideways inside its own focusable region, so the page never
 * does.
 */
export function RowGrid({
  table,
  schema,
  rows,
  busy,
  sort,
  onSort,
  editable,
  deletable,
  editing,
  saving,
  invalidField,
  onEdit,
  onSave,
  onDelete,
}: {
  table: string;
  schema: RowSchema;
  rows: Row[];
  busy: boolean;
  sort: Sort | null;
  onSort: (column: string) => void;
  /** The columns `update<Base>` may change (none: no Edit). */
  editable: string[];
  deletable: boolean;
  editing: Editing | null;
  saving: boolean;
  /** The column a refusal named, marked invalid while its row is edited. */
  invalidField: string | null;
  onEdit: (editing: Editing | null) => void;
  onSave: () => void;
  onDelete: (key: Record<string, unknown>) => void;
}) {
  const focusAfterEdit = useRef<string | null>(null);
  const actions = editable.length > 0 || deletable;

  useEffect(() => {
    // Back to the row's Edit button once its edit ends (saved or cancelled).
    if (!editing && focusAfterEdit.current) {
      document.getElementById(focusAfterEdit.current)?.focus();
      focusAfterEdit.current = null;
    }
  }, [editing]);

  function startEdit(row: Row, focus: string | null) {
    const key = keyOf(schema, row);
    if (!key || editable.length === 0) return;
    const values: Record<string, string> = {};
    for (const name of editable) {
      const column = schema.columns.find((c) => c.name === name);
      if (column) values[name] = editText(column, row[name]);
    }
    onEdit({ label: keyLabel(key), key, values, focus: focus ?? editable[0] ?? null });
  }

  function onKey(event: KeyboardEvent, label: string) {
    if (event.key === 'Escape') {
      event.preventDefault();
      focusAfterEdit.current = `edit-${label}`;
      onEdit(null);
    } else if (event.key === 'Enter' && (event.target as HTMLElement).tagName !== 'BUTTON') {
      event.preventDefault();
      focusAfterEdit.current = `edit-${label}`;
      onSave();
    }
  }

  const sortState = (c: Column) =>
    sort?.column === c.name ? (sort.direction === 'ASC' ? 'ascending' : 'descending') : undefined;

  return (
    <div
      className="table-scroll rows-grid"
      id="rows-grid"
      tabIndex={0}
      role="region"
      aria-label={`Rows of ${table}, scrollable`}
      aria-busy={busy}
    >
      <table className="table">
        <caption className="visually-hidden">
          Rows of {table}. Column header buttons sort the rows.
        </caption>
        <thead>
          <tr>
            {schema.columns.map((c) => (
              <th scope="col" key={c.name} aria-sort={sortState(c)}>
                {c.sortable ? (
                  <button type="button" className="rows-sort" onClick={() => onSort(c.name)}>
                    {c.name}
                    <span aria-hidden="true" className="rows-sort__mark">
                      {sortState(c) === 'ascending'
                        ? ' ▲'
                        : sortState(c) === 'descending'
                          ? ' ▼'
                          : ' ↕'}
                    </span>
                  </button>
                ) : (
                  c.name
                )}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => {
            const key = keyOf(schema, row);
            const label = key ? keyLabel(key) : String(i + 1);
            const edited = editing && key && editing.label === label ? editing : null;
            return (
              <tr key={label} className={edited ? 'rows-editing' : undefined}>
                {schema.columns.map((c) => {
                  const shown = displayValue(c, row[c.name]);
                  if (edited && c.name in edited.values)
                    return (
                      <td key={c.name} onKeyDown={(e) => onKey(e, label)}>
                        <ValueInput
                          id={`cell-${label}-${c.name}`}
                          column={c}
                          label={`${c.name}, row ${label}`}
                          value={edited.values[c.name]!}
                          autoFocus={edited.focus === c.name}
                          invalid={invalidField === c.name}
                          describedBy={invalidField === c.name ? 'rows-problem' : undefined}
                          onChange={(text) =>
                            onEdit({
                              ...edited,
                              focus: null,
                              values: { ...edited.values, [c.name]: text },
                            })
                          }
                        />
                      </td>
                    );
                  return (
                    <td
                      key={c.name}
                      onDoubleClick={
                        editable.includes(c.name) && key ? () => startEdit(row, c.name) : undefined
                      }
                    >
                      {shown === null ? (
                        <span className="rows-empty">empty</span>
                      ) : (c.type === 'DateTime' ||
                          c.type === 'LocalDateTime' ||
                          c.type === 'Date') &&
                        typeof row[c.name] === 'string' ? (
                        <time dateTime={row[c.name] as string}>{shown}</time>
                      ) : (
                        shown
                      )}
                    </td>
                  );
                })}
                {actions && (
                  <td onKeyDown={edited ? (e) => onKey(e, label) : undefined}>
                    <div className="rows-actions">
                      {edited ? (
                        <>
                          <button
                            type="button"
                            className="button button--small"
                            disabled={saving}
                            onClick={() => {
                              focusAfterEdit.current = `edit-${label}`;
                              onSave();
                            }}
                          >
                            {saving ? 'Saving…' : 'Save'}
                            <span className="visually-hidden"> row {label}</span>
                          </button>
                          <button
                            type="button"
                            className="button button--small button--secondary"
                            onClick={() => {
                              focusAfterEdit.current = `edit-${label}`;
                              onEdit(null);
                            }}
                          >
                            Cancel<span className="visually-hidden"> editing row {label}</span>
                          </button>
                        </>
                      ) : (
                        <>
                          {editable.length > 0 && key && (
                            <button
                              type="button"
                              id={`edit-${label}`}
                              className="button button--small button--secondary"
                              onClick={() => startEdit(row, null)}
                            >
                              Edit<span className="visually-hidden"> row {label}</span>
                            </button>
                          )}
                          {deletable && key && (
                            <button
                              type="button"
                              className="button button--small button--danger-outline"
                              onClick={() => onDelete(key)}
                            >
                              Delete<span className="visually-hidden"> row {label}</span>
                            </button>
                          )}
                        </>
                      )}
                    </div>
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
