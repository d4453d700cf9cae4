import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { useMemo } from 'react';
import type { PageData } from '../shared/types';
import { MemoryStorage } from './memory-storage';

/** The test tab's subject, as the server wrote it into the page. */
type Subject = NonNullable<PageData['testTab']>;

/**
 * The GraphiQL test tab (CONTRACT.md §3, §10): GraphiQL on `/api/graphql/<app address>`, sending
 * the session cookie (`credentials: 'same-origin'`), so the builder's calls reach their working
 * version and drafts appear in the documentation explorer described `RASCUNHO`. It opens on the
 * API's starter query.
 */
export function TestTab({ subject, email }: { subject: Subject; email: string | null }) {
  const fetcher = useMemo(
    () =>
      createGraphiQLFetcher({
        url: subject.endpoint,
        fetch: (input, init) => fetch(input, { ...init, credentials: 'same-origin' }),
      }),
    [subject.endpoint],
  );
  const storage = useMemo(() => new MemoryStorage(), []);
  const status = subject.api.status === 'draft' ? 'Draft' : 'Published';
  return (
    <div className="test-tab">
      <header className="test-tab__bar">
        <a href={subject.editorUrl}>‹ Back to the editor</a>
        <h1>
          Test tab: {subject.api.name}{' '}
          <span className={`badge badge--${subject.api.status}`}>{status}</span>
        </h1>
        <p>
          Runs as {email ?? 'you'} on your working version of {subject.app.name} (
          <code>{subject.endpoint}</code>); draft operations are described RASCUNHO in the docs.
          Press Ctrl+Enter to run.
        </p>
      </header>
      <main className="test-tab__graphiql">
        <GraphiQL
          fetcher={fetcher}
          initialQuery={subject.starterQuery}
          storage={storage}
          shouldPersistHeaders={false}
          defaultEditorToolsVisibility={false}
        />
      </main>
    </div>
  );
}
