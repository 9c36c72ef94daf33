import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Every id and token the service makes comes from here: url-safe, random, ≥ 128 bits.
 * Tokens are stored only as their SHA-256 and compared in constant time.
 */
const randomPart = (bytes: number): string => randomBytes(bytes).toString('base64url');

export const newSecretId = (): string => `sec_${randomPart(16)}`;
export const newEventId = (): string => `evt_${randomPart(16)}`;
export const newRequestId = (): string => `req_${randomPart(12)}`;
export const newDeleteToken = (): string => `hdt_${randomPart(32)}`;

export const sha256 = (value: string | Uint8Array): Buffer => createHash('sha256').update(value).digest();
export const sha256Base64Url = (value: string | Uint8Array): string => sha256(value).toString('base64url');

/** Constant-time equality of two byte strings; different lengths are unequal without leaking where. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) {
    // Still spend a comparison so the length check is not the only work done.
    timingSafeEqual(Buffer.from(a), Buffer.from(a));
    return false;
  }
  return timingSafeEqual(a, b);
}
