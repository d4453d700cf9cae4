import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { describeError, get, patch, post, request, seg } from '../../shared/api';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import type { App } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Feedback, Loading } from '../../shared/ui';
import { AppFrame } from '../apps/AppFrame';
import type { AppEnum, EnumValue, FullModelGroup } from './model-types';

/** A model field, as `table.column`. */
interface FieldRef {
  table: string;
  column: string;
}

/** The app's enums and its model tables (to tell which fields use each enum). */
async function loadEnums(appId: string): Promise<{ enums: AppEnum[]; groups: FullModelGroup[] }> {
  const [enums, groups] = await Promise.all([
    get<AppEnum[]>(`/api/apps/${seg(appId)}/enums`),
    get<FullModelGroup[]>(`/api/apps/${seg(appId)}/model/tables`),
  ]);
  return { enums, groups };
}

/** Whether a text is a colour the browser can paint (for the swatch beside a value). */
function isPaintable(color: string | null | undefined): color is string {
  return Boolean(color) && typeof CSS !== 'undefined' && CSS.supports('color', color!);
}

/**
 * An app's enums (`/apps/:appId/enums`, issue 27 item 3), in the builder's working version: each
 * with its values, labels and colours and the fields that use it (a field of an enum takes only
 * its values in GraphQL), creating, editing (`PUT …/enums/:name`) and deleting one (its fields
 * become plain text), and choosing which text fields use which enum
 * (`PATCH …/model/tables/:table/fields/:field {enum}`).
 */
export function EnumsPage() {
  return <AppFrame section="Enums">{(app) => <Enums app={app} />}</AppFrame>;
}

/** The page for a loaded app. */
function Enums({ app }: { app: App }) {
  const loaded = useLoad(() => loadEnums(app.id), app.id);
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState<AppEnum | null>(null);
  const [deleting, setDeleting] = useState<AppEnum | null>(null);
  if (loaded.loading && !loaded.data) return <Loading what="enums" />;
  if (loaded.error) return <ErrorMessage error={loaded.error} />;
  const { enums, groups } = loaded.data!;
  const tables = groups.flatMap((g) => g.tables);
  const usedBy = (name: string): FieldRef[] =>
    tables.flatMap((t) =>
      t.fields.filter((f) => f.enum === name).map((f) => ({ table: t.name, column: f.name })),
    );
  const done = (text: string) => {
    setNotice(text);
    loaded.reload();
  };

  return (
    <>
      <p className="lead">
        An enum is a fixed list of values for a text field: GraphQL then takes and gives only those
        values, and screens can show each value’s label and colour.
      </p>
      <Feedback notice={notice} error={null} />
      {enums.length === 0 && <p>No enums yet.</p>}
      {enums.map((e) => (
        <section key={e.name} className="card" aria-labelledby={`enum-${e.name}`}>
          <div className="card__header">
            <h2 id={`enum-${e.name}`}>{e.name}</h2>
            <div className="actions actions--inline">
              <button
                type="button"
                className="button button--secondary"
                onClick={() => setEditing(e)}
              >
                Edit<span className="visually-hidden"> enum {e.name}</span>
              </button>
              <button
                type="button"
                className="button button--danger-outline"
                onClick={() => setDeleting(e)}
              >
                Delete<span className="visually-hidden"> enum {e.name}</span>
              </button>
            </div>
          </div>
          {e.description && <p>{e.description}</p>}
          <table className="table table--cards">
            <caption className="visually-hidden">Values of {e.name}</caption>
            <thead>
              <tr>
                <th scope="col">Value</th>
                <th scope="col">Label</th>
                <th scope="col">Colour</th>
              </tr>
            </thead>
            <tbody>
              {e.values.map((v) => (
                <tr key={v.value}>
                  <th scope="row">
                    <code>{v.value}</code>
                  </th>
                  <td data-label="Label">{v.label || '—'}</td>
                  <td data-label="Colour">
                    {isPaintable(v.color) && (
                      <span className="swatch" style={{ background: v.color }} aria-hidden="true" />
                    )}
                    {v.color || '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <UsedBy app={app} name={e.name} fields={usedBy(e.name)} onChanged={done} />
        </section>
      ))}
      <AssignEnum app={app} enums={enums} groups={groups} onAssigned={done} />
      <section aria-labelledby="new-enum-heading">
        <h2 id="new-enum-heading">Create an enum</h2>
        <EnumForm key={enums.length} app={app} onSaved={(e) => done(`Enum ${e.name} created.`)} />
      </section>
      {editing && (
        <EditEnumDialog
          app={app}
          original={editing}
          onClose={() => setEditing(null)}
          onSaved={(e) => {
            setEditing(null);
            done(`Enum ${e.name} saved.`);
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete the enum ${deleting.name}?`}
          confirmLabel="Delete enum"
          onConfirm={async () => {
            await request<void>('DELETE', `/api/apps/${seg(app.id)}/enums/${seg(deleting.name)}`);
            setDeleting(null);
            done(`Enum ${deleting.name} deleted.`);
          }}
          onClose={() => setDeleting(null)}
        >
          <p>
            The fields that use it (
            {usedBy(deleting.name)
              .map((f) => `${f.table}.${f.column}`)
              .join(', ') || 'none'}
            ) become plain text. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** The fields an enum types, each with a button to make it plain text again. */
function UsedBy({
  app,
  name,
  fields,
  onChanged,
}: {
  app: App;
  name: string;
  fields: FieldRef[];
  onChanged: (notice: string) => void;
}) {
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  async function release(f: FieldRef) {
    setError(null);
    try {
      await patch(`/api/apps/${seg(app.id)}/model/tables/${seg(f.table)}/fields/${seg(f.column)}`, {
        enum: null,
      });
      onChanged(`${f.table}.${f.column} is plain text again.`);
    } catch (e) {
      setError(describeError(e));
    }
  }
  return (
    <>
      <h3>Fields using {name}</h3>
      <ErrorMessage error={error} />
      {fields.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <ul className="plain used-by">
          {fields.map((f) => (
            <li key={`${f.table}.${f.column}`}>
              <code>
                {f.table}.{f.column}
              </code>{' '}
              <button
                type="button"
                className="button button--secondary button--small"
                onClick={() => release(f)}
              >
                Stop using
                <span className="visually-hidden">
                  {' '}
                  {name} for {f.table}.{f.column}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** Makes a text field of the model use an enum. */
function AssignEnum({
  app,
  enums,
  groups,
  onAssigned,
}: {
  app: App;
  enums: AppEnum[];
  groups: FullModelGroup[];
  onAssigned: (notice: string) => void;
}) {
  const [field, setField] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const textFields = groups.flatMap((g) =>
    g.tables.flatMap((t) =>
      t.fields
        .filter((f) => f.kind === 'text' && !t.primaryKey.includes(f.name))
        .map((f) => ({ table: t.name, column: f.name, enum: f.enum })),
    ),
  );
  if (enums.length === 0) return null;
  if (textFields.length === 0)
    return (
      <p>
        No text fields to use an enum for:{' '}
        <Link to={`/apps/${seg(app.id)}/model`}>import tables</Link> first.
      </p>
    );

  async function submit(event: FormEvent) {
    event.preventDefault();
    const chosen = textFields.find((f) => `${f.table}.${f.column}` === field);
    const problems = [...(chosen ? [] : ['Choose a field.']), ...(name ? [] : ['Choose an enum.'])];
    if (problems.length) return setError({ message: 'Not saved:', details: problems });
    setError(null);
    try {
      await patch(
        `/api/apps/${seg(app.id)}/model/tables/${seg(chosen!.table)}/fields/${seg(chosen!.column)}`,
        {
          enum: name,
        },
      );
      setField('');
      onAssigned(`${field} now uses ${name}.`);
    } catch (e) {
      setError(describeError(e));
    }
  }

  return (
    <section aria-labelledby="assign-heading">
      <h2 id="assign-heading">Use an enum for a field</h2>
      <form className="form" onSubmit={submit} noValidate>
        <ErrorMessage error={error} />
        <div className="field-row">
          <div className="field">
            <label htmlFor="assign-field">Text field</label>
            <select id="assign-field" value={field} onChange={(e) => setField(e.target.value)}>
              <option value="">Choose a field…</option>
              {textFields.map((f) => (
                <option key={`${f.table}.${f.column}`} value={`${f.table}.${f.column}`}>
                  {f.table}.{f.column}
                  {f.enum ? ` (now ${f.enum})` : ''}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="assign-enum">Enum</label>
            <select id="assign-enum" value={name} onChange={(e) => setName(e.target.value)}>
              <option value="">Choose an enum…</option>
              {enums.map((e) => (
                <option key={e.name} value={e.name}>
                  {e.name}
                </option>
              ))}
            </select>
          </div>
        </div>
        <button type="submit" className="button">
          Use enum for field
        </button>
      </form>
    </section>
  );
}

/** The body `POST`/`PUT …/enums` take: empty labels and colours left out. */
function enumBody(name: string, description: string, values: EnumValue[]) {
  return {
    name: name.trim(),
    ...(description.trim() ? { description: description.trim() } : {}),
    values: values
      .filter((v) => v.value.trim())
      .map((v) => ({
        value: v.value.trim(),
        ...(v.label?.trim() ? { label: v.label.trim() } : {}),
        ...(v.color?.trim() ? { color: v.color.trim() } : {}),
      })),
  };
}

/**
 * The form of an enum: name, description and its values, each with a label and a colour; rows
 * are added and removed with buttons. Creates (`POST`) or, given `original`, replaces (`PUT`).
 */
function EnumForm({
  app,
  original,
  onSaved,
  onCancel,
}: {
  app: App;
  original?: AppEnum;
  onSaved: (e: AppEnum) => void;
  onCancel?: () => void;
}) {
  const prefix = original ? 'edit-enum' : 'new-enum';
  const [name, setName] = useState(original?.name ?? '');
  const [description, setDescription] = useState(original?.description ?? '');
  const [values, setValues] = useState<EnumValue[]>(
    original?.values.map((v) => ({
      value: v.value,
      label: v.label ?? '',
      color: v.color ?? '',
    })) ?? [{ value: '', label: '', color: '' }],
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const setValue = (i: number, change: Partial<EnumValue>) =>
    setValues(values.map((v, j) => (j === i ? { ...v, ...change } : v)));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = enumBody(name, description, values);
    const problems = [
      ...(body.name ? [] : ['Give the enum a name.']),
      ...(body.values.length ? [] : ['Give it at least one value.']),
    ];
    if (problems.length)
      return setError({ message: 'The enum cannot be saved yet:', details: problems });
    setBusy(true);
    setError(null);
    try {
      const saved = original
        ? await request<AppEnum>(
            'PUT',
            `/api/apps/${seg(app.id)}/enums/${seg(original.name)}`,
            body,
          )
        : await post<AppEnum>(`/api/apps/${seg(app.id)}/enums`, body);
      onSaved(saved);
    } catch (e) {
      setError(describeError(e));
      setBusy(false);
    }
  }

  return (
    <form className="form" onSubmit={submit} noValidate>
      <ErrorMessage error={error} />
      <div className="field">
        <label htmlFor={`${prefix}-name`}>Enum name</label>
        <input
          id={`${prefix}-name`}
          value={name}
          maxLength={100}
          autoComplete="off"
          spellCheck={false}
          aria-describedby={`${prefix}-name-hint`}
          onChange={(e) => setName(e.target.value)}
        />
        <p className="hint" id={`${prefix}-name-hint`}>
          A GraphQL name, e.g. <code>OrderStatus</code>: letters, digits and _, not starting with a
          digit.
        </p>
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-description`}>Description (optional)</label>
        <input
          id={`${prefix}-description`}
          value={description}
          maxLength={1000}
          onChange={(e) => setDescription(e.target.value)}
        />
      </div>
      <fieldset className="fieldset">
        <legend>Values</legend>
        <ol className="enum-values">
          {values.map((v, i) => (
            <li key={i} className="field-row">
              <div className="field">
                <label htmlFor={`${prefix}-value-${i}`}>Value {i + 1}</label>
                <input
                  id={`${prefix}-value-${i}`}
                  value={v.value}
                  spellCheck={false}
                  autoComplete="off"
                  onChange={(e) => setValue(i, { value: e.target.value })}
                />
              </div>
              <div className="field">
                <label htmlFor={`${prefix}-label-${i}`}>Label of value {i + 1}</label>
                <input
                  id={`${prefix}-label-${i}`}
                  value={v.label ?? ''}
                  maxLength={200}
                  onChange={(e) => setValue(i, { label: e.target.value })}
                />
              </div>
              <div className="field">
                <label htmlFor={`${prefix}-color-${i}`}>Colour of value {i + 1}</label>
                <div className="color-input">
                  <input
                    id={`${prefix}-color-${i}`}
                    value={v.color ?? ''}
                    maxLength={50}
                    spellCheck={false}
                    placeholder="#2e7d32"
                    onChange={(e) => setValue(i, { color: e.target.value })}
                  />
                  {isPaintable(v.color) && (
                    <span className="swatch" style={{ background: v.color! }} aria-hidden="true" />
                  )}
                </div>
              </div>
              {values.length > 1 && (
                <button
                  type="button"
                  className="button button--danger-outline button--small"
                  onClick={() => setValues(values.filter((_, j) => j !== i))}
                >
                  Remove value {i + 1}
                </button>
              )}
            </li>
          ))}
        </ol>
        <button
          type="button"
          className="button button--secondary"
          onClick={() => setValues([...values, { value: '', label: '', color: '' }])}
        >
          Add a value
        </button>
      </fieldset>
      <div className="actions">
        {onCancel && (
          <button type="button" className="button button--secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="button" disabled={busy}>
          {original ? 'Save enum' : 'Create enum'}
        </button>
      </div>
    </form>
  );
}

/** Editing an enum in a modal dialog (Escape closes it, focus stays inside). */
function EditEnumDialog({
  app,
  original,
  onSaved,
  onClose,
}: {
  app: App;
  original: AppEnum;
  onSaved: (e: AppEnum) => void;
  onClose: () => void;
}) {
  return (
    <dialog
      className="dialog dialog--wide"
      aria-labelledby="edit-enum-title"
      ref={(element) => {
        if (element && !element.open) element.showModal();
      }}
      onClose={onClose}
    >
      <h2 id="edit-enum-title">Edit the enum {original.name}</h2>
      <EnumForm app={app} original={original} onSaved={onSaved} onCancel={onClose} />
    </dialog>
  );
}
