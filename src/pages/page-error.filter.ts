import { ArgumentsHost, Catch } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError, ErrorCode } from '../common/domain-error';
import { HttpErrorFilter } from '../common/http-error.filter';
import { PAGE_HEADERS } from './built-pages';
import { signInUrlFor } from './page-routes';
import { plainPage } from './page-responses';

/** Whether the caller is a browser asking for a page (prefers HTML over JSON). */
export function wantsHtml(req: Request): boolean {
  return req.accepts(['json', 'html']) === 'html';
}

/**
 * Errors of an HTML route under `/api` (the GraphiQL test tab, CONTRACT.md §3): a browser without
 * a session is redirected to sign-in and brought back after it; a missing app or Table API gets a
 * plain page saying so, with its `404`. Any other caller (or error) gets the REST error body of
 * {@link HttpErrorFilter}, so API clients still see `401`/`403`/`404` as everywhere else.
 */
@Catch()
export class PageErrorFilter extends HttpErrorFilter {
  override catch(error: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    if (!(error instanceof DomainError) || !wantsHtml(req)) return super.catch(error, host);
    if (error.code === ErrorCode.Unauthenticated) {
      res.setHeader('cache-control', 'no-store');
      res.redirect(302, signInUrlFor(req.path));
      return;
    }
    if (error.code === ErrorCode.NotFound) {
      for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
      res.status(404).type('html').send(plainPage('Not found', error.message));
      return;
    }
    super.catch(error, host);
  }
}
