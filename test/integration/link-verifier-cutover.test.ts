import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { secretEventsOf } from '../support/events.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, claimPair, linkPair, startTestRuntime, textSecretBody, type Reply } from '../support/runtime.ts';

/**
 * The cut-over of issue 26 (item 7): a secret made with a `claim_verifier` needs its
 * `link_verifier` too, so no new secret can be locked by its id alone. Secrets stored before,
 * with a claim verifier only, stay readable and keep the old rule until they expire.
 */

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const claim = (id: string, json?: unknown) => api.post(`/v1/secrets/${id}/claim`, json);
const fieldsNamed = (reply: Reply) => (reply.body.errors as Array<{ path: string }>).map((error) => error.path);

/** A secret as one stored before the cut-over: made with both verifiers, its link verifier then removed from the item. */
async function storedBeforeCutOver(overrides: Record<string, unknown>) {
  const created = await api.post('/v1/secrets', textSecretBody({ ...overrides, link_verifier: linkPair().verifier }));
  expect(created.status).toBe(201);
  const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  await db.send(new UpdateCommand({ TableName: runtime.config.TABLE_NAME, Key: { pk: `SECRET#${created.body.id}`, sk: 'SECRET' }, UpdateExpression: 'REMOVE link_verifier' }));
  db.destroy();
  expect((await runtime.stores.secrets.get(created.body.id))?.linkVerifier).toBeUndefined();
  return created.body as { id: string };
}

describe('new secrets', () => {
  it('refuses a claim_verifier without a link_verifier (400 naming body.link_verifier), for a text and a file', async () => {
    const text = await api.post('/v1/secrets', textSecretBody({ claim_verifier: claimPair().verifier }));
    expectProblem(text, 400, 'invalid_request');
    expect(fieldsNamed(text)).toEqual(['body.link_verifier']);
    const file = await api.post('/v1/files/multipart', { size_bytes: 1000, salt: randomBytes(16).toString('base64url'), claim_verifier: claimPair().verifier });
    expectProblem(file, 400, 'invalid_request');
    expect(fieldsNamed(file)).toEqual(['body.link_verifier']);
    // With both, or with neither, as before.
    expect((await api.post('/v1/secrets', textSecretBody({ claim_verifier: claimPair().verifier, link_verifier: linkPair().verifier }))).status).toBe(201);
    expect((await api.post('/v1/secrets', textSecretBody())).status).toBe(201);
    expect((await api.post('/v1/files/multipart', { size_bytes: 1000, salt: randomBytes(16).toString('base64url'), claim_verifier: claimPair().verifier, link_verifier: linkPair().verifier })).status).toBe(200);
  });

  it('are locked only through the link proof: made-up tokens by the id alone never count', async () => {
    const proof = claimPair();
    const link = linkPair();
    const created = await api.post('/v1/secrets', textSecretBody({ claim_verifier: proof.verifier, link_verifier: link.verifier, max_views: 5 }));
    for (let attempt = 0; attempt < 10; attempt++) expectProblem(await claim(created.body.id, { claim_token: claimPair().token }), 403, 'proof_refused');
    expect((await api.get(`/v1/secrets/${created.body.id}`)).body.state).toBe('active');
    for (let attempt = 0; attempt < 4; attempt++) expect((await claim(created.body.id, { claim_token: claimPair().token, link_token: link.token })).body.attempts_left).toBe(4 - attempt);
    expect((await claim(created.body.id, { claim_token: proof.token, link_token: link.token })).status).toBe(200);
  });

  it('curl mode’s carry both verifiers', async () => {
    const curled = await api.call('POST', '/v1/curl', { body: 'a line', headers: { 'content-type': 'text/plain', accept: 'application/json' } });
    expect(curled.status).toBe(200);
    const stored = await runtime.stores.secrets.get((curled.body as { id: string }).id);
    expect(stored?.claimVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stored?.linkVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('secrets stored before the cut-over (a claim verifier, no link verifier)', () => {
  it('stay readable: the metadata answers and the right token claims', async () => {
    const proof = claimPair();
    const old = await storedBeforeCutOver({ claim_verifier: proof.verifier });
    expect((await api.get(`/v1/secrets/${old.id}`)).body).toMatchObject({ state: 'active', requires_proof: true });
    expect((await claim(old.id, { claim_token: proof.token })).status).toBe(200);
  });

  it('keep the old rule until they expire: the 5th refused token locks (423), then the right token is 423 too', async () => {
    const proof = claimPair();
    const old = await storedBeforeCutOver({ claim_verifier: proof.verifier, max_views: 5 });
    const answers: Array<[number, unknown]> = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const reply = await claim(old.id, { claim_token: claimPair().token });
      answers.push([reply.status, reply.body.attempts_left]);
    }
    expect(answers).toEqual([[403, 4], [403, 3], [403, 2], [403, 1], [423, undefined]]);
    expectProblem(await claim(old.id, { claim_token: proof.token }), 423, 'locked');
    expect((await runtime.stores.secrets.get(old.id))?.envelope).toBeUndefined();
    const types = (await secretEventsOf(runtime, old.id)).map((event) => event.type);
    expect(types.filter((type) => type === 'secret.locked')).toHaveLength(1);
    expect(types).not.toContain('secret.viewed');
  });
});
