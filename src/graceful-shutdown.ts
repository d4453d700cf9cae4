import type { INestApplication, LoggerService } from '@nestjs/common';
import type { Server } from 'node:http';

/**
 * The event {@link closeGracefully} emits on the HTTP server when it stops accepting: owners of
 * long-lived upgraded connections (WebSocket subscriptions, `src/subscriptions/`), which
 * `server.close()` would otherwise wait for until the deadline, close them then.
 */
export const CLOSE_LONG_LIVED = 'tablegraph:close-long-lived';

/**
 * Stops the service gracefully (CONTRACT.md §8 "`SIGTERM` stops accepting, finishes in-flight
 * requests within a deadline, closes pools"): the HTTP server stops accepting connections at
 * once and closes idle keep-alive ones; requests already running may finish for `timeoutMs`
 * milliseconds, after which their connections are closed (which cancels their statements);
 * then Nest's shutdown closes datasource pools, the metadata store and Redis.
 *
 * Nest's own `enableShutdownHooks()` is not used: it destroys modules (pools) before the HTTP
 * server stops, which would fail the very requests it should let finish.
 */
export async function closeGracefully(
  app: INestApplication,
  timeoutMs: number,
  logger: LoggerService,
): Promise<void> {
  const server = app.getHttpServer() as Server;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.emit(CLOSE_LONG_LIVED);
  server.closeIdleConnections();
  // A keep-alive connection becomes idle when its in-flight answer is written: close it then.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    closed.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearInterval(sweep);
  clearTimeout(timer);
  if (!drained) {
    logger.warn(
      `Requests still running after SHUTDOWN_TIMEOUT_MS (${timeoutMs} ms): closing their connections`,
      'Shutdown',
    );
    server.closeAllConnections();
  }
  await app.close();
}

/**
 * Installs {@link closeGracefully} on `SIGTERM` and `SIGINT` (once; a second signal while
 * stopping is ignored), then exits with 0, or 1 when closing failed.
 */
export function installGracefulShutdown(
  app: INestApplication,
  timeoutMs: number,
  logger: LoggerService,
): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: no new requests; finishing those in flight`, 'Shutdown');
    closeGracefully(app, timeoutMs, logger).then(
      () => process.exit(0),
      (error: Error) => {
        logger.error(`Shutdown failed: ${error.name}`, 'Shutdown');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
