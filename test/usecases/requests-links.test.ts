import { describe, expect, it } from 'vitest';
import { Gone, Invalid, NotFound } from '../../shared/domain/refusals.ts';
import {
  closeRequestLink,
  createRequestLink,
  listRequestLinks,
  readRequestLink,
  type NewRequestLink,
} from '../../shared/domain/requests/links.ts';
import { refusalOf } from '../../shared/domain/requests/model.ts';
import { respondToRequest } from '../../shared/domain/requests/responses.ts';
import { seal } from '../../shared/envelope/index.ts';
import { sealedText, secretWorld, type SecretWorld } from './secrets-world.ts';

// Request links on the fakes (issue 27, interface §4.3): publishing one, what a responder reads,
// closing and listing. Responses: requests-responses.test.ts; files: requests-files.test.ts. Who
// may call (a session, never a key) and the body's schema stay in test/integration/requests.test.ts.

const x25519 = Buffer.alloc(32, 9).toString('base64url');
const link = (overrides: Partial<NewRequestLink> = {}): NewRequestLink => ({
  publicKey: x25519,
  kem: 'x25519',
  expiresInSeconds: 3600,
  maxResponses: 3,
  ...overrides,
});

async function p256Key(): Promise<string> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])) as CryptoKeyPair;
  return Buffer.from(await crypto.subtle.exportKey('raw', pair.publicKey)).toString('base64url');
}

async function respond(world: SecretWorld, id: string) {
  const { sealed } = await sealedText();
  return respondToRequest(
    id,
    {
      envelope: sealed.envelope,
      salt: sealed.salt,
      enc: Buffer.alloc(32, 1).toString('base64url'),
      wrappedKey: Buffer.alloc(48, 2).toString('base64url'),
    },
    null,
    world,
  );
}

describe('createRequestLink', () => {
  it('publishes the key, its KEM, the sealed prompt and the link’s life; a responder reads them back, never who asked', async () => {
    const world = secretWorld();
    const prompt = (await seal({ kind: 'text', plaintext: new TextEncoder().encode('Send me the staging password') })).envelope;
    const created = await createRequestLink(link({ promptEnvelope: prompt }), 'usr_requester', world);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^rql_/),
      ownerId: 'usr_requester',
      kem: 'x25519',
      maxResponses: 3,
      responsesLeft: 3,
      closedAt: null,
      expiresAt: world.clock.now() + 3600_000,
    });
    const read = await readRequestLink(created.id, null, world);
    expect(read.publicKey).toBe(x25519);
    expect(Buffer.from(read.promptEnvelope!).equals(Buffer.from(prompt))).toBe(true);
    expect((await createRequestLink(link(), 'usr_requester', world)).promptEnvelope).toBeNull();
  });

  it('takes a P-256 point where X25519 is missing', async () => {
    const world = secretWorld();
    const key = await p256Key();
    expect((await createRequestLink(link({ publicKey: key, kem: 'p256' }), 'usr_requester', world)).publicKey).toBe(key);
  });

  it.each<[string, Partial<NewRequestLink>, string]>([
    ['a key of another KEM’s length', { publicKey: Buffer.alloc(65, 4).toString('base64url') }, 'public_key'],
    ['a padded key', { publicKey: `${Buffer.alloc(32, 9).toString('base64')}` }, 'public_key'],
    ['an all-zero X25519 key', { publicKey: Buffer.alloc(32).toString('base64url') }, 'public_key'],
    [
      '65 bytes that are no P-256 point',
      { kem: 'p256', publicKey: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url') },
      'public_key',
    ],
    ['a prompt that is no envelope v1', { promptEnvelope: new TextEncoder().encode('plain text prompt') }, 'prompt_envelope'],
  ])('refuses %s, naming the field as sent', async (_, overrides, field) => {
    const world = secretWorld();
    const refused = createRequestLink(link(overrides), 'usr_requester', world);
    await expect(refused).rejects.toBeInstanceOf(Invalid);
    await expect(refused).rejects.toMatchObject({ fields: [{ field }] });
  });

  it('refuses a file envelope as the prompt: a prompt is a text', async () => {
    const world = secretWorld();
    const file = await seal({ kind: 'file', plaintext: new Uint8Array(3), meta: { name: 'a', type: 'b', size: 3 }, chunkLog2: 16 });
    await expect(createRequestLink(link({ promptEnvelope: file.envelope }), 'usr_requester', world)).rejects.toMatchObject({
      fields: [{ field: 'prompt_envelope' }],
    });
  });

  it('inside a workspace: a member only, its policy on requests and on a link’s life, on its verified hostname', async () => {
    const world = secretWorld();
    const id = world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member'], 'team', { maxExpiresIn: 3600 });
    const closed = world.workspace('wks_BBBBBBBBBBBBBBBBBBBBBA', ['usr_member'], 'team', { allowRequests: false });
    await expect(createRequestLink(link({ workspaceId: id }), 'usr_stranger', world)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'not_a_member' },
    });
    await expect(createRequestLink(link({ workspaceId: id, expiresInSeconds: 3601 }), 'usr_member', world)).rejects.toMatchObject({
      code: 'policy_violation',
      facts: { rules: ['max_expires_in'] },
    });
    await expect(createRequestLink(link({ workspaceId: closed }), 'usr_member', world)).rejects.toMatchObject({
      code: 'policy_violation',
      facts: { rules: ['allow_requests'] },
    });
    const claim = world.verifyHost(id, 'ask.acme.test');
    const onHost = await createRequestLink(link({ workspaceId: id, hostname: 'ask.acme.test' }), 'usr_member', world);
    expect(onHost).toMatchObject({ workspaceId: id, linkHost: { hostname: 'ask.acme.test', domainId: claim.domainId } });
    await expect(createRequestLink(link({ workspaceId: id, hostname: 'other.acme.test' }), 'usr_member', world)).rejects.toMatchObject({
      fields: [{ field: 'hostname' }],
    });
    // On the hostname, only its own links are there.
    const plain = await createRequestLink(link(), 'usr_member', world);
    expect((await readRequestLink(onHost.id, claim, world)).id).toBe(onHost.id);
    await expect(readRequestLink(plain.id, claim, world)).rejects.toBeInstanceOf(NotFound);
  });
});

describe('readRequestLink', () => {
  it('is not found for an unknown or malformed id; gone once closed or expired, saying which; a full link still reads, taking no more', async () => {
    const world = secretWorld();
    for (const id of ['rql_AAAAAAAAAAAAAAAAAAAAAA', 'not-an-id'])
      await expect(readRequestLink(id, null, world)).rejects.toMatchObject({ kind: 'not_found', detail: 'No request link has this id.' });
    const closed = await createRequestLink(link(), 'usr_requester', world);
    await closeRequestLink(closed.id, 'usr_requester', world);
    const gone = readRequestLink(closed.id, null, world);
    await expect(gone).rejects.toBeInstanceOf(Gone);
    await expect(gone).rejects.toMatchObject({ code: 'gone', facts: { reason: 'closed' } });
    const full = await createRequestLink(link({ maxResponses: 1 }), 'usr_requester', world);
    await respond(world, full.id);
    const read = await readRequestLink(full.id, null, world);
    expect([read.responsesLeft, refusalOf(read, world.clock.now())]).toEqual([0, 'full']);
    const expiring = await createRequestLink(link({ expiresInSeconds: 60 }), 'usr_requester', world);
    world.clock.advance(60);
    await expect(readRequestLink(expiring.id, null, world)).rejects.toMatchObject({ kind: 'gone', facts: { reason: 'expired' } });
  });
});

describe('closeRequestLink', () => {
  it('closes the requester’s own link, keeping when it first closed; anyone else’s, or an unknown one, is not found', async () => {
    const world = secretWorld();
    const created = await createRequestLink(link(), 'usr_requester', world);
    await expect(closeRequestLink(created.id, 'usr_stranger', world)).rejects.toBeInstanceOf(NotFound);
    await expect(closeRequestLink('rql_AAAAAAAAAAAAAAAAAAAAAA', 'usr_requester', world)).rejects.toBeInstanceOf(NotFound);
    expect(refusalOf((await world.requests.get(created.id))!, world.clock.now())).toBeNull();
    await closeRequestLink(created.id, 'usr_requester', world);
    const closedAt = world.clock.now();
    world.clock.advance(10);
    await closeRequestLink(created.id, 'usr_requester', world);
    expect((await world.requests.get(created.id))!.closedAt).toBe(closedAt);
  });
});

describe('listRequestLinks', () => {
  it('lists the requester’s links only, newest first, each saying whether it is open, in pages', async () => {
    const world = secretWorld();
    const mine = [];
    for (let i = 0; i < 3; i++) {
      mine.push(await createRequestLink(link({ maxResponses: 2 }), 'usr_lister', world));
      world.clock.advance(1);
    }
    await createRequestLink(link(), 'usr_other', world);
    await respond(world, mine[0]!.id);
    await closeRequestLink(mine[1]!.id, 'usr_lister', world);
    const first = await listRequestLinks('usr_lister', 2, null, world);
    const rest = await listRequestLinks('usr_lister', 2, first.nextCursor, world);
    expect(rest.nextCursor).toBeNull();
    const items = [...first.items, ...rest.items];
    expect(items.map((item) => item.link.id)).toEqual(mine.map((each) => each.id).reverse());
    expect(items.map((item) => [item.open, item.link.maxResponses - item.link.responsesLeft])).toEqual([
      [true, 0],
      [false, 0],
      [true, 1],
    ]);
    // A cursor of another listing is the store's to refuse (InvalidCursor, a 400 over HTTP).
    await expect(listRequestLinks('usr_other', 2, first.nextCursor, world)).rejects.toMatchObject({ name: 'InvalidCursor' });
  });
});
