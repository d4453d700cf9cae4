import { get, post, seg } from '../../shared/api';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import { ACTION_NAMES, type Actions, type App, type TableApi } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Loading } from '../../shared/ui';
import { useVersionDiff, VersionDiffList } from '../versions/VersionDiffList';

/** The actions switched on in a set of switches, in words: "select, insert", or "none". */
function actionsInWords(actions: Actions): string {
  const on = ACTION_NAMES.filter((a) => actions[a]);
  return on.length ? on.join(', ') : 'none';
}

/**
 * The confirmation before "Publish working version" (CONTRACT.md §3, §7): the pages'
 * {@link ConfirmDialog} with a summary of what goes live, read from the builder's working version
 * (`GET /api/apps/:appId/apis`): the published Table APIs callers will reach, with their actions
 * and public switches, the drafts that stay unreachable, whether the editor holds unsaved
 * changes (which are not part of it), and what changes against the main version (issue 27 item 5,
 * `GET /api/apps/:appId/versions/diff`, {@link VersionDiffList}). Confirming makes the working version the app's main
 * version (`POST /api/apps/:appId/versions/publish`).
 */
export function PublishVersionDialog({
  app,
  unsaved,
  onPublished,
  onClose,
}: {
  app: App;
  /** Whether the editor holds changes not saved yet. */
  unsaved: boolean;
  onPublished: (revision: number) => void;
  onClose: () => void;
}) {
  const appPath = `/api/apps/${seg(app.id)}`;
  const apis = useLoad(() => get<TableApi[]>(`${appPath}/apis`), app.id);
  const published = apis.data?.filter((a) => a.status === 'published') ?? [];
  const drafts = apis.data?.filter((a) => a.status === 'draft') ?? [];
  const diff = useVersionDiff(app.id);

  return (
    <ConfirmDialog
      title={`Publish your working version of ${app.name}?`}
      confirmLabel="Publish now"
      tone="primary"
      onConfirm={async () => {
        const { revision } = await post<{ revision: number }>(`${appPath}/versions/publish`);
        onPublished(revision);
      }}
      onClose={onClose}
    >
      <p>
        It becomes the main version of {app.name}: API keys, app users and anonymous callers reach
        it from their next request. These pages cannot undo it; publish again to change it.
      </p>
      {unsaved && (
        <p className="message message--info">
          This Table API has unsaved changes: they are not part of the working version, so they do
          not go live. Cancel and save first to include them.
        </p>
      )}
      {apis.loading && !apis.data && <Loading what="what goes live" />}
      <ErrorMessage error={apis.error} />
      {apis.data && (
        <>
          <h3>What callers reach after publishing</h3>
          {published.length === 0 ? (
            <p>No published Table API: callers reach no operation of {app.name}.</p>
          ) : (
            <ul className="summary-list">
              {published.map((api) => (
                <li key={api.id}>
                  <strong>{api.name}</strong> (table {api.table}): {actionsInWords(api.actions)};
                  public: {actionsInWords(api.public)}
                </li>
              ))}
            </ul>
          )}
          {drafts.length > 0 && (
            <>
              <h3>Drafts, which stay unreachable</h3>
              <ul className="summary-list">
                {drafts.map((api) => (
                  <li key={api.id}>
                    <strong>{api.name}</strong> (table {api.table})
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
      {apis.data && <VersionDiffList diff={diff} />}
    </ConfirmDialog>
  );
}
