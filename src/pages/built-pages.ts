import { Injectable, Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import serveStatic from 'serve-static';

/** The HTML entries `npm run build` writes (Vite, `web/vite.config.mts`). */
export type PageEntry = 'index' | 'test-tab';

/**
 * The folder `npm run build` writes the pages to: `<package root>/dist/web`, the package root
 * being the nearest folder above `from` with a `package.json`. The same answer whether the
 * service runs compiled (`dist/src/pages`) or from sources under Jest (`src/pages`).
 */
export function builtPagesDir(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return join(from, 'web');
    dir = parent;
  }
  return join(dir, 'dist', 'web');
}

/**
 * Security headers of every page (CONTRACT.md §10): scripts, styles, fonts, workers and
 * requests from the service itself only (nothing from a CDN: the service may run air-gapped),
 * no framing, and no referrer to other sites. `style-src 'unsafe-inline'` is for the editor of
 * GraphiQL (Monaco), which positions its widgets with inline styles.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  // A page holds the signed-in account's email: never cached.
  'cache-control': 'no-store',
};

/**
 * The built pages: the HTML entries and the hashed assets under `/assets/`, served
 * by `serve-static` with a year's immutable caching. When nothing is built, {@link html} answers
 * null and the middleware says so.
 */
@Injectable()
export class BuiltPages {
  /** Where the built files are ({@link builtPagesDir}). */
  readonly dir = builtPagesDir();
  private readonly logger = new Logger('Pages');
  private readonly assets: ReturnType<typeof serveStatic>;

  constructor() {
    this.assets = serveStatic(this.dir, {
      index: false,
      fallthrough: true,
      dotfiles: 'ignore',
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => res.setHeader('x-content-type-options', 'nosniff'),
    });
    if (!existsSync(join(this.dir, 'index.html')))
      this.logger.warn(`The pages are not built (no ${this.dir}): run npm run build`);
  }

  /**
   * The HTML of an entry, or null when the pages are not built. Read on every page load (a file
   * of a few hundred bytes), so a rebuild is served without a restart.
   */
  html(entry: PageEntry): string | null {
    try {
      return readFileSync(join(this.dir, `${entry}.html`), 'utf8');
    } catch {
      return null;
    }
  }

  /** Serves a file under `/assets/`; anything else (or a missing file) goes to `next`. */
  serveAsset(req: Request, res: Response, next: NextFunction): void {
    this.assets(req, res, next);
  }
}
