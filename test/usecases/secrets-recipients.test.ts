import { describe, expect, it } from 'vitest';
import { Forbidden, Gone, NotFound, Unauthenticated } from '../../shared/domain/refusals.ts';
import { claimSecret } from '../../shared/domain/secrets/claim.ts';
import { createSecret, type NewRecipient } from '../../shared/domain/secrets/create.ts';
import { readSecret } from '../../shared/domain/secrets/read.ts';
import { revokeRecipient, type LinkRevoker } from '../../shared/domain/secrets/recipients.ts';
import { noProof, sealedText, secretWorld, unknownLinkId, unknownSecretId, web, type SecretWorld } from './secrets-world.ts';

// Per-recipient links on the fakes (issue 27, interface §3 rule 3): claiming through a link, each
// link's own budget, revoking one link. Restricted links' gate: gate.test.ts. Who sees which link
// in the metadata is the HTTP layer's (functions/secrets/replies.ts): test/integration/recipients.test.ts.

async function withLinks(world: SecretWorld, recipients: NewRecipient[], maxViews = 1, ownerId: string | null = null) {
  const { sealed, input } = await sealedText({ recipients, maxViews });
  const { secret, deleteToken } = await createSecret(input, ownerId, world);
  return { id: secret.id, deleteToken, links: secret.recipients!.map((link) => link.id), sealed };
}

const through = (world: SecretWorld, id: string, recipientId: string | null) =>
  claimSecret(id, { ...noProof, recipientId }, web, null, world);
const byOwner = (ownerId: string): LinkRevoker => ({ ownerId, deleteToken: null });
const byToken = (deleteToken: string): LinkRevoker => ({ ownerId: null, deleteToken });

describe('claiming through a link', () => {
  it('needs a link once a secret has them; an unknown or malformed link, or one on a secret without links, is not found; no view taken', async () => {
    const world = secretWorld();
    const secret = await withLinks(world, [{}, {}]);
    const required = through(world, secret.id, null);
    await expect(required).rejects.toBeInstanceOf(Forbidden);
    await expect(required).rejects.toMatchObject({ code: 'recipient_required' });
    for (const link of [unknownLinkId, 'rcp_short'])
      await expect(through(world, secret.id, link)).rejects.toMatchObject({ kind: 'not_found', detail: 'This secret has no such link.' });
    const plain = (await createSecret((await sealedText()).input, null, world)).secret;
    await expect(through(world, plain.id, unknownLinkId)).rejects.toBeInstanceOf(NotFound);
    expect((await world.secrets.get(secret.id))!.viewsLeft).toBe(2);
    expect((await world.secrets.get(plain.id))!.viewsLeft).toBe(1);
    // An unknown link records no denial (nobody held a link); a missing one does.
    expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.denied']);
  });

  it('spends each link’s own budget; a spent link is gone while the others work; the secret burns when every link is spent', async () => {
    const world = secretWorld();
    const secret = await withLinks(world, [{}, {}], 2);
    const [a, b] = secret.links as [string, string];
    const first = await through(world, secret.id, a);
    expect(Buffer.from(first.envelope!).equals(Buffer.from(secret.sealed.envelope))).toBe(true);
    expect(first.recipient).toMatchObject({ id: a, viewsLeft: 1 });
    expect((await through(world, secret.id, a)).recipient!.viewsLeft).toBe(0);
    const spent = through(world, secret.id, a);
    await expect(spent).rejects.toBeInstanceOf(Gone);
    await expect(spent).rejects.toMatchObject({
      code: 'gone',
      facts: { state: 'burned' },
      detail: 'This link was already opened as many times as it allows.',
    });
    expect((await through(world, secret.id, b)).recipient!.viewsLeft).toBe(1);
    expect((await world.secrets.get(secret.id))!).toMatchObject({ state: 'active', viewsLeft: 1 });
    await through(world, secret.id, b);
    expect((await world.secrets.get(secret.id))!).toMatchObject({ state: 'burned', viewsLeft: 0 });
    const viewed = world.eventsOf(secret.id).filter((event) => event.type === 'secret.viewed');
    expect(viewed.map((event) => event.recipient_id)).toEqual([a, a, b, b]);
  });

  it('a link’s page asks about its link: one the secret does not have is not found', async () => {
    const world = secretWorld();
    const secret = await withLinks(world, [{}]);
    expect((await readSecret(secret.id, secret.links[0]!, null, world)).id).toBe(secret.id);
    await expect(readSecret(secret.id, unknownLinkId, null, world)).rejects.toMatchObject({
      kind: 'not_found',
      detail: 'This secret has no such link.',
    });
  });
});

describe('revokeRecipient', () => {
  it('revokes one link for the owner or the delete token’s holder; its claim is gone (recipient_revoked), the others keep working', async () => {
    const world = secretWorld();
    const secret = await withLinks(world, [{}, {}, {}], 1, 'usr_owner');
    const [a, b, c] = secret.links as [string, string, string];
    await revokeRecipient(secret.id, a, byOwner('usr_owner'), world);
    await revokeRecipient(secret.id, b, byToken(secret.deleteToken), world);
    const revoked = through(world, secret.id, a);
    await expect(revoked).rejects.toBeInstanceOf(Gone);
    await expect(revoked).rejects.toMatchObject({ code: 'recipient_revoked', facts: { state: 'revoked' } });
    expect((await world.secrets.get(secret.id))!).toMatchObject({ state: 'active', viewsLeft: 1 });
    expect((await through(world, secret.id, c)).recipient!.viewsLeft).toBe(0);
    const states = (await world.secrets.get(secret.id))!.recipients!.map((link) => [link.state, link.viewsLeft]);
    expect(states).toEqual([
      ['revoked', 0],
      ['revoked', 0],
      ['active', 0],
    ]);
    expect((await world.secrets.get(secret.id))!.state).toBe('burned');
  });

  it('burns the secret when its last live link is revoked; revoking again, or a link of an ended secret, changes nothing', async () => {
    const world = secretWorld();
    const secret = await withLinks(world, [{}, {}], 1, 'usr_owner');
    for (const link of secret.links) await revokeRecipient(secret.id, link, byOwner('usr_owner'), world);
    expect((await world.secrets.get(secret.id))!).toMatchObject({ state: 'burned', viewsLeft: 0 });
    await revokeRecipient(secret.id, secret.links[0]!, byOwner('usr_owner'), world);
    await revokeRecipient(secret.id, secret.links[1]!, byToken(secret.deleteToken), world);
    expect(world.typesOf(secret.id)).toEqual(['secret.created', 'secret.burned']);
  });

  it('asks for a credential when there is none (a bearer challenge), and tells anyone else nothing: not found', async () => {
    const world = secretWorld();
    const secret = await withLinks(world, [{}], 1, 'usr_owner');
    const link = secret.links[0]!;
    const none = revokeRecipient(secret.id, link, { ownerId: null, deleteToken: null }, world);
    await expect(none).rejects.toBeInstanceOf(Unauthenticated);
    await expect(none).rejects.toMatchObject({ challenge: 'bearer' });
    const notYours = { kind: 'not_found', detail: 'No secret of yours has this link.' };
    await expect(revokeRecipient(secret.id, link, byOwner('usr_stranger'), world)).rejects.toMatchObject(notYours);
    await expect(revokeRecipient(secret.id, link, byToken('hdt_wrong'), world)).rejects.toMatchObject(notYours);
    await expect(revokeRecipient(secret.id, unknownLinkId, byOwner('usr_owner'), world)).rejects.toMatchObject(notYours);
    await expect(revokeRecipient(unknownSecretId, link, byOwner('usr_owner'), world)).rejects.toMatchObject(notYours);
    await expect(revokeRecipient('nope', 'rcp_short', byOwner('usr_owner'), world)).rejects.toMatchObject(notYours);
    // An anonymous secret has no owner to be: only its token revokes.
    const anonymous = await withLinks(world, [{}]);
    await expect(revokeRecipient(anonymous.id, anonymous.links[0]!, byOwner('usr_owner'), world)).rejects.toMatchObject(notYours);
    expect((await through(world, secret.id, link)).recipient!.viewsLeft).toBe(0);
  });

  it('reads again and retries when a claim took a view between its read and its write', async () => {
    const world = secretWorld();
    const secret = await withLinks(world, [{}, {}], 3, 'usr_owner');
    const [a, b] = secret.links as [string, string];
    const write = world.secrets.revokeRecipient.bind(world.secrets);
    let raced = false;
    world.secrets.revokeRecipient = async (id, recipientId, viewsLeft) => {
      if (!raced) {
        raced = true;
        await through(world, secret.id, a);
      }
      return write(id, recipientId, viewsLeft);
    };
    await revokeRecipient(secret.id, a, byOwner('usr_owner'), world);
    expect((await world.secrets.get(secret.id))!).toMatchObject({ state: 'active', viewsLeft: 3 });
    expect((await world.secrets.get(secret.id))!.recipients!.find((link) => link.id === a)).toMatchObject({
      state: 'revoked',
      viewsLeft: 0,
    });
    expect((await through(world, secret.id, b)).recipient!.viewsLeft).toBe(2);
  });
});
