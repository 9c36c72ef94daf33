import { createHmac } from 'node:crypto';
import { constantTimeEqual, newRefreshSecret } from '../../ids.ts';

/**
 * Every refresh token a session issues carries a tag under the session's chain key, so the
 * session recognises any token it ever issued, not only the last few it remembers by hash. A
 * thief who rotates a stolen token many times cannot make the owner's copy look unknown
 * (refused without consequence): presenting it is reuse, and signs the session out.
 *
 * The token keeps its form, `hlr_<session id>.<43 base64url characters>`: 128 random bits,
 * then 128 bits of HMAC-SHA256(chain key, session id and those bits). The table keeps the key;
 * with it one can only make tokens that sign the session out, never the current one (its
 * random part is known only by its hash).
 */
const randomBytesInToken = 16;
const tagBytes = 16;

/** A session's chain key: 256 random bits, base64url. */
export const newChainKey = (): string => newRefreshSecret();

const tagOf = (chainKey: string, sessionId: string, random: Uint8Array): Buffer =>
  createHmac('sha256', Buffer.from(chainKey, 'base64url'))
    .update(`hushlink refresh chain v1:${sessionId}:`)
    .update(random)
    .digest()
    .subarray(0, tagBytes);

/** A new refresh token of the session. */
export function chainedRefreshToken(sessionId: string, chainKey: string): string {
  const random = Buffer.from(newRefreshSecret(), 'base64url').subarray(0, randomBytesInToken);
  return `hlr_${sessionId}.${Buffer.concat([random, tagOf(chainKey, sessionId, random)]).toString('base64url')}`;
}

/** Whether `secret` (the part after the dot) was made by `chainedRefreshToken` for this session. */
export function isOfChain(secret: string, sessionId: string, chainKey: string): boolean {
  const bytes = Buffer.from(secret, 'base64url');
  if (bytes.length !== randomBytesInToken + tagBytes) return false;
  return constantTimeEqual(bytes.subarray(randomBytesInToken), tagOf(chainKey, sessionId, bytes.subarray(0, randomBytesInToken)));
}
