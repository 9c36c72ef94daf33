import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import type { Secret } from '../../shared/domain/secrets/model.ts';
import { secretEventsOf } from '../support/events.ts';
import { apiClient, claimPair, linkPair, startTestRuntime, textSecretBody } from '../support/runtime.ts';
import { expectProblem } from '../support/problem.ts';

// Secrets over HTTP against the local runtime: the routes' shape, schema and headers. The use
// cases' rules (views, burns, expiry, proofs and the lock, not_before, revoking, the sweep):
// test/usecases/secrets-*.test.ts and claim.test.ts, on the fakes.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const day = 24 * 3600;
const iso = (ms: number) => new Date(ms).toISOString();
const unknownId = () => `sec_${randomBytes(16).toString('base64url')}`;

async function create(overrides: Record<string, unknown> = {}, size = 64) {
  const body = textSecretBody(overrides, size);
  const reply = await api.post('/v1/secrets', body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { ...(reply.body as { id: string; delete_token: string; views_left: number }), sent: body };
}
const claim = (id: string, json?: unknown) => api.post(`/v1/secrets/${id}/claim`, json);
const metadata = (id: string) => api.get(`/v1/secrets/${id}`);
const revoke = (id: string, token?: string) =>
  api.delete(`/v1/secrets/${id}`, token === undefined ? undefined : { 'x-delete-token': token });

async function stored(id: string): Promise<Secret> {
  const secret = await runtime.stores.secrets.get(id);
  if (!secret) throw new Error(`no stored secret ${id}`);
  return secret;
}
const eventTypes = async (id: string) => (await secretEventsOf(runtime, id)).map((event) => event.type);

describe('POST /v1/secrets', () => {
  it('answers 201 with exactly the creation fields and records secret.created', async () => {
    const before = runtime.clock.now();
    const sent = textSecretBody();
    const reply = await api.post('/v1/secrets', sent);
    expect(reply.status).toBe(201);
    const body = reply.body;
    expect(Object.keys(body).sort()).toEqual([
      'created_at',
      'delete_token',
      'expires_at',
      'id',
      'max_views',
      'not_before',
      'url_base',
      'views_left',
    ]);
    expect(body.id).toMatch(/^sec_[A-Za-z0-9_-]{22}$/);
    expect(body.url_base).toBe(`${runtime.url}/s/${body.id}`);
    expect(body.delete_token).toEqual(expect.any(String));
    expect(body.delete_token.length).toBeGreaterThanOrEqual(22);
    const createdAt = Date.parse(body.created_at);
    expect(createdAt).toBeGreaterThanOrEqual(before);
    expect(createdAt).toBeLessThanOrEqual(runtime.clock.now());
    expect(Date.parse(body.expires_at) - createdAt).toBe(day * 1000);
    expect(body).toMatchObject({ not_before: null, max_views: 1, views_left: 1 });

    const secret = await stored(body.id);
    expect(Buffer.from(secret.envelope!).toString('base64')).toBe(sent.envelope);
    expect(secret.deleteTokenHash).not.toBe(body.delete_token);
    expect(await secretEventsOf(runtime, body.id)).toEqual([
      { id: expect.stringMatching(/^evt_/), type: 'secret.created', occurred_at: body.created_at, secret_id: body.id, views_left: 1 },
    ]);
    // The item keeps its latest write's events only, whatever came before.
    expect(secret.emitted.map((event) => event.type)).toEqual(['secret.created']);
  });

  it('echoes expires_in, max_views and not_before', async () => {
    const notBefore = iso(runtime.clock.now() + 600_000);
    const reply = await api.post('/v1/secrets', textSecretBody({ expires_in: 3600, max_views: 5, not_before: notBefore }));
    expect(reply.status).toBe(201);
    expect(Date.parse(reply.body.expires_at) - Date.parse(reply.body.created_at)).toBe(3600_000);
    expect(reply.body).toMatchObject({ max_views: 5, views_left: 5, not_before: notBefore });
  });

  it.each([
    ['expires_in 60', { expires_in: 60 }, 'expires_in', 60],
    ['expires_in 30 days', { expires_in: 30 * day }, 'expires_in', 30 * day],
    ['max_views 1', { max_views: 1 }, 'max_views', 1],
    ['max_views 100', { max_views: 100 }, 'max_views', 100],
  ])('accepts the boundary %s', async (_, overrides, field, value) => {
    const reply = await api.post('/v1/secrets', textSecretBody(overrides));
    expect(reply.status).toBe(201);
    if (field === 'expires_in') expect(Date.parse(reply.body.expires_at) - Date.parse(reply.body.created_at)).toBe(value * 1000);
    else expect(reply.body).toMatchObject({ max_views: value, views_left: value });
  });

  it('accepts an envelope of exactly 256 KiB and gives it back byte for byte', async () => {
    const created = await create({}, 262144);
    expect((await metadata(created.id)).body.size_bytes).toBe(262144);
    const claimed = await claim(created.id);
    expect(claimed.status).toBe(200);
    expect(claimed.body.envelope).toBe(created.sent.envelope);
  });

  const without = (field: string) => (body: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(body).filter(([name]) => name !== field));
  const set = (field: string, value: unknown) => (body: Record<string, unknown>) => ({ ...body, [field]: value });
  const envelopeOf = (bytes: number) => (body: Record<string, unknown>) => ({
    ...body,
    envelope: randomBytes(bytes).toString('base64'),
    size_bytes: bytes,
  });
  const salt21 = 'A'.repeat(21);
  const later = (seconds: number) => () => iso(runtime.clock.now() + seconds * 1000);

  it.each<[string, (body: Record<string, unknown>) => unknown, string]>([
    ['kind missing', without('kind'), 'kind'],
    ['envelope missing', without('envelope'), 'envelope'],
    ['salt missing', without('salt'), 'salt'],
    ['size_bytes missing', without('size_bytes'), 'size_bytes'],
    ['kind not text', set('kind', 'file'), 'kind'],
    ['kind not a string', set('kind', 1), 'kind'],
    ['envelope not base64', set('envelope', 'not base64!'), 'envelope'],
    ['envelope in base64url', set('envelope', 'ab-_'), 'envelope'],
    ['envelope unpadded', (body) => ({ ...body, envelope: String(body.envelope).replace(/=+$/, '') }), 'envelope'],
    ['envelope empty', (body) => ({ ...body, envelope: '', size_bytes: 1 }), 'envelope'],
    ['envelope over 256 KiB', envelopeOf(262144 + 3), 'envelope'],
    ['size_bytes not the decoded length', set('size_bytes', 63), 'size_bytes'],
    ['size_bytes 0', set('size_bytes', 0), 'size_bytes'],
    ['size_bytes over 256 KiB', set('size_bytes', 262145), 'size_bytes'],
    ['size_bytes fractional', set('size_bytes', 64.5), 'size_bytes'],
    ['size_bytes a string', set('size_bytes', '64'), 'size_bytes'],
    ['salt of 21 chars', set('salt', salt21), 'salt'],
    ['salt of 23 chars', set('salt', `${salt21}AA`), 'salt'],
    ['salt with a non-canonical last char', set('salt', `${salt21}B`), 'salt'],
    ['salt not base64url', set('salt', `${'A'.repeat(20)}+A`), 'salt'],
    ['salt padded', set('salt', `${'A'.repeat(20)}A=`), 'salt'],
    ['expires_in 59', set('expires_in', 59), 'expires_in'],
    ['expires_in over 30 days', set('expires_in', 30 * day + 1), 'expires_in'],
    ['expires_in fractional', set('expires_in', 3600.5), 'expires_in'],
    ['expires_in a string', set('expires_in', '3600'), 'expires_in'],
    ['max_views 0', set('max_views', 0), 'max_views'],
    ['max_views 101', set('max_views', 101), 'max_views'],
    ['max_views fractional', set('max_views', 1.5), 'max_views'],
    ['claim_verifier too short', set('claim_verifier', 'abc'), 'claim_verifier'],
    ['claim_verifier in hex', set('claim_verifier', 'a'.repeat(64)), 'claim_verifier'],
    ['claim_verifier non-canonical', set('claim_verifier', `${'A'.repeat(42)}B`), 'claim_verifier'],
    ['not_before not ISO', set('not_before', 'tomorrow'), 'not_before'],
    ['not_before without offset', set('not_before', '2030-01-01T00:00:00'), 'not_before'],
    ['not_before long after the default expiry', (body) => ({ ...body, not_before: later(2 * day)() }), 'not_before'],
    ['an unknown field', set('extra', 'x'), 'extra'],
  ])('refuses %s with 400 naming the field', async (_, change, field) => {
    const reply = await api.post('/v1/secrets', change(textSecretBody()));
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.errors.map((error: { path: string }) => error.path)).toContain(`body.${field}`);
  });

  it('refuses an envelope a byte over 256 KiB, whatever size_bytes says', async () => {
    for (const size of [262145, 262144]) {
      const reply = await api.post('/v1/secrets', { ...textSecretBody({}, 262145), size_bytes: size });
      expectProblem(reply, 400, 'invalid_request');
      expect(reply.body.errors.length).toBeGreaterThan(0);
    }
  });

  it('refuses a body that is a JSON array or null', async () => {
    for (const json of [[textSecretBody()], null]) {
      const reply = await api.call('POST', '/v1/secrets', { body: JSON.stringify(json), headers: { 'content-type': 'application/json' } });
      expectProblem(reply, 400, 'invalid_request');
      expect(reply.body.errors).toEqual([expect.objectContaining({ path: 'body' })]);
    }
  });

  it('refuses a body that is not JSON, and an empty body', async () => {
    for (const body of ['{"kind": "text",', '']) {
      const reply = await api.call('POST', '/v1/secrets', { body, headers: { 'content-type': 'application/json' } });
      expectProblem(reply, 400, 'invalid_json');
    }
  });

  it('refuses a body sent as text/plain', async () => {
    const reply = await api.call('POST', '/v1/secrets', {
      body: JSON.stringify(textSecretBody()),
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(reply, 400, 'unsupported_media_type');
  });
});

describe('GET /v1/secrets/{id}', () => {
  it('answers the metadata, never the envelope, and is not cacheable', async () => {
    const created = await create({ max_views: 2 });
    const reply = await metadata(created.id);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.body).toMatchObject({
      id: created.id,
      state: 'active',
      kind: 'text',
      size_bytes: 64,
      salt: created.sent.salt,
      max_views: 2,
      views_left: 2,
      requires_proof: false,
      not_before: null,
    });
    expect(Date.parse(reply.body.expires_at) - Date.parse(reply.body.created_at)).toBe(day * 1000);
    expect(reply.body).not.toHaveProperty('envelope');
    expect(JSON.stringify(reply.body)).not.toContain(created.sent.envelope.slice(0, 16));

    const guarded = await create({ claim_verifier: claimPair().verifier, link_verifier: linkPair().verifier });
    expect((await metadata(guarded.id)).body.requires_proof).toBe(true);
  });

  it('answers 404 for an unknown id and for a malformed one', async () => {
    for (const id of [unknownId(), 'sec_short', 'not-a-secret', `sec_${'A'.repeat(21)}B`]) {
      expectProblem(await metadata(id), 404, 'not_found');
    }
  });
});

describe('DELETE /v1/secrets/{id}', () => {
  it('revokes with the delete token: 204, state revoked, envelope gone, claim 410', async () => {
    const created = await create({ max_views: 3 });
    const reply = await revoke(created.id, created.delete_token);
    expect(reply.status).toBe(204);
    expect(reply.body).toBe('');
    expect((await metadata(created.id)).body.state).toBe('revoked');
    expect((await stored(created.id)).envelope).toBeUndefined();
    const claimed = await claim(created.id);
    expectProblem(claimed, 410, 'gone');
    expect(claimed.body.state).toBe('revoked');
    expect(await eventTypes(created.id)).toEqual(['secret.created', 'secret.revoked', 'secret.denied']);
  });

  it('answers 403 for a wrong token or none, and leaves the secret active', async () => {
    const created = await create();
    expectProblem(await revoke(created.id, `hdt_${randomBytes(32).toString('base64url')}`), 403, 'forbidden');
    expectProblem(await revoke(created.id, ''), 403, 'forbidden');
    expectProblem(await revoke(created.id), 403, 'forbidden');
    expect((await metadata(created.id)).body.state).toBe('active');
    expect(await eventTypes(created.id)).toEqual(['secret.created']);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of [unknownId(), 'nope']) expectProblem(await revoke(id, 'hdt_x'), 404, 'not_found');
  });
});

describe('POST /v1/secrets/{id}/claim', () => {
  it('returns the exact envelope and salt, not cacheable', async () => {
    const created = await create({ max_views: 2 });
    const reply = await claim(created.id);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.body).toMatchObject({
      id: created.id,
      kind: 'text',
      envelope: created.sent.envelope,
      salt: created.sent.salt,
      size_bytes: 64,
      views_left: 1,
    });
  });

  it('counts creations, claims and refused claims as metrics', async () => {
    const before = (['SecretsCreated', 'SecretsClaimed', 'ClaimsRefused'] as const).map((name) => runtime.metrics.total(name));
    const created = await create({ max_views: 2 });
    expect((await claim(created.id)).status).toBe(200);
    expect((await claim(created.id)).status).toBe(200);
    expect((await claim(created.id)).status).toBe(410);
    expect((await claim(unknownId())).status).toBe(404);
    const after = (['SecretsCreated', 'SecretsClaimed', 'ClaimsRefused'] as const).map((name) => runtime.metrics.total(name));
    expect(after.map((total, i) => total - before[i]!)).toEqual([1, 2, 2]);
  });

  it('asks for the claim token, refuses a wrong one, serves the right one', async () => {
    const { token, verifier } = claimPair();
    const link = linkPair();
    const created = await create({ claim_verifier: verifier, link_verifier: link.verifier });

    const none = await claim(created.id);
    expectProblem(none, 403, 'proof_required');
    expectProblem(await claim(created.id, { claim_token: 42 }), 403, 'proof_required');
    expect((await metadata(created.id)).body.views_left).toBe(1);

    const wrong = await claim(created.id, { claim_token: claimPair().token, link_token: link.token });
    expectProblem(wrong, 403, 'proof_refused');
    expect(wrong.body.attempts_left).toBe(4);

    const right = await claim(created.id, { claim_token: token });
    expect(right.status).toBe(200);
    expect(right.body.envelope).toBe(created.sent.envelope);
  });

  it('answers 425 with retry-after before not_before, and 200 after it', async () => {
    const notBefore = runtime.clock.now() + 300_000;
    const created = await create({ not_before: iso(notBefore) });
    const early = await claim(created.id);
    expectProblem(early, 425, 'too_early');
    const retryAfter = Number(early.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(290);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(early.body.not_before).toBe(iso(notBefore));
    expect((await metadata(created.id)).body.views_left).toBe(1);

    runtime.clock.advance(retryAfter);
    expect((await claim(created.id)).status).toBe(200);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of [unknownId(), 'sec_']) expectProblem(await claim(id), 404, 'not_found');
  });

  it('treats a body that is not a JSON object as no body', async () => {
    const bodies: Array<[string, string]> = [
      ['{not json', 'application/json'],
      ['[1,2]', 'application/json'],
      ['hello', 'text/plain'],
    ];
    for (const [body, contentType] of bodies) {
      const created = await create();
      const reply = await api.call('POST', `/v1/secrets/${created.id}/claim`, { body, headers: { 'content-type': contentType } });
      expect(reply.status).toBe(200);
      expect(reply.body.envelope).toBe(created.sent.envelope);
    }
  });
});
