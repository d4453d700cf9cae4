import { useId, useState, type FormEvent } from 'react';
import { describeError } from '../../shared/api';
import type { TableApi } from '../../shared/types';
import { ErrorMessage } from '../../shared/ui';
import {
  SQL_API_EVENT,
  WEBHOOK_EVENTS,
  type SqlApiChoice,
  type WebhookBody,
  type WebhookEvent,
} from './webhook-types';

/**
 * The form of a webhook (create or edit): name, URL, the Table APIs it listens to and their row
 * events, and the mutation-kind SQL APIs it listens to (each sends `executed`, one event per
 * committed call, added to the events when one is chosen), as checkboxes in labelled groups. `onSave` answers the body the service takes
 * (`POST` or `PUT …/webhooks`); a refusal (a private address, no API chosen) is shown with every
 * listed problem and the form keeps what was typed.
 */
export function WebhookForm({
  apis,
  sqlApis,
  initial,
  submitLabel,
  onSave,
  onCancel,
}: {
  apis: TableApi[];
  /** The app's mutation-kind SQL APIs. */
  sqlApis: SqlApiChoice[];
  initial: WebhookBody;
  submitLabel: string;
  onSave: (body: WebhookBody) => Promise<void>;
  onCancel?: () => void;
}) {
  const id = useId();
  const [name, setName] = useState(initial.name);
  const [url, setUrl] = useState(initial.url);
  const [chosen, setChosen] = useState(new Set(initial.apis));
  const [events, setEvents] = useState(
    new Set<WebhookEvent>(initial.events.filter((e) => e !== SQL_API_EVENT)),
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);

  const toggle = <T,>(set: Set<T>, value: T, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(value);
    else next.delete(value);
    return next;
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const chosenSql = sqlApis.filter((a) => chosen.has(a.id)).map((a) => a.id);
    try {
      await onSave({
        name: name.trim(),
        url: url.trim(),
        apis: [...apis.filter((a) => chosen.has(a.id)).map((a) => a.id), ...chosenSql],
        events: [
          ...WEBHOOK_EVENTS.filter((ev) => events.has(ev)),
          ...(chosenSql.length ? [SQL_API_EVENT] : []),
        ],
        enabled: initial.enabled,
      });
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form" onSubmit={submit}>
      <div className="field">
        <label htmlFor={`${id}-name`}>Webhook name</label>
        <input
          id={`${id}-name`}
          value={name}
          required
          maxLength={100}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-url`}>URL</label>
        <input
          id={`${id}-url`}
          type="text"
          inputMode="url"
          spellCheck={false}
          value={url}
          required
          aria-describedby={`${id}-url-hint`}
          onChange={(e) => setUrl(e.target.value)}
        />
        <p className="hint" id={`${id}-url-hint`}>
          An <code>https://</code> address of your receiver on the public internet.
        </p>
      </div>
      <fieldset className="fieldset">
        <legend>Table APIs it listens to</legend>
        {apis.length === 0 && <p>This app has no Table APIs yet.</p>}
        {apis.map((api) => (
          <div className="check" key={api.id}>
            <input
              type="checkbox"
              id={`${id}-api-${api.id}`}
              checked={chosen.has(api.id)}
              onChange={(e) => setChosen(toggle(chosen, api.id, e.target.checked))}
            />
            <label htmlFor={`${id}-api-${api.id}`}>{api.name}</label>
          </div>
        ))}
      </fieldset>
      <fieldset className="fieldset">
        <legend>SQL APIs it listens to</legend>
        <p className="hint">One event per committed call of a mutation-kind SQL API (executed).</p>
        {sqlApis.length === 0 && <p>This app has no mutation-kind SQL APIs.</p>}
        {sqlApis.map((api) => (
          <div className="check" key={api.id}>
            <input
              type="checkbox"
              id={`${id}-sql-${api.id}`}
              checked={chosen.has(api.id)}
              onChange={(e) => setChosen(toggle(chosen, api.id, e.target.checked))}
            />
            <label htmlFor={`${id}-sql-${api.id}`}>{api.name}</label>
          </div>
        ))}
      </fieldset>
      <fieldset className="fieldset">
        <legend>Events its Table APIs send</legend>
        {WEBHOOK_EVENTS.map((ev) => (
          <div className="check" key={ev}>
            <input
              type="checkbox"
              id={`${id}-event-${ev}`}
              checked={events.has(ev)}
              onChange={(e) => setEvents(toggle(events, ev, e.target.checked))}
            />
            <label htmlFor={`${id}-event-${ev}`}>Rows {ev}</label>
          </div>
        ))}
      </fieldset>
      <ErrorMessage error={error} />
      <div className="actions">
        <button type="submit" className="button" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="button button--secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
