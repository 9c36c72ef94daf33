import { describe, expect, it } from 'vitest';
import { dayOf } from '../../shared/domain/counters.ts';
import { Invalid, NotFound } from '../../shared/domain/refusals.ts';
import { claimSecret } from '../../shared/domain/secrets/claim.ts';
import { createSecret, storeSecret } from '../../shared/domain/secrets/create.ts';
import { adoptSecrets, listOwnedSecrets } from '../../shared/domain/secrets/owner.ts';
import { revokeSecret } from '../../shared/domain/secrets/read.ts';
import { listReceipts, receiptOf } from '../../shared/domain/secrets/receipts.ts';
import { recordRevealFeedback, reportSecret } from '../../shared/domain/secrets/reports.ts';
import { noProof, sealedText, secretWorld, unknownSecretId, type SecretWorld } from './secrets-world.ts';

// What an owner does with their secrets on the fakes (issue 27): the listing, adopting anonymous
// secrets, receipts by plan; and the public reports and feedback. Credentials and scopes (who may
// list, which key may revoke) are the HTTP layer's: test/integration/owner-secrets.test.ts.

async function made(world: SecretWorld, ownerId: string | null = null, overrides: Parameters<typeof sealedText>[0] = {}) {
  return createSecret((await sealedText(overrides)).input, ownerId, world);
}

describe('listOwnedSecrets', () => {
  it('lists the owner’s secrets only, newest first, without payloads, in pages with no empty page after a full last one', async () => {
    const world = secretWorld();
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      mine.push((await made(world, 'usr_owner')).secret.id);
      world.clock.advance(1);
    }
    await made(world, 'usr_someone');
    await made(world);
    const whole = await listOwnedSecrets('usr_owner', 5, null, world);
    expect(whole.items.map((secret) => secret.id)).toEqual([...mine].reverse());
    expect(whole.nextCursor).toBeNull();
    for (const secret of whole.items) expect(secret).not.toHaveProperty('envelope');
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listOwnedSecrets>> = await listOwnedSecrets('usr_owner', 2, cursor, world);
      pages.push(page.items.map((secret) => secret.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual([...mine].reverse());
  });

  it('keeps an ended secret listed with its state, and lists a proof-protected one with its salt', async () => {
    const world = secretWorld();
    const { sealed, input } = await sealedText();
    const guarded = await createSecret(
      { ...input, claimVerifier: sealed.claimVerifier, linkVerifier: sealed.linkVerifier },
      'usr_owner',
      world,
    );
    world.clock.advance(1);
    const revoked = await made(world, 'usr_owner');
    await revokeSecret(revoked.secret.id, null, 'usr_owner', world);
    const { items } = await listOwnedSecrets('usr_owner', 10, null, world);
    expect(items.map((secret) => [secret.id, secret.state])).toEqual([
      [revoked.secret.id, 'revoked'],
      [guarded.secret.id, 'active'],
    ]);
    expect(items[1]).toMatchObject({ claimVerifier: sealed.claimVerifier, salt: sealed.salt });
  });

  it('refuses a cursor it did not give, or another owner’s, as the query’s cursor', async () => {
    const world = secretWorld();
    for (let i = 0; i < 3; i++) await made(world, 'usr_owner');
    const { nextCursor } = await listOwnedSecrets('usr_owner', 2, null, world);
    for (const [owner, cursor] of [
      ['usr_owner', 'not a cursor!'],
      ['usr_owner', 'e30'],
      ['usr_owner', nextCursor!.slice(0, -3)],
      ['usr_thief', nextCursor!],
    ] as const) {
      const refused = listOwnedSecrets(owner, 2, cursor, world);
      await expect(refused).rejects.toBeInstanceOf(Invalid);
      await expect(refused).rejects.toMatchObject({ fields: [{ field: 'cursor', in: 'query' }] });
    }
  });
});

describe('adoptSecrets', () => {
  it('answers each item alone: adopted, forbidden, not_found, owned, ended; the adopted one is then the owner’s', async () => {
    const world = secretWorld();
    const mine = await made(world);
    const wrongToken = await made(world);
    const ownedElsewhere = await made(world, 'usr_first');
    const ended = await made(world);
    await revokeSecret(ended.secret.id, ended.deleteToken, null, world);
    const answers = await adoptSecrets(
      'usr_adopter',
      [
        { id: mine.secret.id, deleteToken: mine.deleteToken },
        { id: wrongToken.secret.id, deleteToken: mine.deleteToken },
        { id: unknownSecretId, deleteToken: 'x' },
        { id: ownedElsewhere.secret.id, deleteToken: ownedElsewhere.deleteToken },
        { id: ended.secret.id, deleteToken: ended.deleteToken },
      ],
      { secrets: world.adoptions },
    );
    expect(answers).toEqual([
      { id: mine.secret.id, adopted: true },
      { id: wrongToken.secret.id, adopted: false, reason: 'forbidden' },
      { id: unknownSecretId, adopted: false, reason: 'not_found' },
      { id: ownedElsewhere.secret.id, adopted: false, reason: 'owned' },
      { id: ended.secret.id, adopted: false, reason: 'ended' },
    ]);
    expect((await listOwnedSecrets('usr_adopter', 10, null, world)).items.map((secret) => secret.id)).toEqual([mine.secret.id]);
    // The owner may now revoke it without its token.
    await revokeSecret(mine.secret.id, null, 'usr_adopter', world);
  });

  it('is idempotent for the same owner and refused for another; a request link’s file response is not found', async () => {
    const world = secretWorld();
    const { secret, deleteToken } = await made(world);
    const item = [{ id: secret.id, deleteToken }];
    expect(await adoptSecrets('usr_a', item, { secrets: world.adoptions })).toEqual([{ id: secret.id, adopted: true }]);
    expect(await adoptSecrets('usr_a', item, { secrets: world.adoptions })).toEqual([{ id: secret.id, adopted: true }]);
    expect(await adoptSecrets('usr_b', item, { secrets: world.adoptions })).toEqual([{ id: secret.id, adopted: false, reason: 'owned' }]);
    const upload = async () => ({ id: 'upl_1', partSize: 8 << 20, partCount: 1, chunkLog2: 20 });
    const response = { requestId: 'rql_AAAAAAAAAAAAAAAAAAAAAA', enc: 'e', wrappedKey: 'w' };
    const file = await storeSecret(
      { kind: 'file', sizeBytes: 10, salt: 'A'.repeat(22), expiresInSeconds: 3600, maxViews: 1, upload, response },
      null,
      world,
    );
    expect(await adoptSecrets('usr_a', [{ id: file.secret.id, deleteToken: file.deleteToken }], { secrets: world.adoptions })).toEqual([
      { id: file.secret.id, adopted: false, reason: 'not_found' },
    ]);
  });

  it('says why when the adoption’s own write lost (another adopter, or an end, came first)', async () => {
    const world = secretWorld();
    const { secret, deleteToken } = await made(world);
    const adopt = world.adoptions.adopt.bind(world.adoptions);
    world.adoptions.adopt = async (id) => {
      await adopt(id, 'usr_first');
      return false;
    };
    expect(await adoptSecrets('usr_second', [{ id: secret.id, deleteToken }], { secrets: world.adoptions })).toEqual([
      { id: secret.id, adopted: false, reason: 'owned' },
    ]);
  });
});

describe('listReceipts', () => {
  const chrome = { browser: 'Chrome', os: 'macOS' };

  async function viewedThrice(world: SecretWorld) {
    const { secret } = await made(world, 'usr_owner', { maxViews: 4 });
    const views = [
      { channel: 'web' as const, country: 'FR', region: 'IDF', userAgent: 'chrome' },
      { channel: 'cli' as const, userAgent: 'curl/8.5.0' },
      { channel: 'api' as const },
    ];
    for (const view of views) {
      await claimSecret(secret.id, noProof, view, null, world);
      // The relay writes each view's receipt from its event (functions/relay.ts), its user agent reduced to a family.
      const event = (await world.secrets.get(secret.id))!.emitted.find((each) => each.type === 'secret.viewed')!;
      await world.receipts.put(receiptOf(secret.id, event, (agent) => (agent === 'chrome' ? chrome : null))!, 0);
      world.clock.advance(5);
    }
    return secret.id;
  }

  it('shows the owner each view newest first; Free sees time and channel only, Pro location and device too', async () => {
    const world = secretWorld();
    const id = await viewedThrice(world);
    world.tiers.setUser('usr_owner');
    const free = await listReceipts(id, 'usr_owner', 10, null, world);
    expect(free.items.map((receipt) => [receipt.channel, receipt.location, receipt.device])).toEqual([
      ['api', null, null],
      ['cli', null, null],
      ['web', null, null],
    ]);
    world.tiers.setUser('usr_owner', { plan: 'pro' });
    const pro = await listReceipts(id, 'usr_owner', 2, null, world);
    expect(pro.items.map((receipt) => [receipt.channel, receipt.device])).toEqual([
      ['api', null],
      ['cli', null],
    ]);
    const rest = await listReceipts(id, 'usr_owner', 2, pro.nextCursor, world);
    expect(rest).toEqual({
      items: [expect.objectContaining({ channel: 'web', location: { country: 'FR', region: 'IDF' }, device: chrome })],
      nextCursor: null,
    });
    expect(JSON.stringify(rest)).not.toContain('chrome');
    // A workspace's plan counts as the owner's own.
    world.tiers.setUser('usr_owner').setWorkspace('wks_team', { plan: 'team' }).join('wks_team', 'usr_owner');
    expect((await listReceipts(id, 'usr_owner', 3, null, world)).items[2]!.device).toEqual(chrome);
  });

  it('is not found to anyone but the owner: another user, an anonymous secret, an unknown or malformed id', async () => {
    const world = secretWorld();
    const id = await viewedThrice(world);
    // Only a view's event makes a receipt.
    expect(receiptOf(id, { id: 'evt_x', type: 'secret.created', at: 0 }, () => null)).toBeNull();
    const anonymous = (await made(world)).secret.id;
    for (const [secretId, user] of [
      [id, 'usr_nosy'],
      [anonymous, 'usr_owner'],
      [unknownSecretId, 'usr_owner'],
      ['nope', 'usr_owner'],
    ] as const) {
      const refused = listReceipts(secretId, user, 10, null, world);
      await expect(refused).rejects.toBeInstanceOf(NotFound);
      await expect(refused).rejects.toMatchObject({ detail: 'No secret of yours has this id.' });
    }
  });
});

describe('reportSecret', () => {
  const withLink = async (world: SecretWorld) => {
    const { sealed, input } = await sealedText({ maxViews: 2 });
    const { secret } = await createSecret({ ...input, linkVerifier: sealed.linkVerifier }, null, world);
    return { id: secret.id, linkToken: sealed.linkToken };
  };
  const state = async (world: SecretWorld, id: string) => (await world.secrets.get(id))!.state;

  it('locks once three distinct addresses that hold the link report it; the same address again counts once', async () => {
    const world = secretWorld();
    const secret = await withLink(world);
    for (let i = 0; i < 3; i++) await reportSecret(secret.id, secret.linkToken, '192.0.2.1', null, world);
    expect(world.typesOf(secret.id).filter((type) => type === 'secret.reported')).toHaveLength(1);
    await reportSecret(secret.id, secret.linkToken, '192.0.2.2', null, world);
    expect(await state(world, secret.id)).toBe('active');
    await reportSecret(secret.id, secret.linkToken, '192.0.2.3', null, world);
    expect(await state(world, secret.id)).toBe('locked');
    await expect(claimSecret(secret.id, noProof, { channel: 'web' }, null, world)).rejects.toMatchObject({ kind: 'locked' });
    expect(world.typesOf(secret.id).filter((type) => type === 'secret.reported')).toHaveLength(3);
    expect(world.typesOf(secret.id)).toContain('secret.locked');
  });

  it('never locks on reports without the link, recording each address once; an address that proves the link later counts then', async () => {
    const world = secretWorld();
    const secret = await withLink(world);
    const addresses = ['192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5'];
    for (const address of addresses) {
      await reportSecret(secret.id, null, address, null, world);
      await reportSecret(secret.id, Buffer.alloc(32, 1).toString('base64url'), address, null, world);
      await reportSecret(secret.id, '', address, null, world);
    }
    expect(await state(world, secret.id)).toBe('active');
    expect(world.typesOf(secret.id).filter((type) => type === 'secret.reported')).toHaveLength(4);
    for (const address of addresses.slice(0, 2)) await reportSecret(secret.id, secret.linkToken, address, null, world);
    expect(await state(world, secret.id)).toBe('active');
    await reportSecret(secret.id, secret.linkToken, addresses[2]!, null, world);
    expect(await state(world, secret.id)).toBe('locked');
  });

  it('counts an IPv6 /64 as one reporter; never locks a secret made without a link verifier; says nothing of ids it does not know', async () => {
    const world = secretWorld();
    const secret = await withLink(world);
    for (const address of ['2001:db8:1:1::1', '2001:db8:1:1::2', '2001:db8:1:1:ffff::3'])
      await reportSecret(secret.id, secret.linkToken, address, null, world);
    expect(await state(world, secret.id)).toBe('active');
    const old = (await made(world)).secret.id;
    for (const address of ['192.0.2.2', '192.0.2.3', '192.0.2.4']) await reportSecret(old, null, address, null, world);
    expect(await state(world, old)).toBe('active');
    await expect(reportSecret(unknownSecretId, null, '192.0.2.2', null, world)).resolves.toBeUndefined();
    await expect(reportSecret('not-an-id', null, '192.0.2.2', null, world)).resolves.toBeUndefined();
  });

  it('records nothing for an ended secret, nor on a hostname the secret was not made on (it is not there)', async () => {
    const world = secretWorld();
    const ended = await withLink(world);
    await claimSecret(ended.id, noProof, { channel: 'web' }, null, world);
    await claimSecret(ended.id, noProof, { channel: 'web' }, null, world);
    const elsewhere = await withLink(world);
    const host = world.verifyHost(world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member']), 'secrets.acme.test');
    await reportSecret(ended.id, ended.linkToken, '192.0.2.1', null, world);
    await reportSecret(elsewhere.id, elsewhere.linkToken, '192.0.2.1', host, world);
    expect(world.typesOf(ended.id)).not.toContain('secret.reported');
    expect(world.typesOf(elsewhere.id)).toEqual(['secret.created']);
  });
});

describe('recordRevealFeedback', () => {
  it('counts each rating for the day, naming nobody', async () => {
    const world = secretWorld();
    for (const rating of ['up', 'down', 'up'] as const) await recordRevealFeedback(rating, world);
    expect(await world.counters.read('reveal_feedback', dayOf(world.clock.now()))).toEqual({ up: 2, down: 1 });
  });
});
