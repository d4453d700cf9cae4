import { useEffect, useRef, useState } from 'react';
import type { CreatedApiKey } from '../../shared/types';

/**
 * The new key, shown this once (CONTRACT.md §5: the create answer is the only place it
 * appears): a read-only field with the key, a copy button, and the warning that it cannot be
 * shown again. The key lives only in this component's props; "Done" drops it.
 */
export function NewKeyPanel({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const panel = useRef<HTMLElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);

  useEffect(() => {
    panel.current?.focus();
  }, []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('yes');
    } catch {
      field.current?.select();
      setCopied('no');
    }
  }

  return (
    <section className="new-key" aria-labelledby="new-key-title" tabIndex={-1} ref={panel}>
      <h2 id="new-key-title">New key “{created.name}”: copy it now</h2>
      <p className="warning">
        <strong>This key cannot be shown again.</strong> Copy it now and store it somewhere safe,
        such as your integration’s secret store. If you lose it, revoke it and create another.
      </p>
      <div className="field">
        <label htmlFor="new-key-value">API key</label>
        <div className="copy-row">
          <input
            id="new-key-value"
            ref={field}
            className="mono"
            readOnly
            value={created.key}
            onFocus={(e) => e.target.select()}
            spellCheck={false}
            autoComplete="off"
          />
          <button type="button" className="button" onClick={copy}>
            Copy key
          </button>
        </div>
      </div>
      <p role="status" className="copy-status">
        {copied === 'yes' && 'Copied to the clipboard.'}
        {copied === 'no' && 'Copying was not allowed here: the key is selected, press Ctrl+C.'}
      </p>
      <p>
        Integrations send it in the <code>x-api-key</code> header, never in a URL.
      </p>
      <button type="button" className="button button--secondary" onClick={onDone}>
        Done, I have stored it
      </button>
    </section>
  );
}
