import { useRef, useState } from 'react';
import { get, seg } from '../../shared/api';
import type { ApiKey, App, CreatedApiKey, TableApi } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Loading, PageHeading, StatusMessage, usePageTitle } from '../../shared/ui';
import { useSession } from '../session';
import { CreateKeyForm, ScopableApp } from './CreateKeyForm';
import { KeyTable } from './KeyTable';
import type { Names } from './key-words';
import { NewKeyPanel } from './NewKeyPanel';
import { RevokeDialog } from './RevokeDialog';

/** Apps with their Table APIs (`GET /api/apps`, `…/apis`): names for scopes, choices for new keys. */
async function loadCatalogue(): Promise<{ scopable: ScopableApp[]; names: Names }> {
  const apps = await get<App[]>('/api/apps');
  const withApis = await Promise.all(
    apps.map(async (app) => ({
      app,
      apis: await get<TableApi[]>(`/api/apps/${seg(app.id)}/apis`),
    })),
  );
  return {
    scopable: withApis.map(({ app, apis }) => ({
      app,
      published: apis.filter((a) => a.status === 'published'),
    })),
    names: {
      apps: new Map(apps.map((a) => [a.id, a.name])),
      apis: new Map(withApis.flatMap(({ apis }) => apis.map((a) => [a.id, a.name] as const))),
    },
  };
}

/** What a builder sees: the page exists, but only administrators manage keys (CONTRACT.md §5). */
function AdministratorsOnly() {
  return (
    <div className="message message--info">
      <p>
        <strong>API keys are for administrators only.</strong> Ask an administrator of the platform
        for a key, or to change one.
      </p>
    </div>
  );
}

/**
 * The API Keys page (CONTRACT.md §5, §10): the keys, the new key shown once, revocation behind a
 * confirmation, and the form to create one. Administrators only; others see why.
 */
export function KeysPage() {
  usePageTitle('API keys');
  const { account } = useSession();
  return (
    <>
      <PageHeading>API keys</PageHeading>
      {account?.role === 'admin' ? <KeysAdministration /> : <AdministratorsOnly />}
    </>
  );
}

/** The page's content for an administrator. */
function KeysAdministration() {
  const keys = useLoad(() => get<ApiKey[]>('/api/admin/api-keys'), 'keys');
  const catalogue = useLoad(loadCatalogue, 'catalogue');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);

  if (keys.error?.status === 403) return <AdministratorsOnly />;
  const names = catalogue.data?.names ?? { apps: new Map(), apis: new Map() };

  return (
    <>
      <p className="lead">
        Integrations call an app’s GraphQL endpoint with a key in the <code>x-api-key</code> header.
        A key reaches the published Table APIs of the apps in its scope.
      </p>
      {created && (
        <NewKeyPanel
          key={created.id}
          created={created}
          onDone={() => {
            setCreated(null);
            listHeading.current?.focus();
          }}
        />
      )}
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading" ref={listHeading} tabIndex={-1}>
          Keys
        </h2>
        {status && <StatusMessage>{status}</StatusMessage>}
        {keys.loading && !keys.data && <Loading what="keys" />}
        <ErrorMessage error={keys.error} />
        {keys.data && <KeyTable keys={keys.data} names={names} onRevoke={setRevoking} />}
      </section>
      <section aria-labelledby="create-heading">
        <h2 id="create-heading">Create a key</h2>
        <ErrorMessage error={catalogue.error} />
        {catalogue.data && (
          <CreateKeyForm
            apps={catalogue.data.scopable}
            onCreated={(key) => {
              setStatus(null);
              setCreated(key);
              keys.reload();
            }}
          />
        )}
      </section>
      {revoking && (
        <RevokeDialog
          apiKey={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={(key) => {
            setRevoking(null);
            setStatus(`The key “${key.name}” is revoked.`);
            keys.reload();
            listHeading.current?.focus();
          }}
        />
      )}
    </>
  );
}
