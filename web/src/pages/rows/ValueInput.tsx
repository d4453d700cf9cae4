import type { Column } from './row-schema';
import { formatHint, inputKindOf } from './values';

/**
 * The native control for one value of a column (`values.ts` says which and in what format):
 * a select for Boolean and enum columns (with "empty" when the column may be empty), a date or
 * date-and-time picker for dates, a number field for Int and Float, text otherwise. Labelled by
 * `label` (visible in forms, `aria-label` in the grid), with the format hint, when there is one,
 * as its description.
 */
export function ValueInput({
  id,
  column,
  label,
  value,
  onChange,
  visibleLabel = false,
  autoFocus = false,
  invalid = false,
  describedBy,
  required = false,
  textOnly = false,
}: {
  id: string;
  column: Column;
  label: string;
  value: string;
  onChange: (text: string) => void;
  /** Whether `label` is shown above the control (a form) rather than only named (the grid). */
  visibleLabel?: boolean;
  autoFocus?: boolean;
  invalid?: boolean;
  describedBy?: string;
  required?: boolean;
  /** Plain text whatever the column's type (text matching, lists of values in filters). */
  textOnly?: boolean;
}) {
  const kind = textOnly ? 'text' : inputKindOf(column);
  const hint = textOnly ? null : formatHint(column);
  const hintId = hint ? `${id}-hint` : undefined;
  const described = [describedBy, hintId].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    autoFocus,
    'aria-invalid': invalid || undefined,
    'aria-describedby': described,
    'aria-label': visibleLabel ? undefined : label,
    required,
  };
  let control;
  if (kind === 'boolean' || kind === 'enum') {
    const options = kind === 'boolean' ? ['true', 'false'] : column.enumValues;
    control = (
      <select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
        {(column.nullable || value === '') && (
          <option value="">{column.nullable ? 'empty' : 'choose…'}</option>
        )}
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else {
    const type =
      kind === 'integer' || kind === 'number'
        ? 'number'
        : kind === 'date'
          ? 'date'
          : kind === 'datetime'
            ? 'datetime-local'
            : 'text';
    control = (
      <input
        {...common}
        type={type}
        step={
          kind === 'integer' ? 1 : kind === 'number' ? 'any' : kind === 'datetime' ? 1 : undefined
        }
        inputMode={column.type === 'BigInt' || column.type === 'Decimal' ? 'decimal' : undefined}
        placeholder={column.nullable && type === 'text' ? 'empty' : undefined}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <span className={visibleLabel ? 'field' : 'rows-cell-input'}>
      {visibleLabel && <label htmlFor={id}>{label}</label>}
      {control}
      {hint && (
        <span id={hintId} className={visibleLabel ? 'hint' : 'visually-hidden'}>
          {hint}
        </span>
      )}
    </span>
  );
}
