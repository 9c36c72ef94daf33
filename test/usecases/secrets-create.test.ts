import { describe, expect, it } from 'vitest';
import { Forbidden, Invalid } from '../../shared/domain/refusals.ts';
import { claimSecret } from '../../shared/domain/secrets/claim.ts';
import { createSecret } from '../../shared/domain/secrets/create.ts';
import { createCurlSecret } from '../../shared/domain/secrets/curl.ts';
import { claimTokenFor, linkTokenFor, open, parseHeader, seal, sealText } from '../../shared/envelope/index.ts';
import { sha256Base64Url } from '../../shared/ids.ts';
import { secretLimits } from '../../shared/limits.ts';
import { foreignEnvelope, noProof, sealedText, secretWorld, web } from './secrets-world.ts';

// Creating a text secret and curl mode's secret, on the fakes (issue 27): the rules of
// createSecret and createCurlSecret. The body's schema (types, bounds, base64) is the HTTP
// layer's and stays in test/integration/secrets.test.ts.

const hour = 3600;

describe('createSecret', () => {
  it('stores an active secret with its limits, the envelope as sent, only its delete token’s hash, and one secret.created', async () => {
    const world = secretWorld();
    const envelope = foreignEnvelope(64);
    const notBefore = world.clock.now() + 600_000;
    const { secret, deleteToken } = await createSecret(
      { envelope, salt: 'A'.repeat(22), expiresInSeconds: hour, maxViews: 5, notBefore },
      'usr_ann',
      world,
    );
    const stored = (await world.secrets.get(secret.id))!;
    expect(stored).toMatchObject({
      ownerId: 'usr_ann',
      state: 'active',
      kind: 'text',
      sizeBytes: 64,
      maxViews: 5,
      viewsLeft: 5,
      notBefore,
      createdAt: world.clock.now(),
      expiresAt: world.clock.now() + hour * 1000,
    });
    expect(Buffer.from(stored.envelope!).equals(Buffer.from(envelope))).toBe(true);
    expect(stored.deleteTokenHash).toBe(sha256Base64Url(deleteToken));
    expect(JSON.stringify(stored)).not.toContain(deleteToken);
    expect(world.eventsOf(secret.id)).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: 'secret.created',
        occurred_at: new Date(world.clock.now()).toISOString(),
        secret_id: secret.id,
        views_left: 5,
      },
    ]);
    // Anonymous: no owner at all.
    expect(
      (await createSecret({ envelope, salt: 'A'.repeat(22), expiresInSeconds: hour, maxViews: 1 }, null, world)).secret,
    ).not.toHaveProperty('ownerId');
  });

  it('gives each link its own budget: the secret’s views are the budget times the links', async () => {
    const world = secretWorld();
    const { input } = await sealedText({
      maxViews: 2,
      recipients: [{ label: 'Alice', email: 'alice@example.com', restricted: true }, { label: 'Bob' }, {}],
    });
    const { secret } = await createSecret(input, null, world);
    expect(secret.viewsLeft).toBe(6);
    expect(secret.recipients).toEqual([
      { id: expect.stringMatching(/^rcp_/), label: 'Alice', email: 'alice@example.com', restricted: true, state: 'active', viewsLeft: 2 },
      { id: expect.stringMatching(/^rcp_/), label: 'Bob', email: null, restricted: false, state: 'active', viewsLeft: 2 },
      { id: expect.stringMatching(/^rcp_/), label: null, email: null, restricted: false, state: 'active', viewsLeft: 2 },
    ]);
    expect(new Set(secret.recipients!.map((link) => link.id)).size).toBe(3);
  });

  it('refuses a not_before at or after the expiry, naming not_before, and takes one a millisecond before', async () => {
    const world = secretWorld();
    const { input } = await sealedText({ expiresInSeconds: hour });
    const expiry = world.clock.now() + hour * 1000;
    for (const notBefore of [expiry, expiry + 300_000, world.clock.now() + 2 * 24 * hour * 1000]) {
      await expect(createSecret({ ...input, notBefore }, null, world)).rejects.toMatchObject({
        kind: 'invalid',
        fields: [{ field: 'not_before', message: 'must be before the expiry' }],
      });
    }
    expect((await createSecret({ ...input, notBefore: expiry - 1 }, null, world)).secret.notBefore).toBe(expiry - 1);
  });

  it('refuses a claim verifier without its link verifier; takes both, or neither', async () => {
    const world = secretWorld();
    const { sealed, input } = await sealedText();
    const refused = createSecret({ ...input, claimVerifier: sealed.claimVerifier }, null, world);
    await expect(refused).rejects.toBeInstanceOf(Invalid);
    await expect(refused).rejects.toMatchObject({ fields: [{ field: 'link_verifier', message: 'required with claim_verifier' }] });
    const both = await createSecret({ ...input, claimVerifier: sealed.claimVerifier, linkVerifier: sealed.linkVerifier }, null, world);
    expect(both.secret).toMatchObject({ claimVerifier: sealed.claimVerifier, linkVerifier: sealed.linkVerifier });
    const neither = await createSecret(input, null, world);
    expect(neither.secret).not.toHaveProperty('claimVerifier');
    expect(neither.secret).not.toHaveProperty('linkVerifier');
  });

  it('keeps an envelope v1’s public parameters for the reveal page, and none for another format', async () => {
    const world = secretWorld();
    const withPassphrase = await sealedText({}, 'db password: hunter2', 'blue whale');
    expect((await createSecret(withPassphrase.input, null, world)).secret.envelopeFormat).toEqual({
      passphrase: true,
      kdfIterations: 600_000,
    });
    const plain = await sealedText();
    expect((await createSecret(plain.input, null, world)).secret.envelopeFormat).toEqual({ passphrase: false, kdfIterations: 0 });
    const foreign = await createSecret(
      { envelope: foreignEnvelope(), salt: 'A'.repeat(22), expiresInSeconds: hour, maxViews: 1 },
      null,
      world,
    );
    expect(foreign.secret).not.toHaveProperty('envelopeFormat');
  });

  const refusedEnvelopes: Array<[string, string, () => Promise<{ envelope: Uint8Array; salt: string }>]> = [
    [
      'a salt other than the header’s',
      'salt_mismatch',
      async () => ({ envelope: (await sealText('x')).envelope, salt: (await sealText('y')).salt }),
    ],
    [
      'a file envelope',
      'malformed',
      async () => seal({ kind: 'file', plaintext: new Uint8Array(3), meta: { name: 'a', type: 'b', size: 3 }, chunkLog2: 16 }),
    ],
    [
      'an unknown version',
      '',
      async () => {
        const sealed = await sealText('x');
        sealed.envelope[4] = 9;
        return sealed;
      },
    ],
    [
      'a reserved flag bit',
      '',
      async () => {
        const sealed = await sealText('x');
        sealed.envelope[6]! |= 0x40;
        return sealed;
      },
    ],
    [
      'a body cut inside the final tag',
      '',
      async () => {
        const sealed = await sealText('');
        return { envelope: sealed.envelope.slice(0, sealed.envelope.length - 3), salt: sealed.salt };
      },
    ],
  ];
  it.each(refusedEnvelopes)('refuses an envelope v1 with %s, naming the envelope and why', async (_, code, make) => {
    const { envelope, salt } = await make();
    const world = secretWorld();
    const refused = createSecret({ envelope, salt, expiresInSeconds: hour, maxViews: 1 }, null, world);
    await expect(refused).rejects.toBeInstanceOf(Invalid);
    await expect(refused).rejects.toMatchObject({
      detail: 'The envelope is not a valid envelope v1.',
      fields: [{ field: 'envelope', message: expect.stringMatching(code ? new RegExp(`^${code}: `) : /^\w+: /) }],
    });
  });
});

describe('createSecret inside a workspace', () => {
  it('refuses anyone who is not a member alike (anonymous, a stranger, a workspace that does not exist): forbidden, not_a_member', async () => {
    const world = secretWorld();
    world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member']);
    const { input } = await sealedText({ workspaceId: 'wks_AAAAAAAAAAAAAAAAAAAAAA' });
    for (const [caller, workspaceId] of [
      [null, 'wks_AAAAAAAAAAAAAAAAAAAAAA'],
      ['usr_stranger', 'wks_AAAAAAAAAAAAAAAAAAAAAA'],
      ['usr_member', 'wks_BBBBBBBBBBBBBBBBBBBBBA'],
      ['usr_member', 'wks_x'],
    ] as const) {
      const refused = createSecret({ ...input, workspaceId }, caller, world);
      await expect(refused).rejects.toBeInstanceOf(Forbidden);
      await expect(refused).rejects.toMatchObject({ code: 'forbidden', facts: { reason: 'not_a_member' } });
    }
    expect((await createSecret(input, 'usr_member', world)).secret).toMatchObject({
      workspaceId: 'wks_AAAAAAAAAAAAAAAAAAAAAA',
      ownerId: 'usr_member',
    });
  });

  it('holds a member to the policy, the passphrase told by the envelope’s header (another format has none)', async () => {
    const world = secretWorld();
    const id = world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member'], 'team', { maxViews: 2, requirePassphrase: true });
    const { input } = await sealedText({ workspaceId: id, maxViews: 3 });
    await expect(createSecret(input, 'usr_member', world)).rejects.toMatchObject({
      kind: 'forbidden',
      code: 'policy_violation',
      facts: { rules: ['max_views', 'require_passphrase'] },
    });
    const foreign = createSecret({ ...input, envelope: foreignEnvelope(), maxViews: 1 }, 'usr_member', world);
    await expect(foreign).rejects.toMatchObject({ code: 'policy_violation', facts: { rules: ['require_passphrase'] } });
    const withPassphrase = await sealedText({ workspaceId: id, maxViews: 2 }, 'x', 'blue whale');
    expect((await createSecret(withPassphrase.input, 'usr_member', world)).secret.workspaceId).toBe(id);
  });

  it('puts the links on a hostname the workspace verified; refuses one it has not, and any below Team', async () => {
    const world = secretWorld();
    const id = world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member']);
    const other = world.workspace('wks_BBBBBBBBBBBBBBBBBBBBBA', ['usr_member']);
    const claim = world.verifyHost(id, 'secrets.acme.test');
    world.verifyHost(other, 'secrets.other.test');
    const { input } = await sealedText({ workspaceId: id });
    expect((await createSecret({ ...input, hostname: 'Secrets.ACME.test.' }, 'usr_member', world)).secret.linkHost).toEqual({
      hostname: 'secrets.acme.test',
      domainId: claim.domainId,
    });
    for (const hostname of ['secrets.other.test', 'unclaimed.acme.test', 'not a host', 'secrets.example.com']) {
      const refused = createSecret({ ...input, hostname }, 'usr_member', world);
      await expect(refused).rejects.toBeInstanceOf(Invalid);
      await expect(refused).rejects.toMatchObject({ fields: [{ field: 'hostname' }] });
    }
    world.workspace(id, ['usr_member'], 'pro');
    await expect(createSecret({ ...input, hostname: 'secrets.acme.test' }, 'usr_member', world)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'plan', plan: 'pro', required: 'team' },
    });
  });
});

describe('createCurlSecret', () => {
  /** Opens a curl link as the reveal page does: the proofs from the key, the claim, then the envelope. */
  async function openLink(world: ReturnType<typeof secretWorld>, id: string, key: string) {
    const { salt } = (await world.secrets.get(id))!;
    const proof = {
      ...noProof,
      claimToken: await claimTokenFor({ key, salt, iterations: 0 }),
      linkToken: await linkTokenFor({ key, salt }),
    };
    const claimed = await claimSecret(id, proof, web, null, world);
    return { envelope: claimed.envelope!, plaintext: Buffer.from((await open(claimed.envelope!, { key, salt })).plaintext) };
  }

  it('seals the body server-side (flag bit2) with both proofs; the key, forgotten by the server, opens it', async () => {
    const world = secretWorld();
    const body = Buffer.from('db-password-1234\n');
    const { secret, key, deleteToken } = await createCurlSecret(body, {}, world);
    const stored = (await world.secrets.get(secret.id))!;
    expect(stored).toMatchObject({
      claimVerifier: expect.any(String),
      linkVerifier: expect.any(String),
      envelopeFormat: { passphrase: false, kdfIterations: 0 },
    });
    expect(stored).not.toHaveProperty('ownerId');
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(deleteToken).toMatch(/^hdt_/);
    const opened = await openLink(world, secret.id, key);
    expect(opened.plaintext.equals(body)).toBe(true);
    expect(parseHeader(opened.envelope).serverEncrypted).toBe(true);
  });

  it('takes the limits asked for, each clamped to its bounds, and the defaults for what was not said', async () => {
    const world = secretWorld();
    const limits = async (options: { expiresInSeconds?: number; maxViews?: number }) => {
      const { secret } = await createCurlSecret(new Uint8Array(1), options, world);
      return [(secret.expiresAt - secret.createdAt) / 1000, secret.maxViews];
    };
    const { expiresInSeconds: expires, maxViews: views } = secretLimits;
    expect(await limits({})).toEqual([expires.default, views.default]);
    expect(await limits({ expiresInSeconds: 5, maxViews: 1000 })).toEqual([expires.min, views.max]);
    expect(await limits({ expiresInSeconds: 10 ** 12, maxViews: -3 })).toEqual([expires.max, views.min]);
    expect(await limits({ expiresInSeconds: 120, maxViews: 3 })).toEqual([120, 3]);
  });

  it('keeps 1 MiB in parts beyond one item; the claim reads them before taking its view, and the burn deletes them', async () => {
    const world = secretWorld();
    const body = Buffer.from(Array.from({ length: 1024 * 1024 }, (_, i) => (i * 31) % 251));
    const { secret, key } = await createCurlSecret(body, { maxViews: 1 }, world);
    const stored = (await world.secrets.get(secret.id))!;
    expect(stored.envelope).toBeUndefined();
    expect(stored.envelopeParts).toBeGreaterThan(1);
    expect((await openLink(world, secret.id, key)).plaintext.equals(body)).toBe(true);
    expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.viewed', 'secret.burned']);
    await expect(world.secrets.envelopeOf(secret.id, stored.envelopeParts!)).rejects.toThrow();
  });

  it('makes an empty body an empty secret, still a link', async () => {
    const world = secretWorld();
    const { secret, key } = await createCurlSecret(new Uint8Array(), {}, world);
    expect((await openLink(world, secret.id, key)).plaintext.length).toBe(0);
  });
});
