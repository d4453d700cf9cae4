import { useEffect, useRef, useState } from 'react';

/**
 * A webhook's signing secret (`whsec_…`), shown this once (README "Webhooks": the create and
 * rotate-secret answers are the only places it appears), like the new-key panel: a read-only
 * field, a copy button, and the warning that it cannot be shown again. `note` adds a line (the
 * rotation's 24 hours of two signatures). The secret lives only in this component's props;
 * "Done" drops it.
 */
export function SecretPanel({
  webhookName,
  secret,
  note,
  onDone,
}: {
  webhookName: string;
  secret: string;
  note?: string;
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
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      field.current?.select();
      setCopied('no');
    }
  }

  return (
    <section className="new-key" aria-labelledby="webhook-secret-title" tabIndex={-1} ref={panel}>
      <h2 id="webhook-secret-title">Signing secret of “{webhookName}”: copy it now</h2>
      <p className="warning">
        <strong>This secret cannot be shown again.</strong> Store it in the receiver’s secret store;
        it verifies the <code>webhook-signature</code> header. If you lose it, rotate it.
      </p>
      {note && <p>{note}</p>}
      <div className="field">
        <label htmlFor="webhook-secret-value">Signing secret</label>
        <div className="copy-row">
          <input
            id="webhook-secret-value"
            ref={field}
            className="mono"
            readOnly
            value={secret}
            onFocus={(e) => e.target.select()}
            spellCheck={false}
            autoComplete="off"
          />
          <button type="button" className="button" onClick={copy}>
            Copy secret
          </button>
        </div>
      </div>
      <p role="status" className="copy-status">
        {copied === 'yes' && 'Copied to the clipboard.'}
        {copied === 'no' && 'Copying was not allowed here: the secret is selected, press Ctrl+C.'}
      </p>
      <button type="button" className="button button--secondary" onClick={onDone}>
        Done, I have stored it
      </button>
    </section>
  );
}
