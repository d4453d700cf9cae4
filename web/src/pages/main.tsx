import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { readPageData } from '../shared/page-data';
import '../shared/styles.css';
import { App } from './App';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter>
      <App initialAccount={readPageData().account} />
    </BrowserRouter>
  </StrictMode>,
);
