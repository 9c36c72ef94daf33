import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { dayOf } from '../../shared/domain/counters.ts';
import { secretEventsOf } from '../support/events.ts';
import { bearer, callFrom, createKey, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { apiClient, claimPair, linkPair, type Reply, startTestRuntime, textSecretBody } from '../support/runtime.ts';
import { expectProblem } from '../support/problem.ts';

// Owners, keys and the public reports over HTTP: credentials, scopes and the listing's cursors.
// The rules (the listing's order and pages, adoption's answers, what locks a reported secret):
// test/usecases/secrets-owner.test.ts, on the fakes.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const unknownId = () => `sec_${randomBytes(16).toString('base64url')}`;
const ids = (reply: Reply) => (reply.body.items as Array<{ id: string }>).map((item) => item.id);

async function create(auth?: Record<string, string>) {
  const reply = await api.post('/v1/secrets', textSecretBody(), auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body as { id: string; delete_token: string };
}
const metadata = (id: string) => api.get(`/v1/secrets/${id}`);

describe('owners', () => {
  it('a secret created with a session or a secrets:write key has an owner; an anonymous one has none', async () => {
    const user = await signIn(runtime, newEmail('owner'));
    const key = await createKey(runtime, user, ['secrets:write']);
    const bySession = await create(user.auth);
    const byKey = await create(key.auth);
    const anonymous = await create();
    // Only the owner is told a secret is theirs; nobody else learns whether anyone owns it.
    expect((await api.get(`/v1/secrets/${bySession.id}`, user.auth)).body.owned).toBe(true);
    expect((await api.get(`/v1/secrets/${byKey.id}`, key.auth)).body).not.toHaveProperty('owned');
    expect((await api.get(`/v1/secrets/${byKey.id}`, (await createKey(runtime, user, ['secrets:read'])).auth)).body.owned).toBe(true);
    const other = await signIn(runtime, newEmail('other'));
    for (const id of [bySession.id, byKey.id, anonymous.id]) {
      expect((await metadata(id)).body).not.toHaveProperty('owned');
      expect((await api.get(`/v1/secrets/${id}`, other.auth)).body).not.toHaveProperty('owned');
    }
    // A stale or invalid credential on this public read is no error: the caller is anonymous.
    expect((await api.get(`/v1/secrets/${bySession.id}`, bearer('not-a-token'))).status).toBe(200);
    expect((await api.get(`/v1/secrets/${bySession.id}`, bearer('not-a-token'))).body).not.toHaveProperty('owned');
    expect((await runtime.stores.secrets.get(bySession.id))?.ownerId).toBe(user.user.id);
    expect((await runtime.stores.secrets.get(byKey.id))?.ownerId).toBe(user.user.id);
    expect(ids(await api.get('/v1/secrets', user.auth)).sort()).toEqual([bySession.id, byKey.id].sort());
  });
});

describe('GET /v1/secrets', () => {
  let user: SignedIn;
  const created: string[] = [];
  beforeAll(async () => {
    user = await signIn(runtime, newEmail('lister'));
    for (let i = 0; i < 5; i++) {
      created.push((await create(user.auth)).id);
      runtime.clock.advance(1);
    }
    // Someone else's and an anonymous one: never listed.
    await create((await signIn(runtime, newEmail('someone'))).auth);
    await create();
  });

  it('lists only the owner’s secrets, newest first, metadata only', async () => {
    const reply = await api.get('/v1/secrets', user.auth);
    expect(reply.status).toBe(200);
    expect(ids(reply)).toEqual([...created].reverse());
    expect(reply.body.next_cursor).toBeNull();
    for (const item of reply.body.items) {
      expect(item).toMatchObject({ owned: true, state: 'active', kind: 'text', size_bytes: 64, max_views: 1, views_left: 1 });
      expect(item).not.toHaveProperty('envelope');
      expect(item).not.toHaveProperty('delete_token');
      expect(JSON.stringify(item)).not.toMatch(/delete_token_hash|envelope/);
    }
    // What the list says is what the owner's metadata read says, but for the per-link detail
    // (the listing index does not carry a secret's links).
    const { has_recipients: hasRecipients, ...read } = (await api.get(`/v1/secrets/${created[4]!}`, user.auth)).body;
    expect(hasRecipients).toBe(false);
    expect(reply.body.items[0]).toEqual(read);
  });

  it('lists a proof-protected secret with requires_proof and its salt, as the metadata read does', async () => {
    const owner = await signIn(runtime, newEmail('prover'));
    const body = textSecretBody({ claim_verifier: claimPair().verifier, link_verifier: linkPair().verifier });
    const created = await api.post('/v1/secrets', body, owner.auth);
    expect(created.status).toBe(201);
    const read = await metadata(created.body.id);
    expect(read.body).toMatchObject({ requires_proof: true, salt: body.salt });
    const listed = await api.get('/v1/secrets', owner.auth);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).toMatchObject({ id: created.body.id, requires_proof: true, salt: body.salt });
  });

  it('gives no cursor with a full last page: there is no empty page after it', async () => {
    const whole = await api.get('/v1/secrets?limit=5', user.auth);
    expect(ids(whole)).toHaveLength(5);
    expect(whole.body.next_cursor).toBeNull();
    const first = await api.get('/v1/secrets?limit=4', user.auth);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const last = await api.get(`/v1/secrets?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`, user.auth);
    expect(ids(last)).toHaveLength(1);
    expect(last.body.next_cursor).toBeNull();
  });

  it('refuses a tampered cursor, or another owner’s, with 400', async () => {
    const first = await api.get('/v1/secrets?limit=2', user.auth);
    const cursor = first.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, string>;

    const otherOwner = Buffer.from(JSON.stringify({ ...decoded, gsi1pk: 'OWNER#usr_someone_else' })).toString('base64url');
    const extraField = Buffer.from(JSON.stringify({ ...decoded, ttl: '1' })).toString('base64url');
    for (const bad of ['not a cursor!', 'e30', otherOwner, extraField, `${cursor.slice(0, -3)}`]) {
      const reply = await api.get(`/v1/secrets?cursor=${encodeURIComponent(bad)}`, user.auth);
      expectProblem(reply, 400, 'invalid_request');
    }
    // A valid cursor of this owner, used by another user.
    const other = await signIn(runtime, newEmail('cursor-thief'));
    expectProblem(await api.get(`/v1/secrets?cursor=${encodeURIComponent(cursor)}`, other.auth), 400, 'invalid_request');
  });

  it.each(['0', '101', 'two', '1.5'])('refuses limit=%s with 400', async (limit) => {
    expectProblem(await api.get(`/v1/secrets?limit=${limit}`, user.auth), 400, 'invalid_request');
  });
});

describe('API keys on secrets', () => {
  it('a secrets:read key can list but not create or revoke', async () => {
    const user = await signIn(runtime, newEmail('reader'));
    const secret = await create(user.auth);
    const key = await createKey(runtime, user, ['secrets:read']);
    const listed = await api.get('/v1/secrets', key.auth);
    expect(listed.status).toBe(200);
    expect(ids(listed)).toEqual([secret.id]);
    expectProblem(await api.post('/v1/secrets', textSecretBody(), key.auth), 403, 'forbidden');
    expectProblem(await api.delete(`/v1/secrets/${secret.id}`, key.auth), 403, 'forbidden');
    expect((await metadata(secret.id)).body.state).toBe('active');
  });

  it('a secrets:write key can create, and revoke its user’s secret without the delete token', async () => {
    const user = await signIn(runtime, newEmail('writer'));
    const key = await createKey(runtime, user, ['secrets:write']);
    const made = await create(key.auth);
    expect((await api.get(`/v1/secrets/${made.id}`, user.auth)).body.owned).toBe(true);
    const bySession = await create(user.auth);
    const revoked = await api.delete(`/v1/secrets/${bySession.id}`, key.auth);
    expect(revoked.status).toBe(204);
    expect((await metadata(bySession.id)).body.state).toBe('revoked');
    expect((await secretEventsOf(runtime, bySession.id)).map((event) => event.type)).toContain('secret.revoked');
    // It cannot list.
    expectProblem(await api.get('/v1/secrets', key.auth), 403, 'forbidden');
  });

  it('a secrets:write key cannot revoke an anonymous secret without its token', async () => {
    const user = await signIn(runtime, newEmail('writer2'));
    const key = await createKey(runtime, user, ['secrets:write']);
    const anonymous = await create();
    expectProblem(await api.delete(`/v1/secrets/${anonymous.id}`, key.auth), 403, 'forbidden');
    expect((await api.delete(`/v1/secrets/${anonymous.id}`, { ...key.auth, 'x-delete-token': anonymous.delete_token })).status).toBe(204);
  });
});

describe('POST /v1/auth/adopt-secrets', () => {
  it('answers per item: adopted, forbidden, not_found, owned, ended; adopted ones are then listed', async () => {
    const user = await signIn(runtime, newEmail('adopter'));
    const other = await signIn(runtime, newEmail('first-owner'));
    const mine = await create();
    const wrongToken = await create();
    const ownedElsewhere = await create(other.auth);
    const ended = await create();
    expect((await api.delete(`/v1/secrets/${ended.id}`, { 'x-delete-token': ended.delete_token })).status).toBe(204);
    const missing = unknownId();

    const reply = await api.post(
      '/v1/auth/adopt-secrets',
      {
        secrets: [
          { id: mine.id, delete_token: mine.delete_token },
          { id: wrongToken.id, delete_token: mine.delete_token },
          { id: missing, delete_token: 'x' },
          { id: ownedElsewhere.id, delete_token: ownedElsewhere.delete_token },
          { id: ended.id, delete_token: ended.delete_token },
        ],
      },
      user.auth,
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.items).toEqual([
      { id: mine.id, adopted: true },
      { id: wrongToken.id, adopted: false, reason: 'forbidden' },
      { id: missing, adopted: false, reason: 'not_found' },
      { id: ownedElsewhere.id, adopted: false, reason: 'owned' },
      { id: ended.id, adopted: false, reason: 'ended' },
    ]);

    expect(ids(await api.get('/v1/secrets', user.auth))).toEqual([mine.id]);
    expect((await api.get(`/v1/secrets/${mine.id}`, user.auth)).body.owned).toBe(true);
    expect(ids(await api.get('/v1/secrets', other.auth))).toEqual([ownedElsewhere.id]);
    expect((await api.get(`/v1/secrets/${wrongToken.id}`, user.auth)).body).not.toHaveProperty('owned');
    // The owner may now revoke it without the token.
    expect((await api.delete(`/v1/secrets/${mine.id}`, user.auth)).status).toBe(204);
  });

  it.each<[string, unknown]>([
    ['an empty list', { secrets: [] }],
    ['no list', {}],
    ['an item without a token', { secrets: [{ id: 'sec_x' }] }],
    ['an unknown field', { secrets: [{ id: 'sec_x', delete_token: 'y' }], all: true }],
  ])('refuses %s with 400', async (_, body) => {
    const user = await signIn(runtime, newEmail('adopt-bad'));
    expectProblem(await api.post('/v1/auth/adopt-secrets', body, user.auth), 400, 'invalid_request');
  });
});

describe('POST /v1/reports', () => {
  const report = (id: string, reason = 'phishing') => api.post('/v1/reports', { secret_id: id, reason });

  it('answers 202 for a known and an unknown id alike', async () => {
    const secret = await create();
    const known = await report(secret.id);
    const unknown = await report(unknownId());
    const malformed = await report('not-an-id');
    for (const reply of [known, unknown, malformed]) {
      expect(reply.status).toBe(202);
      expect(reply.body).toEqual(known.body);
    }
    expect((await secretEventsOf(runtime, secret.id)).map((event) => event.type)).toContain('secret.reported');
  });

  /** A secret made with a link verifier, and the link token that proves its link. */
  const withLink = async () => {
    const link = linkPair();
    const reply = await api.post('/v1/secrets', textSecretBody({ link_verifier: link.verifier }));
    expect(reply.status).toBe(201);
    return { id: reply.body.id as string, linkToken: link.token };
  };
  const reportWithLink = (address: string, id: string, linkToken: string) =>
    callFrom(runtime, address, 'POST', '/v1/reports', { secret_id: id, reason: 'malware', link_token: linkToken });

  it('three distinct addresses that hold the link lock it; the same address three times does not', async () => {
    const secret = await withLink();
    for (let i = 0; i < 3; i++) expect((await reportWithLink('127.0.0.1', secret.id, secret.linkToken)).status).toBe(202);
    expect((await metadata(secret.id)).body.state).toBe('active');
    const reported = (await secretEventsOf(runtime, secret.id)).filter((event) => event.type === 'secret.reported');
    expect(reported).toHaveLength(1);

    expect((await reportWithLink('127.0.0.2', secret.id, secret.linkToken)).status).toBe(202);
    expect((await metadata(secret.id)).body.state).toBe('active');
    expect((await reportWithLink('127.0.0.3', secret.id, secret.linkToken)).status).toBe(202);

    expect((await metadata(secret.id)).body.state).toBe('locked');
    const claim = await api.post(`/v1/secrets/${secret.id}/claim`);
    expectProblem(claim, 423, 'locked');
    const types = (await secretEventsOf(runtime, secret.id)).map((event) => event.type);
    expect(types.filter((type) => type === 'secret.reported')).toHaveLength(3);
    expect(types).toContain('secret.locked');
  });

  it.each<[string, unknown]>([
    ['an unknown reason', { secret_id: 'sec_x', reason: 'boring' }],
    ['no secret_id', { reason: 'other' }],
    ['an unknown field', { secret_id: 'sec_x', reason: 'other', email: 'a@b.c' }],
    ['details over 1000 characters', { secret_id: 'sec_x', reason: 'other', details: 'd'.repeat(1001) }],
  ])('refuses %s with 400', async (_, body) => {
    expectProblem(await api.post('/v1/reports', body), 400, 'invalid_request');
  });
});

describe('POST /v1/feedback/reveal', () => {
  it('answers 202 and counts the rating for the day', async () => {
    const day = dayOf(runtime.clock.now());
    const before = await runtime.stores.counters.read('reveal_feedback', day);
    expect((await api.post('/v1/feedback/reveal', { rating: 'up' })).status).toBe(202);
    expect((await api.post('/v1/feedback/reveal', { rating: 'down' })).status).toBe(202);
    const reply = await api.post('/v1/feedback/reveal', { rating: 'up' });
    expect(reply.status).toBe(202);
    const after = await runtime.stores.counters.read('reveal_feedback', day);
    expect((after.up ?? 0) - (before.up ?? 0)).toBe(2);
    expect((after.down ?? 0) - (before.down ?? 0)).toBe(1);
  });

  it.each<[string, unknown]>([
    ['a bad rating', { rating: 'sideways' }],
    ['no rating', {}],
    ['an identifier', { rating: 'up', secret_id: 'sec_x' }],
  ])('refuses %s with 400', async (_, body) => {
    expectProblem(await api.post('/v1/feedback/reveal', body), 400, 'invalid_request');
  });
});
