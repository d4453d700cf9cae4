import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { readPageData } from '../shared/page-data';
import { whenSignedOutElsewhere } from '../shared/session-channel';
import '../shared/styles.css';
import { TestTab } from './TestTab';

const data = readPageData();
// Signing out in another tab of the browser signs the test tab out too.
whenSignedOutElsewhere(() =>
  window.location.assign(`/sign-in?next=${encodeURIComponent(window.location.pathname)}`),
);
const root = createRoot(document.getElementById('root')!);
if (data.testTab) {
  root.render(
    <StrictMode>
      <TestTab subject={data.testTab} email={data.account?.email ?? null} />
    </StrictMode>,
  );
} else {
  root.render(<p>This page opens from a Table API’s editor.</p>);
}
