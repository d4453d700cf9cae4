import type { IncomingMessage } from 'node:http';
import { isCrossSiteCookieWrite } from './request-guards';

/** A request as the rule reads it: method and headers only. */
function request(headers: Record<string, string>, method = 'POST'): IncomingMessage {
  return { method, headers: { host: 'service.test', ...headers } } as unknown as IncomingMessage;
}

const COOKIE = { cookie: 'tg_session=abc', origin: 'https://evil.test' };

describe('isCrossSiteCookieWrite (issue 22 item 11)', () => {
  it('refuses a cross-site cookie write, and accepts the same-origin one', () => {
    expect(isCrossSiteCookieWrite(request(COOKIE))).toBe(true);
    expect(isCrossSiteCookieWrite(request({ ...COOKIE, origin: 'https://service.test' }))).toBe(
      false,
    );
    expect(isCrossSiteCookieWrite(request(COOKIE, 'GET'))).toBe(false);
  });

  it('applies when an empty x-api-key is sent beside the cookie', () => {
    expect(isCrossSiteCookieWrite(request({ ...COOKIE, 'x-api-key': '' }), true)).toBe(true);
    expect(isCrossSiteCookieWrite(request({ ...COOKIE, 'x-api-key': '' }))).toBe(true);
  });

  it('applies on REST even with a key, which REST does not read', () => {
    expect(isCrossSiteCookieWrite(request({ ...COOKIE, 'x-api-key': 'tg_abc' }))).toBe(true);
  });

  it('applies when a non-Bearer authorization is sent beside the cookie', () => {
    for (const authorization of ['Basic YTpi', 'bearer x', '', 'Token t']) {
      expect(isCrossSiteCookieWrite(request({ ...COOKIE, authorization }))).toBe(true);
      expect(isCrossSiteCookieWrite(request({ ...COOKIE, authorization }), true)).toBe(true);
    }
  });

  it('does not apply when a bearer token or, on the GraphQL endpoint, a key authenticates', () => {
    expect(isCrossSiteCookieWrite(request({ ...COOKIE, authorization: 'Bearer t' }))).toBe(false);
    expect(isCrossSiteCookieWrite(request({ ...COOKIE, 'x-api-key': 'tg_abc' }), true)).toBe(false);
  });
});
