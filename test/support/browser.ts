import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, ConsoleMessage, Page } from 'playwright-core';
import { builtPagesDir } from '../../src/pages/built-pages';
import { serviceAvailable, ServiceName } from './services';

/**
 * What every page spec (`test/e2e/pages*.e2e-spec.ts`) needs of a real browser: Debian's Chromium
 * driven by playwright-core (headless, no sandbox, nothing fetched in the background), the pages
 * built into dist/, errors the pages log collected so a test can fail on them, sign-in through the
 * sign-in page, axe-core's accessibility check and full-page screenshots under
 * `test-output/screenshots/`. Nothing here waits for a time: every wait is for something the page
 * shows.
 */

/** Debian's Chromium (`apt-get install -y chromium`). */
export const CHROMIUM = '/usr/bin/chromium';

/** Where screenshots go: `test-output/screenshots/<name>.png` at the repository's root. */
export const SCREENSHOTS = join(__dirname, '..', '..', 'test-output', 'screenshots');

/** axe-core's script, run in a page to find accessibility failures (labels, names, contrast, ARIA). */
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The rules axe checks: WCAG 2.0/2.1 A and AA, and axe's best practices. */
const AXE_RULES = `['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']`;

/**
 * Whether a page suite is to be skipped: without Chromium (or one of `services`) it is, with a
 * warning naming `suite`, except under CI (`CI=true`), where it runs and fails.
 */
export function skipWithoutBrowser(suite: string, ...services: ServiceName[]): boolean {
  const missing = [
    ...(existsSync(CHROMIUM) ? [] : [`${CHROMIUM} (apt-get install -y chromium)`]),
    ...services.filter((s) => !serviceAvailable(s)),
  ];
  const skip = missing.length > 0 && process.env.CI !== 'true';
  if (skip) console.warn(`${suite} skipped: no ${missing.join(', no ')}`);
  return skip;
}

/**
 * Starts headless Chromium for a suite, after checking that the pages are built (dist/, by
 * `npm run build`) and making the screenshots folder. Throws if the pages are not built.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(join(builtPagesDir(), 'index.html')))
    throw new Error('The pages are not built: run npm run build (npm test does) first');
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

/**
 * Collects into `errors` (as `<page url>: <message>`) what any page of `context` throws or logs as
 * an error, except console errors `expected` accepts (Chrome logs each refused request, and a test
 * may provoke refusals on purpose). The suite asserts `errors` is empty after each test.
 */
export function collectPageErrors(
  context: BrowserContext,
  errors: string[],
  expected: (message: ConsoleMessage, page: Page) => boolean = () => false,
): void {
  context.on('page', (page) => {
    page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !expected(message, page))
        errors.push(`${page.url()}: ${message.text()}`);
    });
  });
}

/** Signs in through the sign-in page the browser is on (however it was sent there). */
export async function signIn(
  page: Page,
  account: { email: string; password: string },
): Promise<void> {
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Saves a full-page screenshot as `test-output/screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * Checks the page with axe-core (AXE_RULES) and fails the test on any violation, each named
 * `<name>: <rule> (<impact>) at <selectors>`. `exclude` is a CSS selector axe leaves out (e.g.
 * GraphiQL's own interface, left to its authors).
 */
export async function expectAccessible(page: Page, name: string, exclude?: string): Promise<void> {
  await page.evaluate(AXE);
  const context = exclude ? `{ exclude: [${JSON.stringify(exclude)}] }` : 'document';
  const result = (await page.evaluate(
    `axe.run(${context}, { runOnly: ${AXE_RULES}, resultTypes: ['violations'] })`,
  )) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  const problems = result.violations.map(
    (v) => `${name}: ${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  expect(problems).toEqual([]);
}

/**
 * The page on a laptop and on a phone: a full-page screenshot at 1280 px wide
 * (`<name>-1280.png`, `height` px tall) and at 390 px (`<name>-390.png`, `phoneHeight` px tall),
 * axe at both widths, and at 390 px nothing wider than the screen (no sideways scrolling; what
 * sits inside a region that scrolls sideways by itself, `.table-scroll`, does not count). The
 * failure names up to three elements that reach past the edge. Leaves the page at 1280 px.
 */
export async function lookAtBothWidths(
  page: Page,
  name: string,
  { height = 900, phoneHeight = 844 }: { height?: number; phoneHeight?: number } = {},
): Promise<void> {
  try {
    for (const [width, tall] of [
      [1280, height],
      [390, phoneHeight],
    ]) {
      await page.setViewportSize({ width, height: tall });
      await screenshot(page, `${name}-${width}`);
      await expectAccessible(page, `${name} at ${width} px`);
      if (width === 390)
        expect(await overflow(page)).toEqual({ page: 390, screen: 390, wider: [] });
    }
  } finally {
    await page.setViewportSize({ width: 1280, height });
  }
}

/** The document's width, the screen's, and what in `main` reaches past the screen's right edge. */
function overflow(page: Page): Promise<unknown> {
  return page.evaluate(`(() => ({
    page: document.documentElement.scrollWidth,
    screen: document.documentElement.clientWidth,
    wider: [...document.querySelectorAll('main *')]
      .filter((e) => !e.parentElement.closest('.table-scroll'))
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
      .slice(0, 3)
      .map((e) => e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 40)),
  }))()`);
}
