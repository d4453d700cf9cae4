import { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { seedDemo } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { ADMIN, RunningApp, startApp } from '../support/app-harness';
import {
  collectPageErrors,
  expectAccessible,
  launchBrowser,
  lookAtBothWidths,
  screenshot,
  signIn,
  skipWithoutBrowser,
} from '../support/browser';

/**
 * Issue 27 items 4, 5 and 7 in Debian's Chromium (playwright-core) against the real service
 * (`startApp()` over HTTP, the demo app on its SQLite database): app users and a row rule made on
 * the permissions grid, whose effect is checked through the app user's own key-less GraphQL call
 * and through "view as"; the versions diff before "Publish working version" and publishing only
 * after confirming; platform accounts created, disabled (keyboard only) and refused at sign-in.
 * Every new page is checked with axe-core (WCAG 2 A/AA) and saved at 1280 and 390 px wide under
 * `test-output/screenshots/`. Controls are found by role and accessible name; every wait is for
 * something the page shows.
 */

/** Browser globals read inside `evaluate()` callbacks (this tsconfig has no DOM library). */
declare const document: {
  activeElement: { id?: string; textContent?: string | null } | null;
};

const ANA = { email: 'ana@access.test', password: 'ana-access-password' };
const skip = skipWithoutBrowser('Page tests');

jest.setTimeout(180_000);

(skip ? describe.skip : describe)('Access, versions and accounts pages in a real browser', () => {
  let run: RunningApp;
  let browser: Browser;
  let demoId: string;
  let demoKey: string;
  let contexts: BrowserContext[] = [];
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

  /** A fresh browser (no cookies) 1280 px wide, in a language and time zone when given. */
  async function newPage(reader: { locale?: string; timezoneId?: string } = {}): Promise<Page> {
    const context = await browser.newContext({
      baseURL: run.baseUrl,
      viewport: { width: 1280, height: 800 },
      ...reader,
    });
    contexts.push(context);
    // Refusals the tests provoke (a wrong password, a 409) are logged by Chrome; others are not expected.
    collectPageErrors(context, pageErrors, (message) =>
      /^Failed to load resource: .* status of 40[019] /.test(message.text()),
    );
    return context.newPage();
  }

  /**
   * The page at 1280 and at 390 px wide, 800 px tall (`<name>-1280.png`, `-390.png`): axe at both,
   * nothing wider than the phone's screen. Leaves the page at 1280.
   */
  const look = (page: Page, name: string) =>
    lookAtBothWidths(page, name, { height: 800, phoneHeight: 800 });

  /** An administrator signed in on the apps page. */
  async function adminPage(reader: Parameters<typeof newPage>[0] = {}): Promise<Page> {
    const page = await newPage(reader);
    await page.goto('/sign-in');
    await signIn(page, ADMIN);
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    return page;
  }

  /** A GraphQL request to the demo app as an app user (their token, no key), over HTTP. */
  const asAppUser = (token: string, query: string) =>
    run.http('POST', '/api/graphql/demo', { token, body: { query } });

  /** The row of a table whose row header is `name`. */
  const rowOf = (page: Page, name: string): Locator =>
    page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });

  /** Presses Tab until the focused element satisfies `is` (at most 60 times). */
  async function tabTo(page: Page, what: string, is: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      if (await is()) return;
    }
    throw new Error(`Tab never reached ${what}`);
  }

  /** Whether `locator` has the focus. */
  const focused = (locator: Locator) =>
    locator.evaluate((e) => e === (document.activeElement as unknown));

  it('makes a row rule on the grid that hides rows from the app user’s key-less GraphQL call, and "view as" shows the same rows', async () => {
    const page = await adminPage();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Users and rules' })
      .click();
    await page.getByRole('heading', { name: 'Users and rules', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Users and rules of Demo store' }).waitFor();
    await look(page, 'access-01-choose-app');
    await page.getByRole('link', { name: 'Users and rules of Demo store' }).click();
    await page.getByRole('heading', { name: 'Users and rules of Demo store', level: 1 }).waitFor();
    await page.getByText('No app users yet.').waitFor();

    // Create an app user with a role and an attribute.
    await page.getByLabel('Email').fill(ANA.email);
    await page.getByLabel('First password').fill(ANA.password);
    await page.getByLabel('Roles', { exact: true }).fill('customer');
    await page.getByLabel('Attributes', { exact: true }).fill('customerId = 1');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('status').getByText(`${ANA.email} is created.`).waitFor();
    const anaRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: ANA.email, exact: true }) });
    await anaRow.getByText('customerId: 1').waitFor();

    // Main has no rule yet: Ana's own key-less call gets every order.
    const login = await run.http('POST', `/api/apps/${demoId}/auth/login`, { body: ANA });
    expect(login.status).toBe(200);
    const token = login.body.token as string;
    const before = await asAppUser(token, '{ countOrders }');
    expect(before.body).toEqual({ data: { countOrders: 20 } });

    // The grid: the role customer (held by Ana) over every Table API and action.
    const grid = page.getByRole('table', { name: /What customer gets from each Table API action/ });
    await grid.waitFor();
    expect(await page.getByLabel('Role', { exact: true }).inputValue()).toBe('customer');
    const ordersRow = grid
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: /^orders/ }) });
    expect(await ordersRow.getByRole('cell').first().innerText()).toContain('All rows');
    await ordersRow
      .getByRole('button', { name: 'Edit rule of customer on orders (API orders)' })
      .click();
    const editor = page.getByRole('form', { name: 'Row rule of customer on orders' });
    await editor.waitFor();
    await editor.getByText('No conditions: customer sees every row of orders.').waitFor();
    await editor.getByRole('button', { name: 'Add condition' }).click();
    await editor.getByLabel('Column').selectOption('customer_id');
    await editor.getByLabel('Operator').selectOption({ label: 'is' });
    await editor.getByLabel('Compared with').selectOption('user-attribute');
    await editor.getByLabel('Attribute name').fill('customerId');
    await look(page, 'access-02-rule-editor');
    await editor.getByRole('button', { name: 'Save rule' }).click();
    await page
      .getByRole('status')
      .getByText('The rule of customer on orders is saved in your working version.')
      .waitFor();
    await ordersRow.getByText('customer_id is the user’s customerId').waitFor();
    expect(await ordersRow.getByRole('cell').first().innerText()).toContain('Rows by rule');
    const saved = await run.http('GET', `/api/apps/${demoId}/permissions`, {
      token: await run.adminToken(),
    });
    expect(saved.body.customer).toEqual({
      tables: { orders: { where: { customer_id: { eq: '$user.customerId' } } } },
    });
    // A rule the service refuses says why and saves nothing.
    await ordersRow
      .getByRole('button', { name: 'Edit rule of customer on orders (API orders)' })
      .click();
    await editor.getByLabel('Edit as JSON').check();
    await editor.getByLabel('Rule (the where filter, as JSON)').fill('{"nope": {"eq": 1}}');
    await editor.getByRole('button', { name: 'Save rule' }).click();
    await editor.getByRole('alert').getByText(/nope/).first().waitFor();
    await editor.getByRole('button', { name: 'Cancel' }).click();
    await look(page, 'access-03-users-and-rules');

    // Still the working version: Ana's call is unchanged until it is published.
    expect((await asAppUser(token, '{ countOrders }')).body).toEqual({
      data: { countOrders: 20 },
    });
    await page.goto(`/apps/${demoId}/versions`);
    await page.getByRole('heading', { name: 'Versions of Demo store', level: 1 }).waitFor();
    const rules = page.getByRole('list', { name: 'Row rules (by role)' });
    await rules
      .getByText('orders: rule added, rows where {"customer_id":{"eq":"$user.customerId"}}')
      .waitFor();
    await page.getByRole('button', { name: 'Publish working version' }).click();
    const confirm = page.getByRole('dialog', {
      name: 'Publish your working version of Demo store?',
    });
    await confirm
      .getByRole('list', { name: 'Row rules (by role)' })
      .getByText('customer')
      .first()
      .waitFor();
    await confirm.getByRole('button', { name: 'Publish now' }).click();
    await page
      .getByRole('status')
      .getByText(/is now the main version of Demo store/)
      .waitFor();

    // Ana's own key-less GraphQL call now gets only her orders.
    const after = await asAppUser(
      token,
      '{ getOrders(order: [{id: ASC}]) { id customer_id } countOrders }',
    );
    expect(after.status).toBe(200);
    const mine = after.body.data.getOrders as { id: string; customer_id: string }[];
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(20);
    expect(mine.every((o) => String(o.customer_id) === '1')).toBe(true);
    expect(after.body.data.countOrders).toBe(mine.length);

    // "View as" Ana shows the same rows, through her own schema and rules.
    await page.goto(`/apps/${demoId}/access`);
    const viewAs = page.getByRole('region', { name: 'View as an app user' });
    await viewAs.getByLabel('App user').selectOption({ label: ANA.email });
    await viewAs.getByLabel('Operation').selectOption('getOrders');
    await viewAs.getByRole('button', { name: 'Show rows' }).click();
    const rows = viewAs.getByRole('table', { name: `Rows ${ANA.email} gets from getOrders` });
    await rows.waitFor();
    await viewAs.getByText(`gets ${mine.length} row${mine.length === 1 ? '' : 's'} from`).waitFor();
    const idColumn = await rows.getByRole('columnheader').allInnerTexts();
    const idAt = idColumn.indexOf('id');
    const shownIds = await rows
      .getByRole('row')
      .filter({ has: page.getByRole('cell') })
      .evaluateAll(
        (trs, at) =>
          trs.map(
            (tr) =>
              (tr as unknown as { cells: { textContent: string }[] }).cells[at as number]
                .textContent,
          ),
        idAt,
      );
    expect([...shownIds].sort()).toEqual(mine.map((o) => String(o.id)).sort());
    await look(page, 'access-04-view-as');

    // View as reads only, and only for a signed-in builder.
    const adminToken = await run.adminToken();
    const users = (await run.http('GET', `/api/apps/${demoId}/users`, { token: adminToken })).body;
    const write = await run.http('POST', '/api/graphql/demo', {
      token: adminToken,
      headers: { 'x-view-as-user': users[0].id },
      body: { query: 'mutation { deleteOrders(id: 1) }' },
    });
    expect(write.status).toBe(403);
    const byUser = await run.http('POST', '/api/graphql/demo', {
      token,
      headers: { 'x-view-as-user': users[0].id },
      body: { query: '{ countOrders }' },
    });
    expect(byUser.status).toBe(403);

    // Disabling Ana ends her session; enabling lets her sign in again.
    await anaRow.getByRole('button', { name: `Disable ${ANA.email}` }).click();
    await page
      .getByRole('dialog', { name: `Disable ${ANA.email}?` })
      .getByRole('button', { name: 'Disable user' })
      .click();
    await page.getByRole('status').getByText(`${ANA.email} is disabled`).waitFor();
    expect((await asAppUser(token, '{ countOrders }')).status).toBe(401);
    // View as refuses a disabled user (409), an unknown one (404), and a key (403).
    const viewAsHttp = (userId: string, headers: Record<string, string> = {}) =>
      run.http('POST', '/api/graphql/demo', {
        token: headers['x-api-key'] ? undefined : adminToken,
        headers: { 'x-view-as-user': userId, ...headers },
        body: { query: '{ countOrders }' },
      });
    expect((await viewAsHttp(users[0].id)).status).toBe(409);
    expect((await viewAsHttp('no-such-user')).status).toBe(404);
    expect((await viewAsHttp(users[0].id, { 'x-api-key': demoKey })).status).toBe(403);
    await anaRow.getByRole('button', { name: `Enable ${ANA.email}` }).click();
    await page.getByRole('status').getByText(`${ANA.email} is enabled`).waitFor();
    // A new password from the page: the old one is refused, the new one signs in.
    await anaRow.getByRole('button', { name: `Reset password of ${ANA.email}` }).click();
    const reset = page.getByRole('dialog', { name: `Reset the password of ${ANA.email}?` });
    await reset.getByLabel('New password').fill('ana-new-password');
    await reset.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('status').getByText(`${ANA.email} has a new password`).waitFor();
    const old = await run.http('POST', `/api/apps/${demoId}/auth/login`, { body: ANA });
    expect(old.status).toBe(401);
    const fresh = await run.http('POST', `/api/apps/${demoId}/auth/login`, {
      body: { email: ANA.email, password: 'ana-new-password' },
    });
    expect(fresh.status).toBe(200);
  });

  it('shows the diff naming a changed Table API before publishing, and publishes only after confirming', async () => {
    const token = await run.adminToken();
    const apis = (await run.http('GET', `/api/apps/${demoId}/apis`, { token })).body as {
      id: string;
      name: string;
      public: Record<string, boolean>;
    }[];
    const products = apis.find((a) => a.name === 'products')!;
    const changed = await run.http('PATCH', `/api/apps/${demoId}/apis/${products.id}`, {
      token,
      body: { public: { ...products.public, select: true } },
    });
    expect(changed.status).toBe(200);
    const anonymous = () =>
      run.http('POST', '/api/graphql/demo', { body: { query: '{ countProducts }' } });
    expect((await anonymous()).status).toBe(401);

    const page = await adminPage();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Versions' })
      .click();
    await page.getByRole('link', { name: 'Versions of Demo store' }).click();
    await page.getByRole('heading', { name: 'Versions of Demo store', level: 1 }).waitFor();
    const changes = page.getByRole('list', { name: 'Table APIs' });
    const item = changes.getByRole('listitem').filter({ hasText: /^products changed/ });
    await item.getByText('public switched on: select').waitFor();
    await look(page, 'versions-01-diff');

    await page.getByRole('button', { name: 'Publish working version' }).click();
    const confirm = page.getByRole('dialog', {
      name: 'Publish your working version of Demo store?',
    });
    await confirm
      .getByRole('list', { name: 'Table APIs' })
      .getByText('public switched on: select')
      .waitFor();
    await expectAccessible(page, 'versions-02-confirm');
    await screenshot(page, 'versions-02-confirm-1280');
    // Cancel (Escape) publishes nothing.
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'hidden' });
    expect((await anonymous()).status).toBe(401);
    await page.getByRole('button', { name: 'Publish working version' }).click();
    await confirm.getByRole('button', { name: 'Publish now' }).click();
    await page
      .getByRole('status')
      .getByText(/is now the main version of Demo store/)
      .waitFor();
    const published = await anonymous();
    expect(published.status).toBe(200);
    expect(published.body.data.countProducts).toBeGreaterThan(0);
    // Nothing left to publish.
    await page.getByText('You have no working version').waitFor();
    expect(await page.getByRole('button', { name: 'Publish working version' }).isDisabled()).toBe(
      true,
    );
  });

  it('creates a builder by keyboard alone, disables it so it cannot sign in, and resets a password', async () => {
    const builder = { email: 'bea@access.test', password: 'bea-builder-password' };
    // A reader in Tokyo whose browser speaks German.
    const page = await adminPage({ locale: 'de-DE', timezoneId: 'Asia/Tokyo' });
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Accounts' })
      .click();
    await page.getByRole('heading', { name: 'Platform accounts', level: 1 }).waitFor();
    await rowOf(page, `${ADMIN.email} (you)`).waitFor();
    // Dates in the reader's language and time zone.
    const listed = await run.http('GET', '/api/admin/accounts', { token: await run.adminToken() });
    const admin = (listed.body as { email: string; createdAt: string }[]).find(
      (a) => a.email === ADMIN.email,
    )!;
    const inTokyo = new Intl.DateTimeFormat('de-DE', {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: 'Asia/Tokyo',
    }).format(new Date(admin.createdAt));
    await rowOf(page, `${ADMIN.email} (you)`).getByText(inTokyo, { exact: true }).waitFor();
    await look(page, 'accounts-01-list');

    // Keyboard only: Tab to the form, type, Tab on, Enter on the button.
    const email = page.getByLabel('Email');
    await tabTo(page, 'the email field', () => focused(email));
    await page.keyboard.type(builder.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(builder.password);
    await page.keyboard.press('Tab');
    expect(await focused(page.getByLabel('Role'))).toBe(true);
    await page.keyboard.press('Tab');
    expect(await focused(page.getByRole('button', { name: 'Add account' }))).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText(`${builder.email} is created as a builder.`).waitFor();
    const row = rowOf(page, builder.email);
    await row.getByText('builder', { exact: true }).waitFor();

    // The builder signs in (a session to end) …
    const other = await newPage();
    await other.goto('/sign-in');
    await signIn(other, builder);
    await other.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    // … and has no Accounts link, nor the page.
    expect(
      await other
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Accounts' })
        .count(),
    ).toBe(0);
    await other.goto('/accounts');
    await other.getByText('Platform accounts are for administrators only.').waitFor();
    const [cookie] = await other.context().cookies();
    const session = { cookie: `${cookie.name}=${cookie.value}` };
    expect((await run.http('GET', '/api/apps', { headers: session })).status).toBe(200);

    // Disable, by keyboard: Tab to the row's Disable button, Enter, then confirm in the dialog.
    const disable = row.getByRole('button', { name: `Disable ${builder.email}` });
    await tabTo(page, 'Disable', () => focused(disable));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Disable ${builder.email}?` });
    await dialog.waitFor();
    expect(await focused(dialog.getByRole('button', { name: 'Cancel' }))).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText(`${builder.email} is disabled`).waitFor();
    await row.getByText('Disabled').waitFor();
    await look(page, 'accounts-02-disabled');

    // Their session ended, and they cannot sign in.
    expect((await run.http('GET', '/api/apps', { headers: session })).status).toBe(401);
    const third = await newPage();
    await third.goto('/sign-in');
    await signIn(third, builder);
    await third.getByRole('alert').getByText('Wrong email or password.').waitFor();

    // Enabled again with a new password: the new one signs in, the old one does not.
    await row.getByRole('button', { name: `Enable ${builder.email}` }).click();
    await page.getByRole('status').getByText(`${builder.email} is enabled`).waitFor();
    await row.getByRole('button', { name: `Reset password of ${builder.email}` }).click();
    const reset = page.getByRole('dialog', { name: `Reset the password of ${builder.email}?` });
    await reset.getByLabel('New password').fill('bea-new-password');
    await reset.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('status').getByText(`${builder.email} has a new password`).waitFor();
    const oldLogin = await run.http('POST', '/api/auth/login', { body: builder });
    expect(oldLogin.status).toBe(401);
    const newLogin = await run.http('POST', '/api/auth/login', {
      body: { email: builder.email, password: 'bea-new-password' },
    });
    expect(newLogin.status).toBe(200);
  });
});
