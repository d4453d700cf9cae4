import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AccountsService } from '../platform/accounts.service';
import { SessionsService } from '../platform/sessions.service';
import { BuiltPages } from './built-pages';
import { ASSETS_PREFIX, isPageSpacePath, pageRouteOf, signInUrlFor } from './page-routes';
import { sendPage, signedInAccount } from './page-responses';

/**
 * Serves the platform's pages (CONTRACT.md §10) for `GET`/`HEAD`: built assets under `/assets/`,
 * and the single-page app's HTML at each page URL of {@link pageRouteOf}, with the signed-in
 * account in its page data. A page that needs a session redirects a browser without one to
 * `/sign-in?next=<path>`. An unknown path outside `/api`, `/health`, `/metrics` and `/assets`
 * asked for by a browser (`Accept` prefers HTML) gets the app too, with `404`, which shows its
 * "Page not found" page. Every other request (REST, GraphQL, other unknown paths) passes on
 * untouched, so `/api/**` keeps its JSON `404`.
 */
@Injectable()
export class PagesMiddleware implements NestMiddleware {
  constructor(
    private readonly pages: BuiltPages,
    private readonly sessions: SessionsService,
    private readonly accounts: AccountsService,
  ) {}

  /** Answers a page or an asset, or passes the request on; errors go to Nest's filters. */
  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path.startsWith(ASSETS_PREFIX)) return this.pages.serveAsset(req, res, next);
    const route = pageRouteOf(req.path);
    // An unknown path where pages live, asked for by a browser: the app's "Page not found".
    const notFound =
      !route && isPageSpacePath(req.path) && req.accepts(['json', 'html']) === 'html';
    if (!route && !notFound) return next();
    try {
      const account = await signedInAccount(req, this.sessions, this.accounts);
      if (!route) return sendPage(res, this.pages.html('index'), { account }, 404);
      if (route.signedIn && !account) {
        res.setHeader('cache-control', 'no-store');
        res.redirect(302, signInUrlFor(req.path));
        return;
      }
      sendPage(res, this.pages.html('index'), { account });
    } catch (error) {
      next(error);
    }
  }
}
