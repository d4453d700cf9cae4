/**
 * The URLs of the platform's pages (CONTRACT.md §10), kept apart from the REST routes under
 * `/api/**` and the GraphQL endpoint `/api/graphql`: pages live at the root, built assets under
 * `/assets/`. The GraphiQL test tab is the one page under `/api` because the contract names its
 * URL (`GET /api/apps/:appId/apis/:apiId/test`, §3); `TestTabController` serves it.
 */

/** A page of the single-page front end (`web/src/pages`). */
export type PageName =
  | 'sign-in'
  | 'home'
  | 'keys'
  | 'new-api'
  | 'edit-api'
  | 'new-app'
  | 'app'
  | 'datasources'
  | 'model'
  | 'webhooks'
  | 'enums'
  | 'sql-api'
  | 'rows';

/** What the server knows of a page URL: which page, and whether it needs a platform session. */
export interface PageRoute {
  name: PageName | AccessPageName;
  signedIn: boolean;
}

/** Path segment of an id in a page URL: anything but a slash. */
const ID = '[^/]+';

const ROUTES: { pattern: RegExp; route: PageRoute }[] = [
  { pattern: /^\/sign-in\/?$/, route: { name: 'sign-in', signedIn: false } },
  { pattern: /^\/$/, route: { name: 'home', signedIn: true } },
  { pattern: /^\/keys\/?$/, route: { name: 'keys', signedIn: true } },
  { pattern: /^\/apps\/new\/?$/, route: { name: 'new-app', signedIn: true } },
  { pattern: new RegExp(`^/apps/${ID}/?$`), route: { name: 'app', signedIn: true } },
  {
    pattern: new RegExp(`^/apps/${ID}/datasources/?$`),
    route: { name: 'datasources', signedIn: true },
  },
  { pattern: new RegExp(`^/apps/${ID}/model/?$`), route: { name: 'model', signedIn: true } },
  { pattern: new RegExp(`^/apps/${ID}/enums/?$`), route: { name: 'enums', signedIn: true } },
  { pattern: new RegExp(`^/apps/${ID}/webhooks/?$`), route: { name: 'webhooks', signedIn: true } },
  // The row browser (issue 27 item 6): the tables, and one table's rows.
  { pattern: new RegExp(`^/apps/${ID}/rows(/${ID})?/?$`), route: { name: 'rows', signedIn: true } },
  { pattern: new RegExp(`^/apps/${ID}/apis/new/?$`), route: { name: 'new-api', signedIn: true } },
  {
    pattern: new RegExp(`^/apps/${ID}/apis/${ID}/?$`),
    route: { name: 'edit-api', signedIn: true },
  },
  {
    pattern: new RegExp(`^/apps/${ID}/sql-apis/${ID}/?$`),
    route: { name: 'sql-api', signedIn: true },
  },
  { pattern: /^\/access\/?$/, route: { name: 'access', signedIn: true } },
  { pattern: /^\/versions\/?$/, route: { name: 'versions', signedIn: true } },
  { pattern: /^\/accounts\/?$/, route: { name: 'accounts', signedIn: true } },
  {
    pattern: new RegExp(`^/apps/${ID}/access/?$`),
    route: { name: 'app-access', signedIn: true },
  },
  {
    pattern: new RegExp(`^/apps/${ID}/versions/?$`),
    route: { name: 'app-versions', signedIn: true },
  },
];

/**
 * The pages of app users and row rules, versions and platform accounts (issue 27 items 4, 5, 7):
 * `/access` and `/versions` (choose an app), `/apps/:appId/access`, `/apps/:appId/versions`,
 * `/accounts` (administrators).
 */
export type AccessPageName = 'access' | 'versions' | 'accounts' | 'app-access' | 'app-versions';

/** Where the built assets (hashed file names) are served from. */
export const ASSETS_PREFIX = '/assets/';

/**
 * The page a request path names, or null when the path is no page (REST, GraphQL, assets, or
 * unknown: those fall through to the rest of the service).
 */
export function pageRouteOf(path: string): PageRoute | null {
  return ROUTES.find((r) => r.pattern.test(path))?.route ?? null;
}

/** Paths the service answers itself (REST, GraphQL, probes, assets): never a page. */
const SERVICE_PATHS = /^\/(api|health|metrics|assets)(\/|$)/;

/**
 * Whether an unknown path lies where pages live (not under `/api`, `/health`, `/metrics` or
 * `/assets`): a browser asking for it gets the single-page app, which shows its "Page not found"
 * page (with a `404` status), while every other unknown path keeps the service's JSON `404`.
 */
export function isPageSpacePath(path: string): boolean {
  return path.startsWith('/') && !SERVICE_PATHS.test(path);
}

/**
 * Whether `next` is a path of this service that sign-in may send the browser on to: a single
 * leading slash (never `//host` or `/\host`, which browsers read as another site), no scheme.
 */
export function isSafeNextPath(next: string): boolean {
  return /^\/(?![/\\])/.test(next) && !/[\r\n]/.test(next);
}

/**
 * The sign-in page URL that brings the browser back to `path` (its query string dropped: page
 * URLs carry none, and a query could hold anything).
 */
export function signInUrlFor(path: string): string {
  return isSafeNextPath(path) && path !== '/'
    ? `/sign-in?next=${encodeURIComponent(path)}`
    : '/sign-in';
}
