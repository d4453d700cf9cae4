import { useState, type FormEvent } from 'react';
import type { App } from '../../shared/types';
import { ErrorMessage } from '../../shared/ui';
import { problemOf, type Problem } from './graphql';
import { keyLabel, keyOf, write, type Row } from './row-queries';
import type { RowSchema } from './row-schema';
import { ValueInput } from './ValueInput';
import { parseValue } from './values';

/**
 * "Add row" (issue 27 item 6): a form with one control per argument of `add<Base>`, required
 * ones marked and sent always; an optional one left empty is not sent, so the database's default
 * (or empty) applies. Sent as variables; a refusal is shown in the form, its field marked.
 * `onAdded` gets the line to announce.
 */
export function AddRowForm({
  app,
  schema,
  onAdded,
}: {
  app: App;
  schema: RowSchema;
  onAdded: (notice: string) => void;
}) {
  const add = schema.add!;
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setProblem(null);
    const sent: Record<string, unknown> = {};
    try {
      for (const arg of add.args) {
        const column = schema.columns.find((c) => c.name === arg.name);
        const text = values[arg.name] ?? '';
        if (!column) continue;
        if (!arg.required && text.trim() === '') continue;
        sent[arg.name] = parseValue(
          { ...column, nullable: !arg.required && column.nullable },
          text,
        );
      }
    } catch (e) {
      return setProblem(problemOf(e));
    }
    setBusy(true);
    try {
      const result = await write<Row | boolean>(
        app.address,
        schema,
        add,
        sent,
        schema.addReturnsRow,
      );
      const key = typeof result === 'object' && result ? keyOf(schema, result) : null;
      setValues({});
      setOpen(false);
      onAdded(key ? `Added row ${keyLabel(key)}.` : 'Added the row.');
      document.getElementById('rows-add-toggle')?.focus();
    } catch (e) {
      setProblem(problemOf(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="rows-add">
      <button
        type="button"
        id="rows-add-toggle"
        className="button"
        aria-expanded={open}
        aria-controls="rows-add-form"
        onClick={() => {
          setOpen(!open);
          setProblem(null);
        }}
      >
        Add row
      </button>
      <form
        id="rows-add-form"
        className="card"
        hidden={!open}
        onSubmit={submit}
        aria-labelledby="rows-add-heading"
      >
        <h3 id="rows-add-heading">New row</h3>
        <p className="hint">
          Sent with {add.name}. Required columns are marked; an optional one left empty takes the
          database’s default.
        </p>
        <div className="rows-add__fields">
          {add.args.map((arg) => {
            const column = schema.columns.find((c) => c.name === arg.name);
            if (!column) return null;
            return (
              <ValueInput
                key={arg.name}
                id={`add-${arg.name}`}
                column={{ ...column, nullable: !arg.required }}
                label={`${arg.name}${arg.required ? ' (required)' : ''}`}
                visibleLabel
                required={arg.required && column.type !== 'String'}
                invalid={problem?.field === arg.name}
                describedBy={problem?.field === arg.name ? 'rows-add-problem' : undefined}
                value={values[arg.name] ?? ''}
                onChange={(text) => setValues({ ...values, [arg.name]: text })}
              />
            );
          })}
        </div>
        <ErrorMessage error={problem} id="rows-add-problem" />
        <div className="actions">
          <button type="submit" className="button" disabled={busy}>
            {busy ? 'Adding…' : 'Save new row'}
          </button>
          <button
            type="button"
            className="button button--secondary"
            onClick={() => {
              setOpen(false);
              setProblem(null);
              document.getElementById('rows-add-toggle')?.focus();
            }}
          >
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
