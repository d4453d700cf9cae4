import { useEffect, useRef, useState, type FormEvent } from 'react';
import { OPERATOR_LABELS, operatorsOf, takesValue, type Condition } from './row-queries';
import type { RowSchema } from './row-schema';
import { ValueInput } from './ValueInput';

/** Operators whose value is typed as plain text whatever the column (text matching, lists). */
const TEXT_VALUE = new Set(['contains', 'startsWith', 'endsWith', 'in', 'nin']);

/**
 * The filter conditions (issue 27 item 6): each a column, one of the operators the API's
 * `<Base>Filter` offers on it (CONTRACT.md §6: text and dates `eq … nin`, numbers without text
 * matching, Boolean `eq`/`neq`, keys `eq neq in nin`, and "is empty"/"is filled" as
 * `eq: null`/`neq: null`), and a value in the column's own control. "Apply filters" sends them
 * all, combined with AND; `onApply` answers false when a value is refused (the page says why).
 */
export function FilterForm({
  schema,
  applied,
  onApply,
}: {
  schema: RowSchema;
  applied: Condition[];
  onApply: (conditions: Condition[]) => boolean;
}) {
  const filterable = schema.columns.filter((c) => operatorsOf(c).length > 0);
  const [conditions, setConditions] = useState<Condition[]>(applied);
  // A condition just added takes the focus on its column.
  const added = useRef(false);
  useEffect(() => {
    if (added.current) document.getElementById(`condition-${conditions.length}-column`)?.focus();
    added.current = false;
  }, [conditions.length]);
  if (!schema.filterType || filterable.length === 0) return null;

  const first = filterable[0]!;
  const change = (i: number, next: Partial<Condition>) =>
    setConditions(conditions.map((c, j) => (j === i ? { ...c, ...next } : c)));

  function submit(event: FormEvent) {
    event.preventDefault();
    onApply(conditions);
  }

  return (
    <form className="card rows-filters" onSubmit={submit} aria-labelledby="rows-filters-heading">
      <h3 id="rows-filters-heading">Filters</h3>
      {conditions.length === 0 && <p className="hint">No filters: every row is shown.</p>}
      <ol className="plain">
        {conditions.map((condition, i) => {
          const n = i + 1;
          const column = filterable.find((c) => c.name === condition.column) ?? first;
          const operators = operatorsOf(column);
          return (
            <li key={i} className="rows-condition">
              <div className="field">
                <label htmlFor={`condition-${n}-column`}>Column, condition {n}</label>
                <select
                  id={`condition-${n}-column`}
                  value={column.name}
                  onChange={(e) => {
                    const next = filterable.find((c) => c.name === e.target.value)!;
                    const ops = operatorsOf(next);
                    change(i, {
                      column: next.name,
                      operator: ops.includes(condition.operator) ? condition.operator : ops[0]!,
                      value: '',
                    });
                  }}
                >
                  {filterable.map((c) => (
                    <option key={c.name} value={c.name}>
                      {c.name}
                    </option>
                  ))}
                </select>
              </div>
              <div className="field">
                <label htmlFor={`condition-${n}-operator`}>Operator, condition {n}</label>
                <select
                  id={`condition-${n}-operator`}
                  value={condition.operator}
                  onChange={(e) => change(i, { operator: e.target.value })}
                >
                  {operators.map((o) => (
                    <option key={o} value={o}>
                      {OPERATOR_LABELS[o]}
                    </option>
                  ))}
                </select>
              </div>
              {takesValue(condition.operator) && (
                <ValueInput
                  id={`condition-${n}-value`}
                  column={{ ...column, nullable: false }}
                  label={`Value, condition ${n}`}
                  visibleLabel
                  textOnly={TEXT_VALUE.has(condition.operator)}
                  describedBy={
                    condition.operator === 'in' || condition.operator === 'nin'
                      ? 'rows-list-hint'
                      : undefined
                  }
                  value={condition.value}
                  onChange={(value) => change(i, { value })}
                />
              )}
              <button
                type="button"
                className="button button--small button--secondary"
                onClick={() => setConditions(conditions.filter((_, j) => j !== i))}
              >
                Remove<span className="visually-hidden"> condition {n}</span>
              </button>
            </li>
          );
        })}
      </ol>
      <p id="rows-list-hint" hidden>
        Separate values with commas.
      </p>
      {conditions.some((c) => c.operator === 'in' || c.operator === 'nin') && (
        <p className="hint">“is one of” and “is none of”: separate values with commas.</p>
      )}
      <div className="actions">
        <button
          type="button"
          className="button button--secondary"
          onClick={() => {
            added.current = true;
            setConditions([
              ...conditions,
              { column: first.name, operator: operatorsOf(first)[0]!, value: '' },
            ]);
          }}
        >
          Add condition
        </button>
        <button type="submit" className="button">
          Apply filters
        </button>
        {(conditions.length > 0 || applied.length > 0) && (
          <button
            type="button"
            className="button button--secondary"
            onClick={() => {
              if (onApply([])) setConditions([]);
            }}
          >
            Clear filters
          </button>
        )}
      </div>
    </form>
  );
}
