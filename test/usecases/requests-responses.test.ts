import { describe, expect, it } from 'vitest';
import { Conflict, Gone, Invalid, NotFound, RateLimited } from '../../shared/domain/refusals.ts';
import { closeRequestLink, createRequestLink, type NewRequestLink } from '../../shared/domain/requests/links.ts';
import { readInbox, respondToRequest, type TextResponse } from '../../shared/domain/requests/responses.ts';
import { requestLimits } from '../../shared/limits.ts';
import { sealedText, secretWorld, type SecretWorld } from './secrets-world.ts';

// A responder's text and the requester's inbox on the fakes (issue 27, interface §4.3, rule 4).
// Fifty responses at once to a link of ten (the store's transaction), the AWS transaction
// conflicts that make `busy`, and the clients' HPKE stay in test/integration/requests.test.ts.

const key = (bytes: number, fill = 1) => Buffer.alloc(bytes, fill).toString('base64url');

async function newLink(world: SecretWorld, overrides: Partial<NewRequestLink> = {}, ownerId = 'usr_requester') {
  return createRequestLink(
    { publicKey: key(32, 9), kem: 'x25519', expiresInSeconds: 3600, maxResponses: 10, ...overrides },
    ownerId,
    world,
  );
}

async function response(overrides: Partial<TextResponse> = {}): Promise<TextResponse> {
  const { sealed } = await sealedText({}, `answer ${Math.random()}`);
  return { envelope: sealed.envelope, salt: sealed.salt, enc: key(32), wrappedKey: key(48), ...overrides };
}

const leftOf = async (world: SecretWorld, id: string) => (await world.requests.get(id))!.responsesLeft;

describe('respondToRequest', () => {
  it('takes a sealed text and its wrapped key as one of the link’s responses; the inbox gives them back exactly', async () => {
    const world = secretWorld();
    const created = await newLink(world);
    const sent = await response();
    const answered = await respondToRequest(created.id, sent, null, world);
    expect(answered).toMatchObject({
      id: expect.stringMatching(/^rsp_/),
      requestId: created.id,
      salt: sent.salt,
      sizeBytes: sent.envelope.length,
      enc: sent.enc,
      wrappedKey: sent.wrappedKey,
    });
    expect(await leftOf(world, created.id)).toBe(9);
    const inbox = await readInbox(created.id, 'usr_requester', 10, null, world);
    expect(inbox.items).toHaveLength(1);
    expect(inbox.items[0]).toMatchObject({ id: answered.id, sealed: { kind: 'text' } });
    expect(Buffer.from((inbox.items[0]!.sealed as { envelope: Uint8Array }).envelope).equals(Buffer.from(sent.envelope))).toBe(true);
  });

  it('takes exactly as many responses as the link asked for; the next are a conflict (request_full), counting nothing', async () => {
    const world = secretWorld();
    const created = await newLink(world, { maxResponses: 3 });
    for (let i = 0; i < 3; i++) await respondToRequest(created.id, await response(), null, world);
    for (let i = 0; i < 2; i++) {
      const refused = respondToRequest(created.id, await response(), null, world);
      await expect(refused).rejects.toBeInstanceOf(Conflict);
      await expect(refused).rejects.toMatchObject({ facts: { reason: 'request_full' } });
    }
    expect((await readInbox(created.id, 'usr_requester', 50, null, world)).items).toHaveLength(3);
  });

  it('is gone once the link is closed or expired (saying which), not found for a link that never was', async () => {
    const world = secretWorld();
    await expect(respondToRequest('rql_AAAAAAAAAAAAAAAAAAAAAA', await response(), null, world)).rejects.toBeInstanceOf(NotFound);
    const closed = await newLink(world);
    await closeRequestLink(closed.id, 'usr_requester', world);
    const refused = respondToRequest(closed.id, await response(), null, world);
    await expect(refused).rejects.toBeInstanceOf(Gone);
    await expect(refused).rejects.toMatchObject({ code: 'gone', facts: { reason: 'closed' } });
    const expiring = await newLink(world, { expiresInSeconds: 60 });
    world.clock.advance(60);
    await expect(respondToRequest(expiring.id, await response(), null, world)).rejects.toMatchObject({
      kind: 'gone',
      facts: { reason: 'expired' },
    });
    expect(await leftOf(world, expiring.id)).toBe(10);
  });

  it.each<[string, Partial<TextResponse>, string[]]>([
    ['an enc of another KEM’s length', { enc: key(65) }, ['enc']],
    ['a wrapped key that is not a sealed 32-byte key', { wrappedKey: key(32) }, ['wrapped_key']],
    ['an enc in padded base64', { enc: Buffer.alloc(32, 1).toString('base64') }, ['enc']],
  ])('refuses %s, naming the fields as sent, counting nothing', async (_, overrides, fields) => {
    const world = secretWorld();
    const created = await newLink(world, { maxResponses: 1 });
    const refused = respondToRequest(created.id, await response(overrides), null, world);
    await expect(refused).rejects.toBeInstanceOf(Invalid);
    const error = (await refused.catch((caught) => caught)) as Invalid;
    expect(error.fields.map((issue) => issue.field)).toEqual(fields);
    expect(await leftOf(world, created.id)).toBe(1);
  });

  it('refuses an envelope v1 whose salt is not the one sent; a P-256 link takes a 65-byte enc and no other', async () => {
    const world = secretWorld();
    const created = await newLink(world);
    await expect(
      respondToRequest(created.id, await response({ salt: (await sealedText()).sealed.salt }), null, world),
    ).rejects.toMatchObject({ fields: [{ field: 'envelope' }] });
    const pair = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])) as CryptoKeyPair;
    const p256 = await newLink(world, {
      kem: 'p256',
      publicKey: Buffer.from(await crypto.subtle.exportKey('raw', pair.publicKey)).toString('base64url'),
    });
    expect((await respondToRequest(p256.id, await response({ enc: key(65) }), null, world)).enc).toBe(key(65));
    await expect(respondToRequest(p256.id, await response(), null, world)).rejects.toMatchObject({ fields: [{ field: 'enc' }] });
  });

  it('is rate limited for a second when other responses kept the link busy, counting nothing', async () => {
    const world = secretWorld();
    const created = await newLink(world);
    world.requests.addResponse = async () => 'busy';
    const refused = respondToRequest(created.id, await response(), null, world);
    await expect(refused).rejects.toBeInstanceOf(RateLimited);
    await expect(refused).rejects.toMatchObject({ retryAfterSeconds: 1 });
    expect(await leftOf(world, created.id)).toBe(10);
  });

  it('says why the write was refused as the link is after it: closed meanwhile is gone (closed)', async () => {
    const world = secretWorld();
    const created = await newLink(world);
    const add = world.requests.addResponse.bind(world.requests);
    world.requests.addResponse = async (...args) => {
      await closeRequestLink(created.id, 'usr_requester', world);
      return add(...args);
    };
    await expect(respondToRequest(created.id, await response(), null, world)).rejects.toMatchObject({
      kind: 'gone',
      facts: { reason: 'closed' },
    });
  });
});

describe('readInbox', () => {
  it('pages the responses newest first, and keeps them readable once the link closed or expired (rule 4)', async () => {
    const world = secretWorld();
    const created = await newLink(world, { maxResponses: 5, expiresInSeconds: 3600 });
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      sent.push((await respondToRequest(created.id, await response(), null, world)).id);
      world.clock.advance(1);
    }
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof readInbox>> = await readInbox(created.id, 'usr_requester', 2, cursor, world);
      ids.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(ids).toEqual([...sent].reverse());
    await closeRequestLink(created.id, 'usr_requester', world);
    world.clock.advance(3600 + requestLimits.retentionSeconds - 60);
    expect((await readInbox(created.id, 'usr_requester', 50, null, world)).items).toHaveLength(5);
  });

  it('is not found to anyone but the requester, and for a link that never was; another link’s cursor is the store’s to refuse', async () => {
    const world = secretWorld();
    const created = await newLink(world, { maxResponses: 3 });
    for (let i = 0; i < 3; i++) await respondToRequest(created.id, await response(), null, world);
    await expect(readInbox(created.id, 'usr_stranger', 10, null, world)).rejects.toMatchObject({
      kind: 'not_found',
      detail: 'No request link has this id.',
    });
    await expect(readInbox('rql_AAAAAAAAAAAAAAAAAAAAAA', 'usr_requester', 10, null, world)).rejects.toBeInstanceOf(NotFound);
    const { nextCursor } = await readInbox(created.id, 'usr_requester', 2, null, world);
    const other = await newLink(world);
    await expect(readInbox(other.id, 'usr_requester', 2, nextCursor, world)).rejects.toMatchObject({ name: 'InvalidCursor' });
  });
});
