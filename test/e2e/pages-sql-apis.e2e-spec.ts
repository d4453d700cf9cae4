import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Browser, Page } from 'playwright-core';
import { ADMIN, RunningApp, startApp } from '../support/app-harness';
import {
  collectPageErrors,
  launchBrowser,
  lookAtBothWidths,
  signIn,
  skipWithoutBrowser,
} from '../support/browser';
import { createPgDatabase, PgDatabase } from '../support/postgres-fixture';

/**
 * Issue 26 item 5: the SQL API page tried as a builder would, in Debian's Chromium driven by
 * playwright-core, against the real service over HTTP and a PostgreSQL database made for this
 * run (unique name): from sign-in and the app overview, create an SQL API whose statement has one
 * `:param`, see the arguments and columns PostgreSQL proposed, have Publish refused with the
 * service's reason (a `point` column has no kind), confirm columns, publish; a statement with a
 * second statement shows the refusal with its line and column. The page is checked with axe (WCAG
 * 2 A/AA) at 1280 and 390 px wide, where nothing may scroll sideways.
 */

const skip = skipWithoutBrowser('SQL API page tests', 'postgres');

jest.setTimeout(180_000);

(skip ? describe.skip : describe)('SQL API page', () => {
  let run: RunningApp;
  let browser: Browser;
  let db: PgDatabase;
  let page: Page;
  let appId: string;
  let token: string;
  /** Errors the pages logged or threw. */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    db = await createPgDatabase('tg_pages_sql_apis');
    await db.exec(`
      CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, status text);
      INSERT INTO customers (name, status) VALUES ('Ada', 'active'), ('Linus', 'new');
    `);
    run = await startApp();
    token = await run.adminToken();
    appId = (
      await run.http('POST', '/api/apps', {
        token,
        body: { name: 'Reports', address: 'reports-sql-pages' },
      })
    ).body.id;
    const ds = await run.http('POST', `/api/apps/${appId}/datasources`, {
      token,
      body: { name: 'Reports DB', type: 'postgres', url: db.url },
    });
    expect(ds.status).toBe(201);
    // A SQLite file in the app's own datasource folder: SQLite types neither a parameter nor an
    // expression column, so Publish has reasons to refuse.
    const folder = join(run.dataDir, 'datasources', appId);
    mkdirSync(folder, { recursive: true });
    const notes = new Database(join(folder, 'notes.db'));
    notes.exec(
      "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, status TEXT); INSERT INTO customers (name, status) VALUES ('Ada', 'active')",
    );
    notes.close();
    const sqlite = await run.http('POST', `/api/apps/${appId}/datasources`, {
      token,
      body: { name: 'Notes DB', type: 'sqlite', url: 'sqlite:notes.db' },
    });
    expect(sqlite.status).toBe(201);
    browser = await launchBrowser();
    const context = await browser.newContext({
      baseURL: run.baseUrl,
      viewport: { width: 1280, height: 900 },
    });
    // The refusals these tests provoke (400) are logged by Chrome; others are not expected.
    collectPageErrors(context, pageErrors, (message) => /status of 400 /.test(message.text()));
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    await run?.close();
    await db?.drop();
  });

  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  /** Screenshots and axe at 1280 and 390 px wide; nothing may scroll sideways at 390 px. */
  const look = (name: string) => lookAtBothWidths(page, name);

  let sqlApiId: string;

  it('creates an SQL API from the app overview, confirms a column and publishes it', async () => {
    await page.goto(`/apps/${appId}`);
    await page.waitForURL('**/sign-in?next=**');
    await signIn(page, ADMIN);
    await page.getByRole('link', { name: 'New SQL API' }).click();
    await page.getByRole('heading', { name: 'New SQL API', level: 1 }).waitFor();
    await page.getByLabel('API name').fill('customersByStatus');
    await page.getByLabel('Datasource').selectOption({ label: 'Reports DB' });
    await page
      .getByLabel('SQL statement')
      .fill('SELECT id, name FROM customers WHERE status = :status');
    await look('sql-api-01-new');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('heading', { name: 'SQL API “customersByStatus”', level: 1 }).waitFor();
    await page
      .getByRole('status')
      .getByText(/Saved “customersByStatus” as a draft/)
      .waitFor();
    sqlApiId = new URL(page.url()).pathname.split('/')[4];

    // What PostgreSQL proposed: the argument and each column with its database type.
    const args = page.getByRole('region', { name: 'Arguments' });
    const columns = page.getByRole('region', { name: 'Columns' });
    await args
      .getByRole('row', { name: /status/ })
      .getByRole('cell', { name: /^text/ })
      .waitFor();
    await columns
      .getByRole('row', { name: /^id/ })
      .getByRole('cell', { name: /^integer \(int\), not null/ })
      .waitFor();
    await columns
      .getByRole('row', { name: /^name/ })
      .getByRole('cell', { name: /^text \(text\)/ })
      .waitFor();
    await look('sql-api-02-described');

    // Confirm id as a never-empty int: one PATCH, stored as confirmed.
    await page.getByLabel('Kind of id').selectOption('int');
    await page.getByLabel('id may be null').uncheck();
    await page.getByRole('button', { name: 'Confirm id' }).click();
    await page.getByRole('status').getByText('Confirmed column “id”.').waitFor();
    const stored = (await run.http('GET', `/api/apps/${appId}/sql-apis/${sqlApiId}`, { token }))
      .body;
    expect(stored.columns[0]).toMatchObject({
      name: 'id',
      kind: 'int',
      nullable: false,
      confirmed: true,
    });

    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(/^Published in your working version/)
      .waitFor();
    expect(
      (await run.http('GET', `/api/apps/${appId}/sql-apis/${sqlApiId}`, { token })).body.status,
    ).toBe('published');

    // The test tab: GraphiQL as the builder, with the SQL API's starter query, which runs.
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('link', { name: /Open the test tab/ }).click(),
    ]);
    await tab.waitForURL(`**/api/apps/${appId}/apis/${sqlApiId}/test`);
    await tab.getByRole('heading', { name: /Test tab: customersByStatus/ }).waitFor();
    const queryEditor = tab.locator('.graphiql-query-editor');
    await queryEditor.getByText('customersByStatus').waitFor();
    await queryEditor.getByText('take').waitFor();
    const [answer] = await Promise.all([
      tab.waitForResponse(
        (r) =>
          r.url().endsWith('/api/graphql/reports-sql-pages') &&
          /customersByStatus/.test(r.request().postData() ?? ''),
      ),
      tab.getByRole('button', { name: /Execute query/ }).click(),
    ]);
    expect(answer.status()).toBe(200);
    expect(await answer.json()).toEqual({ data: { customersByStatus: [] } });
    await tab.close();

    // The app overview links to it.
    await page.getByRole('link', { name: 'Reports', exact: true }).click();
    await page.getByRole('link', { name: 'customersByStatus' }).click();
    await page.getByRole('heading', { name: 'SQL API “customersByStatus”', level: 1 }).waitFor();
  });

  it('shows why Publish is refused while SQLite left an argument and a column untyped', async () => {
    await page.goto(`/apps/${appId}/sql-apis/new`);
    await page.getByRole('heading', { name: 'New SQL API', level: 1 }).waitFor();
    await page.getByLabel('API name').fill('shouts');
    await page.getByLabel('Datasource').selectOption({ label: 'Notes DB' });
    await page
      .getByLabel('SQL statement')
      .fill('SELECT id, upper(name) AS shout FROM customers WHERE status = :status');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('heading', { name: 'SQL API “shouts”', level: 1 }).waitFor();
    await page
      .getByRole('region', { name: 'Columns' })
      .getByRole('row', { name: /^shout/ })
      .getByRole('cell', { name: /^no type/ })
      .waitFor();

    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page
      .getByRole('alert')
      .getByText(/shout needs a kind/)
      .first()
      .waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/argument status needs a type/);
    await look('sql-api-03-publish-refused');

    await page.getByLabel('Kind of status').selectOption('text');
    await page.getByRole('button', { name: 'Confirm status' }).click();
    await page.getByRole('status').getByText('Confirmed argument “status”.').waitFor();
    await page.getByLabel('Kind of shout').selectOption('text');
    await page.getByRole('button', { name: 'Confirm shout' }).click();
    await page.getByRole('status').getByText('Confirmed column “shout”.').waitFor();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(/^Published in your working version/)
      .waitFor();
  });

  it('shows the refusal of a second statement with its line and column, saving nothing', async () => {
    await page.goto(`/apps/${appId}/sql-apis/new`);
    await page.getByRole('heading', { name: 'New SQL API', level: 1 }).waitFor();
    await page.getByLabel('API name').fill('twice');
    await page.getByLabel('Datasource').selectOption({ label: 'Reports DB' });
    await page.getByLabel('SQL statement').fill('SELECT 1 AS one;\nDELETE FROM customers');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page
      .getByRole('alert')
      .getByText(/Only one statement is accepted/)
      .first()
      .waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/\(line 2, column 1\)/);
    await look('sql-api-04-refused');
    const listed = (await run.http('GET', `/api/apps/${appId}/sql-apis`, { token })).body as {
      name: string;
    }[];
    expect(listed.map((a) => a.name).sort()).toEqual(['customersByStatus', 'shouts']);
    expect(await db.exec('SELECT count(*)::int AS n FROM customers')).toEqual([{ n: 2 }]);
  });
});
