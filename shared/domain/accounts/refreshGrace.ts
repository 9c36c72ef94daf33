import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The refresh token a rotation handed out, kept for the grace window so the same old token
 * presented again gets it once more (a page reload racing a refresh). Sealed with a key only
 * the old token gives (HKDF of it, bound to the session), so what is stored opens for its
 * holder alone: the table keeps no usable token, as for every other one.
 */
export interface RefreshGrace {
  /** SHA-256 of the token rotated away. */
  previousHash: string;
  /** The token it was rotated to, sealed under the old token's key. */
  sealedNext: string;
  /** Until when (ms) the old token still gets it. */
  until: number;
}

const keyOf = (previousToken: string, sessionId: string): Buffer =>
  Buffer.from(hkdfSync('sha256', previousToken, sessionId, 'hushlink refresh grace v1', 32));

export function sealNextToken(previousToken: string, sessionId: string, nextToken: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(previousToken, sessionId), iv);
  return Buffer.concat([iv, cipher.update(nextToken, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64url');
}

/** The sealed token, or null when `previousToken` is not the one it was sealed for. */
export function openNextToken(previousToken: string, sessionId: string, sealed: string): string | null {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 12 + 16) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(previousToken, sessionId), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
