import { describe, expect, it } from 'vitest';
import { Forbidden, NotFound } from '../../shared/domain/refusals.ts';
import { claimSecret } from '../../shared/domain/secrets/claim.ts';
import { createSecret, storeSecret } from '../../shared/domain/secrets/create.ts';
import { expireDueSecrets } from '../../shared/domain/secrets/end.ts';
import { readSecret, revokeSecret } from '../../shared/domain/secrets/read.ts';
import { noProof, sealedText, secretWorld, unknownSecretId, web, type SecretWorld } from './secrets-world.ts';

// Reading a secret without claiming it, revoking it, and the expiry sweep, on the fakes (issue 27).
// What the metadata shows of a secret (never its envelope, the owner's links) is the HTTP layer's:
// test/integration/secrets.test.ts and recipients.test.ts.

async function made(world: SecretWorld, overrides: Parameters<typeof sealedText>[0] = {}, ownerId: string | null = null) {
  const { input } = await sealedText(overrides);
  return createSecret(input, ownerId, world);
}

describe('readSecret', () => {
  it('takes no view: three reads, then the one view still claims', async () => {
    const world = secretWorld();
    const { secret } = await made(world);
    for (let read = 0; read < 3; read++) expect((await readSecret(secret.id, null, null, world)).viewsLeft).toBe(1);
    await claimSecret(secret.id, noProof, web, null, world);
    expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.viewed', 'secret.burned']);
  });

  it('is not found for an unknown or malformed id, a request link’s file response, and on a hostname the secret was not made on', async () => {
    const world = secretWorld();
    for (const id of [unknownSecretId, 'sec_short', 'not-a-secret', `sec_${'A'.repeat(21)}B`]) {
      await expect(readSecret(id, null, null, world)).rejects.toMatchObject({ kind: 'not_found', detail: 'No secret has this id.' });
    }
    const upload = async () => ({ id: 'upl_1', partSize: 8 << 20, partCount: 1, chunkLog2: 20 });
    const response = { requestId: 'rql_AAAAAAAAAAAAAAAAAAAAAA', enc: 'e', wrappedKey: 'w' };
    const file = await storeSecret(
      { kind: 'file', sizeBytes: 10, salt: 'A'.repeat(22), expiresInSeconds: 3600, maxViews: 1, upload, response },
      null,
      world,
    );
    await expect(readSecret(file.secret.id, null, null, world)).rejects.toBeInstanceOf(NotFound);
    const host = world.verifyHost(world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member']), 'secrets.acme.test');
    const { secret } = await made(world);
    await expect(readSecret(secret.id, null, host, world)).rejects.toBeInstanceOf(NotFound);
  });

  it('ends an expired secret on its first read, once: expired from then on, its envelope gone; the sweep finds nothing left', async () => {
    const world = secretWorld();
    const { secret } = await made(world, { expiresInSeconds: 60 });
    world.clock.advance(61);
    const first = await readSecret(secret.id, null, null, world);
    expect(first.state).toBe('expired');
    expect(first.envelope).toBeUndefined();
    expect((await readSecret(secret.id, null, null, world)).state).toBe('expired');
    expect(await expireDueSecrets(world)).toBe(0);
    expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.expired']);
  });
});

describe('revokeSecret', () => {
  it('revokes with the delete token: revoked, envelope gone, a claim then gone (revoked); again changes nothing', async () => {
    const world = secretWorld();
    const { secret, deleteToken } = await made(world, { maxViews: 3 });
    await revokeSecret(secret.id, deleteToken, null, world);
    expect((await world.secrets.get(secret.id))!).toMatchObject({ state: 'revoked' });
    expect((await world.secrets.get(secret.id))!.envelope).toBeUndefined();
    await expect(claimSecret(secret.id, noProof, web, null, world)).rejects.toMatchObject({ kind: 'gone', facts: { state: 'revoked' } });
    await revokeSecret(secret.id, deleteToken, null, world);
    expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.revoked', 'secret.denied']);
  });

  it('lets the owner revoke without the token, and nobody else without it (forbidden); the secret stays active', async () => {
    const world = secretWorld();
    const owned = await made(world, {}, 'usr_owner');
    const anonymous = await made(world);
    for (const [id, token, caller] of [
      [owned.secret.id, 'hdt_wrong', null],
      [owned.secret.id, '', null],
      [owned.secret.id, null, null],
      [owned.secret.id, null, 'usr_stranger'],
      // An owner of nothing: an anonymous secret is revoked by its token alone.
      [anonymous.secret.id, null, 'usr_owner'],
    ] as const) {
      const refused = revokeSecret(id, token, caller, world);
      await expect(refused).rejects.toBeInstanceOf(Forbidden);
      await expect(refused).rejects.toMatchObject({ code: 'forbidden' });
    }
    expect(world.typesOf(owned.secret.id)).toEqual(['secret.created']);
    await revokeSecret(owned.secret.id, null, 'usr_owner', world);
    await revokeSecret(anonymous.secret.id, anonymous.deleteToken, 'usr_owner', world);
    expect([(await world.secrets.get(owned.secret.id))!.state, (await world.secrets.get(anonymous.secret.id))!.state]).toEqual([
      'revoked',
      'revoked',
    ]);
  });

  it('is not found for an unknown or malformed id, and for a request link’s file response (its token only completes or aborts its upload)', async () => {
    const world = secretWorld();
    for (const id of [unknownSecretId, 'nope']) await expect(revokeSecret(id, 'hdt_x', null, world)).rejects.toBeInstanceOf(NotFound);
    const upload = async () => ({ id: 'upl_1', partSize: 8 << 20, partCount: 1, chunkLog2: 20 });
    const response = { requestId: 'rql_AAAAAAAAAAAAAAAAAAAAAA', enc: 'e', wrappedKey: 'w' };
    const file = await storeSecret(
      { kind: 'file', sizeBytes: 10, salt: 'A'.repeat(22), expiresInSeconds: 3600, maxViews: 1, upload, response },
      null,
      world,
    );
    await expect(revokeSecret(file.secret.id, file.deleteToken, null, world)).rejects.toBeInstanceOf(NotFound);
    expect((await world.secrets.get(file.secret.id))!.state).toBe('pending');
  });

  it('finishes the burn when the last view was taken first (a burn that did not land): unreadable either way', async () => {
    const world = secretWorld();
    const { secret, deleteToken } = await made(world);
    const end = world.secrets.end.bind(world.secrets);
    world.secrets.end = async () => {
      world.secrets.end = end;
      throw new Error('throttled');
    };
    expect((await claimSecret(secret.id, noProof, web, null, world)).deferredBurn).toBeDefined();
    await revokeSecret(secret.id, deleteToken, null, world);
    expect((await world.secrets.get(secret.id))!.state).toBe('burned');
    expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.viewed', 'secret.burned']);
  });
});

describe('expireDueSecrets', () => {
  it('expires exactly the due secrets, once, and finishes a burn left behind', async () => {
    const world = secretWorld();
    const short = await Promise.all([1, 2, 3].map(() => made(world, { expiresInSeconds: 60 })));
    const long = await made(world, { expiresInSeconds: 3600 });
    const spent = await made(world, { expiresInSeconds: 60 });
    const end = world.secrets.end.bind(world.secrets);
    world.secrets.end = async () => {
      world.secrets.end = end;
      throw new Error('throttled');
    };
    await claimSecret(spent.secret.id, noProof, web, null, world);
    world.clock.advance(60);
    expect(await expireDueSecrets(world)).toBe(3);
    for (const { secret } of short) {
      expect((await world.secrets.get(secret.id))!.state).toBe('expired');
      expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.expired']);
    }
    expect((await world.secrets.get(spent.secret.id))!.state).toBe('burned');
    expect((await world.secrets.get(long.secret.id))!).toMatchObject({ state: 'active', envelope: expect.any(Uint8Array) });
    expect(await expireDueSecrets(world)).toBe(0);
  });

  it('takes the due secrets in batches, up to its rounds; the next run takes the rest', async () => {
    const world = secretWorld();
    for (let i = 0; i < 7; i++) await made(world, { expiresInSeconds: 60 });
    world.clock.advance(60);
    expect(await expireDueSecrets(world, 2, 2)).toBe(4);
    expect(await expireDueSecrets(world, 2, 10)).toBe(3);
  });
});
