import { Browser, BrowserContext, Page } from 'playwright-core';
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
 * Issue 27 items 1–3: the app, datasource, data model and enum pages tried as a new user would,
 * in Debian's Chromium driven by playwright-core, against the real service over HTTP and a real
 * PostgreSQL database made for this run (unique name): from sign-in, create an app, add the
 * database as a datasource (a refused login first: the page says what failed and never shows the
 * password), import tables, serve one to an API key through GraphQL, refresh after ALTER TABLE
 * and see what changed, type a field with an enum (created by keyboard alone), change the
 * datasource's credentials, and delete the app (refused with what is in the way, then forced).
 * Every new page is checked with axe (WCAG 2 A/AA) and saved at 1280 and 390 px wide under
 * `test-output/screenshots/`, where nothing may scroll sideways at 390 px. Controls are found by
 * role and accessible name; every wait is for something the page shows.
 */

/** Browser globals read inside `evaluate()` callbacks (this tsconfig has no DOM library). */
declare const document: {
  activeElement: { textContent: string | null } | null;
};

const skip = skipWithoutBrowser('Model page tests', 'postgres');

jest.setTimeout(180_000);

(skip ? describe.skip : describe)('App, datasource, data model and enum pages', () => {
  let run: RunningApp;
  let browser: Browser;
  let db: PgDatabase;
  /** A second database the datasource is moved to when its connection is edited. */
  let moved: PgDatabase;
  /** The key created once the customers API is published. */
  let apiKey: string;
  let context: BrowserContext;
  let page: Page;
  /** Errors the pages logged or threw. */
  const pageErrors: string[] = [];
  /** A password the pages must never show back, nor the service answer. */
  const SECRET = `Wr0ng-${Math.random().toString(36).slice(2)}-pw`;
  /** Logins of the moved database (server-wide: unique names, dropped after). */
  const suffix = Math.random().toString(36).slice(2, 8);
  const LOGINS = { reader: `tg_pm_reader_${suffix}`, writer: `tg_pm_writer_${suffix}` };

  beforeAll(async () => {
    db = await createPgDatabase('tg_pages_model');
    await db.exec(`
      CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, status text, note text);
      CREATE TABLE orders (
        id serial PRIMARY KEY,
        customer_id integer NOT NULL REFERENCES customers (id),
        total numeric(10, 2) NOT NULL,
        placed_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE VIEW big_orders AS SELECT id, customer_id, total FROM orders WHERE total > 100;
      INSERT INTO customers (name, status, note) VALUES ('Ada', 'active', 'happy'), ('Linus', 'new', 'sad');
      INSERT INTO orders (customer_id, total) VALUES (1, 250), (2, 40);
    `);
    moved = await createPgDatabase('tg_pages_model_moved');
    await moved.exec(`
      CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, status text, note text);
      INSERT INTO customers (name, status) VALUES ('Grace', 'moved');
    `);
    run = await startApp();
    browser = await launchBrowser();
    context = await browser.newContext({
      baseURL: run.baseUrl,
      viewport: { width: 1280, height: 900 },
      locale: 'de-DE',
      timezoneId: 'Europe/Berlin',
    });
    // Refusals these tests provoke (a refused login, a 409) are logged by Chrome; others are not expected.
    // So is a 404 of the SQL API list on a service built without SQL APIs (the page shows none).
    collectPageErrors(
      context,
      pageErrors,
      (message) =>
        /^Failed to load resource: .* status of (400|409) /.test(message.text()) ||
        (/status of 404 /.test(message.text()) && message.location().url.endsWith('/sql-apis')),
    );
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    await run?.close();
    for (const login of Object.values(LOGINS))
      await moved?.exec(`DROP OWNED BY ${login}; DROP ROLE ${login}`).catch(() => undefined);
    await db?.drop();
    await moved?.drop();
  });

  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  /** Screenshots and axe at 1280 and 390 px wide; nothing may scroll sideways at 390 px. */
  const look = (name: string) => lookAtBothWidths(page, name);

  /** The id in the page URL after `/apps/`. */
  const appIdOfPage = () => new URL(page.url()).pathname.split('/')[2];

  /** A GraphQL request to an app with an API key (what an integration sends). */
  const withKey = (address: string, key: string, query: string) =>
    run.http('POST', `/api/graphql/${address}`, { headers: { 'x-api-key': key }, body: { query } });

  let appId: string;

  it('creates an app and adds its PostgreSQL datasource, saying what failed without the password', async () => {
    await page.goto('/');
    await page.waitForURL('**/sign-in');
    await signIn(page, ADMIN);
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();

    await page.getByRole('link', { name: 'New app' }).click();
    await page.getByRole('heading', { name: 'New app', level: 1 }).waitFor();
    await page.getByLabel('App name').fill('Shop pages');
    // The address follows the name until edited.
    expect(await page.getByLabel('Address').inputValue()).toBe('shop-pages');
    await look('model-01-new-app');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('heading', { name: 'Datasources of Shop pages', level: 1 }).waitFor();
    appId = appIdOfPage();
    expect(
      (await run.http('GET', `/api/apps/${appId}`, { token: await run.adminToken() })).body,
    ).toMatchObject({ name: 'Shop pages', address: 'shop-pages' });
    await page.getByText('No datasources yet').waitFor();

    // A login the server refuses: the page says which part to check, and never the password.
    await page.getByLabel('Datasource name').fill('Shop DB');
    await page.getByLabel('Database type').selectOption({ label: 'PostgreSQL' });
    await page.getByLabel('Host').fill('127.0.0.1');
    expect(await page.getByLabel('Port').inputValue()).toBe('5432');
    await page.getByLabel('Database', { exact: true }).fill(db.name);
    await page.getByLabel('User').fill('nobody_here');
    await page.getByLabel('Password').fill(SECRET);
    const [tried] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/datasources/test')),
      page.getByRole('button', { name: 'Test connection' }).click(),
    ]);
    expect(tried.status()).toBe(400);
    expect(await tried.text()).not.toContain(SECRET);
    const refusal = page.getByRole('alert');
    await refusal.getByText(/refused the login; check the user name and the password/).waitFor();
    expect(await refusal.innerText()).not.toContain(SECRET);
    await look('model-02-datasource-refused');

    // Adding with the same refused login saves nothing.
    await page.getByRole('button', { name: 'Add datasource' }).click();
    await page
      .getByRole('alert')
      .getByText(/refused the login/)
      .waitFor();
    const token = await run.adminToken();
    expect((await run.http('GET', `/api/apps/${appId}/datasources`, { token })).body).toEqual([]);

    // A database that does not exist is told apart.
    await page.getByLabel('User').fill('postgres');
    await page.getByLabel('Database', { exact: true }).fill(`${db.name}_missing`);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page
      .getByRole('alert')
      .getByText(/has no database of that name/)
      .waitFor();

    await page.getByLabel('Database', { exact: true }).fill(db.name);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page
      .getByRole('status')
      .getByText(/^Connection works: PostgreSQL \d+/)
      .waitFor();
    await page.getByRole('button', { name: 'Add datasource' }).click();
    await page.getByRole('status').getByText('Datasource “Shop DB” added.').waitFor();
    const card = page.getByRole('region', { name: 'Shop DB' });
    await card.getByText('Connected: 3 tables and views').waitFor();
    // Added at a time written in the reader's language and zone (de-DE, Europe/Berlin here).
    const added = await card.getByRole('definition').nth(1).innerText();
    expect(added).toMatch(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
    await look('model-03-datasources');
  });

  it('imports tables, chooses a view key, and serves a table through GraphQL to a key', async () => {
    // The editor of an app with no imported tables leads to the data model page.
    await page
      .getByRole('navigation', { name: 'App' })
      .getByRole('link', { name: 'New Table API' })
      .click();
    await page.getByRole('heading', { name: 'New Table API' }).waitFor();
    await page.getByText('No tables imported yet:').waitFor();
    await page.getByRole('link', { name: 'import tables into the data model' }).click();
    await page.getByRole('heading', { name: 'Data model of Shop pages', level: 1 }).waitFor();
    const ds = page.getByRole('region', { name: 'Datasource Shop DB' });
    const choices = ds.getByRole('group', { name: 'Choose tables to import from Shop DB' });
    await choices.getByText('0 of 3 imported.').waitFor();
    for (const name of ['public.customers', 'public.orders', 'public.big_orders'])
      await choices.getByRole('checkbox', { name, exact: true }).check();
    await ds.getByRole('button', { name: 'Import chosen tables of Shop DB' }).click();
    await ds.getByRole('status').getByText('Imported 3 tables: 3 new in the model.').waitFor();
    await choices.getByText('3 of 3 imported.').waitFor();
    await choices.getByText('view, imported', { exact: true }).waitFor();

    // Columns with their database and GraphQL types, and relations.
    await ds.getByRole('button', { name: 'orders', exact: true }).click();
    const orders = ds.getByRole('table', { name: 'Columns of orders' });
    const row = (table: typeof orders, column: string) =>
      table
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: column, exact: true }) });
    expect(await row(orders, 'total').getByRole('cell').allInnerTexts()).toEqual([
      'numeric(10,2)',
      'Decimal',
      'no',
      '',
    ]);
    expect(await row(orders, 'customer_id').getByRole('cell').nth(1).innerText()).toBe('ID');
    expect(await row(orders, 'placed_at').getByRole('cell').nth(1).innerText()).toBe('DateTime');
    await ds.getByText('customer → customers (one row, customer_id = customers.id)').waitFor();

    // A view declares no key: choose one.
    await ds.getByRole('button', { name: 'big_orders', exact: true }).click();
    const key = ds.getByRole('group', { name: 'Key columns of big_orders' });
    await key.getByRole('checkbox', { name: 'id', exact: true }).check();
    await ds.getByRole('button', { name: 'Save key of big_orders' }).click();
    await ds.getByRole('status').getByText('Key of big_orders: id.').waitFor();
    const bigOrders = ds.getByRole('table', { name: 'Columns of big_orders' });
    await row(bigOrders, 'id').getByText('chosen key').waitFor();
    await look('model-04-data-model');

    // Deactivating a table takes it out of the model's schema; activating brings it back.
    await ds.getByRole('switch', { name: 'Serve big_orders' }).uncheck();
    await ds.getByRole('status').getByText('big_orders is no longer served.').waitFor();
    await ds
      .getByText(/view, select only · 3 columns · 0 relations · key id · not served/)
      .waitFor();
    await ds.getByRole('switch', { name: 'Serve big_orders' }).check();
    await ds.getByRole('status').getByText('big_orders is served again.').waitFor();

    // A Table API on customers, published, reaches a key (the editor is issue 12's page).
    await page.getByRole('link', { name: 'New Table API' }).click();
    await page.getByRole('heading', { name: 'New Table API' }).waitFor();
    await page.locator('#table-choices[aria-busy="false"]').waitFor();
    await page.locator('#table-choices').getByRole('radio', { name: 'customers' }).check();
    await page.getByLabel('API name').fill('customers');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page
      .getByRole('status')
      .getByText(/Saved “customers” as a draft/)
      .waitFor();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('status').getByText('Published in your working version.').waitFor();
    await page.getByRole('button', { name: 'Publish working version' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click();
    await page
      .getByRole('status')
      .getByText(/is now the main version of Shop pages/)
      .waitFor();

    const token = await run.adminToken();
    const created = await run.http('POST', '/api/admin/api-keys', {
      token,
      body: { name: 'shop pages key', scope: [{ appId, endpoints: 'all' }] },
    });
    expect(created.status).toBe(201);
    apiKey = created.body.key;
    const answer = await withKey(
      'shop-pages',
      apiKey,
      '{ getCustomers(order: { id: ASC }) { id name status } }',
    );
    expect(answer.body).toMatchObject({
      data: {
        getCustomers: [
          { id: '1', name: 'Ada', status: 'active' },
          { id: '2', name: 'Linus', status: 'new' },
        ],
      },
    });

    // The overview (the editor's breadcrumb leads there) lists the API with its state.
    await page.getByRole('link', { name: 'Shop pages', exact: true }).click();
    await page.getByRole('heading', { name: 'Shop pages', level: 1 }).waitFor();
    const apis = page.getByRole('table', { name: 'APIs of Shop pages' });
    const apiRow = apis
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'customers' }) });
    // The list arrives after the heading (its own requests): wait for the row, then read it.
    await apiRow.waitFor();
    expect(await apiRow.getByRole('cell').allInnerTexts()).toEqual([
      'Table API',
      'table customers',
      'Published',
    ]);
    await look('model-05-app-overview');
  });

  it('refreshes after ALTER TABLE and shows the new, dropped and retyped columns', async () => {
    await db.exec(`
      ALTER TABLE customers ADD COLUMN email varchar(200);
      ALTER TABLE customers DROP COLUMN status;
      ALTER TABLE customers ALTER COLUMN name TYPE varchar(80);
    `);
    await page.getByRole('link', { name: 'Data model' }).click();
    const ds = page.getByRole('region', { name: 'Datasource Shop DB' });
    await ds.getByRole('button', { name: 'Refresh imported tables of Shop DB' }).click();
    await ds.getByRole('status').getByText('Refreshed 3 tables: 1 changed.').waitFor();
    const changes = ds.getByLabel('What changed');
    await changes.getByText('New columns: email').waitFor();
    await changes.getByText('Dropped columns: status').waitFor();
    await changes.getByText('Type of name changed: text → character varying(80)').waitFor();
    await ds.getByRole('button', { name: 'customers', exact: true }).click();
    const customers = ds.getByRole('table', { name: 'Columns of customers' });
    await customers.getByRole('rowheader', { name: 'email', exact: true }).waitFor();
    expect(await customers.getByRole('rowheader', { name: 'status', exact: true }).count()).toBe(0);
    await look('model-06-refreshed');
  });

  it('creates an enum by keyboard alone, types a field with it, and shows where it is used', async () => {
    await page.getByRole('link', { name: 'Enums' }).click();
    await page.getByRole('heading', { name: 'Enums of Shop pages', level: 1 }).waitFor();
    await page.getByText('No enums yet.').waitFor();

    // Keyboard only: focus the name field, then type, Tab and Enter.
    await page.getByLabel('Enum name').focus();
    await page.keyboard.type('Mood');
    await page.keyboard.press('Tab');
    await page.keyboard.type('How a customer feels');
    await page.keyboard.press('Tab');
    await page.keyboard.type('happy');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Happy');
    await page.keyboard.press('Tab');
    await page.keyboard.type('#2e7d32');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add a value');
    await page.keyboard.press('Enter');
    await page.getByLabel('Value 2', { exact: true }).waitFor();
    // The new row stands just before the button: back over its remove button, colour and label.
    for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+Tab');
    expect(
      await page
        .getByLabel('Value 2', { exact: true })
        .evaluate((e) => e === document.activeElement),
    ).toBe(true);
    await page.keyboard.type('sad');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Sad');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Enum Mood created.').waitFor();
    const mood = page.getByRole('region', { name: 'Mood' });
    const values = mood.getByRole('table', { name: 'Values of Mood' });
    expect(await values.getByRole('row').nth(1).innerText()).toMatch(/happy\s+Happy\s+#2e7d32/);
    await mood.getByText('None yet.').waitFor();

    // Type customers.note with it: GraphQL then takes and gives only its values.
    await page.getByLabel('Text field').selectOption('customers.note');
    await page.getByLabel('Enum', { exact: true }).selectOption('Mood');
    await page.getByRole('button', { name: 'Use enum for field' }).click();
    await page.getByRole('status').getByText('customers.note now uses Mood.').waitFor();
    await mood.getByText('customers.note', { exact: true }).waitFor();
    await look('model-07-enums');

    await page.getByRole('link', { name: 'Data model' }).click();
    const ds = page.getByRole('region', { name: 'Datasource Shop DB' });
    await ds.getByRole('button', { name: 'customers', exact: true }).click();
    const note = ds
      .getByRole('table', { name: 'Columns of customers' })
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'note', exact: true }) });
    expect(await note.getByRole('cell').allInnerTexts()).toEqual([
      'text',
      'Mood',
      'yes',
      'enum Mood',
    ]);

    // Deleting the enum asks first; its fields become plain text.
    await page.getByRole('link', { name: 'Enums' }).click();
    await page.getByRole('button', { name: 'Delete enum Mood' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the enum Mood?' });
    await confirm.getByText(/customers\.note\) become plain text/).waitFor();
    await confirm.getByRole('button', { name: 'Delete enum' }).click();
    await page.getByRole('status').getByText('Enum Mood deleted.').waitFor();
    await page.getByText('No enums yet.').waitFor();
  });

  it('changes the datasource credentials without showing them, and deletes a datasource', async () => {
    await page.getByRole('link', { name: 'Datasources' }).click();
    const card = page.getByRole('region', { name: 'Shop DB' });
    await card.getByRole('button', { name: 'Edit connection of Shop DB' }).click();
    const edit = card.getByRole('form', { name: 'Edit Shop DB' });
    // Nothing of the stored connection is shown back.
    for (const label of ['Host', 'Database', 'User', 'Password'])
      expect(await edit.getByLabel(label, { exact: true }).inputValue()).toBe('');
    await edit.getByLabel('Name', { exact: true }).fill('Shop database');
    await edit.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await edit.getByLabel('Database', { exact: true }).fill(db.name);
    await edit.getByLabel('User', { exact: true }).fill('nobody_here');
    await edit.getByLabel('Password', { exact: true }).fill(SECRET);
    await edit.getByRole('button', { name: 'Save datasource Shop DB' }).click();
    await edit
      .getByRole('alert')
      .getByText(/refused the login/)
      .waitFor();
    expect(await edit.getByRole('alert').innerText()).not.toContain(SECRET);
    // Refused: nothing changed, the service still reaches the database.
    const token = await run.adminToken();
    const listed = await run.http('GET', `/api/apps/${appId}/datasources`, { token });
    expect(listed.body.map((d: { name: string }) => d.name)).toEqual(['Shop DB']);
    expect(JSON.stringify(listed.body)).not.toMatch(/postgres:|password|127\.0\.0\.1/);

    // Moved to another database: the service's open connections give way to the new URL.
    await edit.getByLabel('User', { exact: true }).fill('postgres');
    await edit.getByLabel('Database', { exact: true }).fill(moved.name);
    await edit.getByRole('button', { name: 'Save datasource Shop DB' }).click();
    await page.getByRole('status').getByText('Datasource “Shop database” saved.').waitFor();
    await page
      .getByRole('region', { name: 'Shop database' })
      .getByText('Connected: 1 table or view')
      .waitFor();
    const served = await withKey('shop-pages', apiKey, '{ getCustomers { id name } }');
    expect(served.body.data).toEqual({ getCustomers: [{ id: '1', name: 'Grace' }] });

    // A second datasource nothing uses is deleted after one confirmation.
    await page.getByLabel('Datasource name').fill('Spare');
    await page.getByLabel('Host').fill('127.0.0.1');
    await page.getByLabel('Database', { exact: true }).fill(db.name);
    await page.getByLabel('User').fill('postgres');
    await page.getByRole('button', { name: 'Add datasource' }).click();
    await page.getByRole('status').getByText('Datasource “Spare” added.').waitFor();
    await page.getByRole('button', { name: 'Delete datasource Spare' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the datasource “Spare”?' })
      .getByRole('button', { name: 'Delete datasource' })
      .click();
    await page.getByRole('status').getByText('Datasource “Spare” deleted.').waitFor();
    expect((await run.http('GET', `/api/apps/${appId}/datasources`, { token })).body).toHaveLength(
      1,
    );
  });

  it("sets the datasource's time zone and read-only login, never showing the login back", async () => {
    await moved.exec(`
      CREATE ROLE ${LOGINS.reader} LOGIN; CREATE ROLE ${LOGINS.writer} LOGIN;
      GRANT SELECT ON customers TO ${LOGINS.reader}, ${LOGINS.writer};
      GRANT UPDATE ON customers TO ${LOGINS.writer};
    `);
    const token = await run.adminToken();
    const stored = async () =>
      (
        (await run.http('GET', `/api/apps/${appId}/datasources`, { token })).body as {
          name: string;
          timeZone: string;
          readOnlyLogin: boolean;
        }[]
      ).find((d) => d.name === 'Shop database')!;
    const card = page.getByRole('region', { name: 'Shop database' });
    const facts = async () => (await card.locator('dl').innerText()).replace(/\s+/g, ' ');
    expect(await facts()).toMatch(/Time zone UTC Read-only login None: query-kind SQL APIs run/);
    await card.getByRole('button', { name: 'Edit connection of Shop database' }).click();
    const edit = card.getByRole('form', { name: 'Edit Shop database' });
    await edit.getByLabel('Time zone').selectOption('America/Sao_Paulo');

    // A login that may write is refused with what it may write; nothing is saved.
    await edit.getByLabel('Read-only user').fill(LOGINS.writer);
    await edit.getByLabel('Read-only password').fill(SECRET);
    await edit.getByRole('button', { name: 'Save datasource Shop database' }).click();
    const alert = edit.getByRole('alert');
    await alert.getByText(/this login may write/).waitFor();
    expect(await alert.innerText()).toContain('the login may write 1 table (public.customers)');
    expect(await alert.innerText()).not.toContain(SECRET);
    await look('model-07b-read-only-login-refused');
    expect(await stored()).toMatchObject({ timeZone: 'UTC', readOnlyLogin: false });

    // A login of SELECT only is taken with the zone; the card says so, never the login.
    await edit.getByLabel('Read-only user').fill(LOGINS.reader);
    await edit.getByRole('button', { name: 'Save datasource Shop database' }).click();
    await page.getByRole('status').getByText('Datasource “Shop database” saved.').waitFor();
    await card.getByText('Set: query-kind SQL APIs run with it').waitFor();
    expect(await facts()).toMatch(/Time zone America\/Sao_Paulo Read-only login Set/);
    expect(await stored()).toMatchObject({ timeZone: 'America/Sao_Paulo', readOnlyLogin: true });
    const html = await page.content();
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain(LOGINS.reader);

    // Editing again starts empty: the login is replaced or removed, never shown.
    await card.getByRole('button', { name: 'Edit connection of Shop database' }).click();
    expect(await edit.getByLabel('Read-only user').inputValue()).toBe('');
    expect(await edit.getByLabel('Time zone').inputValue()).toBe('America/Sao_Paulo');
    await look('model-07c-read-only-login-set');
    await edit.getByLabel('Remove the read-only login').check();
    await edit.getByLabel('Time zone').selectOption('UTC');
    await edit.getByRole('button', { name: 'Save datasource Shop database' }).click();
    await card
      .getByText('None: query-kind SQL APIs run with the connection’s login, read-only')
      .waitFor();
    expect(await stored()).toMatchObject({ timeZone: 'UTC', readOnlyLogin: false });
  });

  it('renames the app, sets its domain, and deletes it past the 409 naming its APIs', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByLabel('App name').fill('Shop');
    await page.getByLabel('Own domain (optional)').fill('shop.example.test');
    await page.getByRole('button', { name: 'Save name and domain' }).click();
    await page.getByRole('status').getByText('Saved: “Shop” at shop.example.test.').waitFor();
    await page.getByRole('heading', { name: 'Shop', level: 1 }).waitFor();
    const token = await run.adminToken();
    expect((await run.http('GET', `/api/apps/${appId}`, { token })).body).toMatchObject({
      name: 'Shop',
      domain: 'shop.example.test',
    });

    // By keyboard: the delete button, then Enter on the confirming one.
    await page.getByRole('button', { name: 'Delete app Shop' }).focus();
    await page.keyboard.press('Enter');
    const ask = page.getByRole('dialog', { name: 'Delete the app “Shop”?' });
    await ask.waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const force = page.getByRole('dialog', { name: '“Shop” still has APIs' });
    await force.getByText(/used by the Table APIs "customers"/).waitFor();
    await look('model-08-delete-app-refused');
    expect((await run.http('GET', `/api/apps/${appId}`, { token })).status).toBe(200);
    await force.getByRole('button', { name: 'Delete app and its APIs' }).click();
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    expect((await run.http('GET', `/api/apps/${appId}`, { token })).status).toBe(404);
  });
});
