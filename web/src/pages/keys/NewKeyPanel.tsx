import { OneTimeSecretPanel } from '../../shared/OneTimeSecretPanel';
import type { CreatedApiKey } from '../../shared/types';

/**
 * The new key, shown this once (CONTRACT.md §5: the create answer is the only place it
 * appears): a read-only field with the key, a copy button, and the warning that it cannot be
 * shown again. The key lives only in this component's props; "Done" drops it.
 */
export function NewKeyPanel({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  return (
    <OneTimeSecretPanel
      id="new-key"
      title={<>New key “{created.name}”: copy it now</>}
      warning={
        <>
          <strong>This key cannot be shown again.</strong> Copy it now and store it somewhere safe,
          such as your integration’s secret store. If you lose it, revoke it and create another.
        </>
      }
      label="API key"
      noun="key"
      value={created.key}
      footer={
        <p>
          Integrations send it in the <code>x-api-key</code> header, never in a URL.
        </p>
      }
      onDone={onDone}
    />
  );
}
