import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { newKeyId } from '../../ids.ts';
import { credentialLimits } from '../../limits.ts';
import type { SigningKey } from './model.ts';
import { accessTokenAudience, TokenVerifier } from './tokenVerifier.ts';

export type { AccessClaims } from './tokenVerifier.ts';

export interface PublishedKey {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

/** Keys kept published: the current one and enough previous ones to verify unexpired tokens. */
const keysKept = 3;

/**
 * ES256 access tokens with `kid`. The keys live in the table, so every Lambda instance signs
 * and verifies with the same set; rotation adds a new key and keeps the previous ones
 * published until tokens signed with them have expired.
 */
export class AccessTokens extends TokenVerifier {
  async issue(claims: { userId: string; sessionId: string }): Promise<{ token: string; expiresIn: number }> {
    const key = await this.currentKey();
    const now = Math.floor(this.clock.now() / 1000);
    const expiresIn = credentialLimits.accessTokenSeconds;
    const token = await new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer(this.issuer)
      .setAudience(accessTokenAudience)
      .setIssuedAt(now)
      .setExpirationTime(now + expiresIn)
      .sign(await this.signingKeys.imports(key, 'private'));
    return { token, expiresIn };
  }

  /** The published public keys, as a JWK set (RFC 7517): P-256 points, one `kid` each. */
  async jwks(): Promise<{ keys: PublishedKey[] }> {
    const keys = await this.signingKeys.keys(true);
    return {
      keys: keys.map((key) => ({
        kty: 'EC',
        crv: 'P-256',
        x: key.publicJwk.x!,
        y: key.publicJwk.y!,
        kid: key.kid,
        alg: 'ES256',
        use: 'sig',
      })),
    };
  }

  /** The newest key, making the first one or rotating when it is due (first instance wins). */
  async currentKey(): Promise<SigningKey> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const keys = await this.signingKeys.keys(attempt > 0);
      const newest = keys[0];
      if (newest && this.clock.now() - newest.createdAt < credentialLimits.signingKeyRotationSeconds * 1000) return newest;
      const fresh = await makeKey(this.clock.now());
      if (await this.signingKeys.add(fresh, newest?.kid ?? null, keysKept)) return fresh;
    }
    throw new Error('could not agree on a signing key');
  }
}

async function makeKey(now: number): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    kid: newKeyId(),
    createdAt: now,
    privateJwk: (await exportJWK(privateKey)) as JsonWebKey,
    publicJwk: (await exportJWK(publicKey)) as JsonWebKey,
  };
}
