import type { AccountView } from '../platform/accounts.service';
import type { AppView } from '../platform/apps.service';
import type {
  ModelTable,
  SqlApiDefinition,
  TableApiDefinition,
} from '../platform/version-definition';
import { sqlStarterQuery, starterQuery } from './starter-query';

/**
 * What the server hands a page inside its HTML, as JSON in
 * `<script id="tg-page-data" type="application/json">`: the signed-in account (so a page knows
 * who is signed in without a request, the session cookie being HttpOnly) and, on the test tab,
 * the Table API to try. Never a token, a key or a password.
 */
export interface PageData {
  /** The signed-in platform account, or null. */
  account: AccountView | null;
  /** Only on the GraphiQL test tab. */
  testTab?: TestTabData;
}

/** The test tab's subject (CONTRACT.md §3 `GET /api/apps/:appId/apis/:apiId/test`). */
export interface TestTabData {
  app: { id: string; name: string; address: string };
  api: { id: string; name: string; status: 'draft' | 'published' };
  /** `/api/graphql/<app address>`: the builder's calls reach their working version (§6, §7). */
  endpoint: string;
  /** The query the editor opens with. */
  starterQuery: string;
  /** The editor page of this API (the Table API editor, or the SQL API page). */
  editorUrl: string;
}

/** The placeholder `web/index.html` and `web/test-tab.html` carry where the data goes. */
export const PAGE_DATA_PLACEHOLDER = '<!-- tg:page-data -->';

/**
 * JSON that is safe inside an HTML `<script>` element: `<`, `>` and `&` (so no `</script>` or
 * `<!--` can end or change the element) and the two line separators JavaScript once refused are
 * written as `\u` escapes, which JSON reads back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * A built page's HTML with its data in place of {@link PAGE_DATA_PLACEHOLDER}.
 * @throws Error when the HTML has no placeholder (a build that is not ours).
 */
export function withPageData(html: string, data: PageData): string {
  if (!html.includes(PAGE_DATA_PLACEHOLDER))
    throw new Error('The built page has no page-data placeholder; run npm run build');
  const script = `<script id="tg-page-data" type="application/json">${jsonForScript(data)}</script>`;
  return html.replace(PAGE_DATA_PLACEHOLDER, () => script);
}

/**
 * The test tab's data for a Table API of the builder's working version: the endpoint of its app
 * and the starter query for its table (`tables` being that version's model).
 */
export function testTabDataOf(
  app: AppView,
  api: TableApiDefinition,
  tables: ModelTable[],
): TestTabData {
  return {
    app: { id: app.id, name: app.name, address: app.address },
    api: { id: api.id, name: api.name, status: api.status },
    endpoint: `/api/graphql/${encodeURIComponent(app.address)}`,
    starterQuery: starterQuery(
      api,
      tables.find((t) => t.name === api.table),
    ),
    editorUrl: `/apps/${encodeURIComponent(app.id)}/apis/${encodeURIComponent(api.id)}`,
  };
}

/**
 * The test tab's data for an SQL API of the builder's working version (README "SQL APIs"): the
 * endpoint of its app and its starter query ({@link sqlStarterQuery}).
 */
export function sqlTestTabDataOf(app: AppView, api: SqlApiDefinition): TestTabData {
  return {
    app: { id: app.id, name: app.name, address: app.address },
    api: { id: api.id, name: api.name, status: api.status },
    endpoint: `/api/graphql/${encodeURIComponent(app.address)}`,
    starterQuery: sqlStarterQuery(api),
    editorUrl: `/apps/${encodeURIComponent(app.id)}/sql-apis/${encodeURIComponent(api.id)}`,
  };
}
