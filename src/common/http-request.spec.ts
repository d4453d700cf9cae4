import type { IncomingMessage } from 'node:http';
import { addressBucket, clientAddress, requestHostname, trustProxyHops } from './http-request';

/** A request as Node gives one: headers and the socket's peer address. */
function request(headers: Record<string, string>, remoteAddress = '10.0.0.9'): IncomingMessage {
  return { headers, socket: { remoteAddress }, connection: { remoteAddress } } as never;
}

describe('requestHostname and clientAddress, as Express 5 reads req.hostname and req.ip', () => {
  const none = trustProxyHops(0);
  const one = trustProxyHops(1);

  it('reads the Host header without its port; an IPv6 literal keeps its brackets', () => {
    expect(requestHostname(request({ host: 'shop.example.com:8080' }), none)).toBe(
      'shop.example.com',
    );
    expect(requestHostname(request({ host: '[::1]:3000' }), none)).toBe('[::1]');
    expect(requestHostname(request({}), none)).toBeUndefined();
  });

  it('takes the first X-Forwarded-Host only from a trusted proxy', () => {
    const forwarded = request({
      host: 'internal:80',
      'x-forwarded-host': 'shop.example.com, other',
    });
    expect(requestHostname(forwarded, one)).toBe('shop.example.com');
    expect(requestHostname(forwarded, none)).toBe('internal');
  });

  it('takes the client address from X-Forwarded-For only through trusted hops', () => {
    const forwarded = request({ 'x-forwarded-for': '203.0.113.7, 198.51.100.2' });
    expect(clientAddress(forwarded, none)).toBe('10.0.0.9');
    expect(clientAddress(forwarded, one)).toBe('198.51.100.2');
    expect(clientAddress(forwarded, trustProxyHops(2))).toBe('203.0.113.7');
  });
});

describe('addressBucket (issue 22 item 12)', () => {
  it('counts an IPv6 address by its /64', () => {
    expect(addressBucket('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0DB8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressBucket('[2001:db8:1:2::9]')).toBe('2001:db8:1:2::/64');
  });

  it('keeps IPv4 (mapped or not) and anything else as it is', () => {
    expect(addressBucket('192.0.2.1')).toBe('192.0.2.1');
    expect(addressBucket('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressBucket('unknown')).toBe('unknown');
  });
});
