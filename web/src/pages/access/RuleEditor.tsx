import { useId, useState, type FormEvent } from 'react';
import { describeError } from '../../shared/api';
import type { ModelTable } from '../../shared/types';
import { Feedback, VisuallyHidden } from '../../shared/ui';
import type { Where } from './access-types';
import {
  fromWhere,
  OPERATORS,
  toWhere,
  type Condition,
  type Operator,
  type SimpleRule,
  type ValueSource,
} from './rule-words';

/**
 * The row rule of one role on one table (CONTRACT.md §4): conditions "column operator value",
 * joined by "all of" (AND) or "any of" (OR), each value fixed or the user's id or one of their
 * attributes; or, for what the list cannot hold (navigations, nesting), the rule as JSON. No
 * condition saves "no rule": the role sees every row. `onSave` gets the `where` (null for none)
 * and may throw the service's refusal, shown with every problem it lists.
 */
export function RuleEditor({
  role,
  table,
  where,
  onSave,
  onCancel,
}: {
  role: string;
  table: ModelTable;
  where: Where | undefined;
  onSave: (where: Where | null) => Promise<void>;
  onCancel: () => void;
}) {
  const id = useId();
  const columns = table.fields.map((f) => f.name);
  const simple = fromWhere(where, columns);
  const [rule, setRule] = useState<SimpleRule>(simple ?? { join: 'all', conditions: [] });
  const [asJson, setAsJson] = useState(simple === null);
  const [json, setJson] = useState(JSON.stringify(where ?? {}, null, 2));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);

  function change(index: number, part: Partial<Condition>) {
    setRule((r) => ({
      ...r,
      conditions: r.conditions.map((c, i) => (i === index ? { ...c, ...part } : c)),
    }));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      let next: Where | null;
      if (asJson) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(json || '{}');
        } catch {
          throw new Error('The rule is not valid JSON: check its brackets, quotes and commas.');
        }
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
          throw new Error(
            'The rule must be a JSON object, like {"region": {"eq": "$user.region"}}.',
          );
        next = Object.keys(parsed).length ? (parsed as Where) : null;
      } else {
        next = toWhere(rule, table.fields);
      }
      await onSave(next);
    } catch (e) {
      setError(describeError(e));
      setBusy(false);
    }
  }

  const title = `Row rule of ${role} on ${table.name}`;
  return (
    <form className="card rule-editor" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} tabIndex={-1}>
        {title}
      </h3>
      <p className="hint">
        Applies to every action of every Table API on {table.name}: the rows {role} may read, count,
        update and delete, and the rows it may write. Saved in your working version.
      </p>
      <Feedback notice={null} error={error} />
      <div className="check">
        <input
          type="checkbox"
          id={`${id}-json`}
          checked={asJson}
          onChange={(e) => {
            if (e.target.checked)
              setJson(JSON.stringify(toWhere(rule, table.fields) ?? {}, null, 2));
            setAsJson(e.target.checked);
          }}
        />
        <label htmlFor={`${id}-json`}>Edit as JSON</label>
        {simple === null && (
          <span className="hint">this rule uses navigations or nesting, which only JSON holds</span>
        )}
      </div>
      {asJson ? (
        <div className="field">
          <label htmlFor={`${id}-where`}>Rule (the where filter, as JSON)</label>
          <textarea
            id={`${id}-where`}
            rows={6}
            className="mono"
            value={json}
            aria-describedby={`${id}-where-hint`}
            onChange={(e) => setJson(e.target.value)}
          />
          <p className="hint" id={`${id}-where-hint`}>
            The <code>where</code> language of the GraphQL endpoint; values may be{' '}
            <code>"$user.id"</code> or <code>"$user.&lt;attribute&gt;"</code>. <code>{'{}'}</code>:
            no rule, every row.
          </p>
        </div>
      ) : (
        <>
          <div className="field">
            <label htmlFor={`${id}-join`}>Rows that match</label>
            <select
              id={`${id}-join`}
              value={rule.join}
              onChange={(e) => setRule({ ...rule, join: e.target.value as SimpleRule['join'] })}
            >
              <option value="all">all of the conditions</option>
              <option value="any">any of the conditions</option>
            </select>
          </div>
          {rule.conditions.length === 0 && (
            <p>
              No conditions: {role} sees every row of {table.name}.
            </p>
          )}
          <ol className="conditions">
            {rule.conditions.map((c, i) => (
              <li key={i}>
                <fieldset className="fieldset condition">
                  <legend>Condition {i + 1}</legend>
                  <div className="field">
                    <label htmlFor={`${id}-c${i}-column`}>Column</label>
                    <select
                      id={`${id}-c${i}-column`}
                      value={c.column}
                      onChange={(e) => change(i, { column: e.target.value })}
                    >
                      {table.fields.map((f) => (
                        <option key={f.name} value={f.name}>
                          {f.name}
                        </option>
                      ))}
                    </select>
                  </div>
                  <div className="field">
                    <label htmlFor={`${id}-c${i}-op`}>Operator</label>
                    <select
                      id={`${id}-c${i}-op`}
                      value={c.op}
                      onChange={(e) => change(i, { op: e.target.value as Operator })}
                    >
                      {OPERATORS.map((o) => (
                        <option key={o.op} value={o.op}>
                          {o.words}
                        </option>
                      ))}
                    </select>
                  </div>
                  <div className="field">
                    <label htmlFor={`${id}-c${i}-source`}>Compared with</label>
                    <select
                      id={`${id}-c${i}-source`}
                      value={c.source}
                      onChange={(e) => change(i, { source: e.target.value as ValueSource })}
                    >
                      <option value="fixed">a value</option>
                      <option value="user-id">the user’s id ($user.id)</option>
                      <option value="user-attribute">an attribute of the user ($user.…)</option>
                    </select>
                  </div>
                  {c.source !== 'user-id' && (
                    <div className="field">
                      <label htmlFor={`${id}-c${i}-value`}>
                        {c.source === 'fixed' ? 'Value' : 'Attribute name'}
                      </label>
                      <input
                        id={`${id}-c${i}-value`}
                        value={c.value}
                        aria-describedby={
                          c.op === 'in' || c.op === 'nin' ? `${id}-c${i}-value-hint` : undefined
                        }
                        onChange={(e) => change(i, { value: e.target.value })}
                      />
                      {(c.op === 'in' || c.op === 'nin') && c.source === 'fixed' && (
                        <p className="hint" id={`${id}-c${i}-value-hint`}>
                          Comma-separated values.
                        </p>
                      )}
                    </div>
                  )}
                  <button
                    type="button"
                    className="button button--danger-outline"
                    onClick={() =>
                      setRule((r) => ({ ...r, conditions: r.conditions.filter((_, j) => j !== i) }))
                    }
                  >
                    Remove<VisuallyHidden> condition {i + 1}</VisuallyHidden>
                  </button>
                </fieldset>
              </li>
            ))}
          </ol>
          <button
            type="button"
            className="button button--secondary"
            onClick={() =>
              setRule((r) => ({
                ...r,
                conditions: [
                  ...r.conditions,
                  { column: columns[0] ?? '', op: 'eq', source: 'fixed', value: '' },
                ],
              }))
            }
          >
            Add condition
          </button>
        </>
      )}
      <div className="actions">
        <button type="button" className="button button--secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Saving…' : 'Save rule'}
        </button>
      </div>
    </form>
  );
}
