import { useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { describeError, get, patch, post, seg } from '../../shared/api';
import type { App, ModelGroup, ModelTable, TableApi } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import {
  ErrorMessage,
  Feedback,
  Loading,
  PageHeading,
  StatusBadge,
  usePageTitle,
  VisuallyHidden,
} from '../../shared/ui';
import { ActionSwitches } from './ActionSwitches';
import {
  bodyOf,
  Draft,
  draftOf,
  draftProblems,
  NEW_DRAFT,
  sameDraft,
  suggestedName,
} from './draft';
import { allColumns, requiredColumnNames } from './fields-tree';
import { FieldsTreeEditor } from './FieldsTreeEditor';
import { PublishVersionDialog } from './PublishVersionDialog';
import { TablePicker } from './TablePicker';
import { UNGUARDED, useUnsavedChangesGuard } from '../unsaved-changes';

/** Everything the editor needs from the service, loaded at once. */
interface EditorData {
  app: App;
  tables: Map<string, ModelTable>;
  api: TableApi | null;
}

/** The app, its whole model (for the fields tree) and the API (none when new). */
async function loadEditor(appId: string, apiId: string | undefined): Promise<EditorData> {
  const base = `/api/apps/${seg(appId)}`;
  const [app, groups, api] = await Promise.all([
    get<App>(base),
    get<ModelGroup[]>(`${base}/model/tables`),
    apiId ? get<TableApi>(`${base}/apis/${seg(apiId)}`) : Promise.resolve(null),
  ]);
  const tables = new Map(groups.flatMap((g) => g.tables.map((t) => [t.name, t] as const)));
  return { app, tables, api };
}

/**
 * The Table API editor (CONTRACT.md §3, §10) at `/apps/:appId/apis/new` and
 * `/apps/:appId/apis/:apiId`, working on the builder's working version through the builder REST.
 * Leaving it with unsaved changes asks first; publishing the working version shows what goes live
 * and asks to confirm.
 */
export function EditorPage() {
  const { appId = '', apiId } = useParams();
  const loaded = useLoad(() => loadEditor(appId, apiId), `${appId}/${apiId ?? 'new'}`);
  usePageTitle(apiId ? (loaded.data?.api?.name ?? 'Table API') : 'New Table API');
  if (loaded.error)
    return (
      <>
        <PageHeading>Table API</PageHeading>
        <ErrorMessage error={loaded.error} />
        <p>
          <Link to="/">Back to your apps</Link>
        </p>
      </>
    );
  if (!loaded.data) return <Loading what="the Table API" />;
  return <EditorForm key={loaded.data.api?.id ?? 'new'} data={loaded.data} />;
}

/** The editor itself, for loaded data. */
function EditorForm({ data }: { data: EditorData }) {
  const { app, tables } = data;
  const navigate = useNavigate();
  const location = useLocation();
  const [saved, setSaved] = useState(data.api);
  const [draft, setDraft] = useState<Draft>(data.api ? draftOf(data.api) : NEW_DRAFT);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const [notice, setNotice] = useState<string | null>(
    (location.state as { notice?: string } | null)?.notice ?? null,
  );
  const [busy, setBusy] = useState(false);

  const table = draft.table ? tables.get(draft.table) : undefined;
  const writing = draft.actions.insert || draft.actions.update;
  const required = table && writing ? requiredColumnNames(table) : [];
  const dirty = !saved || !sameDraft(draftOf(saved), draft);
  // What leaving would lose: a new API once anything is chosen, a saved one once it differs.
  const unsaved = saved ? dirty : !sameDraft(NEW_DRAFT, draft);
  const guard = useUnsavedChangesGuard(unsaved, 'your changes to this Table API');
  const [confirmingPublish, setConfirmingPublish] = useState(false);
  const base = draft.name ? draft.name.charAt(0).toUpperCase() + draft.name.slice(1) : '<Name>';
  const appPath = `/api/apps/${seg(app.id)}`;

  function start() {
    setBusy(true);
    setError(null);
    setNotice(null);
  }

  /** Saves the draft (creating the API when new). @returns the saved API, or null on refusal. */
  async function save(): Promise<TableApi | null> {
    const problems = draftProblems(draft, table);
    if (problems.length) {
      setError({ message: 'The Table API cannot be saved yet:', details: problems });
      return null;
    }
    start();
    try {
      if (!saved) {
        const { fields, ...rest } = bodyOf(draft, required);
        const created = await post<TableApi>(`${appPath}/apis`, {
          ...rest,
          ...(fields ? { fields } : {}),
        });
        navigate(`/apps/${seg(app.id)}/apis/${seg(created.id)}`, {
          replace: true,
          state: {
            ...UNGUARDED,
            notice: `Saved “${created.name}” as a draft in your working version.`,
          },
        });
        return created;
      }
      const updated = await patch<TableApi>(
        `${appPath}/apis/${seg(saved.id)}`,
        bodyOf(draft, required),
      );
      setSaved(updated);
      setDraft(draftOf(updated));
      setNotice('Saved in your working version.');
      return updated;
    } catch (e) {
      setError(describeError(e));
      return null;
    } finally {
      setBusy(false);
    }
  }

  /** Publishes the API (saving pending changes first); the service's reason when it refuses. */
  async function publish() {
    const current = dirty ? await save() : saved;
    if (!current) return;
    start();
    try {
      await post(`${appPath}/apis/${seg(current.id)}/publish`);
      const fresh = await get<TableApi>(`${appPath}/apis/${seg(current.id)}`);
      setSaved(fresh);
      setDraft(draftOf(fresh));
      setNotice(
        'Published in your working version. Publish the working version (below) so API keys reach it.',
      );
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  /** After the confirmed publication of the working version (PublishVersionDialog). */
  function versionPublished(revision: number) {
    setConfirmingPublish(false);
    setError(null);
    setNotice(
      `Your working version is now the main version of ${app.name} (revision ${revision}). API keys, app users and anonymous callers reach it from their next request.`,
    );
  }

  function chooseTable(name: string) {
    setDraft((d) => ({
      ...d,
      table: name,
      fields: null,
      name: d.name || suggestedName(name),
      ...(tables.get(name)?.readOnly && {
        actions: { select: d.actions.select, insert: false, update: false, delete: false },
        public: { select: d.public.select, insert: false, update: false, delete: false },
      }),
    }));
  }

  return (
    <>
      <p className="breadcrumbs">
        <Link to="/">Apps</Link> › <Link to={`/apps/${seg(app.id)}`}>{app.name}</Link>
      </p>
      <PageHeading>{saved ? `Table API “${saved.name}”` : 'New Table API'}</PageHeading>
      <p className="lead">
        <StatusBadge status={saved ? saved.status : 'new'} /> In {app.name}. Changes go to your
        working version of the app.
      </p>
      {saved && (
        <p>
          <a
            className="button button--secondary"
            href={`${appPath}/apis/${seg(saved.id)}/test`}
            target="_blank"
            rel="noopener"
          >
            Open the test tab<VisuallyHidden> (opens in a new tab)</VisuallyHidden>
          </a>{' '}
          {dirty && (
            <span className="hint">The test tab runs the saved definition: save first.</span>
          )}
        </p>
      )}
      <Feedback notice={notice} error={error} />
      <form
        className="form editor"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <section aria-labelledby="name-heading">
          <h2 id="name-heading">Name</h2>
          <div className="field">
            <label htmlFor="api-name">API name</label>
            <input
              id="api-name"
              value={draft.name}
              maxLength={63}
              required
              aria-describedby="api-name-hint"
              onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            />
            <p className="hint" id="api-name-hint">
              The base of the operation names: get{base}, add{base}… A letter, then letters, digits
              or _.
            </p>
          </div>
        </section>
        <section aria-labelledby="table-heading">
          <h2 id="table-heading">Table</h2>
          <TablePicker appId={app.id} value={draft.table} onChange={chooseTable} />
        </section>
        <section aria-labelledby="actions-heading">
          <h2 id="actions-heading">Actions</h2>
          <ActionSwitches
            base={base}
            actions={draft.actions}
            publicActions={draft.public}
            readOnly={Boolean(table?.readOnly)}
            onChange={(actions, publicActions) =>
              setDraft({ ...draft, actions, public: publicActions })
            }
          />
        </section>
        <section aria-labelledby="fields-heading">
          <h2 id="fields-heading">Included fields</h2>
          {table ? (
            <>
              <p className="hint">
                {writing
                  ? 'Insert or update is on: the columns a new row needs are required and stay included.'
                  : 'Navigation fields lead to related tables: show their fields to include them, to any depth.'}
              </p>
              <FieldsTreeEditor
                table={table}
                tables={tables}
                tree={draft.fields ?? allColumns(table)}
                locked={new Set(required)}
                onChange={(fields) => setDraft({ ...draft, fields })}
              />
            </>
          ) : (
            <p>Choose a table first.</p>
          )}
        </section>
        <div className="actions actions--bar">
          <button type="submit" className="button" disabled={busy || (saved !== null && !dirty)}>
            {saved ? 'Save changes' : 'Save draft'}
          </button>
          {saved && (
            <button
              type="button"
              className="button button--primary"
              disabled={busy}
              onClick={publish}
            >
              Publish
            </button>
          )}
          {saved && !dirty && <span className="hint">All changes saved.</span>}
        </div>
      </form>
      {saved && (
        <section aria-labelledby="version-heading" className="card">
          <h2 id="version-heading">Working version</h2>
          <p>
            Your changes to {app.name} (this API and any other) are in your working version, which
            only you see: the test tab runs on it. API keys, app users and anonymous callers use the
            app’s main version. Publishing your working version makes it the main version.
          </p>
          <button
            type="button"
            className="button button--secondary"
            disabled={busy}
            onClick={() => setConfirmingPublish(true)}
          >
            Publish working version
          </button>
        </section>
      )}
      {confirmingPublish && (
        <PublishVersionDialog
          app={app}
          unsaved={dirty}
          onPublished={versionPublished}
          onClose={() => setConfirmingPublish(false)}
        />
      )}
      {guard}
    </>
  );
}
