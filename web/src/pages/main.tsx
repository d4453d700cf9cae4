import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { readPageData } from '../shared/page-data';
import '../shared/styles.css';
import { App } from './App';

// A data router (one route, the app with its own routes inside), so the editor can hold a
// navigation while it asks about unsaved changes (`useBlocker`, unsaved-changes.tsx).
const router = createBrowserRouter([
  { path: '*', element: <App initialAccount={readPageData().account} /> },
]);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
);
