import { describe, expect, it } from 'vitest';
import { Forbidden, NotFound, RateLimited, Unauthenticated } from '../../shared/domain/refusals.ts';
import { claimSecret } from '../../shared/domain/secrets/claim.ts';
import { createSecret, type NewRecipient } from '../../shared/domain/secrets/create.ts';
import { startGate, verifyGate } from '../../shared/domain/secrets/gate.ts';
import { revokeRecipient } from '../../shared/domain/secrets/recipients.ts';
import { revokeSecret } from '../../shared/domain/secrets/read.ts';
import { gateLimits } from '../../shared/limits.ts';
import { noProof, sealedText, secretWorld, unknownLinkId, unknownSecretId, web, type SecretWorld } from './secrets-world.ts';

// A restricted link's gate on the fakes (issue 27; issue 26 item 5): the code mailed to the
// link's address, its session, and the caps on starts and tries, per source and per link, with
// the clock moved instead of waiting. What the HTTP layer adds (a /64 as one source, the route's
// own per-address limits, parallel tries' conditional counts) stays in test/integration.

const email = 'ann@example.com';
const [triesShort, triesDay] = gateLimits.triesPerSource;

async function gated(world: SecretWorld, recipients: NewRecipient[] = [{ email, restricted: true }], maxViews = 1) {
  const { input } = await sealedText({ recipients, maxViews });
  const { secret, deleteToken } = await createSecret(input, null, world);
  return { id: secret.id, link: secret.recipients![0]!.id, links: secret.recipients!.map((link) => link.id), deleteToken };
}

/** The codes mailed to `address`, oldest first. */
const codesTo = (world: SecretWorld, address = email) => world.mailer.to(address).map((mail) => /\b(\d{6})\b/.exec(mail.text)![1]!);
const wrongCode = (code: string, n = 1) => String((Number(code) + n) % 1_000_000).padStart(6, '0');
const start = (world: SecretWorld, secret: { id: string; link: string }, source: string, address = email) =>
  startGate(secret.id, secret.link, address, source, null, world);
const verify = (world: SecretWorld, secret: { id: string; link: string }, source: string, code: string, address = email) =>
  verifyGate(secret.id, secret.link, address, code, source, null, world);
/** What a try came to: the tries left, or the refusal's kind. */
const outcome = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'opened',
    (error) => (error instanceof Unauthenticated ? error.facts.attempts_left : error.kind),
  );

describe('startGate', () => {
  it('mails a code only when the address is the link’s (in any case), answering alike; the code’s session opens the link', async () => {
    const world = secretWorld();
    const secret = await gated(world);
    await expect(claimSecret(secret.id, { ...noProof, recipientId: secret.link }, web, null, world)).rejects.toMatchObject({
      kind: 'unauthenticated',
      code: 'gate_required',
    });
    expect(await start(world, secret, '192.0.2.1', 'not-them@example.com')).toBeUndefined();
    expect(world.mailer.sent).toEqual([]);
    expect(await start(world, secret, '192.0.2.1', ' ANN@Example.com ')).toBeUndefined();
    expect(world.mailer.sent).toEqual([
      { to: email, subject: expect.stringMatching(/^Your code to open a secret: \d{6}$/), text: expect.stringContaining('10 minutes') },
    ]);
    const session = await verify(world, secret, '192.0.2.1', codesTo(world)[0]!);
    expect(session).toEqual({
      token: expect.stringMatching(/^hlg_[A-Za-z0-9_-]{43}$/),
      expiresAt: world.clock.now() + gateLimits.sessionSeconds * 1000,
    });
    const opened = await claimSecret(secret.id, { ...noProof, recipientId: secret.link, gateToken: session.token }, web, null, world);
    expect(opened.recipient).toMatchObject({ id: secret.link, viewsLeft: 0 });
  });

  it('mails nothing for a link that is not restricted, a revoked link or an ended secret', async () => {
    const world = secretWorld();
    const open = await gated(world, [{ email, restricted: false }]);
    await start(world, open, '192.0.2.1');
    const revoked = await gated(world, [{ email, restricted: true }, {}]);
    await revokeRecipient(revoked.id, revoked.link, { ownerId: null, deleteToken: revoked.deleteToken }, world);
    await start(world, revoked, '192.0.2.2');
    const ended = await gated(world);
    await revokeSecret(ended.id, ended.deleteToken, null, world);
    await start(world, ended, '192.0.2.3');
    expect(world.mailer.sent).toEqual([]);
  });

  it('never replaces a live code, whoever starts; mails a new one once it has expired, and only the new one opens', async () => {
    const world = secretWorld();
    const secret = await gated(world);
    for (let source = 1; source <= 6; source++) await start(world, secret, `192.0.2.${source}`);
    expect(codesTo(world)).toHaveLength(1);
    world.clock.advance(gateLimits.codeSeconds - 1);
    await start(world, secret, '198.51.100.1');
    expect(codesTo(world)).toHaveLength(1);
    world.clock.advance(1);
    await start(world, secret, '198.51.100.1');
    const [first, second] = codesTo(world) as [string, string];
    expect(second).toBeDefined();
    if (first !== second) await expect(verify(world, secret, '198.51.100.1', first)).rejects.toBeInstanceOf(Unauthenticated);
    expect((await verify(world, secret, '198.51.100.1', second)).token).toMatch(/^hlg_/);
  });

  it(`counts a source’s starts whatever the address: beyond ${gateLimits.startsPerSource.limit} an hour it is rate limited, and no other source is`, async () => {
    const world = secretWorld();
    const secret = await gated(world);
    const addresses = [email, email, 'not-them@example.com', email.toUpperCase(), 'other@example.com'];
    for (const address of addresses) await start(world, secret, '192.0.2.1', address);
    for (const address of [email, 'another@example.com']) {
      const refused = start(world, secret, '192.0.2.1', address);
      await expect(refused).rejects.toBeInstanceOf(RateLimited);
      await expect(refused).rejects.toMatchObject({ retryAfterSeconds: expect.any(Number) });
      const { retryAfterSeconds } = (await refused.catch((error) => error)) as RateLimited;
      expect(retryAfterSeconds).toBeGreaterThan(0);
      expect(retryAfterSeconds).toBeLessThanOrEqual(gateLimits.startsPerSource.windowSeconds);
    }
    expect(codesTo(world)).toHaveLength(1);
    // The recipient, elsewhere, starts at once (mailing nothing new) and the live code opens.
    await start(world, secret, '203.0.113.9');
    expect((await verify(world, secret, '203.0.113.9', codesTo(world)[0]!)).token).toMatch(/^hlg_/);
  });

  it('is not found for an unknown secret, an unknown or malformed link, a secret without links, and on a hostname it was not made on', async () => {
    const world = secretWorld();
    const secret = await gated(world);
    const plain = (await createSecret((await sealedText()).input, null, world)).secret;
    const host = world.verifyHost(world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member']), 'secrets.acme.test');
    const unknown = [
      [unknownSecretId, secret.link, null],
      [secret.id, unknownLinkId, null],
      [secret.id, 'rcp_short', null],
      [plain.id, unknownLinkId, null],
      [secret.id, secret.link, host],
    ] as const;
    for (const [id, link, hostClaim] of unknown) {
      await expect(startGate(id, link, email, '192.0.2.1', hostClaim, world)).rejects.toBeInstanceOf(NotFound);
      await expect(verifyGate(id, link, email, '123456', '192.0.2.1', hostClaim, world)).rejects.toMatchObject({
        kind: 'not_found',
        detail: 'No secret has this id, or it has no such link.',
      });
    }
    expect(world.mailer.sent).toEqual([]);
  });
});

describe('verifyGate', () => {
  it('refuses a wrong code and a wrong address alike, counted alike, with the tries left; the right code works once', async () => {
    const world = secretWorld();
    const secret = await gated(world);
    await start(world, secret, '192.0.2.1');
    const [code] = codesTo(world) as [string];
    const wrongAddress = await verify(world, secret, '192.0.2.1', code, 'not-them@example.com').catch((error) => error);
    const wrong = await verify(world, secret, '192.0.2.1', wrongCode(code)).catch((error) => error);
    expect([wrongAddress.facts, wrong.facts]).toEqual([{ attempts_left: 4 }, { attempts_left: 3 }]);
    expect(wrongAddress.detail).toBe(wrong.detail);
    expect(wrongAddress).toBeInstanceOf(Unauthenticated);
    expect(wrongAddress.challenge).toBeUndefined();
    expect((await verify(world, secret, '192.0.2.1', code)).token).toMatch(/^hlg_/);
    await expect(verify(world, secret, '192.0.2.1', code)).rejects.toBeInstanceOf(Unauthenticated);
  });

  it('refuses a code after its 10 minutes, and one never sent', async () => {
    const world = secretWorld();
    const never = await gated(world);
    await expect(verify(world, never, '192.0.2.1', '123456')).rejects.toBeInstanceOf(Unauthenticated);
    const secret = await gated(world);
    await start(world, secret, '192.0.2.1');
    world.clock.advance(gateLimits.codeSeconds);
    await expect(verify(world, secret, '192.0.2.1', codesTo(world)[0]!)).rejects.toMatchObject({
      kind: 'unauthenticated',
      facts: { attempts_left: 4 },
    });
  });

  it(`counts a source’s tries before any comparison: ${triesShort.limit} per 10 minutes and ${triesDay.limit} a day, then even the right code is refused, for that source only`, async () => {
    const world = secretWorld();
    const secret = await gated(world);
    await start(world, secret, '192.0.2.1');
    const [code] = codesTo(world) as [string];
    const stranger = '198.51.100.7';
    const lefts = [];
    for (let i = 1; i <= triesShort.limit; i++) lefts.push(await outcome(verify(world, secret, stranger, wrongCode(code, i))));
    expect(lefts).toEqual([4, 3, 2, 1, 0]);
    const limited = await verify(world, secret, stranger, code).catch((error) => error);
    expect(limited).toBeInstanceOf(RateLimited);
    expect(limited.retryAfterSeconds).toBeLessThanOrEqual(triesShort.windowSeconds);
    world.clock.advance(triesShort.windowSeconds);
    for (let i = 1; i <= triesDay.limit - triesShort.limit; i++)
      await expect(verify(world, secret, stranger, wrongCode(code, 10 + i))).rejects.toBeInstanceOf(Unauthenticated);
    world.clock.advance(triesShort.windowSeconds);
    const daily = await verify(world, secret, stranger, code).catch((error) => error);
    expect(daily).toBeInstanceOf(RateLimited);
    expect(daily.retryAfterSeconds).toBeGreaterThan(triesShort.windowSeconds);
    expect(daily.retryAfterSeconds).toBeLessThanOrEqual(triesDay.windowSeconds);
    // Twenty minutes on the code has expired: the recipient asks for another, from elsewhere, and gets in.
    await start(world, secret, '203.0.113.9');
    expect((await verify(world, secret, '203.0.113.9', codesTo(world).at(-1)!)).token).toMatch(/^hlg_/);
  });

  it('never voids the live code: a stranger’s wrong tries leave the recipient’s code working', async () => {
    const world = secretWorld();
    const secret = await gated(world);
    await start(world, secret, '203.0.113.9');
    const [code] = codesTo(world) as [string];
    const tries = [];
    for (let i = 1; i <= 8; i++) tries.push(await outcome(verify(world, secret, '198.51.100.7', wrongCode(code, i))));
    expect(tries).toEqual([4, 3, 2, 1, 0, 'rate_limited', 'rate_limited', 'rate_limited']);
    expect((await verify(world, secret, '203.0.113.9', code)).token).toMatch(/^hlg_/);
  });

  it(`meets at most ${gateLimits.triesPerRecipient.limit} tries of one link a day, from every source together`, async () => {
    const world = secretWorld();
    const secret = await gated(world);
    await start(world, secret, '192.0.2.1');
    const [code] = codesTo(world) as [string];
    const tries = [];
    for (let i = 0; i < 30; i++) tries.push(await outcome(verify(world, secret, `198.51.100.${(i % 6) + 1}`, wrongCode(code, i + 1))));
    expect(tries.filter((each) => typeof each === 'number')).toHaveLength(gateLimits.triesPerRecipient.limit);
    expect(tries.filter((each) => each === 'rate_limited')).toHaveLength(30 - gateLimits.triesPerRecipient.limit);
    // Every source is refused now, the right code too, until the day is over.
    await expect(verify(world, secret, '203.0.113.9', code)).rejects.toBeInstanceOf(RateLimited);
  });
});

describe('a claim through a restricted link', () => {
  it('refuses a session made for another link or secret (gate_refused); an expired session or a made-up token asks for the gate again', async () => {
    const world = secretWorld();
    const secret = await gated(
      world,
      [
        { email, restricted: true },
        { email: 'bea@example.com', restricted: true },
      ],
      3,
    );
    const other = await gated(world);
    await start(world, secret, '192.0.2.1');
    const { token } = await verify(world, secret, '192.0.2.1', codesTo(world)[0]!);
    const claim = (id: string, recipientId: string, gateToken: string) =>
      claimSecret(id, { ...noProof, recipientId, gateToken }, web, null, world);
    const refused = claim(secret.id, secret.links[1]!, token);
    await expect(refused).rejects.toBeInstanceOf(Forbidden);
    await expect(refused).rejects.toMatchObject({ code: 'gate_refused' });
    await expect(claim(other.id, other.link, token)).rejects.toMatchObject({ kind: 'forbidden', code: 'gate_refused' });
    expect((await claim(secret.id, secret.link, token)).recipient!.viewsLeft).toBe(2);
    world.clock.advance(gateLimits.sessionSeconds);
    await expect(claim(secret.id, secret.link, token)).rejects.toMatchObject({ kind: 'unauthenticated', code: 'gate_required' });
    await expect(claim(secret.id, secret.link, `hlg_${'A'.repeat(43)}`)).rejects.toMatchObject({ code: 'gate_required' });
    await expect(claim(secret.id, secret.link, 'not-a-token')).rejects.toMatchObject({ code: 'gate_required' });
  });
});
