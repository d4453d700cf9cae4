import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Why a webhook URL or one of its addresses is refused (README "Webhooks"): the message names the
 * host, never the URL's path or query (which may carry a receiver's token).
 */
export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

/**
 * Whether `address` (an IPv4 or IPv6 literal) is a public unicast address, the only kind a
 * webhook may reach. ipaddr.js classifies it (its `range()`, after the IANA special-purpose
 * registries): everything but `unicast` is refused, so loopback, private (10/8, 172.16/12,
 * 192.168/16), link-local (169.254/16, fe80::/10), unique-local (fc00::/7), carrier-grade NAT,
 * multicast, unspecified, reserved and documentation ranges, and the IPv6 forms that carry an
 * IPv4 address (NAT64, 6to4, Teredo, IPv4-compatible `::/96`) are. An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is
 * judged as the IPv4 address it maps. Anything that does not parse is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    // The deprecated IPv4-compatible form (::/96, RFC 4291 §2.5.5.1: `::7f00:1`) is `unicast`
    // to ipaddr.js (Infisical PR #6766 met the same gap): refused whole.
    else if (v6.parts.slice(0, 6).every((part) => part === 0)) return false;
  }
  return parsed.range() === 'unicast';
}

/** A host name checked for delivery: the address to connect to and its family. */
export interface CheckedTarget {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (`dns.lookup`, as Node's HTTP client would). */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * Resolves `host` and checks every address it resolves to (a name with one private address among
 * public ones is refused: the connection might pick it). The caller connects to the returned
 * address, so a second resolution cannot swap in another (DNS rebinding).
 * @param allowPrivate `WEBHOOKS_ALLOW_PRIVATE_TARGETS` (tests and development only): skip the
 * range check, still resolve.
 * @throws TargetRefused when the name does not resolve or an address is not public.
 */
export async function checkTarget(
  host: string,
  allowPrivate: boolean,
  resolve: Resolver = systemResolver,
): Promise<CheckedTarget> {
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  let addresses: { address: string; family: number }[];
  if (isIP(literal)) {
    addresses = [{ address: literal, family: isIP(literal) }];
  } else {
    try {
      addresses = await resolve(literal);
    } catch {
      throw new TargetRefused(`The host ${literal} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new TargetRefused(`The host ${literal} does not resolve`);
  if (!allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) {
      throw new TargetRefused(
        `The host ${literal} resolves to ${refused.address}, which is not a public address; webhooks reach public addresses only`,
      );
    }
  }
  const first = addresses[0];
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * Checks a webhook URL's form before it is saved: `http:` or `https:`, a host, no user
 * information (a password in a URL ends up in logs), at most 2,000 characters.
 * @returns the parsed URL.
 * @throws TargetRefused saying what to change.
 */
export function parseTargetUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TargetRefused('url must be an absolute http:// or https:// URL');
  }
  if (url.length > 2000) throw new TargetRefused('url must be at most 2,000 characters');
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new TargetRefused('url must start with https:// or http://');
  }
  if (parsed.username || parsed.password) {
    throw new TargetRefused(
      'url must not carry a user name or password; use the signature to authenticate',
    );
  }
  if (!parsed.hostname) throw new TargetRefused('url must name a host');
  return parsed;
}
