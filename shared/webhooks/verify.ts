/**
 * Hushlink webhook verification: copy this one file into your receiver. It depends on
 * nothing but Node's built-in `node:crypto` (Node 18+).
 *
 * Every delivery carries the header
 *
 *     service-signature: t=<unix seconds>,v1=<hex HMAC-SHA-256>
 *
 * The HMAC is computed over the bytes of `<t>.` followed by the raw request body, keyed with
 * the endpoint's signing secret (the whole `whsec_…` string as UTF-8). Verify the raw body
 * exactly as received, before parsing it: JSON that was parsed and serialized again will not
 * match.
 *
 * Accepted header forms:
 * - one `t=` entry: digits only, no sign, no leading zero, no fraction (`t=1.5` is refused);
 *   a second `t=` makes the header malformed, even with the same value;
 * - one or more `v1=` entries of hex (either case, even length, not empty); the delivery is
 *   genuine if any of them matches, so a sender can sign with two secrets while rotating;
 *   a `v1=` of well-formed hex but the wrong length is simply a mismatch;
 * - entries with other names (`v0=`, future schemes) are ignored, values unchecked;
 * - spaces and tabs around the whole header and around commas are tolerated, and empty
 *   entries (`t=1,,v1=…`) are skipped; whitespace around or inside `=` is not (`t = 1`);
 * - an entry without `=` makes the header malformed.
 * A `string[]` header (as some frameworks give repeated headers) is read from its first value.
 *
 * Checks run in this order: header present, header well-formed, timestamp within
 * `toleranceSeconds` of `now` (either direction, bounds included), signature.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookFailureReason = 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch';

export type WebhookVerification = { ok: true; timestamp: number } | { ok: false; reason: WebhookFailureReason };

export interface VerifyWebhookInput {
  /** The request body exactly as received: a Buffer/Uint8Array, or a string of its UTF-8 text. */
  rawBody: string | Buffer | Uint8Array;
  /** The value of the `service-signature` header. */
  header: string | string[] | undefined | null;
  /** The endpoint's signing secret, `whsec_…`. */
  secret: string;
  /** How far, in seconds, the signed timestamp may be from `now`. Default 300. */
  toleranceSeconds?: number;
  /** The current time in milliseconds since the epoch. Default `Date.now()`. */
  now?: number;
}

/** The name of the header that carries the signature (lowercase, as Node presents it). */
export const webhookSignatureHeader = 'service-signature';

const digits = /^[1-9][0-9]*$/;
const hex = /^(?:[0-9a-fA-F]{2})+$/;
const outerSpace = /^[ \t]+|[ \t]+$/g;

interface ParsedHeader {
  t: string;
  timestamp: number;
  signatures: Buffer[];
}

function parseHeader(value: string): ParsedHeader | undefined {
  let t: string | undefined;
  const signatures: Buffer[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.replace(outerSpace, '');
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    if (eq < 0) return undefined;
    const key = entry.slice(0, eq);
    const val = entry.slice(eq + 1);
    if (key === 't') {
      if (t !== undefined || !digits.test(val)) return undefined;
      t = val;
    } else if (key === 'v1') {
      if (!hex.test(val)) return undefined;
      signatures.push(Buffer.from(val, 'hex'));
    }
    // Any other scheme: ignored.
  }
  if (t === undefined || signatures.length === 0) return undefined;
  const timestamp = Number(t);
  if (!Number.isSafeInteger(timestamp)) return undefined;
  return { t, timestamp, signatures };
}

/**
 * Checks a delivery's `service-signature` header against its raw body. Never throws for
 * anything a sender controls; throws `TypeError` only for caller mistakes (an empty secret, a
 * body that is not raw bytes or text, a bad tolerance or clock).
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookVerification {
  const { rawBody, secret, toleranceSeconds = 300, now = Date.now() } = input;
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError('verifyWebhook: the signing secret is empty');
  }
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook: rawBody must be the raw request body (Buffer, Uint8Array or string), not a parsed object');
  }
  if (typeof toleranceSeconds !== 'number' || !(toleranceSeconds >= 0)) {
    throw new TypeError('verifyWebhook: toleranceSeconds must be a number >= 0');
  }
  if (typeof now !== 'number' || !Number.isFinite(now)) {
    throw new TypeError('verifyWebhook: now must be milliseconds since the epoch');
  }

  const header = Array.isArray(input.header) ? input.header[0] : input.header;
  if (typeof header !== 'string' || header.replace(outerSpace, '') === '') {
    return { ok: false, reason: 'missing_header' };
  }
  const parsed = parseHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed_header' };

  const nowSeconds = Math.floor(now / 1000);
  if (Math.abs(nowSeconds - parsed.timestamp) > toleranceSeconds) {
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  }

  // HMAC over the bytes of `<t>.` then the body's bytes: the same as over their concatenation.
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${parsed.t}.`, 'utf8');
  if (typeof rawBody === 'string') hmac.update(rawBody, 'utf8');
  else hmac.update(rawBody);
  const expected = hmac.digest();

  let matched = false;
  for (const candidate of parsed.signatures) {
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'signature_mismatch' };
}

/** Thrown by `assertWebhook`; `reason` says which check failed. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookFailureReason;

  constructor(reason: WebhookFailureReason) {
    super(`webhook verification failed: ${reason}`);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** `verifyWebhook` that returns the signed timestamp or throws `WebhookVerificationError`. */
export function assertWebhook(input: VerifyWebhookInput): number {
  const result = verifyWebhook(input);
  if (!result.ok) throw new WebhookVerificationError(result.reason);
  return result.timestamp;
}
