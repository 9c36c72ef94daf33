import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { openText, seal } from '../../shared/envelope/envelope.ts';
import {
  checkServedKey,
  decodePublicKey,
  encodePublicKey,
  generateRequesterKeys,
  newLinkSecret,
  openPrompt,
  parseRequestFragment,
  publicKeyFingerprint,
  requestFragment,
  sealPrompt,
  unwrapResponseKey,
  wrapResponseKey,
} from '../../shared/envelope/requestLink.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { requestLimits } from '../../shared/limits.ts';
import { createKey, keptSignedIn, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { injectDynamoFaults, transactionConflict, type DynamoCall } from '../support/faults.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, generousRateLimits, startTestRuntime, textSecretBody, toFreshWindow, type Reply } from '../support/runtime.ts';

// Request links (interface §4.3) over HTTP against the local runtime. The crypto is the
// clients' (test/unit/request-link.test.ts, and the e2e): here keys and wrapped keys are bytes
// of the right lengths, which is all the server can check, and envelopes are envelope v1. The
// use cases' rules (which keys, prompts and wrapped keys are refused, what a full link reads as):
// test/usecases/requests-*.test.ts.

/** TransactWriteItems on these links lose to other transactions every time (AWS under a storm). */
const busyLinks = new Set<string>();
function fault({ command, input }: DynamoCall): Error | null {
  if (command !== 'TransactWriteItems') return null;
  const link = String(input.TransactItems?.[0]?.Update?.Key?.pk?.S ?? '').replace(/^REQUEST#/, '');
  return busyLinks.has(link) ? transactionConflict(input.TransactItems.length, 0) : null;
}

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let requester: ReturnType<typeof keptSignedIn>;
beforeAll(async () => {
  runtime = await startTestRuntime({
    rateLimits: { ...generousRateLimits, request_response: { perIp: { limit: 60, windowSeconds: 60 } } },
    instrumentDynamo: injectDynamoFaults(fault),
  });
  api = apiClient(runtime);
  requester = keptSignedIn(runtime, newEmail('requester'));
});
afterAll(() => runtime?.stop());
// Tests move the clock by days: the requester signs in again once their access token would have expired.
beforeEach(() => requester.ensure());

const b64url = (bytes: number) => randomBytes(bytes).toString('base64url');
const x25519Key = () => b64url(32);
const sealedPrompt = async (text = 'Send me the staging database password') =>
  Buffer.from((await seal({ kind: 'text', plaintext: new TextEncoder().encode(text) })).envelope).toString('base64');

interface Created {
  id: string;
  url_base: string;
  expires_at: string;
}

async function createLink(overrides: Record<string, unknown> = {}, who: Pick<SignedIn, 'auth'> = requester): Promise<Created> {
  const reply = await api.post('/v1/requests', { public_key: x25519Key(), kem: 'x25519', ...overrides }, who.auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body as Created;
}

/** A text response as a responder's client sends it: an envelope v1, and a key wrapped to the link's KEM. */
async function responseBody(kem: 'x25519' | 'p256' = 'x25519', text = `answer ${randomBytes(4).toString('hex')}`) {
  const sealed = await seal({ kind: 'text', plaintext: new TextEncoder().encode(text) });
  return {
    kind: 'text',
    envelope: Buffer.from(sealed.envelope).toString('base64'),
    salt: sealed.salt,
    size_bytes: sealed.envelope.length,
    enc: b64url(kem === 'x25519' ? 32 : 65),
    wrapped_key: b64url(48),
  };
}
const respond = async (id: string, body?: Record<string, unknown>) =>
  api.post(`/v1/requests/${id}/responses`, body ?? (await responseBody()));

describe('POST /v1/requests', () => {
  it('publishes a link: its id, the page responders open, and its expiry (7 days and 10 responses unless asked)', async () => {
    const before = runtime.clock.now();
    const created = await createLink({ prompt_envelope: await sealedPrompt() });
    expect(created.id).toMatch(/^rql_[A-Za-z0-9_-]{22}$/);
    expect(created.url_base).toBe(`${runtime.url}/q/${created.id}`);
    expect(Date.parse(created.expires_at) - before).toBeGreaterThanOrEqual(7 * 24 * 3600 * 1000 - 1000);
    const read = await api.get(`/v1/requests/${created.id}`);
    expect(read.body).toMatchObject({
      id: created.id,
      kem: 'x25519',
      open: true,
      responses_left: requestLimits.maxResponses.default,
      expires_at: created.expires_at,
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown KEM', { kem: 'x448' }, 'body.kem'],
    ['a life over 30 days', { expires_in: 31 * 24 * 3600 }, 'body.expires_in'],
    ['more than 100 responses', { max_responses: 101 }, 'body.max_responses'],
    ['no responses', { max_responses: 0 }, 'body.max_responses'],
  ])('answers 400 for %s', async (_, overrides, path) => {
    const reply = await api.post('/v1/requests', { public_key: x25519Key(), kem: 'x25519', ...overrides }, requester.auth);
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.errors.map((error: { path: string }) => error.path)).toContain(path);
  });

  it('answers 401 without a session, 403 to an API key and to a workspace the caller is not in', async () => {
    const body = { public_key: x25519Key(), kem: 'x25519' };
    expectProblem(await api.post('/v1/requests', body), 401, 'unauthorized');
    const key = await createKey(runtime, requester.session, ['secrets:write', 'secrets:read']);
    expectProblem(await api.post('/v1/requests', body, key.auth), 403, 'forbidden');
    // Membership and the workspace's policy: workspaces-policy.test.ts.
    const workspace = await api.post('/v1/requests', { ...body, workspace_id: 'wks_team' }, requester.auth);
    expectProblem(workspace, 403, 'forbidden');
    expect(workspace.body.reason).toBe('not_a_member');
  });
});

describe('GET /v1/requests/{id} (public)', () => {
  it('gives a responder the key and the sealed prompt, byte for byte, and never who asked', async () => {
    const prompt = await sealedPrompt();
    const created = await createLink({ prompt_envelope: prompt });
    const read = await api.get(`/v1/requests/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body.prompt_envelope).toBe(prompt);
    expect(JSON.stringify(read.body)).not.toContain(requester.session.user.id);
  });

  it('answers 404 for an unknown or malformed id, and 410 once closed or expired (saying which)', async () => {
    expectProblem(await api.get('/v1/requests/rql_AAAAAAAAAAAAAAAAAAAAAA'), 404, 'not_found');
    expectProblem(await api.get('/v1/requests/not-an-id'), 404, 'not_found');
    const closed = await createLink();
    expect((await api.delete(`/v1/requests/${closed.id}`, requester.auth)).status).toBe(200);
    const gone = await api.get(`/v1/requests/${closed.id}`);
    expectProblem(gone, 410, 'gone');
    expect(gone.body.reason).toBe('closed');
    const expiring = await createLink({ expires_in: 60 });
    runtime.clock.advance(61);
    const expired = await api.get(`/v1/requests/${expiring.id}`);
    expectProblem(expired, 410, 'gone');
    expect(expired.body.reason).toBe('expired');
  });
});

describe('POST /v1/requests/{id}/responses (public)', () => {
  it('takes a sealed text and its wrapped key; the inbox gives them back exactly', async () => {
    const created = await createLink();
    const body = await responseBody();
    const reply = await respond(created.id, body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body.response_id).toMatch(/^rsp_/);
    const inbox = await api.get(`/v1/requests/${created.id}/inbox`, requester.auth);
    expect(inbox.body.items).toEqual([
      {
        response_id: reply.body.response_id,
        created_at: expect.any(String),
        kind: 'text',
        envelope: body.envelope,
        salt: body.salt,
        size_bytes: body.size_bytes,
        enc: body.enc,
        wrapped_key: body.wrapped_key,
      },
    ]);
    expect((await api.get(`/v1/requests/${created.id}`)).body.responses_left).toBe(requestLimits.maxResponses.default - 1);
  });

  it('50 parallel responses to a link of 10 give exactly 10 201s; the others 409, and the inbox holds 10', async () => {
    runtime.clock.advance(60); // a fresh rate window: the 50 are counted, not refused
    const created = await createLink({ max_responses: 10 });
    const bodies = await Promise.all(Array.from({ length: 50 }, () => responseBody()));
    const replies = await Promise.all(bodies.map((body) => respond(created.id, body)));
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(10);
    const refused = replies.filter((reply) => reply.status !== 201);
    expect(refused).toHaveLength(40);
    for (const reply of refused) {
      expectProblem(reply, 409, 'conflict');
      expect(reply.body.reason).toBe('request_full');
    }
    const inbox = await api.get(`/v1/requests/${created.id}/inbox?limit=50`, requester.auth);
    expect(inbox.body.items).toHaveLength(10);
    const accepted = new Set(replies.filter((reply) => reply.status === 201).map((reply) => reply.body.response_id));
    expect(new Set(inbox.body.items.map((item: { response_id: string }) => item.response_id))).toEqual(accepted);
    expect(
      (await api.get('/v1/requests?limit=100', requester.auth)).body.items.find((item: { id: string }) => item.id === created.id),
    ).toMatchObject({ responses: 10, max_responses: 10, open: false });
  });

  it('answers 404 for an unknown link, 410 for a closed or expired one', async () => {
    expectProblem(await respond('rql_AAAAAAAAAAAAAAAAAAAAAA'), 404, 'not_found');
    const closed = await createLink();
    await api.delete(`/v1/requests/${closed.id}`, requester.auth);
    const refused = await respond(closed.id);
    expectProblem(refused, 410, 'gone');
    expect(refused.body.reason).toBe('closed');
    const expiring = await createLink({ expires_in: 60 });
    runtime.clock.advance(61);
    const late = await respond(expiring.id);
    expectProblem(late, 410, 'gone');
    expect(late.body.reason).toBe('expired');
  });

  it.each<[string, (body: Record<string, unknown>) => Record<string, unknown>, string]>([
    ['a file (files go through /v1/files/multipart)', (body) => ({ ...body, kind: 'file' }), 'body.kind'],
    ['a size that is not the envelope’s', (body) => ({ ...body, size_bytes: 3 }), 'body.size_bytes'],
  ])('answers 400 for %s, and counts nothing', async (_, change, path) => {
    const created = await createLink({ max_responses: 1 });
    const reply = await respond(created.id, change(await responseBody()));
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    expect((await api.get(`/v1/requests/${created.id}`)).body.responses_left).toBe(1);
  });

  it('answers 400 to a secret’s body without a wrapped key', async () => {
    const created = await createLink();
    const reply = await respond(created.id, textSecretBody());
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.errors.map((error: { path: string }) => error.path)).toEqual(
      expect.arrayContaining(['body.enc', 'body.wrapped_key']),
    );
  });

  it('answers 429 when other responses keep the link locked through every retry (AWS’s transaction conflicts), counting nothing', async () => {
    const created = await createLink({ max_responses: 2 });
    busyLinks.add(created.id);
    try {
      const reply = await respond(created.id);
      expectProblem(reply, 429, 'rate_limited');
      expect(reply.headers.get('retry-after')).toBe('1');
    } finally {
      busyLinks.delete(created.id);
    }
    expect((await api.get(`/v1/requests/${created.id}`)).body.responses_left).toBe(2);
    expect((await respond(created.id)).status).toBe(201);
  });

  it('answers 429 from the per-address limit', async () => {
    toFreshWindow(runtime.clock, 60);
    const created = await createLink({ max_responses: 1 });
    let reply: Reply | undefined;
    for (let i = 0; i < 70 && reply?.status !== 429; i++) reply = await respond(created.id);
    expectProblem(reply!, 429, 'rate_limited');
    runtime.clock.advance(60);
  });
});

describe('DELETE /v1/requests/{id}', () => {
  it('closes the link; the responses already in stay readable (rule 4), and closing again is the same answer', async () => {
    const created = await createLink();
    const first = await respond(created.id);
    const closed = await api.delete(`/v1/requests/${created.id}`, requester.auth);
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({ id: created.id, open: false });
    expect((await api.delete(`/v1/requests/${created.id}`, requester.auth)).body).toEqual({ id: created.id, open: false });
    const inbox = await api.get(`/v1/requests/${created.id}/inbox`, requester.auth);
    expect(inbox.body.items.map((item: { response_id: string }) => item.response_id)).toEqual([first.body.response_id]);
    // Expired too: the inbox is kept for the retention after the link's expiry.
    runtime.clock.advance(8 * 24 * 3600);
    await requester.ensure();
    expect((await api.get(`/v1/requests/${created.id}/inbox`, requester.auth)).body.items).toHaveLength(1);
  });

  it('answers 401 without a session, 403 to an API key, 404 for an unknown link or another requester’s', async () => {
    const created = await createLink();
    expectProblem(await api.delete(`/v1/requests/${created.id}`), 401, 'unauthorized');
    const key = await createKey(runtime, requester.session, ['secrets:write']);
    expectProblem(await api.delete(`/v1/requests/${created.id}`, key.auth), 403, 'forbidden');
    const stranger = await signIn(runtime, newEmail('stranger'));
    expectProblem(await api.delete(`/v1/requests/${created.id}`, stranger.auth), 404, 'not_found');
    expectProblem(await api.delete('/v1/requests/rql_AAAAAAAAAAAAAAAAAAAAAA', requester.auth), 404, 'not_found');
    expect((await api.get(`/v1/requests/${created.id}`)).body.open).toBe(true);
  });
});

describe('GET /v1/requests/{id}/inbox', () => {
  it('pages newest first; a tampered cursor, or another link’s, is 400', async () => {
    const created = await createLink({ max_responses: 5 });
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      sent.push((await respond(created.id)).body.response_id);
      runtime.clock.advance(1);
    }
    const first = await api.get(`/v1/requests/${created.id}/inbox?limit=2`, requester.auth);
    const second = await api.get(`/v1/requests/${created.id}/inbox?limit=2&cursor=${first.body.next_cursor}`, requester.auth);
    const third = await api.get(`/v1/requests/${created.id}/inbox?limit=2&cursor=${second.body.next_cursor}`, requester.auth);
    expect(
      [...first.body.items, ...second.body.items, ...third.body.items].map((item: { response_id: string }) => item.response_id),
    ).toEqual([...sent].reverse());
    expect(third.body.next_cursor).toBeNull();
    const tampered = Buffer.from(JSON.stringify({ pk: 'REQUEST#other', sk: 'RESPONSE#x' })).toString('base64url');
    expectProblem(await api.get(`/v1/requests/${created.id}/inbox?cursor=${tampered}`, requester.auth), 400, 'invalid_request');
    const other = await createLink();
    expectProblem(await api.get(`/v1/requests/${other.id}/inbox?cursor=${first.body.next_cursor}`, requester.auth), 400, 'invalid_request');
  });

  it('answers 401 without a session, 403 to an API key, 404 for another requester’s link', async () => {
    const created = await createLink();
    expectProblem(await api.get(`/v1/requests/${created.id}/inbox`), 401, 'unauthorized');
    const key = await createKey(runtime, requester.session, ['secrets:read']);
    expectProblem(await api.get(`/v1/requests/${created.id}/inbox`, key.auth), 403, 'forbidden');
    const stranger = await signIn(runtime, newEmail('stranger'));
    expectProblem(await api.get(`/v1/requests/${created.id}/inbox`, stranger.auth), 404, 'not_found');
  });
});

describe('GET /v1/requests', () => {
  it('lists the caller’s links only, newest first, with counts and whether each is open; pages by cursor', async () => {
    const mine = await signIn(runtime, newEmail('lister'));
    const links: Created[] = [];
    for (let i = 0; i < 3; i++) {
      links.push(await createLink({ max_responses: 2 }, mine));
      runtime.clock.advance(1);
    }
    await respond(links[0]!.id);
    await api.delete(`/v1/requests/${links[1]!.id}`, mine.auth);
    const first = await api.get('/v1/requests?limit=2', mine.auth);
    const rest = await api.get(`/v1/requests?limit=2&cursor=${first.body.next_cursor}`, mine.auth);
    const items = [...first.body.items, ...rest.body.items];
    expect(items.map((item: { id: string }) => item.id)).toEqual(links.map((link) => link.id).reverse());
    expect(items[2]).toMatchObject({ responses: 1, max_responses: 2, open: true });
    expect(items[1]).toMatchObject({ responses: 0, open: false });
    expect(rest.body.next_cursor).toBeNull();
    expectProblem(await api.get('/v1/requests?cursor=AAAA', mine.auth), 400, 'invalid_request');
  });

  it('answers 401 without a session and 403 to an API key', async () => {
    expectProblem(await api.get('/v1/requests'), 401, 'unauthorized');
    const key = await createKey(runtime, requester.session, ['secrets:read']);
    expectProblem(await api.get('/v1/requests', key.auth), 403, 'forbidden');
  });
});

describe('events', () => {
  it('sends none for request links: no webhook delivery is queued for a requester with an endpoint', async () => {
    const hooked = await signIn(runtime, newEmail('hooked'));
    // Local mode takes a loopback receiver; nothing has to listen, since nothing may be sent.
    expect((await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook' }, hooked.auth)).status).toBe(201);
    const created = await createLink({}, hooked);
    await respond(created.id);
    await api.delete(`/v1/requests/${created.id}`, hooked.auth);
    await runtime.drainWork();
    const endpoints = await api.get('/v1/webhooks', hooked.auth);
    const deliveries = await api.get(`/v1/webhooks/${endpoints.body.items[0].id}/deliveries`, hooked.auth);
    expect(deliveries.body.items).toEqual([]);
  });
});

describe('the clients’ cryptography through the service', () => {
  /** A requester's link as the web page makes it: keys on the device, the fragment in the link only. */
  async function publish(kem: 'x25519' | 'p256' = 'x25519') {
    const keys = await generateRequesterKeys({ kem });
    const fingerprint = await publicKeyFingerprint(keys.publicKey);
    const linkSecret = newLinkSecret();
    const prompt = await sealPrompt('The production API token, please', { fingerprint, linkSecret });
    const created = await createLink({
      public_key: encodePublicKey(keys.publicKey),
      kem: keys.kem,
      prompt_envelope: Buffer.from(prompt.envelope).toString('base64'),
    });
    return { keys, created, link: `${created.url_base}#${requestFragment(fingerprint, linkSecret)}` };
  }

  /** A responder's client: reads the link, checks the key, seals the text, wraps its key, sends. */
  async function answer(
    link: string,
    text: string,
    tamper?: (link: { fingerprint: string; linkSecret: Uint8Array }) => { fingerprint: string; linkSecret: Uint8Array },
  ) {
    const url = new URL(link);
    const id = url.pathname.split('/').pop()!;
    const parsed = parseRequestFragment(url.hash);
    const served = (await api.get(`/v1/requests/${id}`)).body;
    const publicKey = decodePublicKey(served.kem, served.public_key);
    await checkServedKey(publicKey, parsed.fingerprint);
    const prompt = await openPrompt(Buffer.from(served.prompt_envelope, 'base64'), parsed);
    const sealed = await seal({ kind: 'text', plaintext: new TextEncoder().encode(text) });
    const wrapped = await wrapResponseKey({
      ...(tamper ? tamper(parsed) : parsed),
      requestId: id,
      kem: served.kem,
      publicKey,
      responseKey: Buffer.from(sealed.key, 'base64url'),
    });
    const reply = await respond(id, {
      kind: 'text',
      envelope: Buffer.from(sealed.envelope).toString('base64'),
      salt: sealed.salt,
      size_bytes: sealed.envelope.length,
      enc: wrapped.enc,
      wrapped_key: wrapped.wrappedKey,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return { prompt };
  }

  /** The requester's inbox, each response opened with the device's key and the link's secret. */
  async function openInbox(published: Awaited<ReturnType<typeof publish>>) {
    const parsed = parseRequestFragment(new URL(published.link).hash);
    const inbox = (await api.get(`/v1/requests/${published.created.id}/inbox`, requester.auth)).body.items as Array<Record<string, string>>;
    return Promise.all(
      inbox.map(async (item) => {
        const key = await unwrapResponseKey({
          ...parsed,
          requestId: published.created.id,
          keys: published.keys,
          enc: item.enc!,
          wrappedKey: item.wrapped_key!,
        });
        return openText(Buffer.from(item.envelope!, 'base64'), { key, salt: item.salt! });
      }),
    );
  }

  it.each(['x25519', 'p256'] as const)('a response sealed by a responder opens only on the requester’s device (%s)', async (kem) => {
    const published = await publish(kem);
    const { prompt } = await answer(published.link, 'hunter2');
    expect(prompt).toBe('The production API token, please');
    expect(await openInbox(published)).toEqual(['hunter2']);
  });

  it('a public key substituted in the table is refused by the responder’s client before anything is sealed', async () => {
    const published = await publish();
    const attacker = await generateRequesterKeys();
    const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    await db.send(
      new UpdateCommand({
        TableName: runtime.config.TABLE_NAME,
        Key: { pk: `REQUEST#${published.created.id}`, sk: 'REQUEST' },
        UpdateExpression: 'SET public_key = :key',
        ExpressionAttributeValues: { ':key': encodePublicKey(attacker.publicKey) },
      }),
    );
    db.destroy();
    await expect(answer(published.link, 'never sent')).rejects.toMatchObject({ code: 'key_mismatch' });
    expect((await api.get(`/v1/requests/${published.created.id}/inbox`, requester.auth)).body.items).toEqual([]);
  });

  it('a response forged by someone holding only the public key (not the link’s secret) does not open: forged', async () => {
    const published = await publish();
    // The forger reads the public key and its fingerprint off the service, and guesses s.
    await answer(published.link, 'a forgery', (link) => ({ fingerprint: link.fingerprint, linkSecret: newLinkSecret() }));
    await expect(openInbox(published)).rejects.toMatchObject({ code: 'forged' });
  });

  it('closing keeps the inbox readable: responses still open after the link closed', async () => {
    const published = await publish();
    await answer(published.link, 'before the close');
    expect((await api.delete(`/v1/requests/${published.created.id}`, requester.auth)).status).toBe(200);
    expect(await openInbox(published)).toEqual(['before the close']);
  });
});
