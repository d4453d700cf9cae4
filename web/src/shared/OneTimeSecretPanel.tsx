import { useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A secret shown this once, because the answer that created it is the only place it appears (a new
 * API key, CONTRACT.md §5; a webhook's signing secret, README "Webhooks"): a panel titled `title`
 * that takes the focus, the `warning` that it cannot be shown again, an optional `note`, a
 * read-only field labelled `label` holding `value`, a "Copy <noun>" button (where the browser
 * refuses the clipboard, the value is selected for Ctrl+C and the status line says so), an
 * optional `footer`, and "Done, I have stored it", which calls `onDone`. `id` prefixes the
 * title's and the field's element ids (`<id>-title`, `<id>-value`). The value lives only in this
 * component's props, so the caller drops it by no longer showing the panel.
 */
export function OneTimeSecretPanel({
  id,
  title,
  warning,
  note,
  label,
  noun,
  value,
  footer,
  onDone,
}: {
  id: string;
  title: ReactNode;
  warning: ReactNode;
  note?: ReactNode;
  label: string;
  /** What the value is, in the copy button and status (`key`, `secret`). */
  noun: string;
  value: string;
  footer?: ReactNode;
  onDone: () => void;
}) {
  const panel = useRef<HTMLElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);

  useEffect(() => {
    panel.current?.focus();
  }, []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      field.current?.select();
      setCopied('no');
    }
  }

  return (
    <section className="new-key" aria-labelledby={`${id}-title`} tabIndex={-1} ref={panel}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p className="warning">{warning}</p>
      {note}
      <div className="field">
        <label htmlFor={`${id}-value`}>{label}</label>
        <div className="copy-row">
          <input
            id={`${id}-value`}
            ref={field}
            className="mono"
            readOnly
            value={value}
            onFocus={(e) => e.target.select()}
            spellCheck={false}
            autoComplete="off"
          />
          <button type="button" className="button" onClick={copy}>
            Copy {noun}
          </button>
        </div>
      </div>
      <p role="status" className="copy-status">
        {copied === 'yes' && 'Copied to the clipboard.'}
        {copied === 'no' && `Copying was not allowed here: the ${noun} is selected, press Ctrl+C.`}
      </p>
      {footer}
      <button type="button" className="button button--secondary" onClick={onDone}>
        Done, I have stored it
      </button>
    </section>
  );
}
