import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signing of webhook deliveries (interface §6.3), for the delivery worker.
 *
 * Each delivery carries `service-signature: t=<unix seconds>,v1=<hex>`, where the hex is
 * HMAC-SHA-256 over `<t>.<raw body>` keyed with the endpoint's signing secret: the whole
 * secret string (`whsec_…`) as UTF-8 bytes, not its decoded base64url part. Receivers verify
 * with `shared/webhooks/verify.ts`, which is kept free of project imports so it can be copied.
 */

export const signatureHeaderName = 'service-signature';

/** The prefix of every signing secret; the rest is 32 random bytes in base64url (43 chars). */
export const signingSecretPrefix = 'whsec_';

/**
 * The full `service-signature` header value (`t=<t>,v1=<hex>`) for a body sent at
 * `timestampSeconds`. The body is signed as the exact UTF-8 bytes that will be sent: sign the
 * string you put on the wire, never a re-serialization of it.
 */
export function webhookSignature(secret: string, timestampSeconds: number, body: string): string {
  if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('webhookSignature: the signing secret is empty');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds <= 0) {
    throw new RangeError(`webhookSignature: timestamp must be positive whole seconds, got ${timestampSeconds}`);
  }
  const t = String(timestampSeconds);
  const hex = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.`, 'utf8').update(body, 'utf8').digest('hex');
  return `t=${t},v1=${hex}`;
}

/** A new endpoint signing secret: `whsec_` + 32 random bytes in base64url (no padding). */
export function newSigningSecret(): string {
  return signingSecretPrefix + randomBytes(32).toString('base64url');
}
