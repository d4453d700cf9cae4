import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/**
 * A request as the GraphQL endpoint and the shared request readers see it: Node's own, with what
 * body-parser (`body`) and cookie-parser (`cookies`) add. An Express `Request` is one too.
 */
export type ParsedRequest = IncomingMessage & {
  body?: unknown;
  cookies?: Record<string, string | undefined>;
  /** Express's URL before mounting; absent outside Express. */
  originalUrl?: string;
};

/** Whether the proxy at `address`, `hop` hops from this server, is trusted (proxy-addr's rule). */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * The trust rule of `TRUST_PROXY` = `hops` as Express compiles its `trust proxy` setting: the
 * nearest `hops` proxies are trusted; 0 trusts none (Express docs, "Express behind proxies").
 */
export function trustProxyHops(hops: number): TrustProxy {
  return hops > 0 ? (_address, hop) => hop < hops : proxyaddr.compile([]);
}

/**
 * The client's address as Express's `req.ip` gives it: proxy-addr over `X-Forwarded-For`, trusting
 * only what `trust` trusts; the socket's address otherwise. `'unknown'` when the socket has none.
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string {
  return req.socket.remoteAddress ? proxyaddr(req, trust) : 'unknown';
}

/**
 * The host name the request is addressed to, as Express 5's `req.hostname` gives it: the first
 * `X-Forwarded-Host` when the nearest proxy is trusted, else `Host`; without the port (an IPv6
 * literal keeps its brackets); undefined when there is none.
 */
export function requestHostname(req: IncomingMessage, trust: TrustProxy): string | undefined {
  let host = req.headers['x-forwarded-host'];
  if (typeof host !== 'string' || !host || !trust(req.socket.remoteAddress ?? '', 0)) {
    host = req.headers.host;
  } else if (host.includes(',')) {
    host = host.slice(0, host.indexOf(',')).trimEnd();
  }
  if (!host) return undefined;
  const offset = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const port = host.indexOf(':', offset);
  return port === -1 ? host : host.slice(0, port);
}
