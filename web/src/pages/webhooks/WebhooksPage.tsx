import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { describeError, get, post, request, seg } from '../../shared/api';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import { readerDateTime } from '../../shared/reader-dates';
import type { App, TableApi } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Feedback, Loading, VisuallyHidden } from '../../shared/ui';
import { AppFrame } from '../apps/AppFrame';
import { SecretPanel } from './SecretPanel';
import { WebhookForm } from './WebhookForm';
import './webhooks.css';
import type {
  CreatedWebhook,
  Delivery,
  RotatedSecret,
  SqlApiChoice,
  Webhook,
  WebhookBody,
} from './webhook-types';

/**
 * The webhooks of one app (issue 28 item 1, `/apps/:appId/webhooks`, README "Webhooks"): each
 * webhook with its URL, Table and SQL APIs, events and state (on, off, suspended with the reason,
 * failing since), a form to create one (its `whsec_` secret shown once with a copy button), edit,
 * switch on or off, rotate the secret (asks first; the new secret shown once), delete (asks
 * first), and each webhook's delivery log with Retry. Dates in the reader's language and zone.
 */
export function WebhooksPage() {
  return <AppFrame section="Webhooks">{(app) => <Webhooks app={app} />}</AppFrame>;
}

/** A secret to show once, and for which webhook. */
interface ShownSecret {
  webhookName: string;
  secret: string;
  note?: string;
}

function Webhooks({ app }: { app: App }) {
  const base = `/api/apps/${seg(app.id)}`;
  const hooks = useLoad(() => get<Webhook[]>(`${base}/webhooks`), app.id);
  const apis = useLoad(() => get<TableApi[]>(`${base}/apis`), app.id);
  const sqlApis = useLoad(
    async () =>
      (await get<SqlApiChoice[]>(`${base}/sql-apis`)).filter((a) => a.kind === 'mutation'),
    app.id,
  );
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const [formKey, setFormKey] = useState(0);
  const top = useRef<HTMLHeadingElement>(null);

  const say = (text: string) => {
    setError(null);
    setNotice(text);
  };

  return (
    <>
      <p className="lead">
        A webhook sends the committed changes of rows, and the committed calls of SQL APIs that
        write, to a URL, signed per Standard Webhooks. Webhooks belong to your working version: they
        fire once it is{' '}
        <Link to={`/apps/${seg(app.id)}/versions`}>published as the main version</Link>.
      </p>
      {shown && (
        <SecretPanel
          webhookName={shown.webhookName}
          secret={shown.secret}
          note={shown.note}
          onDone={() => {
            setShown(null);
            top.current?.focus();
          }}
        />
      )}
      <Feedback notice={notice} error={error} />
      <h2 ref={top} tabIndex={-1}>
        Webhooks
      </h2>
      {(hooks.loading || apis.loading || sqlApis.loading) && !hooks.data && (
        <Loading what="the webhooks" />
      )}
      <ErrorMessage error={hooks.error ?? apis.error ?? sqlApis.error} />
      {hooks.data && apis.data && sqlApis.data && (
        <>
          {hooks.data.length === 0 && <p>No webhooks yet.</p>}
          {hooks.data.map((hook) => (
            <WebhookCard
              key={hook.id}
              base={base}
              hook={hook}
              apis={apis.data!}
              sqlApis={sqlApis.data!}
              onChanged={(text) => {
                say(text);
                hooks.reload();
              }}
              onSecret={setShown}
              onError={(e) => {
                setNotice(null);
                setError(describeError(e));
              }}
            />
          ))}
          <section aria-labelledby="new-webhook-title">
            <h2 id="new-webhook-title">New webhook</h2>
            <WebhookForm
              key={formKey}
              apis={apis.data}
              sqlApis={sqlApis.data}
              initial={{
                name: '',
                url: '',
                apis: [],
                events: ['inserted', 'updated', 'deleted'],
                enabled: true,
              }}
              submitLabel="Create webhook"
              onSave={async (body) => {
                const created = await post<CreatedWebhook>(`${base}/webhooks`, body);
                setNotice(null);
                setError(null);
                setShown({ webhookName: created.name, secret: created.secret });
                setFormKey((n) => n + 1);
                hooks.reload();
              }}
            />
          </section>
        </>
      )}
    </>
  );
}

/** A webhook's state in words: suspended (with why), off, failing, or on. */
function stateOf(hook: Webhook): { label: string; badge: string; detail: string | null } {
  if (hook.suspended)
    return {
      label: 'Suspended',
      badge: 'revoked',
      detail: `${hook.suspended.reason} (since ${readerDateTime(hook.suspended.at)}). Switch it on to resume.`,
    };
  if (!hook.enabled) return { label: 'Off', badge: 'draft', detail: null };
  if (hook.failingSince)
    return {
      label: 'Failing',
      badge: 'expired',
      detail: `Every attempt has failed since ${readerDateTime(hook.failingSince)}.`,
    };
  return { label: 'On', badge: 'active', detail: null };
}

/** One webhook: its settings and state, its actions, and its delivery log. */
function WebhookCard({
  base,
  hook,
  apis,
  sqlApis,
  onChanged,
  onSecret,
  onError,
}: {
  base: string;
  hook: Webhook;
  apis: TableApi[];
  sqlApis: SqlApiChoice[];
  onChanged: (notice: string) => void;
  onSecret: (shown: ShownSecret) => void;
  onError: (error: unknown) => void;
}) {
  const path = `${base}/webhooks/${seg(hook.id)}`;
  const [editing, setEditing] = useState(false);
  const [asking, setAsking] = useState<'rotate' | 'delete' | null>(null);
  const [showLog, setShowLog] = useState(false);
  const state = stateOf(hook);
  const apiNames = hook.apis.map(
    (id) => [...apis, ...sqlApis].find((a) => a.id === id)?.name ?? id,
  );
  const titleId = `webhook-${hook.id}-title`;

  const bodyOf = (enabled: boolean): WebhookBody => ({
    name: hook.name,
    url: hook.url,
    apis: hook.apis,
    events: hook.events,
    enabled,
  });

  async function switchTo(enabled: boolean) {
    try {
      await request('PUT', path, bodyOf(enabled));
      onChanged(`Webhook “${hook.name}” is ${enabled ? 'on' : 'off'}.`);
    } catch (e) {
      onError(e);
    }
  }

  return (
    <article className="webhook" aria-labelledby={titleId}>
      <h3 id={titleId}>{hook.name}</h3>
      {editing ? (
        <WebhookForm
          apis={apis}
          sqlApis={sqlApis}
          initial={bodyOf(hook.enabled)}
          submitLabel="Save webhook"
          onCancel={() => setEditing(false)}
          onSave={async (body) => {
            await request('PUT', path, body);
            setEditing(false);
            onChanged(`Saved the webhook “${body.name}”.`);
          }}
        />
      ) : (
        <dl className="webhook-facts">
          <dt>URL</dt>
          <dd>
            <code className="webhook-url">{hook.url}</code>
          </dd>
          <dt>Table APIs</dt>
          <dd>{apiNames.join(', ') || '—'}</dd>
          <dt>Events</dt>
          <dd>{hook.events.join(', ')}</dd>
          <dt>State</dt>
          <dd>
            <span className={`badge badge--${state.badge}`}>{state.label}</span>
            {state.detail && <span className="webhook-state-detail"> {state.detail}</span>}
          </dd>
        </dl>
      )}
      {!editing && (
        <div className="actions actions--inline">
          <button
            type="button"
            className="button button--secondary"
            onClick={() => setEditing(true)}
          >
            Edit<VisuallyHidden> {hook.name}</VisuallyHidden>
          </button>
          {hook.enabled && !hook.suspended ? (
            <button
              type="button"
              className="button button--secondary"
              onClick={() => switchTo(false)}
            >
              Switch off<VisuallyHidden> {hook.name}</VisuallyHidden>
            </button>
          ) : (
            <button
              type="button"
              className="button button--secondary"
              onClick={() => switchTo(true)}
            >
              Switch on<VisuallyHidden> {hook.name}</VisuallyHidden>
            </button>
          )}
          <button
            type="button"
            className="button button--secondary"
            onClick={() => setAsking('rotate')}
          >
            Rotate secret<VisuallyHidden> of {hook.name}</VisuallyHidden>
          </button>
          <button
            type="button"
            className="button button--danger-outline"
            onClick={() => setAsking('delete')}
          >
            Delete<VisuallyHidden> {hook.name}</VisuallyHidden>
          </button>
          <button
            type="button"
            className="button button--secondary"
            aria-expanded={showLog}
            onClick={() => setShowLog(!showLog)}
          >
            Deliveries<VisuallyHidden> of {hook.name}</VisuallyHidden>
          </button>
        </div>
      )}
      {showLog && <DeliveryLog path={path} hookName={hook.name} />}
      {asking === 'rotate' && (
        <ConfirmDialog
          title={`Rotate the signing secret of “${hook.name}”?`}
          confirmLabel="Rotate secret"
          tone="primary"
          onConfirm={async () => {
            const rotated = await post<RotatedSecret>(`${path}/rotate-secret`);
            setAsking(null);
            onSecret({
              webhookName: hook.name,
              secret: rotated.secret,
              note: `Until ${readerDateTime(rotated.previousExpiresAt)} each delivery carries two signatures, one per secret: move the receiver to the new secret before then.`,
            });
          }}
          onClose={() => setAsking(null)}
        >
          <p>A new secret is made and shown once. The old one keeps signing for 24 hours.</p>
        </ConfirmDialog>
      )}
      {asking === 'delete' && (
        <ConfirmDialog
          title={`Delete the webhook “${hook.name}”?`}
          confirmLabel="Delete webhook"
          onConfirm={async () => {
            await request('DELETE', path);
            setAsking(null);
            onChanged(
              `Deleted the webhook “${hook.name}”. It stops firing once your working version is published.`,
            );
          }}
          onClose={() => setAsking(null)}
        >
          <p>Its pending deliveries are cancelled once your working version is published.</p>
        </ConfirmDialog>
      )}
    </article>
  );
}

/** A delivery's last answer in words: the status code, the error, or nothing yet. */
function lastAnswer(d: Delivery): string {
  if (d.lastStatusCode !== null && d.lastError) return `${d.lastStatusCode}: ${d.lastError}`;
  if (d.lastStatusCode !== null) return `HTTP ${d.lastStatusCode}`;
  return d.lastError ?? '—';
}

const STATUS_WORDS: Record<Delivery['status'], string> = {
  pending: 'Pending',
  sending: 'Sending',
  delivered: 'Delivered',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/**
 * The newest 100 deliveries of a webhook (`GET …/deliveries`): event, status, attempts, next
 * attempt, last answer, with Retry (`POST …/deliveries/:id/retry`) on any that is not on its
 * way, and Refresh. On a phone each delivery is a card of labelled lines.
 */
function DeliveryLog({ path, hookName }: { path: string; hookName: string }) {
  const log = useLoad(() => get<Delivery[]>(`${path}/deliveries`), path);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);

  async function retry(d: Delivery) {
    try {
      await post(`${path}/deliveries/${seg(d.id)}/retry`);
      setError(null);
      setNotice(`Sending ${d.type} again.`);
      log.reload();
    } catch (e) {
      setNotice(null);
      setError(describeError(e));
    }
  }

  return (
    <section className="delivery-log" aria-label={`Deliveries of ${hookName}`}>
      <div className="actions actions--inline">
        <button type="button" className="button button--secondary" onClick={log.reload}>
          Refresh deliveries<VisuallyHidden> of {hookName}</VisuallyHidden>
        </button>
      </div>
      <Feedback notice={notice} error={error} />
      {log.loading && !log.data && <Loading what="the deliveries" />}
      <ErrorMessage error={log.error} />
      {log.data && log.data.length === 0 && <p>No deliveries yet.</p>}
      {log.data && log.data.length > 0 && (
        <div className="table-scroll">
          <table className="table table--cards">
            <caption className="visually-hidden">Deliveries of {hookName}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Last answer</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <VisuallyHidden>Actions</VisuallyHidden>
                </th>
              </tr>
            </thead>
            <tbody>
              {log.data.map((d) => (
                <tr key={d.id}>
                  <th scope="row">
                    <code>{d.type}</code>
                  </th>
                  <td data-label="Status">
                    {STATUS_WORDS[d.status]}
                    {d.deliveredAt && ` ${readerDateTime(d.deliveredAt)}`}
                  </td>
                  <td data-label="Attempts">{d.attempts}</td>
                  <td data-label="Next attempt">{readerDateTime(d.nextAttemptAt)}</td>
                  <td data-label="Last answer">{lastAnswer(d)}</td>
                  <td data-label="Created">{readerDateTime(d.createdAt)}</td>
                  <td>
                    {d.status !== 'sending' && d.status !== 'pending' && (
                      <button
                        type="button"
                        className="button button--secondary"
                        onClick={() => retry(d)}
                      >
                        Retry<VisuallyHidden> {d.type}</VisuallyHidden>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
