import type { PageData } from './types';

/**
 * The data the server wrote into this page (`<script id="tg-page-data">`, see
 * `src/pages/page-data.ts`): the signed-in account, and on the test tab its Table API.
 */
export function readPageData(): PageData {
  const element = document.getElementById('tg-page-data');
  if (!element?.textContent) return { account: null };
  return JSON.parse(element.textContent) as PageData;
}

/**
 * Whether `next` is a path of this service (a single leading slash; not `//host` or `/\host`,
 * which browsers read as another site): where sign-in may send the browser on to.
 */
export function isSafeNextPath(next: string | null): next is string {
  return next !== null && /^\/(?![/\\])/.test(next) && !/[\r\n]/.test(next);
}
