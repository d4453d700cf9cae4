import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
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

/**
 * The rate-limit and connection-count bucket of a client address (issue 22 item 12): an IPv6
 * address stands for its /64 network (`2001:db8:1:2::/64`), since one subscriber gets at least a
 * /64 and picks any address in it; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4
 * address; IPv4 and anything else (`unknown`) are kept as they are.
 */
export function addressBucket(address: string): string {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!isIPv6(bare)) return address;
  const zoneless = bare.split('%')[0];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(zoneless);
  if (mapped) return mapped[1];
  return `${ipv6Groups(zoneless).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase();
  const ipv4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (ipv4) {
    const [a, b, c, d] = ipv4.slice(1).map(Number);
    text = `${text.slice(0, ipv4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - front.length - back.length).fill('0');
  return [...front, ...zeros, ...back].map((group) => parseInt(group, 16).toString(16));
}
