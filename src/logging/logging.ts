import { LoggerService, RequestMethod } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Logger, LoggerModule } from 'nestjs-pino';
import { destination } from 'pino';
import type { LogLevel } from '../config/app-config';

/** Nest's start-up chatter (module loading, one line per route): debug, not info. */
const FRAMEWORK_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/**
 * Field names whose values never reach a log line, wherever they appear (CONTRACT.md §8: no key,
 * password, token or datasource credential). Request logs carry no headers or bodies at all (see
 * the serializers below); this list guards objects passed to the logger by the service's code.
 */
export const REDACTED_FIELDS = [
  'password',
  'key',
  'token',
  'secret',
  'url',
  'authorization',
  'cookie',
  'x-api-key',
];

/** A caller's `x-request-id` is reused when it is a plain short token; else one is generated. */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The request id of a request: the caller's `x-request-id` when it is a plain token of at most 64
 * characters, else a new UUID; echoed in the response's `x-request-id`.
 */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const sent = req.headers['x-request-id'];
  const id = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
  res.setHeader('x-request-id', id);
  return id;
}

/** The path of a request URL without its query string (which may hold what a caller must not send). */
function pathOf(url: string | undefined): string {
  return (url ?? '').split('?')[0].slice(0, 512);
}

/**
 * `nestjs-pino`'s module for the service (CONTRACT.md §8, issue "several instances" item 5):
 * JSON lines on standard output at `level`; one line per answered request (not `/health`) with
 * method, path without query string, status and duration; every line logged while a request is
 * handled carries its `reqId`. Headers, bodies and query strings are never logged; the
 * {@link REDACTED_FIELDS} are censored anywhere in a logged object, one level deep.
 */
export function loggerModule(level: LogLevel) {
  return LoggerModule.forRoot({
    forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
    pinoHttp: [
      {
        level,
        genReqId: requestIdOf,
        autoLogging: { ignore: (req) => pathOf(req.url) === '/health' },
        customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
        serializers: {
          req: (req: { id: unknown; method: string; url: string }) => ({
            id: req.id,
            method: req.method,
            path: pathOf(req.url),
          }),
          res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        },
        redact: {
          paths: REDACTED_FIELDS.flatMap((field) => [`["${field}"]`, `*["${field}"]`]),
          censor: '[redacted]',
        },
      },
      // Written asynchronously (profiled: a synchronous write per request line cost ~2% of a
      // plain query's CPU); pino flushes what is buffered when the process exits.
      destination({ dest: 1, sync: false }),
    ],
  });
}

/**
 * Nest's logger on pino, with a quiet start: Nest's own start-up lines (modules, routes) go to
 * `debug`, so the first administrator's password and the demo key stand out.
 */
export class QuietLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context)) {
      this.pino.debug(message, ...rest);
    } else {
      this.pino.log(message, ...rest);
    }
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.pino.error(message, ...rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.pino.warn(message, ...rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.pino.debug(message, ...rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.pino.verbose(message, ...rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.pino.fatal(message, ...rest);
  }
}
