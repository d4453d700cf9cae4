import type { Request, Response } from 'express';
import type { AccountsService, AccountView } from '../platform/accounts.service';
import { readPlatformSession } from '../platform/platform-auth.guard';
import type { SessionsService } from '../platform/sessions.service';
import { PAGE_HEADERS } from './built-pages';
import { PageData, withPageData } from './page-data';

/**
 * The account of the request's platform session (the `tg_session` cookie, CONTRACT.md §2), or
 * null when there is none, it is invalid, or its account no longer exists.
 */
export async function signedInAccount(
  req: Request,
  sessions: SessionsService,
  accounts: AccountsService,
): Promise<AccountView | null> {
  const session = await readPlatformSession(req, sessions);
  return session ? accounts.find(session.accountId) : null;
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/**
 * A small self-contained HTML page (no script) with a heading, a message and a link: what a
 * browser gets when a page cannot be shown (not built, not found).
 */
export function plainPage(title: string, message: string, link = { href: '/', text: 'Home' }) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · TableGraph</title>
<style>body{font:1rem/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1b1f24}a{color:#0b5cad}</style>
</head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>
<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p></main></body></html>`;
}

/**
 * Answers a built page with its data and the page security headers, with `status` (`200`, or
 * `404` for the app's "Page not found"); `503` with a plain page saying how to build when `html`
 * is null (the pages were not built).
 */
export function sendPage(res: Response, html: string | null, data: PageData, status = 200): void {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
  res.type('html');
  if (html === null) {
    res
      .status(503)
      .send(
        plainPage(
          'Pages not built',
          'The service runs without its pages: build them with npm run build, then restart.',
        ),
      );
    return;
  }
  res.status(status).send(withPageData(html, data));
}
