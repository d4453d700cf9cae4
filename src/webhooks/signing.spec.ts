import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newSecret, signatureHeader } from './signing';

describe('webhook signing (Standard Webhooks)', () => {
  it('makes whsec_ secrets of 32 random bytes', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });

  it('signs so the reference library verifies, and matches the spec by hand', () => {
    const secret = newSecret();
    const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
    const ts = Math.floor(Date.now() / 1000);
    const body = '{"type":"orders.inserted","data":{"key":{"id":1}}}';
    const header = signatureHeader([secret], id, ts, body);
    const byHand = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${id}.${ts}.${body}`)
      .digest('base64');
    expect(header).toBe(`v1,${byHand}`);
    expect(
      new Webhook(secret).verify(body, {
        'webhook-id': id,
        'webhook-timestamp': String(ts),
        'webhook-signature': header,
      }),
    ).toEqual(JSON.parse(body));
  });

  it('signs with both secrets during a rotation: either verifies, a third does not', () => {
    const [next, previous, other] = [newSecret(), newSecret(), newSecret()];
    const id = 'msg_1';
    const ts = Math.floor(Date.now() / 1000);
    const body = '{}';
    const header = signatureHeader([next, previous], id, ts, body);
    expect(header.split(' ')).toHaveLength(2);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': header,
    };
    expect(new Webhook(next).verify(body, headers)).toEqual({});
    expect(new Webhook(previous).verify(body, headers)).toEqual({});
    expect(() => new Webhook(other).verify(body, headers)).toThrow();
  });
});
