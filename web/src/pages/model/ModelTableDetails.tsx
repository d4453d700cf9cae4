import { useState } from 'react';
import { Link } from 'react-router';
import { describeError, patch, seg } from '../../shared/api';
import type { App } from '../../shared/types';
import { Feedback } from '../../shared/ui';
import { databaseType } from './column-changes';
import type { FullModelTable, ModelColumn } from './model-types';

/** Short notes on a column: key, default, generated, enum. */
function notesOf(table: FullModelTable, c: ModelColumn): string {
  const notes: string[] = [];
  if (table.primaryKey.includes(c.name))
    notes.push(table.primaryKeyChosen ? 'chosen key' : 'primary key');
  if (c.generated) notes.push(c.computed ? 'computed' : 'generated');
  else if (c.hasDefault) notes.push('has a default');
  if (c.enum) notes.push(`enum ${c.enum}`);
  else if (c.dbEnum) notes.push(`database enum ${c.dbEnum.name}`);
  return notes.join(', ');
}

/** A number with its noun, in the singular for one: `1 column`, `3 columns`. */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Whether the table takes a chosen key: a view, or a table whose database declares none. */
const takesChosenKey = (t: FullModelTable) =>
  t.readOnly || t.primaryKeyChosen || t.primaryKey.length === 0;

/**
 * One imported model table: a line with its name and state, and a button showing its details:
 * the "Served" switch (`PATCH …/model/tables/:table {active}`; an inactive table leaves the
 * GraphQL schema), the key of a view or keyless table (`{primaryKey}`), its columns with their
 * database and GraphQL types, and its relations (navigation fields).
 */
export function ModelTableDetails({
  app,
  table,
  onChanged,
}: {
  app: App;
  table: FullModelTable;
  onChanged: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const [key, setKey] = useState<string[]>(table.primaryKey);
  // Shown at once when switched; set back if the service refuses.
  const [active, setActive] = useState(table.active);
  const id = `model-${table.name}`;
  const path = `/api/apps/${seg(app.id)}/model/tables/${seg(table.name)}`;

  /** Saves a change of the table; answers whether the service took it. */
  async function change(
    body: { active?: boolean; primaryKey?: string[] },
    done: string,
  ): Promise<boolean> {
    setBusy(true);
    setNotice(null);
    setError(null);
    try {
      await patch(path, body);
      setNotice(done);
      onChanged();
      return true;
    } catch (e) {
      setError(describeError(e));
      return false;
    } finally {
      setBusy(false);
    }
  }

  const summary = [
    table.readOnly ? 'view, select only' : 'table',
    count(table.fields.length, 'column'),
    count(table.relations.length, 'relation'),
    table.primaryKey.length ? `key ${table.primaryKey.join(', ')}` : 'no key',
    ...(table.active ? [] : ['not served']),
  ].join(' · ');

  return (
    <div className="model-table">
      <div className="model-table__line">
        <button
          type="button"
          className="disclosure"
          aria-expanded={open}
          aria-controls={`${id}-details`}
          onClick={() => setOpen(!open)}
        >
          <span aria-hidden="true">{open ? '▾' : '▸'}</span> {table.name}
        </button>
        <span className="hint">{summary}</span>
        {table.active && (
          <Link to={`/apps/${seg(app.id)}/rows/${seg(table.name)}`}>
            Browse rows<span className="visually-hidden"> of {table.name}</span>
          </Link>
        )}
      </div>
      <div id={`${id}-details`} hidden={!open} className="model-table__details">
        {table.comment && <p className="muted">{table.comment}</p>}
        <div className="check">
          <input
            type="checkbox"
            role="switch"
            id={`${id}-active`}
            checked={active}
            disabled={busy}
            aria-describedby={`${id}-active-hint`}
            onChange={async (e) => {
              const on = e.target.checked;
              setActive(on);
              const saved = await change(
                { active: on },
                on ? `${table.name} is served again.` : `${table.name} is no longer served.`,
              );
              if (!saved) setActive(!on);
            }}
          />
          <label htmlFor={`${id}-active`}>Serve {table.name}</label>
          <span className="hint" id={`${id}-active-hint`}>
            Off: the table leaves the GraphQL schema with its Table APIs’ fields.
          </span>
        </div>
        {takesChosenKey(table) && (
          <fieldset className="fieldset">
            <legend>Key columns of {table.name}</legend>
            <p className="hint">
              {table.readOnly ? 'A view declares no key: ' : 'The database declares no key: '}
              choose the columns that identify a row. They order every page and are typed ID.
            </p>
            <ul className="plain key-columns">
              {table.fields
                .filter((c) => c.kind !== 'json')
                .map((c) => (
                  <li key={c.name} className="check">
                    <input
                      type="checkbox"
                      id={`${id}-key-${c.name}`}
                      checked={key.includes(c.name)}
                      onChange={(e) =>
                        setKey(
                          e.target.checked ? [...key, c.name] : key.filter((k) => k !== c.name),
                        )
                      }
                    />
                    <label htmlFor={`${id}-key-${c.name}`}>{c.name}</label>
                  </li>
                ))}
            </ul>
            <button
              type="button"
              className="button button--secondary"
              disabled={busy}
              onClick={() =>
                change(
                  { primaryKey: key },
                  key.length
                    ? `Key of ${table.name}: ${key.join(', ')}.`
                    : `${table.name} has no chosen key now.`,
                )
              }
            >
              Save key<span className="visually-hidden"> of {table.name}</span>
            </button>
          </fieldset>
        )}
        <Feedback notice={notice} error={error} />
        <div className="table-scroll">
          <table className="table table--cards">
            <caption>Columns of {table.name}</caption>
            <thead>
              <tr>
                <th scope="col">Column</th>
                <th scope="col">Database type</th>
                <th scope="col">GraphQL type</th>
                <th scope="col">Empty allowed</th>
                <th scope="col">Notes</th>
              </tr>
            </thead>
            <tbody>
              {table.fields.map((c) => (
                <tr key={c.name}>
                  <th scope="row">{c.name}</th>
                  <td data-label="Database type">
                    <code>{databaseType(c)}</code>
                  </td>
                  <td data-label="GraphQL type">
                    <code>{c.graphqlType ?? '—'}</code>
                  </td>
                  <td data-label="Empty allowed">{c.nullable ? 'yes' : 'no'}</td>
                  <td data-label="Notes">{notesOf(table, c)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <h4>Relations of {table.name}</h4>
        {table.relations.length === 0 ? (
          <p>None: no foreign key leads to or from another imported table.</p>
        ) : (
          <ul>
            {table.relations.map((r) => (
              <li key={r.name}>
                <code>{r.name}</code> → {r.to} (
                {r.kind === 'manyToOne' ? 'one row' : 'a list of rows'}
                {r.fromColumn && r.toColumn ? `, ${r.fromColumn} = ${r.to}.${r.toColumn}` : ''})
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
