import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { seedDemo } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { ADMIN, RunningApp, startApp } from '../support/app-harness';
import {
  collectPageErrors,
  launchBrowser,
  lookAtBothWidths,
  signIn,
  skipWithoutBrowser,
} from '../support/browser';

/**
 * Issue 28 item 1, the page (`/apps/:appId/webhooks`): in Debian's Chromium driven by
 * playwright-core, against the real service over HTTP (with the test switch
 * WEBHOOKS_ALLOW_PRIVATE_TARGETS=1 so a receiver on loopback may be reached) and its demo app:
 * from sign-in, reach the page from the app overview, create a webhook for the `customers` API
 * (its API chosen by keyboard), copy its secret from the panel that shows it once, publish the
 * working version (webhooks fire only from main), make a write through GraphQL with the demo key,
 * see the receiver get it signed with that secret (Standard Webhooks reference library) and the
 * log show it delivered; retry it (same `webhook-id` again), rotate the secret (asks first; the
 * new one shown once), switch the webhook off, delete it (asks first). Each state is checked with
 * axe (WCAG 2 A/AA) at 1280 and 390 px wide, where nothing may scroll sideways, and saved under
 * `test-output/screenshots/`.
 */

/** Browser globals read inside `evaluate()` callbacks (this tsconfig has no DOM library). */
declare const navigator: { clipboard: { readText(): Promise<string> } };

const skip = skipWithoutBrowser('Webhooks page tests');

jest.setTimeout(180_000);

/** A webhook receiver on 127.0.0.1 answering 204, keeping what it got. */
class Receiver {
  readonly got: { headers: IncomingHttpHeaders; body: string }[] = [];
  private server: Server | null = null;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
  }

  /** Waits until at least `count` deliveries arrived (at most 20 s). */
  async waitFor(count: number): Promise<void> {
    const until = Date.now() + 20_000;
    while (this.got.length < count && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    if (this.got.length < count)
      throw new Error(`${this.got.length} of ${count} deliveries arrived`);
  }
}

(skip ? describe.skip : describe)('Webhooks page (issue 28 item 1)', () => {
  let run: RunningApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let demoKey: string;
  let demoId: string;
  const receiver = new Receiver();
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await receiver.start();
    run = await startApp({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' } });
    const config = loadConfig(
      { DATA_DIR: run.dataDir, PLATFORM_SECRET: 'e2e-platform-secret-0123456789-abcdefghij' },
      { demo: true },
    );
    demoKey = (await seedDemo(run.app, config))!.key;
    demoId = (await run.http('GET', '/api/apps', { token: await run.adminToken() })).body[0].id;
    browser = await launchBrowser();
    context = await browser.newContext({
      baseURL: run.baseUrl,
      viewport: { width: 1280, height: 900 },
      locale: 'de-DE',
      timezoneId: 'Europe/Berlin',
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: run.baseUrl,
    });
    collectPageErrors(context, pageErrors);
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    await run?.close();
    await receiver.stop();
  });

  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  /** Screenshots and axe at 1280 and 390 px wide; nothing may scroll sideways at 390 px. */
  const look = (name: string) => lookAtBothWidths(page, name);

  let secret: string;

  it('creates a webhook from the app overview and shows its secret once, with a copy button', async () => {
    await page.goto(`/apps/${demoId}`);
    await page.waitForURL('**/sign-in**');
    await signIn(page, ADMIN);
    await page.getByRole('heading', { name: 'Demo store', level: 1 }).waitFor();
    await page
      .getByRole('navigation', { name: 'App' })
      .getByRole('link', { name: 'Webhooks' })
      .click();
    await page.getByRole('heading', { name: 'Webhooks of Demo store', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/apps/${demoId}/webhooks`);
    await page.getByText('No webhooks yet.').waitFor();
    await look('webhooks-01-empty');

    await page.getByLabel('Webhook name').fill('Receiver');
    await page.getByLabel('URL').fill(`http://127.0.0.1:${receiver.port}/hook`);
    // The API chosen with the keyboard alone.
    await page.getByRole('checkbox', { name: 'customers', exact: true }).focus();
    await page.keyboard.press('Space');
    expect(await page.getByRole('checkbox', { name: 'customers', exact: true }).isChecked()).toBe(
      true,
    );
    for (const event of ['inserted', 'updated', 'deleted'])
      expect(await page.getByRole('checkbox', { name: `Rows ${event}` }).isChecked()).toBe(true);
    // SQL APIs that write are offered beside Table APIs; the demo has none.
    await page
      .getByRole('group', { name: 'SQL APIs it listens to' })
      .getByText('This app has no mutation-kind SQL APIs.')
      .waitFor();
    await page.getByRole('button', { name: 'Create webhook' }).click();

    const panel = page.getByRole('region', { name: /Signing secret of “Receiver”/ });
    await panel.waitFor();
    secret = await panel.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    await panel.getByRole('button', { name: 'Copy secret' }).click();
    await panel.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await look('webhooks-02-secret');
    await panel.getByRole('button', { name: 'Done, I have stored it' }).click();
    await panel.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);

    const card = page.getByRole('article', { name: 'Receiver' });
    await card.getByText(`http://127.0.0.1:${receiver.port}/hook`).waitFor();
    await card.getByText('inserted, updated, deleted').waitFor();
    expect(await card.getByText('On', { exact: true }).count()).toBe(1);
    // The list never carries the secret.
    const listed = await run.http('GET', `/api/apps/${demoId}/webhooks`, {
      token: await run.adminToken(),
    });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it('after publishing, a GraphQL write reaches the receiver signed and the log shows it delivered', async () => {
    // Webhooks fire only from main: publish the working version from the link the page gives.
    await page.getByRole('link', { name: 'published as the main version' }).click();
    await page.getByRole('button', { name: 'Publish working version' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Publish now' }).click();
    await page.getByText(/is now the main version of Demo store/).waitFor();

    const added = await run.http('POST', '/api/graphql/demo', {
      headers: { 'x-api-key': demoKey },
      body: {
        query: 'mutation { addCustomers(name: "Hook Page", email: "hook-page@x.pt") { id } }',
      },
    });
    expect(added.status).toBe(200);
    const id = (added.body as { data: { addCustomers: { id: string } } }).data.addCustomers.id;
    await receiver.waitFor(1);
    const [got] = receiver.got;
    const event = new Webhook(secret).verify(got.body, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    }) as { type: string; data: { new: { id: number; email: string } } };
    expect(event.type).toBe('customers.inserted');
    expect(event.data.new).toMatchObject({ id: Number(id), email: 'hook-page@x.pt' });

    await page.goto(`/apps/${demoId}/webhooks`);
    const card = page.getByRole('article', { name: 'Receiver' });
    await card.getByRole('button', { name: 'Deliveries of Receiver' }).click();
    const log = page.getByRole('region', { name: 'Deliveries of Receiver' });
    const row = log.getByRole('row', { name: /customers\.inserted/ });
    // The log is read when asked: refresh until the worker has recorded the answer.
    for (let i = 0; i < 40 && !(await row.getByText(/^Delivered/).count()); i++) {
      await page.waitForTimeout(250);
      await log.getByRole('button', { name: 'Refresh deliveries of Receiver' }).click();
    }
    await row.getByText(/^Delivered/).waitFor();
    await row.getByText('HTTP 204').waitFor();
    // Dates in the reader's language (de-DE): a German month abbreviation or a dotted date.
    expect(await row.getByRole('cell').nth(4).innerText()).toMatch(
      /\d{1,2}\.\d{1,2}\.\d{2,4}|\d{1,2}\. \w+/,
    );
    await look('webhooks-03-delivered');

    await row.getByRole('button', { name: /Retry/ }).click();
    await log.getByText('Sending customers.inserted again.').waitFor();
    await receiver.waitFor(2);
    expect(receiver.got[1].headers['webhook-id']).toBe(got.headers['webhook-id']);
  });

  it('rotates the secret after asking, switches the webhook off and deletes it after asking', async () => {
    const card = page.getByRole('article', { name: 'Receiver' });
    await card.getByRole('button', { name: 'Rotate secret of Receiver' }).click();
    const dialog = page.getByRole('dialog', { name: /Rotate the signing secret of “Receiver”/ });
    await dialog.waitFor();
    await look('webhooks-04-rotate-dialog');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const panel = page.getByRole('region', { name: /Signing secret of “Receiver”/ });
    const rotated = await panel.getByLabel('Signing secret').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await panel.getByText(/two signatures/).waitFor();
    await panel.getByRole('button', { name: 'Done, I have stored it' }).click();
    await panel.waitFor({ state: 'detached' });

    await card.getByRole('button', { name: 'Switch off Receiver' }).click();
    await page.getByText('Webhook “Receiver” is off.').waitFor();
    await card.getByText('Off', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Switch on Receiver' }).waitFor();

    await card.getByRole('button', { name: 'Delete Receiver' }).click();
    const asking = page.getByRole('dialog', { name: /Delete the webhook “Receiver”/ });
    await asking.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText(/Deleted the webhook “Receiver”/).waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    await look('webhooks-05-deleted');
  });
});
