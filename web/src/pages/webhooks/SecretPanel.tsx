import { OneTimeSecretPanel } from '../../shared/OneTimeSecretPanel';

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
  return (
    <OneTimeSecretPanel
      id="webhook-secret"
      title={<>Signing secret of “{webhookName}”: copy it now</>}
      warning={
        <>
          <strong>This secret cannot be shown again.</strong> Store it in the receiver’s secret
          store; it verifies the <code>webhook-signature</code> header. If you lose it, rotate it.
        </>
      }
      note={note && <p>{note}</p>}
      label="Signing secret"
      noun="secret"
      value={secret}
      onDone={onDone}
    />
  );
}
