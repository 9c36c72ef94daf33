import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Clock } from '../../clock.ts';
import { newKeyId } from '../../ids.ts';
import { credentialLimits } from '../../limits.ts';
import type { SigningKey } from './model.ts';
import type { SigningKeyStore } from './ports.ts';

/** Keys kept published: the current one and enough previous ones to verify unexpired tokens. */
const keysKept = 3;
/** How long an instance trusts its copy of the key list before reading it again. */
const cacheMs = 60_000;
const audience = 'hushlink';

export interface AccessClaims {
  userId: string;
  sessionId: string;
}

/**
 * ES256 access tokens with `kid`. The keys live in the table, so every Lambda instance signs
 * and verifies with the same set; rotation adds a new key and keeps the previous ones
 * published until tokens signed with them have expired.
 */
export class AccessTokens {
  private cached: { keys: SigningKey[]; at: number } | undefined;

  constructor(
    private readonly store: SigningKeyStore,
    private readonly clock: Clock,
    private readonly issuer: string,
  ) {}

  async issue(claims: AccessClaims): Promise<{ token: string; expiresIn: number }> {
    const key = await this.currentKey();
    const now = Math.floor(this.clock.now() / 1000);
    const expiresIn = credentialLimits.accessTokenSeconds;
    const token = await new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer(this.issuer)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + expiresIn)
      .sign(await importJWK(key.privateJwk, 'ES256'));
    return { token, expiresIn };
  }

  /** The claims of a valid, unexpired token signed by a published key; null otherwise. */
  async verify(token: string): Promise<AccessClaims | null> {
    try {
      const { payload } = await jwtVerify(token, async (header) => importJWK(await this.publicKey(header.kid), 'ES256'), {
        algorithms: ['ES256'],
        issuer: this.issuer,
        audience,
        currentDate: new Date(this.clock.now()),
      });
      return claimsOf(payload);
    } catch {
      return null;
    }
  }

  async jwks(): Promise<{ keys: JsonWebKey[] }> {
    const keys = await this.keys(true);
    return { keys: keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: 'ES256', use: 'sig' })) };
  }

  /** The newest key, making the first one or rotating when it is due (first instance wins). */
  async currentKey(): Promise<SigningKey> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const keys = await this.keys(attempt > 0);
      const newest = keys[0];
      if (newest && this.clock.now() - newest.createdAt < credentialLimits.signingKeyRotationSeconds * 1000) return newest;
      const fresh = await makeKey(this.clock.now());
      if (await this.store.add(fresh, newest?.kid ?? null, keysKept)) {
        this.cached = undefined;
        return fresh;
      }
    }
    throw new Error('could not agree on a signing key');
  }

  private async publicKey(kid: string | undefined): Promise<JsonWebKey> {
    let key = (await this.keys(false)).find((candidate) => candidate.kid === kid);
    // A key another instance just added: read the list again before refusing.
    key ??= (await this.keys(true)).find((candidate) => candidate.kid === kid);
    if (!key) throw new Error('unknown signing key');
    return key.publicJwk;
  }

  private async keys(fresh: boolean): Promise<SigningKey[]> {
    const now = this.clock.now();
    if (!fresh && this.cached && now - this.cached.at < cacheMs) return this.cached.keys;
    const keys = await this.store.list();
    this.cached = { keys, at: now };
    return keys;
  }
}

async function makeKey(now: number): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { kid: newKeyId(), createdAt: now, privateJwk: (await exportJWK(privateKey)) as JsonWebKey, publicJwk: (await exportJWK(publicKey)) as JsonWebKey };
}

function claimsOf(payload: JWTPayload): AccessClaims | null {
  const sessionId = payload['sid'];
  if (typeof payload.sub !== 'string' || typeof sessionId !== 'string') return null;
  return { userId: payload.sub, sessionId };
}
