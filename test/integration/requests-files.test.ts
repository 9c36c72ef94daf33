import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { objectKeyOf } from '../../shared/domain/files/ports.ts';
import { keptSignedIn, newEmail } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, generousRateLimits, startTestRuntime } from '../support/runtime.ts';

// File responses to request links: the files routes with request_id, enc and wrapped_key. The
// envelope bytes are random (the service reads only an envelope v1's header, and random bytes
// are another format); the crypto is the clients' (test/unit/request-link.test.ts, the e2e). The
// use cases' rules (which links take a file, the requester's plan, that a response is no secret
// of its own, how long it is kept): test/usecases/requests-files.test.ts.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let requester: ReturnType<typeof keptSignedIn>;
beforeAll(async () => {
  runtime = await startTestRuntime({ rateLimits: generousRateLimits });
  api = apiClient(runtime);
  requester = keptSignedIn(runtime, newEmail('file-requester'));
});
afterAll(() => runtime?.stop());
beforeEach(() => requester.ensure());

const b64url = (bytes: number) => randomBytes(bytes).toString('base64url');

async function createLink(overrides: Record<string, unknown> = {}): Promise<string> {
  const reply = await api.post('/v1/requests', { public_key: b64url(32), kem: 'x25519', ...overrides }, requester.auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id as string;
}

const wrapped = () => ({ enc: b64url(32), wrapped_key: b64url(48) });

interface Opened {
  id: string;
  upload_id: string;
  delete_token: string;
  part_size: number;
  parts: Array<{ part_number: number; url: string }>;
}

async function openResponse(requestId: string, size: number, overrides: Record<string, unknown> = {}) {
  return api.post('/v1/files/multipart', { size_bytes: size, salt: b64url(16), request_id: requestId, ...wrapped(), ...overrides });
}

/** Uploads `bytes` in the upload's parts and completes it. */
async function uploadAndComplete(opened: Opened, bytes: Uint8Array) {
  const parts = [];
  for (const part of opened.parts) {
    const slice = bytes.subarray((part.part_number - 1) * opened.part_size, part.part_number * opened.part_size);
    const response = await fetch(part.url, { method: 'PUT', body: new Blob([slice as Uint8Array<ArrayBuffer>]) });
    expect(response.status).toBe(200);
    parts.push({ part_number: part.part_number, etag: response.headers.get('etag')! });
  }
  return api.post('/v1/files/multipart/complete', { id: opened.id, upload_id: opened.upload_id, delete_token: opened.delete_token, parts });
}

const objectExists = async (secretId: string) => (await runtime.functions.files.uploads.size(objectKeyOf(secretId))) !== null;
const inboxOf = async (requestId: string) =>
  (await api.get(`/v1/requests/${requestId}/inbox`, requester.auth)).body.items as Array<Record<string, any>>;

describe('a file response', () => {
  it('joins the inbox when its upload completes, counted then, with a download of exactly its bytes', async () => {
    const requestId = await createLink({ max_responses: 2 });
    const bytes = randomBytes(9 * 1024 * 1024 + 5);
    const body = { size_bytes: bytes.length, salt: b64url(16), request_id: requestId, ...wrapped() };
    const opened = await api.post('/v1/files/multipart', body);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    // Uploading is not responding: nothing counted, nothing in the inbox yet.
    expect((await api.get(`/v1/requests/${requestId}`)).body.responses_left).toBe(2);
    expect(await inboxOf(requestId)).toEqual([]);

    const completed = await uploadAndComplete(opened.body, bytes);
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect((await api.get(`/v1/requests/${requestId}`)).body.responses_left).toBe(1);
    const [item] = await inboxOf(requestId);
    expect(item).toMatchObject({
      kind: 'file',
      salt: body.salt,
      size_bytes: bytes.length,
      enc: body.enc,
      wrapped_key: body.wrapped_key,
      download: { url: expect.any(String), expires_at: expect.any(String) },
    });
    expect(item).not.toHaveProperty('envelope');
    const range = await fetch(item!.download.url, { headers: { range: `bytes=0-${bytes.length - 1}` } });
    expect(Buffer.from(await range.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it.each<[string, Record<string, unknown>]>([
    ['request_id without the wrapped key', { enc: undefined, wrapped_key: undefined }],
    ['recipients beside request_id', { recipients: [{ label: 'a' }] }],
  ])('answers 400 for %s', async (_, overrides) => {
    const requestId = await createLink();
    expectProblem(await openResponse(requestId, 1000, overrides), 400, 'invalid_request');
  });

  it('aborted, or never completed (revoked after a day), counts nothing and leaves no parts', async () => {
    const requestId = await createLink({ max_responses: 3 });
    const aborted = (await openResponse(requestId, 1000)).body as Opened;
    const ref = { id: aborted.id, upload_id: aborted.upload_id, delete_token: aborted.delete_token };
    expect((await api.post('/v1/files/multipart/abort', ref)).body).toEqual({ id: aborted.id, state: 'revoked' });
    const stale = (await openResponse(requestId, 1000)).body as Opened;
    runtime.clock.advance(24 * 3600 + 1);
    await runtime.scheduler.run('revoke-stale-uploads');
    await runtime.drainWork();
    await requester.ensure();
    expect(await runtime.functions.files.uploads.parts(objectKeyOf(stale.id), stale.upload_id)).toBeNull();
    expect((await api.get(`/v1/requests/${requestId}`)).body.responses_left).toBe(3);
    expect(await inboxOf(requestId)).toEqual([]);
  });

  it('completed after the link filled up: 409 request_full, and no object is kept', async () => {
    const requestId = await createLink({ max_responses: 1 });
    const first = (await openResponse(requestId, 1000)).body as Opened;
    const second = (await openResponse(requestId, 1000)).body as Opened;
    expect((await uploadAndComplete(first, randomBytes(1000))).status).toBe(200);
    const late = await uploadAndComplete(second, randomBytes(1000));
    expectProblem(late, 409, 'conflict');
    expect(late.body.reason).toBe('request_full');
    expect(await objectExists(second.id)).toBe(false);
    expect(await inboxOf(requestId)).toHaveLength(1);
  });
});
