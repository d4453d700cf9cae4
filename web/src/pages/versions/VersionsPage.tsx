import { useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { get, seg } from '../../shared/api';
import type { App } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Loading, PageHeading, StatusMessage, usePageTitle } from '../../shared/ui';
import { PublishVersionDialog } from '../editor/PublishVersionDialog';
import { useVersionDiff, VersionDiffList } from './VersionDiffList';
import '../access/access.css';

/**
 * Versions of one app (issue 27 item 5, `/apps/:appId/versions`): the signed-in builder's working
 * version against main as a readable diff, and "Publish working version", which asks first (the
 * editor's confirmation, with the same diff in it).
 */
export function VersionsPage() {
  const { appId = '' } = useParams();
  const app = useLoad(() => get<App>(`/api/apps/${seg(appId)}`), appId);
  const diff = useVersionDiff(appId);
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const heading = useRef<HTMLDivElement>(null);
  const name = app.data?.name;
  usePageTitle(name ? `Versions of ${name}` : 'Versions');

  return (
    <div className="access-pages">
      <p className="breadcrumbs">
        <Link to="/versions">Versions</Link>
      </p>
      <PageHeading>{name ? `Versions of ${name}` : 'Versions'}</PageHeading>
      {app.loading && !app.data && <Loading what="the app" />}
      <ErrorMessage error={app.error} />
      <div ref={heading} tabIndex={-1}>
        {notice && <StatusMessage>{notice}</StatusMessage>}
      </div>
      {app.data && (
        <>
          <p className="lead">
            Your changes (Table APIs, the model, enums, row rules) go to your working version.
            Publishing it makes it the main version, which API keys, app users and anonymous callers
            reach.
          </p>
          <VersionDiffList diff={diff} headingLevel={2} />
          <div className="actions">
            <button
              type="button"
              className="button"
              disabled={!diff.data || diff.data.workingRevision === null}
              onClick={() => setConfirming(true)}
            >
              Publish working version
            </button>
          </div>
        </>
      )}
      {confirming && app.data && (
        <PublishVersionDialog
          app={app.data}
          unsaved={false}
          onPublished={(revision) => {
            setConfirming(false);
            setNotice(
              `Your working version is now the main version of ${app.data!.name} (revision ${revision}).`,
            );
            diff.reload();
            heading.current?.focus();
          }}
          onClose={() => setConfirming(false)}
        />
      )}
    </div>
  );
}
