import { importJWK, SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { AdjustableClock } from '../../shared/clock.ts';
import type { SigningKey } from '../../shared/domain/accounts/model.ts';
import type { SigningKeyStore } from '../../shared/domain/accounts/ports.ts';
import { AccessTokens } from '../../shared/domain/accounts/tokens.ts';
import { accessTokenAudience, kidPattern, SigningKeyList, TokenVerifier } from '../../shared/domain/accounts/tokenVerifier.ts';
import { newKeyId } from '../../shared/ids.ts';

const issuer = 'http://localhost:3000';

/** The table's signing-key item, in memory, counting its (strongly consistent) reads. */
class CountingKeyStore implements SigningKeyStore {
  keys: SigningKey[] = [];
  reads = 0;

  async list(): Promise<SigningKey[]> {
    this.reads++;
    return this.keys;
  }

  async add(key: SigningKey, expectedNewestKid: string | null, keep: number): Promise<boolean> {
    if ((this.keys[0]?.kid ?? null) !== expectedNewestKid) return false;
    this.keys = [key, ...this.keys].slice(0, keep);
    return true;
  }
}

let clock: AdjustableClock;
let store: CountingKeyStore;
/** The account function's instance (it signs) and another function's (it only verifies). */
let signer: AccessTokens;
let verifier: TokenVerifier;

beforeEach(async () => {
  clock = new AdjustableClock();
  store = new CountingKeyStore();
  signer = new AccessTokens(new SigningKeyList(store, clock), clock, issuer);
  verifier = new TokenVerifier(new SigningKeyList(store, clock), clock, issuer);
  await signer.currentKey();
});

/** A token signed with the table's current key, with the claims given (an access token's by default). */
async function signed(claims: { exp?: number | null; kid?: string } = {}): Promise<string> {
  const key = store.keys[0]!;
  const now = Math.floor(clock.now() / 1000);
  let jwt = new SignJWT({ sid: 'ses_x' })
    .setProtectedHeader({ alg: 'ES256', kid: claims.kid ?? key.kid, typ: 'JWT' })
    .setSubject('usr_x')
    .setIssuer(issuer)
    .setAudience(accessTokenAudience)
    .setIssuedAt(now);
  if (claims.exp !== null) jwt = jwt.setExpirationTime(claims.exp ?? now + 900);
  return jwt.sign(await importJWK(key.privateJwk, 'ES256'));
}

describe('access token verification', () => {
  it('accepts a token the account function issued', async () => {
    const { token } = await signer.issue({ userId: 'usr_a', sessionId: 'ses_a' });
    expect(await verifier.verify(token)).toEqual({ userId: 'usr_a', sessionId: 'ses_a' });
  });

  it('refuses a validly signed token without exp', async () => {
    expect(await verifier.verify(await signed())).toEqual({ userId: 'usr_x', sessionId: 'ses_x' });
    expect(await verifier.verify(await signed({ exp: null }))).toBeNull();
  });

  it('refuses a kid of a shape newKeyId cannot make without a read', async () => {
    await verifier.verify(await signed());
    const before = store.reads;
    for (const kid of [
      'sk_forgedforgedforged',
      'sk_short',
      `sk_${'a'.repeat(15)}=`,
      'x'.repeat(17),
      `SK_${'a'.repeat(16)}`,
      `sk_${'a'.repeat(16)}\n`,
    ]) {
      expect(await verifier.verify(await signed({ kid }))).toBeNull();
    }
    expect(store.reads).toBe(before);
    for (let i = 0; i < 50; i++) expect(newKeyId()).toMatch(kidPattern);
  });

  it('1,000 distinct unknown kids of the right shape cost no read while no key can be missing from the copy', async () => {
    const tokens = await Promise.all(Array.from({ length: 1000 }, () => signed({ kid: newKeyId() })));
    const before = store.reads;
    // Over 10 minutes: only the copy's own refresh, once a minute, reads the table.
    for (const [i, token] of tokens.entries()) {
      if (i % 100 === 0) clock.advance(60);
      expect(await verifier.verify(token)).toBeNull();
    }
    expect(store.reads - before).toBe(10);
    // The real key still verifies, with no read beyond the copy's.
    expect(await verifier.verify(await signed())).not.toBeNull();
    expect(store.reads - before).toBe(10);
  });

  it('when a rotation is due, asks the table about an unknown kid once, then refuses it from memory for 30 s', async () => {
    clock.advance(30 * 24 * 3600 - 5 * 60);
    const forged = await signed({ kid: newKeyId() });
    const before = store.reads;
    for (let i = 0; i < 20; i++) expect(await verifier.verify(forged)).toBeNull();
    // The list (its copy is older than a minute), then the one read again for the unknown kid.
    expect(store.reads - before).toBe(2);
    clock.advance(29);
    expect(await verifier.verify(forged)).toBeNull();
    expect(store.reads - before).toBe(2);
    clock.advance(2);
    expect(await verifier.verify(forged)).toBeNull();
    expect(store.reads - before).toBe(3);
  });

  it('a minute before the margin, an unknown kid is still refused without a read', async () => {
    clock.advance(30 * 24 * 3600 - 6 * 60);
    await verifier.verify(await signed());
    const before = store.reads;
    expect(await verifier.verify(await signed({ kid: newKeyId() }))).toBeNull();
    expect(store.reads).toBe(before);
  });

  it('refuses a token without kid without asking the table again', async () => {
    const { token } = await signer.issue({ userId: 'usr_a', sessionId: 'ses_a' });
    await verifier.verify(token);
    const [, ...rest] = token.split('.');
    const withoutKid = [Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT' })).toString('base64url'), ...rest].join('.');
    const before = store.reads;
    expect(await verifier.verify(withoutKid)).toBeNull();
    expect(store.reads).toBe(before);
  });

  it('remembers at most 1000 unknown kids, forgetting the oldest first', async () => {
    clock.advance(30 * 24 * 3600);
    const kids = Array.from({ length: 1001 }, () => newKeyId());
    const tokens = await Promise.all(kids.map((kid) => signed({ kid })));
    for (const token of tokens) await verifier.verify(token);
    const before = store.reads;
    // The newest 1000 are remembered; the first was pushed out and costs a read again.
    await verifier.verify(tokens[1000]!);
    await verifier.verify(tokens[1]!);
    expect(store.reads).toBe(before);
    await verifier.verify(tokens[0]!);
    expect(store.reads).toBe(before + 1);
  });

  it('still accepts at once a key another instance just added (one read)', async () => {
    const { token: old } = await signer.issue({ userId: 'usr_a', sessionId: 'ses_a' });
    expect(await verifier.verify(old)).not.toBeNull();
    // The signer rotates (30 days on); the verifier's cached list is a minute old at most.
    clock.advance(30 * 24 * 3600);
    await verifier.verify(old); // refreshes its list: the old key only
    const rotated = await signer.currentKey();
    expect(store.keys.map((key) => key.kid)).toEqual([rotated.kid, expect.not.stringMatching(rotated.kid)]);
    const { token } = await signer.issue({ userId: 'usr_b', sessionId: 'ses_b' });
    const before = store.reads;
    expect(await verifier.verify(token)).toEqual({ userId: 'usr_b', sessionId: 'ses_b' });
    expect(store.reads).toBe(before + 1);
  });

  it('picks up a rotated key at once even while unknown kids arrive all through the rotation', async () => {
    const { token: old } = await signer.issue({ userId: 'usr_a', sessionId: 'ses_a' });
    clock.advance(30 * 24 * 3600 - 10 * 60);
    expect(await verifier.verify(old)).toBeNull(); // long expired; refreshes the copy
    const forged = () => signed({ kid: newKeyId() });
    for (let minute = 0; minute < 15; minute++) {
      for (let i = 0; i < 5; i++) expect(await verifier.verify(await forged())).toBeNull();
      clock.advance(60);
    }
    // Now due: the signer rotates on its next issue, and its first token verifies at once.
    const rotated = await signer.currentKey();
    expect(rotated.kid).not.toBe(store.keys[1]!.kid);
    for (let i = 0; i < 5; i++) expect(await verifier.verify(await forged())).toBeNull();
    const { token } = await signer.issue({ userId: 'usr_b', sessionId: 'ses_b' });
    expect(await verifier.verify(token)).toEqual({ userId: 'usr_b', sessionId: 'ses_b' });
    // Once the copy holds the new key, unknown kids cost no read again.
    const before = store.reads;
    for (let i = 0; i < 20; i++) expect(await verifier.verify(await forged())).toBeNull();
    expect(store.reads).toBe(before);
  });

  it('imports each key once per instance, and forgets the keys no longer published', async () => {
    const keys = new SigningKeyList(store, clock);
    const first = (await keys.keys(false))[0]!;
    const publicHalf = keys.imports(first, 'public');
    expect(keys.imports(first, 'public')).toBe(publicHalf);
    expect(keys.imports(first, 'private')).not.toBe(publicHalf);
    expect(keys.imports(first, 'private')).toBe(keys.imports(first, 'private'));
    // A token verifies with the imported key, and the signer's imported key signs it.
    const { token } = await signer.issue({ userId: 'usr_a', sessionId: 'ses_a' });
    expect(await verifier.verify(token)).toEqual({ userId: 'usr_a', sessionId: 'ses_a' });
    // Three rotations later the first key is no longer published: its import is dropped on the next read.
    for (let i = 0; i < 3; i++) {
      clock.advance(30 * 24 * 3600);
      await signer.currentKey();
    }
    expect(store.keys.map((key) => key.kid)).not.toContain(first.kid);
    await keys.keys(true);
    expect(keys.imports(first, 'public')).not.toBe(publicHalf);
    expect(await verifier.verify(token)).toBeNull();
  });

  it('tries a failed import again rather than remembering the failure', async () => {
    const keys = new SigningKeyList(store, clock);
    const broken: SigningKey = { ...store.keys[0]!, kid: newKeyId(), publicJwk: { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' } };
    const failed = keys.imports(broken, 'public');
    await expect(failed).rejects.toThrow();
    expect(keys.imports(broken, 'public')).not.toBe(failed);
    await expect(keys.imports(broken, 'public')).rejects.toThrow();
  });
});
