import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { labelEnvelopeBytes } from '../../shared/domain/secrets/rules.ts';
import { keptSignedIn, newEmail, signIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime, textSecretBody, type Reply } from '../support/runtime.ts';

// Private labels (docs/adr/0180): sealed in the owner's browser, the server keeps the bytes and
// answers them to the owner alone — in their listing and their own read — never to a link's
// holder, a responder or anyone else. The bytes here are random: the server cannot tell.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let owner: ReturnType<typeof keptSignedIn>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  owner = keptSignedIn(runtime, newEmail('labeller'));
  await owner.ensure();
});
afterAll(() => runtime?.stop());

const sealedLabel = (bytes = 60) => randomBytes(bytes).toString('base64');
const itemOf = (reply: Reply, id: string) => (reply.body.items as Array<{ id: string }>).find((item) => item.id === id);
const pathsOf = (reply: Reply) => (reply.body.errors as Array<{ path: string }>).map((error) => error.path);

async function createText(overrides: Record<string, unknown>) {
  const reply = await api.post('/v1/secrets', textSecretBody(overrides), owner.auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body as { id: string };
}

describe('a secret’s label', () => {
  it('is kept as sent and answered to its owner in the listing and the read', async () => {
    const label = sealedLabel();
    const { id } = await createText({ label_envelope: label });
    expect(itemOf(await api.get('/v1/secrets', owner.auth), id)).toMatchObject({ id, label_envelope: label });
    expect((await api.get(`/v1/secrets/${id}`, owner.auth)).body.label_envelope).toBe(label);
  });

  it('reaches nobody else: an anonymous read, another account, a link holder’s read and claim', async () => {
    const label = sealedLabel();
    const { id } = await createText({ label_envelope: label, recipients: [{ label: 'Ana' }] });
    const recipientId = (await api.get(`/v1/secrets/${id}`, owner.auth)).body.recipients[0].recipient_id as string;
    const other = await signIn(runtime, newEmail('other'));
    const answers = [
      await api.get(`/v1/secrets/${id}`),
      await api.get(`/v1/secrets/${id}`, other.auth),
      await api.get(`/v1/secrets/${id}?recipient_id=${recipientId}`),
      await api.post(`/v1/secrets/${id}/claim`, { recipient_id: recipientId }),
    ];
    expect(answers.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    for (const reply of answers) {
      expect(reply.body).not.toHaveProperty('label_envelope');
      expect(JSON.stringify(reply.body)).not.toContain(label);
    }
    expect(itemOf(await api.get('/v1/secrets', other.auth), id)).toBeUndefined();
  });

  it('is absent from the answers when none was sent', async () => {
    const { id } = await createText({});
    expect(itemOf(await api.get('/v1/secrets', owner.auth), id)).not.toHaveProperty('label_envelope');
    expect((await api.get(`/v1/secrets/${id}`, owner.auth)).body).not.toHaveProperty('label_envelope');
  });

  it.each<[string, string]>([
    ['longer than the bound', randomBytes(labelEnvelopeBytes + 1).toString('base64')],
    ['not base64', 'not base64!'],
    ['empty', ''],
  ])('answers 400 with a problem for a label %s', async (_, label) => {
    const reply = await api.post('/v1/secrets', textSecretBody({ label_envelope: label }), owner.auth);
    expectProblem(reply, 400, 'invalid_request');
    expect(pathsOf(reply)).toContain('body.label_envelope');
  });

  it('takes a label of exactly the bound', async () => {
    const label = randomBytes(labelEnvelopeBytes).toString('base64');
    const { id } = await createText({ label_envelope: label });
    expect((await api.get(`/v1/secrets/${id}`, owner.auth)).body.label_envelope).toBe(label);
  });
});

describe('a file’s label', () => {
  const upload = (overrides: Record<string, unknown>) =>
    api.post('/v1/files/multipart', { size_bytes: 1024, salt: randomBytes(16).toString('base64url'), ...overrides }, owner.auth);

  it('is kept with the upload and answered to its owner alone', async () => {
    const label = sealedLabel();
    const reply = await upload({ label_envelope: label });
    // An upload's opening answers 200 (its secret is pending until the upload completes).
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { id } = reply.body as { id: string };
    expect(itemOf(await api.get('/v1/secrets', owner.auth), id)).toMatchObject({ kind: 'file', label_envelope: label });
    expect((await api.get(`/v1/secrets/${id}`)).body).not.toHaveProperty('label_envelope');
  });

  it('answers 400 for a label over the bound, and for one on a response to a request link', async () => {
    const over = await upload({ label_envelope: randomBytes(labelEnvelopeBytes + 3).toString('base64') });
    expectProblem(over, 400, 'invalid_request');
    expect(pathsOf(over)).toContain('body.label_envelope');
    const response = await upload({
      label_envelope: sealedLabel(),
      request_id: `rql_${randomBytes(16).toString('base64url')}`,
      enc: randomBytes(32).toString('base64url'),
      wrapped_key: randomBytes(48).toString('base64url'),
    });
    expectProblem(response, 400, 'invalid_request');
    expect(pathsOf(response)).toContain('body.label_envelope');
  });
});

describe('a request link’s label', () => {
  const publish = (overrides: Record<string, unknown>) =>
    api.post('/v1/requests', { public_key: randomBytes(32).toString('base64url'), kem: 'x25519', ...overrides }, owner.auth);

  it('is in its requester’s listing, never in what a responder reads', async () => {
    const label = sealedLabel();
    const labelled = await publish({ label_envelope: label });
    const plain = await publish({});
    expect([labelled.status, plain.status]).toEqual([201, 201]);
    const listing = await api.get('/v1/requests', owner.auth);
    expect(itemOf(listing, labelled.body.id)).toMatchObject({ label_envelope: label });
    expect(itemOf(listing, plain.body.id)).not.toHaveProperty('label_envelope');
    const responderRead = await api.get(`/v1/requests/${labelled.body.id}`);
    expect(responderRead.status).toBe(200);
    expect(responderRead.body).not.toHaveProperty('label_envelope');
    expect(JSON.stringify(responderRead.body)).not.toContain(label);
  });

  it('answers 400 with a problem for a label over the bound', async () => {
    const reply = await publish({ label_envelope: randomBytes(labelEnvelopeBytes + 1).toString('base64') });
    expectProblem(reply, 400, 'invalid_request');
    expect(pathsOf(reply)).toContain('body.label_envelope');
  });
});
