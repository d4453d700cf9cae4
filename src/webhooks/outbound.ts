import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkTarget, parseTargetUrl, type Resolver, TargetRefused } from './target-guard';

/** What one delivery attempt got: the receiver's status, or why there was none. */
export type AttemptOutcome =
  | { kind: 'answered'; status: number; retryAfterSeconds: number | null }
  | { kind: 'failed'; reason: string };

/** The bounds of one attempt (README "Webhooks"). */
export interface AttemptLimits {
  /** Whole attempt, connection to the last byte read: 10 s. */
  timeoutMs: number;
  /** Bytes of the answer read at most; the rest is dropped: 64 KB. */
  maxResponseBytes: number;
  allowPrivate: boolean;
  resolve?: Resolver;
}

export const DEFAULT_ATTEMPT_LIMITS: Omit<AttemptLimits, 'allowPrivate'> = {
  timeoutMs: 10_000,
  maxResponseBytes: 64 * 1024,
};

/** `retry-after` in whole seconds (delta form only; a date or anything else is ignored). */
function retryAfter(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  return text !== undefined && /^\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : null;
}

/**
 * POSTs one signed webhook body (README "Webhooks"). The host is resolved and every address
 * checked ({@link checkTarget}); the socket connects to the checked address (a `lookup` that
 * answers it), so the name is not resolved again. No redirect is followed (a 3xx is an answer
 * like any other, a failure), one timeout bounds the whole attempt, at most `maxResponseBytes`
 * of the answer are read. Never throws; errors name the host at most, never the URL.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  limits: AttemptLimits,
): Promise<AttemptOutcome> {
  let target: URL;
  let address: { address: string; family: 4 | 6 };
  try {
    target = parseTargetUrl(url);
    address = await checkTarget(target.hostname, limits.allowPrivate, limits.resolve);
  } catch (error) {
    const reason = error instanceof TargetRefused ? error.message : 'The URL cannot be reached';
    return { kind: 'failed', reason };
  }
  const lookup: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [address]);
    else callback(null, address.address, address.family);
  };
  const options: RequestOptions = {
    method: 'POST',
    host: target.hostname.replace(/^\[|\]$/g, ''),
    port: target.port || undefined,
    path: `${target.pathname}${target.search}`,
    headers: {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'TableGraph-Webhooks/1',
    },
    lookup,
    agent: false,
    timeout: limits.timeoutMs,
  };
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptOutcome>((settle) => {
    let done = false;
    const finish = (outcome: AttemptOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      req.destroy();
      settle(outcome);
    };
    const deadline = setTimeout(
      () => finish({ kind: 'failed', reason: `No answer within ${limits.timeoutMs / 1000} s` }),
      limits.timeoutMs,
    );
    const req = send(options, (res) => {
      const status = res.statusCode ?? 0;
      const after = retryAfter(res.headers['retry-after']);
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // The answer's content is not kept; reading stops at the ceiling.
        if (read >= limits.maxResponseBytes)
          finish({ kind: 'answered', status, retryAfterSeconds: after });
      });
      res.on('end', () => finish({ kind: 'answered', status, retryAfterSeconds: after }));
      res.on('error', () => finish({ kind: 'answered', status, retryAfterSeconds: after }));
    });
    req.on('timeout', () =>
      finish({ kind: 'failed', reason: `No answer within ${limits.timeoutMs / 1000} s` }),
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({
        kind: 'failed',
        reason: `Could not reach ${target.hostname}${error.code ? ` (${error.code})` : ''}`,
      }),
    );
    req.end(body);
  });
}
