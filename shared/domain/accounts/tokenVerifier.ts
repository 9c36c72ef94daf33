import { importJWK, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import type { Clock } from '../../clock.ts';
import { credentialLimits } from '../../limits.ts';
import type { SigningKey } from './model.ts';
import type { SigningKeyStore } from './ports.ts';

/** How long an instance trusts its copy of the key list before reading it again. */
const cacheMs = 60_000;
/**
 * How long an instance refuses a `kid` the table just said it does not hold, without asking
 * again, and how many such answers it keeps (the oldest go first). A real key is never in
 * it: its tokens exist only once it is in the table.
 */
const unknownKidMs = 30_000;
const unknownKidsKept = 1000;
/** What `newKeyId` makes (shared/ids.ts): `sk_` and 12 random bytes in base64url. Any other `kid` is none of ours. */
export const kidPattern = /^sk_[A-Za-z0-9_-]{16}$/;
/**
 * A key is added only as the first one, or by a rotation once the newest is
 * `signingKeyRotationSeconds` old (tokens.ts). So while the newest key of an instance's copy
 * is younger than that, less this margin (for another instance's clock running ahead), no key
 * the copy lacks can exist, and an unknown `kid` is refused without a read.
 */
const rotationMarginMs = 5 * 60_000;
export const accessTokenAudience = 'hushlink';

export interface AccessClaims {
  userId: string;
  sessionId: string;
}

/** The published signing keys, newest first, as one instance last read them. */
export class SigningKeyList {
  private cached: { keys: SigningKey[]; at: number } | undefined;
  /** `kid`s the table did not hold when last asked, and when, oldest first. */
  private readonly unknownKids = new Map<string, number>();
  /**
   * Keys imported for signing and checking, by `kid` (one `kid` names one key for ever):
   * importing a JWK took longer than checking the signature it serves (bench/tokens.ts). Only
   * keys of the list last read are kept.
   */
  private readonly imported = new Map<string, Promise<CryptoKey>>();

  constructor(
    private readonly store: SigningKeyStore,
    private readonly clock: Clock,
  ) {}

  async keys(fresh: boolean): Promise<SigningKey[]> {
    const now = this.clock.now();
    if (!fresh && this.cached && now - this.cached.at < cacheMs) return this.cached.keys;
    const keys = await this.store.list();
    this.cached = { keys, at: now };
    const kept = new Set(keys.map((key) => key.kid));
    for (const id of this.imported.keys()) if (!kept.has(id.slice(id.indexOf(':') + 1))) this.imported.delete(id);
    return keys;
  }

  /** `key`'s public or private half, imported once per instance. */
  imports(key: SigningKey, half: 'public' | 'private'): Promise<CryptoKey> {
    const id = `${half}:${key.kid}`;
    let imported = this.imported.get(id);
    if (!imported) {
      imported = importJWK(half === 'public' ? key.publicJwk : key.privateJwk, 'ES256') as Promise<CryptoKey>;
      // A failed import is tried again next time, not remembered.
      imported.catch(() => this.imported.delete(id));
      this.imported.set(id, imported);
    }
    return imported;
  }

  /** Makes `key` the newest unless another instance rotated first (see SigningKeyStore.add). */
  async add(key: SigningKey, expectedNewestKid: string | null, keep: number): Promise<boolean> {
    const added = await this.store.add(key, expectedNewestKid, keep);
    if (added) this.cached = undefined;
    return added;
  }

  async publicKey(kid: string | undefined): Promise<CryptoKey> {
    // A `kid` we cannot have made costs nothing: varying ones would otherwise cost a read each.
    if (kid === undefined || !kidPattern.test(kid)) throw new Error('unknown signing key');
    const keys = await this.keys(false);
    let key = keys.find((candidate) => candidate.kid === kid);
    // A key another instance just added: read the list again before refusing, but only while
    // one can have been added since this copy was read (see rotationMarginMs), and unless the
    // table said a moment ago it has no such key.
    if (!key && this.mayLackAKey(keys) && !this.recentlyUnknown(kid)) {
      key = (await this.keys(true)).find((candidate) => candidate.kid === kid);
      if (!key) this.rememberUnknown(kid);
    }
    if (!key) throw new Error('unknown signing key');
    return this.imports(key, 'public');
  }

  /** True when a key this copy lacks can exist: none yet, or the newest is due (or nearly) for rotation. */
  private mayLackAKey(keys: SigningKey[]): boolean {
    const newest = keys[0];
    return (
      newest === undefined || this.clock.now() - newest.createdAt >= credentialLimits.signingKeyRotationSeconds * 1000 - rotationMarginMs
    );
  }

  private recentlyUnknown(kid: string): boolean {
    const at = this.unknownKids.get(kid);
    return at !== undefined && this.clock.now() - at < unknownKidMs;
  }

  private rememberUnknown(kid: string): void {
    this.unknownKids.delete(kid);
    if (this.unknownKids.size >= unknownKidsKept) this.unknownKids.delete(this.unknownKids.keys().next().value!);
    this.unknownKids.set(kid, this.clock.now());
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
      const { payload } = await jwtVerify(token, (header) => this.signingKeys.publicKey(header.kid), {
        algorithms: ['ES256'],
        issuer: this.issuer,
        audience: accessTokenAudience,
        // A token without an expiry would be good for ever: refused, however well signed.
        requiredClaims: ['exp'],
        currentDate: new Date(this.clock.now()),
      });
      return claimsOf(payload);
    } catch {
      return null;
    }
  }
}

function claimsOf(payload: JWTPayload): AccessClaims | null {
  const sessionId = payload.sid;
  if (typeof payload.sub !== 'string' || typeof sessionId !== 'string') return null;
  return { userId: payload.sub, sessionId };
}
