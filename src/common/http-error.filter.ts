import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError, ErrorCode } from './domain-error';

/** The one map from domain error codes to HTTP statuses. */
export const HTTP_STATUS_OF: Record<ErrorCode, number> = {
  [ErrorCode.InvalidInput]: HttpStatus.BAD_REQUEST,
  [ErrorCode.Unauthenticated]: HttpStatus.UNAUTHORIZED,
  [ErrorCode.Forbidden]: HttpStatus.FORBIDDEN,
  [ErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [ErrorCode.Conflict]: HttpStatus.CONFLICT,
  [ErrorCode.DatasourceUnreachable]: HttpStatus.BAD_REQUEST,
  [ErrorCode.UnsupportedMediaType]: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  [ErrorCode.TooManyRequests]: HttpStatus.TOO_MANY_REQUESTS,
  [ErrorCode.QueryTooComplex]: HttpStatus.BAD_REQUEST,
  [ErrorCode.Timeout]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorCode.DatasourceUnavailable]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorCode.ApiUnavailable]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorCode.Internal]: HttpStatus.INTERNAL_SERVER_ERROR,
};

/**
 * Renders every REST error as `{statusCode, code, message, details?}`. Domain errors keep their
 * message; Nest's own HTTP exceptions (unknown route, bad JSON) keep theirs; anything else is
 * logged (name and message only) and answered with a bare 500, so no SQL, stack or secret
 * reaches a caller.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  catch(error: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (error instanceof DomainError) {
      const status = HTTP_STATUS_OF[error.code];
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      res.status(status).json({
        statusCode: status,
        code: error.code,
        message: error.message,
        ...(error.details.length ? { details: error.details } : {}),
      });
      return;
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const body = error.getResponse();
      let message =
        typeof body === 'object' && body && 'message' in body ? body.message : error.message;
      // The body parser's own words quote the body (which may hold a password): never echoed.
      if (status === 400 && /JSON|Unexpected token|Unexpected end/i.test(String(message))) {
        message = 'The request body is not valid JSON';
      } else if (status === 413) {
        message = 'The request body is too large';
      } else if (typeof message === 'string' && message.startsWith('Cannot ')) {
        // The router's "Cannot GET /path?query": the query string may hold a key; never echoed.
        message = message.replace(/\?\S*/, '');
      }
      const req = host.switchToHttp().getRequest<Request>();
      if (req.path?.startsWith('/api/graphql')) {
        const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST';
        res.status(status).json({ errors: [{ message: String(message), extensions: { code } }] });
        return;
      }
      res.status(status).json({ statusCode: status, message });
      return;
    }
    this.logger.error(
      `Unhandled ${(error as Error)?.name ?? 'error'}: ${(error as Error)?.message}`,
    );
    res
      .status(HttpStatus.INTERNAL_SERVER_ERROR)
      .json({ statusCode: 500, code: ErrorCode.Internal, message: 'Internal server error' });
  }
}
