import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The prefix of a symmetric Standard Webhooks secret. */
export const SECRET_PREFIX = 'whsec_';

/**
 * A new signing secret in the Standard Webhooks format (spec "Signature scheme": symmetric, random,
 * 24 to 64 bytes, shown base64-encoded with the `whsec_` prefix): 32 random bytes.
 */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The `webhook-signature` header of one attempt: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * per secret, space-separated (the spec's list form, so a receiver holding either the new or
 * the previous secret verifies during a rotation). Signed by the `standardwebhooks` package (the
 * specification's reference JavaScript library) over the exact bytes sent.
 * @param timestampSeconds the attempt's `webhook-timestamp` (whole Unix seconds).
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const at = new Date(timestampSeconds * 1000);
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}
