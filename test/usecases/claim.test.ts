import { describe, expect, it } from 'vitest';
import { Forbidden, Gone, Locked, NotFound, TooEarly } from '../../shared/domain/refusals.ts';
import { claimSecret, type ClaimProof } from '../../shared/domain/secrets/claim.ts';
import { createSecret, storeSecret } from '../../shared/domain/secrets/create.ts';
import { readSecret } from '../../shared/domain/secrets/read.ts';
import { noProof, sealedText, secretWorld, unknownSecretId, web, type SecretWorld } from './secrets-world.ts';

// Claiming a secret on the fakes (issue 27): claimSecret's rules, one conditional take of a
// view and, when refused, why, with what the refusal records. Links and the gate have their own
// files (secrets-recipients, gate); the HTTP shape stays in test/integration/secrets.test.ts.

const claim = (world: SecretWorld, id: string, proof: Partial<ClaimProof> = {}) =>
  claimSecret(id, { ...noProof, ...proof }, web, null, world);

/** A secret with both proofs (what every client makes), and the tokens that prove it. */
async function guarded(world: SecretWorld, maxViews = 1) {
  const { sealed, input } = await sealedText({ maxViews });
  const { secret } = await createSecret({ ...input, claimVerifier: sealed.claimVerifier, linkVerifier: sealed.linkVerifier }, null, world);
  return { id: secret.id, sealed, right: { claimToken: sealed.claimToken, linkToken: sealed.linkToken } };
}

/** A token no link derives: 32 canonical base64url bytes. */
const madeUp = (n: number) => Buffer.alloc(32, n).toString('base64url');

describe('claimSecret', () => {
  it('answers the exact envelope, a view each, then burns: gone with its state, the envelope deleted, each step an event', async () => {
    const world = secretWorld();
    const { sealed, input } = await sealedText({ maxViews: 3 });
    const { secret } = await createSecret(input, null, world);
    for (const left of [2, 1, 0]) {
      const claimed = await claim(world, secret.id);
      expect(Buffer.from(claimed.envelope!).equals(Buffer.from(sealed.envelope))).toBe(true);
      expect(claimed.secret).toMatchObject({ salt: sealed.salt, viewsLeft: left });
    }
    const refused = claim(world, secret.id);
    await expect(refused).rejects.toBeInstanceOf(Gone);
    await expect(refused).rejects.toMatchObject({ code: 'gone', facts: { state: 'burned' } });
    expect((await world.secrets.get(secret.id))!.envelope).toBeUndefined();
    expect(world.eventsOf(secret.id).map((event) => [event.type, event.views_left])).toEqual([
      ['secret.created', 3],
      ['secret.viewed', 2],
      ['secret.viewed', 1],
      ['secret.viewed', 0],
      ['secret.burned', 0],
      ['secret.denied', 0],
    ]);
  });

  it('records where each view came from on the view’s own event, for its receipt', async () => {
    const world = secretWorld();
    const { input } = await sealedText({ maxViews: 2 });
    const { secret } = await createSecret(input, 'usr_owner', world);
    const view = { channel: 'cli' as const, country: 'FR', region: 'IDF', userAgent: 'curl/8.5.0' };
    await claimSecret(secret.id, noProof, view, null, world);
    expect((await world.secrets.get(secret.id))!.emitted).toEqual([
      { id: expect.stringMatching(/^evt_/), type: 'secret.viewed', at: world.clock.now(), view },
    ]);
  });

  it('enforces the expiry without the sweep: gone, expired, the envelope deleted, secret.expired once', async () => {
    const world = secretWorld();
    const { input } = await sealedText({ expiresInSeconds: 60, maxViews: 2 });
    const { secret } = await createSecret(input, null, world);
    world.clock.advance(60);
    await expect(claim(world, secret.id)).rejects.toMatchObject({ kind: 'gone', facts: { state: 'expired' } });
    expect((await world.secrets.get(secret.id))!.envelope).toBeUndefined();
    expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.expired']);
    await expect(claim(world, secret.id)).rejects.toMatchObject({ facts: { state: 'expired' } });
    expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.expired', 'secret.denied']);
  });

  it('is too early before not_before, saying until when and how long to wait, takes no view, and opens from then', async () => {
    const world = secretWorld();
    const notBefore = world.clock.now() + 300_000;
    const { input } = await sealedText({ notBefore });
    const { secret } = await createSecret(input, null, world);
    const early = claim(world, secret.id);
    await expect(early).rejects.toBeInstanceOf(TooEarly);
    await expect(early).rejects.toMatchObject({
      code: 'too_early',
      retryAfterSeconds: 300,
      facts: { not_before: new Date(notBefore).toISOString() },
    });
    expect((await world.secrets.get(secret.id))!.viewsLeft).toBe(1);
    world.clock.advance(299);
    await expect(claim(world, secret.id)).rejects.toMatchObject({ retryAfterSeconds: 1 });
    world.clock.advance(1);
    expect((await claim(world, secret.id)).secret.viewsLeft).toBe(0);
  });

  it('stays too early when not_before passes while the refusal is worked out (judged at the instant of the write)', async () => {
    const world = secretWorld();
    const { input } = await sealedText({ notBefore: world.clock.now() + 30_000 });
    const { secret } = await createSecret(input, null, world);
    const takeView = world.secrets.takeView.bind(world.secrets);
    world.secrets.takeView = async (id, take) => {
      const result = await takeView(id, take);
      world.clock.advance(31);
      return result;
    };
    await expect(claim(world, secret.id)).rejects.toMatchObject({ kind: 'too_early', code: 'too_early' });
  });

  it('is not found for an unknown or malformed id, and for a request link’s file response, recording nothing', async () => {
    const world = secretWorld();
    for (const id of [unknownSecretId, 'sec_', 'sec_short', `sec_${'A'.repeat(21)}B`, 'not-a-secret']) {
      await expect(claim(world, id)).rejects.toBeInstanceOf(NotFound);
    }
    const upload = async () => ({ id: 'upl_1', partSize: 8 << 20, partCount: 1, chunkLog2: 20 });
    const response = { requestId: 'rql_AAAAAAAAAAAAAAAAAAAAAA', enc: 'e', wrappedKey: 'w' };
    const { secret } = await storeSecret(
      { kind: 'file', sizeBytes: 10, salt: 'A'.repeat(22), expiresInSeconds: 3600, maxViews: 1, upload, response },
      null,
      world,
    );
    await expect(claim(world, secret.id)).rejects.toMatchObject({ kind: 'not_found', detail: 'No secret has this id.' });
    expect(world.typesOf(secret.id)).toEqual(['secret.created']);
  });

  it('records at most 20 denials of a secret; later refusals are refused all the same', async () => {
    const world = secretWorld();
    const { input } = await sealedText();
    const { secret } = await createSecret(input, null, world);
    await claim(world, secret.id);
    for (let i = 0; i < 25; i++) await expect(claim(world, secret.id)).rejects.toMatchObject({ facts: { state: 'burned' } });
    expect(world.typesOf(secret.id).filter((type) => type === 'secret.denied')).toHaveLength(20);
    expect((await world.secrets.get(secret.id))!.deniedEvents).toBe(20);
  });

  it('answers the last view even when its burn does not land; the next claim or read finishes the burn', async () => {
    for (const next of ['claim', 'read'] as const) {
      const world = secretWorld();
      const { input } = await sealedText();
      const { secret } = await createSecret(input, null, world);
      const end = world.secrets.end.bind(world.secrets);
      world.secrets.end = async () => {
        world.secrets.end = end;
        throw new Error('ProvisionedThroughputExceededException');
      };
      const claimed = await claim(world, secret.id);
      expect(claimed.envelope).toBeDefined();
      expect(claimed.deferredBurn?.message).toBe('ProvisionedThroughputExceededException');
      expect((await world.secrets.get(secret.id))!).toMatchObject({ state: 'active', viewsLeft: 0 });
      if (next === 'claim') await expect(claim(world, secret.id)).rejects.toMatchObject({ facts: { state: 'burned' } });
      else expect((await readSecret(secret.id, null, null, world)).state).toBe('burned');
      expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.viewed', 'secret.burned']);
    }
  });
});

describe('claimSecret with a claim proof', () => {
  it('asks for the claim token and takes no view; refuses a wrong one with the tries left; the right one opens', async () => {
    const world = secretWorld();
    const { id, sealed, right } = await guarded(world);
    const none = claim(world, id);
    await expect(none).rejects.toBeInstanceOf(Forbidden);
    await expect(none).rejects.toMatchObject({ code: 'proof_required' });
    await expect(claim(world, id, { claimToken: madeUp(1), linkToken: right.linkToken })).rejects.toMatchObject({
      code: 'proof_refused',
      facts: { attempts_left: 4 },
    });
    expect((await world.secrets.get(id))!.viewsLeft).toBe(1);
    const opened = await claim(world, id, { claimToken: right.claimToken });
    expect(Buffer.from(opened.envelope!).equals(Buffer.from(sealed.envelope))).toBe(true);
  });

  it.each<[string, string]>([
    ['an empty token', ''],
    ['a token of 31 bytes', Buffer.alloc(31, 7).toString('base64url')],
    ['a token in standard base64', Buffer.alloc(32, 0xfb).toString('base64')],
    ['a token with a non-canonical last character', `${'A'.repeat(42)}B`],
  ])('takes %s as no proof at all: proof_required, never counted', async (_, claimToken) => {
    const world = secretWorld();
    const { id, right } = await guarded(world);
    for (let i = 0; i < 6; i++)
      await expect(claim(world, id, { claimToken, linkToken: right.linkToken })).rejects.toMatchObject({ code: 'proof_required' });
    expect((await world.secrets.get(id))!).toMatchObject({ state: 'active', refusedProofs: 0 });
  });

  it('never locks on refused tokens without the link: an id alone cannot destroy a secret', async () => {
    const world = secretWorld();
    const { id, right } = await guarded(world, 2);
    for (let i = 0; i < 12; i++) {
      const linkToken = i % 2 ? madeUp(100 + i) : null;
      await expect(claim(world, id, { claimToken: madeUp(i), linkToken })).rejects.toMatchObject({
        code: 'proof_refused',
        facts: { attempts_left: 5 },
      });
    }
    expect((await world.secrets.get(id))!).toMatchObject({ state: 'active', refusedProofs: 0 });
    expect((await claim(world, id, right)).secret.viewsLeft).toBe(1);
  });

  it('locks after 5 refused tokens presented with the link (a wrong passphrase), counting only those; the right token is then locked out too', async () => {
    const world = secretWorld();
    const { id, right } = await guarded(world, 5);
    const answers: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      await expect(claim(world, id, { claimToken: madeUp(50 + i) })).rejects.toMatchObject({ code: 'proof_refused' });
      answers.push(
        await claim(world, id, { claimToken: madeUp(i), linkToken: right.linkToken }).catch((error) => [
          error.kind,
          error.facts.attempts_left,
        ]),
      );
    }
    expect(answers).toEqual([
      ['forbidden', 4],
      ['forbidden', 3],
      ['forbidden', 2],
      ['forbidden', 1],
      ['locked', undefined],
    ]);
    await expect(claim(world, id, right)).rejects.toBeInstanceOf(Locked);
    expect((await world.secrets.get(id))!.envelope).toBeUndefined();
    const types = world.typesOf(id);
    expect(types.filter((type) => type === 'secret.locked')).toHaveLength(1);
    expect(types).not.toContain('secret.viewed');
  });

  it('says what ended a secret when the lock lost to another end (a revoke came first)', async () => {
    const world = secretWorld();
    const { id, right } = await guarded(world);
    const refuseProof = world.secrets.refuseProof.bind(world.secrets);
    for (let i = 0; i < 4; i++) await claim(world, id, { claimToken: madeUp(i), linkToken: right.linkToken }).catch(() => undefined);
    world.secrets.refuseProof = async (secretId, event) => {
      const count = await refuseProof(secretId, event);
      await world.secrets.end(secretId, {
        state: 'revoked',
        now: world.clock.now(),
        event: { id: 'evt_revoke', type: 'secret.revoked', at: world.clock.now() },
        tombstoneUntil: 0,
      });
      return count;
    };
    await expect(claim(world, id, { claimToken: madeUp(9), linkToken: right.linkToken })).rejects.toMatchObject({
      kind: 'gone',
      facts: { state: 'revoked' },
    });
    expect(world.typesOf(id)).not.toContain('secret.locked');
  });
});

describe('a secret stored before the link-verifier cut-over (a claim verifier alone)', () => {
  /** As one stored before issue 26: storeSecret takes what secretSettings now refuses. */
  async function beforeCutOver(world: SecretWorld, maxViews: number) {
    const { sealed, input } = await sealedText({ maxViews });
    const { secret } = await storeSecret({ ...input, claimVerifier: sealed.claimVerifier }, null, world);
    expect(secret.linkVerifier).toBeUndefined();
    return { id: secret.id, sealed };
  }

  it('stays readable: the right token claims', async () => {
    const world = secretWorld();
    const { id, sealed } = await beforeCutOver(world, 1);
    expect((await claim(world, id, { claimToken: sealed.claimToken })).envelope).toBeDefined();
  });

  it('keeps the old rule until it expires: any 5th refused token locks, then the right token is locked out too', async () => {
    const world = secretWorld();
    const { id, sealed } = await beforeCutOver(world, 5);
    const answers: unknown[] = [];
    for (let i = 0; i < 5; i++)
      answers.push(await claim(world, id, { claimToken: madeUp(i) }).catch((error) => [error.kind, error.facts.attempts_left]));
    expect(answers).toEqual([
      ['forbidden', 4],
      ['forbidden', 3],
      ['forbidden', 2],
      ['forbidden', 1],
      ['locked', undefined],
    ]);
    await expect(claim(world, id, { claimToken: sealed.claimToken })).rejects.toMatchObject({ kind: 'locked', code: 'locked' });
    expect((await world.secrets.get(id))!.envelope).toBeUndefined();
    expect(world.typesOf(id).filter((type) => type === 'secret.locked')).toHaveLength(1);
    expect(world.typesOf(id)).not.toContain('secret.viewed');
  });
});

describe('claimSecret on a workspace’s hostname', () => {
  it('takes a view only of a secret made on that hostname’s claim; any other is not there, untouched', async () => {
    const world = secretWorld();
    const id = world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member']);
    const claim = world.verifyHost(id, 'secrets.acme.test');
    const { input } = await sealedText({ workspaceId: id, hostname: 'secrets.acme.test', maxViews: 2 });
    const onHost = (await createSecret(input, 'usr_member', world)).secret;
    const elsewhere = (await createSecret((await sealedText()).input, null, world)).secret;
    expect((await claimSecret(onHost.id, noProof, web, claim, world)).secret.viewsLeft).toBe(1);
    await expect(claimSecret(elsewhere.id, noProof, web, claim, world)).rejects.toMatchObject({ kind: 'not_found' });
    // A later claim of the same hostname (another domain id) is another host for the links.
    await expect(claimSecret(onHost.id, noProof, web, { ...claim, domainId: 'dom_later' }, world)).rejects.toMatchObject({
      kind: 'not_found',
    });
    expect(world.typesOf(elsewhere.id)).toEqual(['secret.created']);
    // This deployment's own host serves every link.
    expect((await claimSecret(onHost.id, noProof, web, null, world)).secret.viewsLeft).toBe(0);
  });
});
