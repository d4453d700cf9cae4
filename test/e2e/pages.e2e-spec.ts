import { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { seedDemo } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { ADMIN, RunningApp, startApp } from '../support/app-harness';
import {
  collectPageErrors,
  expectAccessible,
  launchBrowser,
  screenshot,
  signIn,
  skipWithoutBrowser,
} from '../support/browser';

/**
 * Issue 12: the platform's pages (CONTRACT.md §10) tried as a new user would, in Debian's
 * Chromium driven by playwright-core, against the real service (`startApp()` with the demo app):
 * sign-in and sign-out; an administrator creating a key restricted to one endpoint, copying it
 * from the one view that shows it, using it, and revoking it; a builder refused the keys page; a
 * builder creating a Table API in the editor, trying it in the GraphiQL test tab and publishing
 * it until a key reaches it. Each page is saved as a PNG under `test-output/screenshots/`. Every
 * wait is for something the page shows, never for a time.
 */

/** Browser globals read inside `evaluate()` callbacks (this tsconfig has no DOM library). */
declare const document: { activeElement: unknown; cookie: string };
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare const localStorage: { length: number };
declare const sessionStorage: { length: number };

const BUILDER = { email: 'builder@e2e.test', password: 'e2e-builder-password' };
const skip = skipWithoutBrowser('Page tests');

jest.setTimeout(120_000);

(skip ? describe.skip : describe)('Pages in a real browser', () => {
  let run: RunningApp;
  let browser: Browser;
  let demoKey: string;
  let demoId: string;
  /** Browser contexts of the running test, closed after it. */
  let contexts: BrowserContext[] = [];
  /** Errors the pages logged or threw (a CSP refusal shows here too). */
  let pageErrors: string[] = [];

  beforeAll(async () => {
    run = await startApp();
    const config = loadConfig(
      { DATA_DIR: run.dataDir, PLATFORM_SECRET: 'e2e-platform-secret-0123456789-abcdefghij' },
      { demo: true },
    );
    demoKey = (await seedDemo(run.app, config))!.key;
    const token = await run.adminToken();
    demoId = (await run.http('GET', '/api/apps', { token })).body[0].id;
    const builder = await run.http('POST', '/api/admin/accounts', {
      token,
      body: { ...BUILDER, role: 'builder' },
    });
    expect(builder.status).toBe(201);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await run?.close();
  });

  afterEach(async () => {
    for (const context of contexts) await context.close();
    contexts = [];
    const errors = pageErrors;
    pageErrors = [];
    expect(errors).toEqual([]);
  });

  /** A fresh browser (no cookies) on a laptop-sized screen, with clipboard access. */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext({
      baseURL: run.baseUrl,
      viewport: { width: 1366, height: 768 },
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: run.baseUrl,
    });
    contexts.push(context);
    // Chrome logs every refused request; the refusals these tests provoke (a wrong password,
    // a publish refused) are expected, anything else (a missing asset, a CSP refusal) is not.
    // So is the 404 of the "Page not found" page itself (the document, not one of its assets).
    collectPageErrors(
      context,
      pageErrors,
      (message, page) =>
        /^Failed to load resource: .* status of 40[01] /.test(message.text()) ||
        (/^Failed to load resource: .* status of 404 /.test(message.text()) &&
          message.location().url === page.url()),
    );
    const page = await context.newPage();
    return page;
  }

  /**
   * Saves a screenshot of the whole page (`<name>.png`) and checks it with axe-core; GraphiQL's
   * own interface (`exclude`) is left to its authors. Fails the test on a violation.
   */
  async function look(page: Page, name: string, exclude?: string): Promise<void> {
    await screenshot(page, name);
    await expectAccessible(page, name, exclude);
  }

  /** A GraphQL request to the demo app with a key, over plain HTTP (what an integration does). */
  const withKey = (key: string, query: string) =>
    run.http('POST', '/api/graphql/demo', { headers: { 'x-api-key': key }, body: { query } });

  /** The row of the keys table naming a key. */
  const keyRow = (page: Page, name: string): Locator =>
    page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });

  it('signs an administrator in (after a wrong password) and out', async () => {
    const page = await newPage();
    await page.goto('/');
    await page.waitForURL('**/sign-in');
    await page.getByRole('heading', { name: 'Sign in to TableGraph' }).waitFor();
    expect(await page.getByLabel('Email').evaluate((e) => e === document.activeElement)).toBe(true);
    await look(page, '01-sign-in');

    // By keyboard alone: the email field has the focus, Tab reaches the password, Enter sends.
    await page.keyboard.type(ADMIN.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').getByText('Wrong email or password.').waitFor();
    expect(await page.getByLabel('Password').inputValue()).toBe('');

    await signIn(page, ADMIN);
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByRole('heading', { name: 'Demo store' }).waitFor();
    await page.getByRole('link', { name: 'orders', exact: true }).waitFor();
    await page.getByText(`Signed in as ${ADMIN.email}`).waitFor();
    await look(page, '02-home');
    // The session is the HttpOnly cookie: nothing readable by scripts, nothing stored.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);

    // A copy of the session cookie, taken before signing out, opens the builder REST…
    const [cookie] = await page.context().cookies();
    expect(cookie.name).toBe('tg_session');
    const copied = { cookie: `${cookie.name}=${cookie.value}` };
    expect((await run.http('GET', '/api/apps', { headers: copied })).status).toBe(200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.goto('/keys');
    await page.waitForURL('**/sign-in?next=%2Fkeys');

    // …and nothing once signed out: the service ended the session, not only the cookie.
    const after = await run.http('GET', '/api/apps', { headers: copied });
    expect(after.status).toBe(401);
    const elsewhere = await newPage();
    await elsewhere.context().addCookies([{ ...cookie }]);
    await elsewhere.goto('/keys');
    await elsewhere.waitForURL('**/sign-in?next=%2Fkeys');
    await elsewhere.getByRole('heading', { name: 'Sign in to TableGraph' }).waitFor();
  });

  it('signs out every tab of the browser when one signs out', async () => {
    const first = await newPage();
    await first.goto('/sign-in');
    await signIn(first, ADMIN);
    await first.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    const second = await first.context().newPage();
    await second.goto('/keys');
    await second.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    // A GraphiQL test tab is a page of its own, and signs out as well.
    const token = await run.adminToken();
    const apis = (await run.http('GET', `/api/apps/${demoId}/apis`, { token })).body as {
      id: string;
      name: string;
    }[];
    const testTab = `/api/apps/${demoId}/apis/${apis.find((a) => a.name === 'orders')!.id}/test`;
    const third = await first.context().newPage();
    await third.goto(testTab);
    await third.getByRole('heading', { name: /Test tab: orders/ }).waitFor();

    // By keyboard: the sign-out button is reached with Tab and pressed with Enter.
    await first.getByRole('button', { name: 'Sign out' }).focus();
    await first.keyboard.press('Enter');
    await first.getByText('You are signed out.').waitFor();
    // The other tab goes to sign-in by itself, without a request of its own.
    await second.waitForURL('**/sign-in');
    await second.getByText('You are signed out.').waitFor();
    await second.getByRole('heading', { name: 'Sign in to TableGraph' }).waitFor();
    expect(await second.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await third.waitForURL(`**/sign-in?next=${encodeURIComponent(testTab)}`);
    await third.getByRole('heading', { name: 'Sign in to TableGraph' }).waitFor();
    await look(second, '13-signed-out-in-another-tab');
    // And it stays signed out: its next page asks to sign in.
    await second.goto('/');
    await second.waitForURL('**/sign-in');
  });

  it('shows the "Page not found" page for an unknown page URL, and JSON 404s under /api', async () => {
    const page = await newPage();
    await page.goto('/sign-in');
    await signIn(page, ADMIN);
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    const answer = await page.goto('/no/such/page');
    expect(answer!.status()).toBe(404);
    expect(answer!.headers()['content-type']).toMatch(/^text\/html/);
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    expect(await page.title()).toBe('Not found · TableGraph');
    await page.getByText(`Signed in as ${ADMIN.email}`).waitFor();
    await look(page, '14-page-not-found');
    // The link home, by keyboard.
    await page.getByRole('link', { name: 'Go to your apps' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');

    // Without a session, the same page (its link then leads to sign-in).
    const anonymous = await newPage();
    expect((await anonymous.goto('/apps/x/no-such-page'))!.status()).toBe(404);
    await anonymous.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();

    // REST and API clients keep JSON.
    for (const [path, accept] of [
      ['/api/no-such-route', 'text/html'],
      ['/api/no-such-route', 'application/json'],
      ['/no/such/page', 'application/json'],
    ]) {
      const res = await run.http('GET', path, { headers: { accept } });
      expect([path, accept, res.status]).toEqual([path, accept, 404]);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.statusCode).toBe(404);
    }
  });

  it('lets an administrator create a key for one endpoint, copy it once, use it and revoke it', async () => {
    const page = await newPage();
    await page.goto('/keys');
    await signIn(page, ADMIN);
    await page.waitForURL('**/keys');
    await keyRow(page, 'demo').getByText('Demo store: all endpoints').waitFor();

    await page.getByLabel('Name', { exact: true }).fill('Orders reader');
    await page.getByRole('checkbox', { name: 'Demo store' }).check();
    await page.getByRole('checkbox', { name: 'Restrict to specific endpoints' }).check();
    const endpoints = page.getByRole('group', { name: 'Endpoints of Demo store' });
    expect(await labelsOf(endpoints.getByRole('checkbox'))).toEqual([
      'customers',
      'products',
      'orders',
      'orderLines',
    ]);
    await endpoints.getByRole('checkbox', { name: 'orders', exact: true }).check();
    await page.getByLabel('Cost budget, points per minute (optional)').fill('500');
    await look(page, '03-keys-create');
    await page.getByRole('button', { name: 'Create key' }).click();

    const panel = page.getByRole('region', { name: /New key “Orders reader”/ });
    await panel.getByText('This key cannot be shown again.').waitFor();
    const key = await panel.getByLabel('API key').inputValue();
    expect(key).toMatch(/^tgk_[A-Za-z0-9_-]{43}$/);
    await panel.getByRole('button', { name: 'Copy key' }).click();
    await panel.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    const row = keyRow(page, 'Orders reader');
    await row.getByText('Demo store: orders').waitFor();
    await row.getByText(key.slice(0, 12)).waitFor();
    expect(await row.innerText()).toContain('never');
    expect(await row.innerText()).toContain('600 / minute');
    expect(await row.innerText()).toContain('500 points / minute');
    await look(page, '04-keys-new-key-shown-once');

    // The key works over HTTP for its one endpoint, and only that one.
    const allowed = await withKey(key, '{ countOrders }');
    expect(allowed.status).toBe(200);
    expect(allowed.body).toEqual({
      data: { countOrders: 20 },
      extensions: { cost: expect.objectContaining({ requested: 1, limit: 500 }) },
    });
    const other = await withKey(key, '{ countCustomers }');
    expect(other.status).toBe(403);
    expect(other.body.errors[0].message).toBe('API key not authorised for this endpoint');

    // Once dismissed, the key is nowhere: not in the page, the URL or the browser's storage.
    await panel.getByRole('button', { name: 'Done, I have stored it' }).click();
    await panel.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(key);
    expect(page.url()).not.toContain(key);
    expect(
      await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage })),
    ).not.toContain(key);

    await row.getByRole('button', { name: 'Revoke Orders reader' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the key “Orders reader”?' });
    await dialog.waitFor();
    // Cancel has the focus, and cancelling changes nothing.
    expect(
      await dialog
        .getByRole('button', { name: 'Cancel' })
        .evaluate((e) => e === document.activeElement),
    ).toBe(true);
    await look(page, '05-keys-revoke-confirmation');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await withKey(key, '{ countOrders }')).status).toBe(200);

    await row.getByRole('button', { name: 'Revoke Orders reader' }).click();
    await dialog.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await page.getByRole('status').getByText('The key “Orders reader” is revoked.').waitFor();
    await row.getByText('Revoked', { exact: true }).waitFor();
    expect(await row.getByRole('button').count()).toBe(0);
    await row.getByText('Cannot be reactivated').waitFor();
    const refused = await withKey(key, '{ countOrders }');
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].message).toBe('API key revoked');

    // Still listed, still revoked, after a reload.
    await page.reload();
    await keyRow(page, 'Orders reader').getByText('Revoked', { exact: true }).waitFor();
    await look(page, '06-keys-revoked');
  });

  it('tells a builder that API keys are for administrators only', async () => {
    const page = await newPage();
    await page.goto('/sign-in');
    await signIn(page, BUILDER);
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByText('API keys are for administrators only.').waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await page.getByRole('table').count()).toBe(0);
    await look(page, '07-keys-builder-administrators-only');
  });

  it('lets a builder create a Table API, try it in the test tab and publish it to keys', async () => {
    const page = await newPage();
    await page.goto('/sign-in');
    await signIn(page, BUILDER);
    await page.getByRole('link', { name: 'New Table API in Demo store' }).click();
    await page.getByRole('heading', { name: 'New Table API' }).waitFor();

    // The table: searched by table name, then by datasource name.
    const choices = page.locator('#table-choices');
    const search = async (text: string) => {
      await page.getByLabel('Search tables').fill(text);
      await page.locator('#table-choices[aria-busy="false"]').waitFor();
    };
    await search('ORDER_L');
    await choices.getByRole('group', { name: 'Datasource demo-sqlite' }).waitFor();
    expect(await labelsOf(choices.getByRole('radio'))).toEqual(['order_lines']);
    await search('demo-sq');
    expect(await labelsOf(choices.getByRole('radio'))).toEqual([
      'customers',
      'products',
      'orders',
      'order_lines',
    ]);
    await search('nothing-like-this');
    await choices.getByText('No table or datasource matches “nothing-like-this”.').waitFor();
    await search('order_l');
    await choices.getByRole('radio', { name: 'order_lines' }).check();
    await page.getByLabel('API name').fill('lines');

    // Fields: untick one while only select is on; insert locks the required ones back on.
    const fields = page.getByRole('list', { name: 'Fields of order_lines' });
    // A row of the table itself (not of a navigation field opened below it).
    const rootBox = (name: string) =>
      fields
        .locator(':scope > li.check, :scope > li > div.check')
        .getByRole('checkbox', { name, exact: true });
    await rootBox('quantity').uncheck();
    expect(await rootBox('quantity').isChecked()).toBe(false);
    await page.getByRole('switch', { name: 'Insert', exact: true }).check();
    for (const required of ['order_id', 'product_id', 'quantity', 'unit_price']) {
      expect(await rootBox(required).isChecked()).toBe(true);
      expect(await rootBox(required).isDisabled()).toBe(true);
    }
    expect(await rootBox('id').isDisabled()).toBe(false);
    expect(await page.getByRole('switch', { name: 'Public delete' }).isDisabled()).toBe(true);
    await page.getByRole('switch', { name: 'Public select' }).check();

    // Navigation fields open to any depth.
    await fields.getByRole('button', { name: 'Show fields of product', exact: true }).click();
    const product = page.getByRole('list', { name: 'Fields of product', exact: true });
    await product
      .locator(':scope > li.check')
      .getByRole('checkbox', { name: 'name', exact: true })
      .check();
    await product.getByRole('button', { name: 'Show fields of product › order_lines' }).click();
    const deeper = page.getByRole('list', { name: 'Fields of product › order_lines', exact: true });
    await deeper
      .getByRole('button', { name: 'Show fields of product › order_lines › order' })
      .click();
    await page
      .getByRole('list', { name: 'Fields of product › order_lines › order', exact: true })
      .getByRole('checkbox', { name: 'status', exact: true })
      .waitFor();
    expect(await rootBox('product').isChecked()).toBe(true);
    await look(page, '08-editor-new-api');

    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('status').getByText('Saved “lines” as a draft').waitFor();
    await page.getByText('Draft', { exact: true }).waitFor();
    const [, , appId, , apiId] = new URL(page.url()).pathname.split('/');
    expect(appId).toBe(demoId);
    const token = (await run.http('POST', '/api/auth/login', { body: BUILDER })).body
      .token as string;
    const saved = await run.http('GET', `/api/apps/${appId}/apis/${apiId}`, { token });
    expect(saved.body).toEqual({
      id: apiId,
      name: 'lines',
      table: 'order_lines',
      status: 'draft',
      actions: { select: true, insert: true, update: false, delete: false },
      public: { select: true, insert: false, update: false, delete: false },
      fields: {
        id: true,
        order_id: true,
        product_id: true,
        quantity: true,
        unit_price: true,
        product: { name: true },
      },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    // The test tab: GraphiQL as the builder, on the working version, with a starter query.
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('link', { name: /Open the test tab/ }).click(),
    ]);
    await tab.waitForURL(`**/api/apps/${appId}/apis/${apiId}/test`);
    await tab.getByRole('heading', { name: /Test tab: lines/ }).waitFor();
    const queryEditor = tab.locator('.graphiql-query-editor');
    await queryEditor.getByText('getLines').waitFor();
    await queryEditor.getByText('unit_price').waitFor();
    const [answer] = await Promise.all([
      tab.waitForResponse(
        (r) =>
          r.url().endsWith('/api/graphql/demo') && /getLines/.test(r.request().postData() ?? ''),
      ),
      tab.getByRole('button', { name: /Execute query/ }).click(),
    ]);
    expect(answer.status()).toBe(200);
    const rows = (await answer.json()).data.getLines as Record<string, unknown>[];
    expect(rows).toHaveLength(10);
    expect(Object.keys(rows[0])).toEqual([
      'id',
      'order_id',
      'product_id',
      'quantity',
      'unit_price',
    ]);
    const result = tab.locator('.graphiql-response');
    await result.getByText('"getLines"').waitFor();
    await look(tab, '09-test-tab-rows', '.graphiql-container');

    await tab.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    await tab
      .locator('.graphiql-doc-explorer')
      .getByRole('link', { name: 'Query', exact: true })
      .click();
    const docsItem = tab
      .locator('.graphiql-doc-explorer-item')
      .filter({ has: tab.getByRole('link', { name: 'getLines', exact: true }) });
    const description = docsItem.locator('.graphiql-markdown-description');
    await description.waitFor();
    expect(await description.innerText()).toBe('RASCUNHO');
    await look(tab, '10-test-tab-docs-rascunho', '.graphiql-container');
    await tab.close();

    // Publishing is refused, with the service's reason, while no action is on.
    await page.getByRole('switch', { name: 'Select', exact: true }).uncheck();
    await page.getByRole('switch', { name: 'Insert', exact: true }).uncheck();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText('This API cannot be published yet').waitFor();
    await refusal.getByText('no action is active').waitFor();
    // The answer takes the focus, so it is read wherever the button was.
    expect(await page.locator('.feedback').evaluate((e) => e === document.activeElement)).toBe(
      true,
    );
    await look(page, '11-editor-publish-refused');

    await page.getByRole('switch', { name: 'Select', exact: true }).check();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('status').getByText('Published in your working version.').waitFor();
    await page.getByText('Published', { exact: true }).waitFor();
    // Keys reach main, which does not have it until the working version is published.
    const before = await withKey(demoKey, '{ getLines(take: 2) { id quantity } }');
    expect(before.status).toBe(400);
    // Publishing the working version asks first, with what goes live.
    await page.getByRole('button', { name: 'Publish working version' }).click();
    const confirm = page.getByRole('dialog', {
      name: 'Publish your working version of Demo store?',
    });
    await confirm.waitFor();
    const live = confirm.getByRole('list').first();
    await live.getByText('lines', { exact: true }).waitFor();
    expect(await live.innerText()).toContain('lines (table order_lines): select; public: none');
    expect(
      await confirm
        .getByRole('button', { name: 'Cancel' })
        .evaluate((e) => e === document.activeElement),
    ).toBe(true);
    await look(page, '12a-editor-publish-version-confirmation');
    // Cancelling (Escape) publishes nothing.
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'hidden' });
    expect((await withKey(demoKey, '{ getLines(take: 2) { id quantity } }')).status).toBe(400);
    await page.getByRole('button', { name: 'Publish working version' }).click();
    await confirm.getByRole('button', { name: 'Publish now' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page
      .getByRole('status')
      .getByText(/is now the main version of Demo store/)
      .waitFor();
    const after = await withKey(demoKey, '{ getLines(take: 2) { id quantity } }');
    expect(after.status).toBe(200);
    expect(after.body.data.getLines).toEqual([
      { id: expect.any(String), quantity: expect.any(Number) },
      { id: expect.any(String), quantity: expect.any(Number) },
    ]);
    await look(page, '12-editor-published');
  });

  it('sends a browser without a session from the test tab to sign-in and back', async () => {
    const token = await run.adminToken();
    const apis = (await run.http('GET', `/api/apps/${demoId}/apis`, { token })).body as {
      id: string;
      name: string;
    }[];
    const orders = apis.find((a) => a.name === 'orders')!;
    const page = await newPage();
    const testTab = `/api/apps/${demoId}/apis/${orders.id}/test`;
    await page.goto(testTab);
    await page.waitForURL(`**/sign-in?next=${encodeURIComponent(testTab)}`);
    await signIn(page, ADMIN);
    await page.waitForURL(`**${testTab}`);
    await page.getByRole('heading', { name: /Test tab: orders/ }).waitFor();
    await page.locator('.graphiql-query-editor').getByText('getOrders').waitFor();
    // An API client without a session still gets the REST refusal.
    expect((await run.http('GET', testTab)).status).toBe(401);
    expect((await run.http('GET', `/api/apps/${demoId}/apis/nope/test`, { token })).status).toBe(
      404,
    );
  });

  it('saves a Table API whose middle levels hold only navigation fields, and serves it', async () => {
    const page = await newPage();
    await page.goto('/sign-in');
    await signIn(page, BUILDER);
    await page.getByRole('link', { name: 'New Table API in Demo store' }).click();
    await page.getByRole('heading', { name: 'New Table API' }).waitFor();
    await page.getByLabel('Search tables').fill('customers');
    await page.locator('#table-choices[aria-busy="false"]').waitFor();
    await page.locator('#table-choices').getByRole('radio', { name: 'customers' }).check();
    await page.getByLabel('API name').fill('buyers');
    // customers › orders › order_lines › product, with only the product's name ticked.
    await page.getByRole('button', { name: 'Show fields of orders', exact: true }).click();
    await page
      .getByRole('button', { name: 'Show fields of orders › order_lines', exact: true })
      .click();
    await page
      .getByRole('button', { name: 'Show fields of orders › order_lines › product', exact: true })
      .click();
    await page
      .getByRole('list', { name: 'Fields of orders › order_lines › product', exact: true })
      .getByRole('checkbox', { name: 'name', exact: true })
      .check();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('status').getByText('Saved “buyers” as a draft').waitFor();
    const [, , appId, , apiId] = new URL(page.url()).pathname.split('/');
    const token = (await run.http('POST', '/api/auth/login', { body: BUILDER })).body
      .token as string;
    const saved = await run.http('GET', `/api/apps/${appId}/apis/${apiId}`, { token });
    expect(saved.body.fields).toMatchObject({
      orders: { order_lines: { product: { name: true } } },
    });
    expect(Object.keys(saved.body.fields.orders)).toEqual(['order_lines']);
    expect(Object.keys(saved.body.fields.orders.order_lines)).toEqual(['product']);
    const served = await run.http('POST', '/api/graphql/demo', {
      token,
      body: {
        query:
          '{ getBuyers(take: 1) { orders(order: [{order_lines: {count: DESC}}]) { order_lines { product { name } } } } }',
      },
    });
    expect(served.status).toBe(200);
    expect(served.body.errors).toBeUndefined();
    expect(served.body.data.getBuyers[0].orders[0].order_lines[0].product.name).toEqual(
      expect.any(String),
    );
  });

  it('asks before unsaved editor changes are lost: leaving, closing the tab, signing out', async () => {
    const token = await run.adminToken();
    const apis = (await run.http('GET', `/api/apps/${demoId}/apis`, { token })).body as {
      id: string;
      name: string;
    }[];
    const products = apis.find((a) => a.name === 'products')!;
    const page = await newPage();
    const editor = `/apps/${demoId}/apis/${products.id}`;
    await page.goto(editor);
    await signIn(page, BUILDER);
    await page.getByRole('heading', { name: 'Table API “products”' }).waitFor();
    // Nothing changed yet: leaving asks nothing.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Table API “products”' }).waitFor();

    await page.getByRole('switch', { name: 'Public select' }).check();
    await page.getByRole('button', { name: 'Save changes' }).waitFor();
    // A link inside the pages: a dialog, Stay keeps the change.
    await page.getByRole('link', { name: 'API keys' }).click();
    const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
    await leave.waitFor();
    expect(
      await leave
        .getByRole('button', { name: 'Stay on this page' })
        .evaluate((e) => e === document.activeElement),
    ).toBe(true);
    await look(page, '15-editor-leave-unsaved');
    await page.keyboard.press('Enter');
    await leave.waitFor({ state: 'hidden' });
    expect(new URL(page.url()).pathname).toBe(editor);
    expect(await page.getByRole('switch', { name: 'Public select' }).isChecked()).toBe(true);

    // Closing the tab (or reloading, or leaving the site): the browser asks; dismissed, it stays.
    const asked = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.type());
        void dialog.dismiss();
      }),
    );
    await page.close({ runBeforeUnload: true });
    expect(await asked).toBe('beforeunload');
    expect(page.isClosed()).toBe(false);

    // Signing out asks too.
    await page.getByRole('button', { name: 'Sign out' }).click();
    const signOut = page.getByRole('dialog', { name: 'Sign out without saving?' });
    await signOut.getByRole('button', { name: 'Stay signed in' }).click();
    await signOut.waitFor({ state: 'hidden' });
    await page.getByText(`Signed in as ${BUILDER.email}`).waitFor();

    // The browser's history (Forward, to the keys page seen before) asks as well; leaving
    // drops the change.
    await page.goForward();
    await leave.waitFor();
    await leave.getByRole('button', { name: 'Leave without saving' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    const saved = await run.http('GET', `/api/apps/${demoId}/apis/${products.id}`, { token });
    expect(saved.body.public.select).toBe(false);
    // Saved changes leave without a question.
    await page.goto(editor);
    await page.getByRole('switch', { name: 'Public select' }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').getByText('Saved in your working version.').waitFor();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Apps', exact: true })
      .click();
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
  });

  it("names each app's endpoint restriction apart, and fits the keys table on a phone", async () => {
    const token = await run.adminToken();
    const second = await run.http('POST', '/api/apps', {
      token,
      body: { name: 'Second shop', address: 'second-shop' },
    });
    expect(second.status).toBe(201);
    const page = await newPage();
    await page.goto('/keys');
    await signIn(page, ADMIN);
    await page.waitForURL('**/keys');
    for (const app of ['Demo store', 'Second shop']) {
      await page.getByRole('checkbox', { name: app, exact: true }).check();
    }
    const restrict = (app: string) =>
      page.getByRole('checkbox', { name: `Restrict to specific endpoints of ${app}`, exact: true });
    await restrict('Demo store').check();
    await restrict('Second shop').check();
    expect(
      await page.getByRole('checkbox', { name: /^Restrict to specific endpoints/ }).count(),
    ).toBe(2);
    await page
      .getByRole('group', { name: 'Endpoints of Second shop' })
      .getByText('Second shop has no published Table APIs.')
      .waitFor();
    await look(page, '16-keys-two-apps-restricted');

    // A phone, 375 px wide: the keys are cards, and nothing scrolls sideways.
    await page.setViewportSize({ width: 375, height: 800 });
    const demo = keyRow(page, 'demo');
    await demo.getByText('Demo store: all endpoints').waitFor();
    const widths = await page.evaluate(`(() => {
      const table = document.querySelector('.table-scroll');
      return {
        page: document.documentElement.scrollWidth,
        viewport: document.documentElement.clientWidth,
        table: table.scrollWidth,
        tableBox: table.clientWidth,
      };
    })()`);
    expect(widths).toEqual({
      page: 375,
      viewport: 375,
      table: (widths as { tableBox: number }).tableBox,
      tableBox: expect.any(Number),
    });
    expect((await demo.boundingBox())!.width).toBeLessThanOrEqual(375);
    await demo.getByRole('button', { name: 'Revoke demo' }).waitFor();
    await look(page, '17-keys-phone');
  });
});

/** The label texts of some form controls, in page order. */
async function labelsOf(controls: Locator): Promise<string[]> {
  return controls.evaluateAll((inputs) =>
    inputs.map(
      (i) => (i as unknown as { labels: { textContent: string }[] }).labels[0]?.textContent ?? '',
    ),
  );
}
