import { importJWK, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '../../clock.ts';
import type { SigningKey } from './model.ts';
import type { SigningKeyStore } from './ports.ts';

/** How long an instance trusts its copy of the key list before reading it again. */
const cacheMs = 60_000;
export const accessTokenAudience = 'hushlink';

export interface AccessClaims {
  userId: string;
  sessionId: string;
}

/** The published signing keys, newest first, as one instance last read them. */
export class SigningKeyList {
  private cached: { keys: SigningKey[]; at: number } | undefined;

  constructor(
    private readonly store: SigningKeyStore,
    private readonly clock: Clock,
  ) {}

  async keys(fresh: boolean): Promise<SigningKey[]> {
    const now = this.clock.now();
    if (!fresh && this.cached && now - this.cached.at < cacheMs) return this.cached.keys;
    const keys = await this.store.list();
    this.cached = { keys, at: now };
    return keys;
  }

  /** Makes `key` the newest unless another instance rotated first (see SigningKeyStore.add). */
  async add(key: SigningKey, expectedNewestKid: string | null, keep: number): Promise<boolean> {
    const added = await this.store.add(key, expectedNewestKid, keep);
    if (added) this.cached = undefined;
    return added;
  }

  async publicKey(kid: string | undefined): Promise<JsonWebKey> {
    let key = (await this.keys(false)).find((candidate) => candidate.kid === kid);
    // A key another instance just added: read the list again before refusing.
    key ??= (await this.keys(true)).find((candidate) => candidate.kid === kid);
    if (!key) throw new Error('unknown signing key');
    return key.publicJwk;
  }
}

/**
 * Checks ES256 access tokens against the published keys. What every API function needs to
 * know its caller; only the account function, which signs people in, also issues them
 * (`AccessTokens` in tokens.ts), so the others carry no signing code.
 */
export class TokenVerifier {
  constructor(
    protected readonly signingKeys: SigningKeyList,
    protected readonly clock: Clock,
    protected readonly issuer: string,
  ) {}

  /** The claims of a valid, unexpired token signed by a published key; null otherwise. */
  async verify(token: string): Promise<AccessClaims | null> {
    try {
      const { payload } = await jwtVerify(token, async (header) => importJWK(await this.signingKeys.publicKey(header.kid), 'ES256'), {
        algorithms: ['ES256'],
        issuer: this.issuer,
        audience: accessTokenAudience,
        currentDate: new Date(this.clock.now()),
      });
      return claimsOf(payload);
    } catch {
      return null;
    }
  }
}

function claimsOf(payload: JWTPayload): AccessClaims | null {
  const sessionId = payload['sid'];
  if (typeof payload.sub !== 'string' || typeof sessionId !== 'string') return null;
  return { userId: payload.sub, sessionId };
}
