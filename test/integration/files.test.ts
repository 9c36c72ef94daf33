import { randomBytes } from 'node:crypto';
import { UploadPartCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { s3Client } from '../../shared/adapters/s3Uploads.ts';
import { objectKeyOf } from '../../shared/domain/files/ports.ts';
import { fileLimits } from '../../shared/limits.ts';
import { apiClient, generousRateLimits, type Reply, startTestRuntime, toFreshWindow } from '../support/runtime.ts';
import { expectProblem } from '../support/problem.ts';

// Files (interface §4.2) against the local S3: uploads by presigned multipart straight to the
// bucket, completion checked by S3 and by the object's measured size, the claim answered with a
// presigned download, and the object's end with its secret's. The envelope bytes are mostly
// random here: the service reads only the header of an envelope in our format (sealed files: the
// CLI's in file-transfer.test.ts), and random bytes are another format, stored as they are. The
// use cases' rules (how a file is cut, the plan's limit, the header's checks, what a file's end
// does to its object): test/usecases/files-*.test.ts.

const MiB = 1024 * 1024;
let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({ rateLimits: { ...generousRateLimits, file_upload: { perIp: { limit: 40, windowSeconds: 60 } } } });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const salt = () => randomBytes(16).toString('base64url');

interface Opened {
  id: string;
  upload_id: string;
  part_size: number;
  part_count: number;
  parts: Array<{ part_number: number; url: string }>;
  delete_token: string;
  url_base: string;
  expires_at: string;
  urls_expire_at: string;
}

async function open(sizeBytes: number, overrides: Record<string, unknown> = {}, auth?: Record<string, string>): Promise<Opened> {
  const reply = await api.post('/v1/files/multipart', { size_bytes: sizeBytes, salt: salt(), ...overrides }, auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body as Opened;
}

/** PUTs one part's bytes to its presigned URL, as a browser does; answers its ETag. */
async function putPart(url: string, bytes: Uint8Array): Promise<string> {
  const response = await fetch(url, { method: 'PUT', body: new Blob([bytes as Uint8Array<ArrayBuffer>]) });
  expect(response.status, await response.clone().text()).toBe(200);
  return response.headers.get('etag')!;
}

/** Uploads `envelope` in the parts an upload asked for (in any order), answers the parts for completion. */
async function upload(opened: Opened, envelope: Uint8Array, order: (numbers: number[]) => number[] = (numbers) => numbers) {
  const byNumber = new Map(opened.parts.map((part) => [part.part_number, part.url]));
  const etags = new Map<number, string>();
  for (const number of order([...byNumber.keys()])) {
    const slice = envelope.subarray((number - 1) * opened.part_size, number * opened.part_size);
    etags.set(number, await putPart(byNumber.get(number)!, slice));
  }
  return [...etags].map(([part_number, etag]) => ({ part_number, etag }));
}

/**
 * PUTs a part through a URL that does not sign its length, as one signed before part URLs did
 * (or any other way to S3): what completion must refuse, since S3 then stores any length.
 */
async function putUnsized(opened: Opened, partNumber: number, bytes: Uint8Array): Promise<string> {
  const { s3 } = runtime;
  const client = s3Client({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials });
  try {
    const command = new UploadPartCommand({
      Bucket: s3.bucket,
      Key: objectKeyOf(opened.id),
      UploadId: opened.upload_id,
      PartNumber: partNumber,
    });
    return await putPart(await getSignedUrl(client, command, { expiresIn: 600, signingDate: new Date(runtime.clock.now()) }), bytes);
  } finally {
    client.destroy();
  }
}

const ref = (opened: Opened) => ({ id: opened.id, upload_id: opened.upload_id, delete_token: opened.delete_token });
const complete = (opened: Opened, parts: Array<{ part_number: number; etag: string }>) =>
  api.post('/v1/files/multipart/complete', { ...ref(opened), parts });

/** A file secret, uploaded and active: its id, its bytes, its delete token. */
async function activeFile(sizeBytes: number, overrides: Record<string, unknown> = {}) {
  const envelope = randomBytes(sizeBytes);
  const opened = await open(sizeBytes, overrides);
  const completed = await complete(opened, await upload(opened, envelope));
  expect(completed.status, JSON.stringify(completed.body)).toBe(200);
  return { opened, envelope };
}

const objectExists = async (id: string) => (await runtime.functions.files.uploads.size(objectKeyOf(id))) !== null;

describe('POST /v1/files/multipart', () => {
  it('opens a pending secret and a multipart upload: whole chunks per part, at least 8 MiB, a presigned UploadPart URL for each', async () => {
    const size = 20 * MiB + 12_345;
    const opened = await open(size);
    const chunk = 2 ** 20 + 16;
    expect(opened.part_size % chunk).toBe(0);
    expect(opened.part_size).toBeGreaterThanOrEqual(8 * MiB);
    expect(opened.part_count).toBe(Math.ceil(size / opened.part_size));
    expect(opened.parts.map((part) => part.part_number)).toEqual(Array.from({ length: opened.part_count }, (_, i) => i + 1));
    for (const part of opened.parts) {
      const url = new URL(part.url);
      expect(url.searchParams.get('partNumber')).toBe(String(part.part_number));
      expect(url.searchParams.get('uploadId')).toBe(opened.upload_id);
      expect([...url.searchParams.keys()].filter((name) => name.toLowerCase().startsWith('x-amz-checksum'))).toEqual([]);
    }
    expect(opened.url_base).toBe(`${runtime.url}/s/${opened.id}`);
    expect(Date.parse(opened.urls_expire_at) - runtime.clock.now()).toBeLessThanOrEqual(fileLimits.partUrlSeconds * 1000);
    expect((await api.get(`/v1/secrets/${opened.id}`)).body).toMatchObject({ kind: 'file', state: 'pending', size_bytes: size });
  });

  it('answers 403 for a file over the plan (free: 100 MiB), or inside a workspace the caller is not in', async () => {
    const over = await api.post('/v1/files/multipart', { size_bytes: 100 * MiB + 1, salt: salt() });
    expectProblem(over, 403, 'forbidden');
    expect(over.body).toMatchObject({ reason: 'plan_limit', limit_bytes: 100 * MiB });
    expect((await api.post('/v1/files/multipart', { size_bytes: 100 * MiB, salt: salt() })).status).toBe(200);
    // Membership and the workspace's policy: workspaces-policy.test.ts.
    const outsider = await api.post('/v1/files/multipart', { size_bytes: 10, salt: salt(), workspace_id: 'wks_x' });
    expectProblem(outsider, 403, 'forbidden');
    expect(outsider.body.reason).toBe('not_a_member');
  });

  it.each<[string, Record<string, unknown>]>([
    ['no size', { salt: 'AAAAAAAAAAAAAAAAAAAAAA' }],
    ['a size of 0', { size_bytes: 0, salt: 'AAAAAAAAAAAAAAAAAAAAAA' }],
    ['a bad salt', { size_bytes: 10, salt: 'short' }],
    ['a chunk size out of range', { size_bytes: 10, salt: 'AAAAAAAAAAAAAAAAAAAAAA', chunk_log2: 30 }],
    ['an unknown field', { size_bytes: 10, salt: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'secret.pdf' }],
    ['a resume missing its token', { resume: { id: 'sec_x', upload_id: 'u' } }],
  ])('answers 400 for %s', async (_, body) => {
    expectProblem(await api.post('/v1/files/multipart', body), 400, 'invalid_request');
  });

  it('resumes: fresh URLs for the parts S3 does not have, and the parts it has; only with the delete token', async () => {
    const size = 17 * MiB;
    const envelope = randomBytes(size);
    const opened = await open(size);
    expect(opened.part_count).toBe(3);
    // Part 2 arrived before a crash.
    const etag2 = await putPart(opened.parts[1]!.url, envelope.subarray(opened.part_size, 2 * opened.part_size));
    const resumed = await api.post('/v1/files/multipart', { resume: ref(opened) });
    expect(resumed.status).toBe(200);
    expect(resumed.body.uploaded).toEqual([{ part_number: 2, etag: etag2, size: opened.part_size }]);
    expect(resumed.body.parts.map((part: { part_number: number }) => part.part_number)).toEqual([1, 3]);
    const parts = [
      { part_number: 1, etag: await putPart(resumed.body.parts[0].url, envelope.subarray(0, opened.part_size)) },
      { part_number: 2, etag: etag2 },
      { part_number: 3, etag: await putPart(resumed.body.parts[1].url, envelope.subarray(2 * opened.part_size)) },
    ];
    expect((await complete(opened, parts)).status).toBe(200);
    for (const wrong of [{ ...ref(opened), delete_token: 'hdt_nope' }, { ...ref(opened), upload_id: 'nope' }, ref(opened)]) {
      const refused = await api.post('/v1/files/multipart', { resume: wrong });
      expectProblem(refused, 403, 'forbidden');
      expect(refused.body.reason).toBe('no_pending_upload');
    }
  });

  it('answers 429 from the per-address limit', async () => {
    toFreshWindow(runtime.clock, 60);
    let reply: Reply | undefined;
    for (let i = 0; i < 45 && reply?.status !== 429; i++) reply = await api.post('/v1/files/multipart', { size_bytes: 10, salt: salt() });
    expectProblem(reply!, 429, 'rate_limited');
    runtime.clock.advance(60);
  });
});

describe('POST /v1/files/multipart/complete', () => {
  it('activates the secret once S3 has every part, uploaded in any order; the claim is a download of exactly its bytes', async () => {
    const size = 17 * MiB + 7;
    const envelope = randomBytes(size);
    const opened = await open(size);
    const parts = await upload(opened, envelope, (numbers) => [...numbers].reverse());
    const completed = await complete(opened, parts);
    expect(completed.body).toEqual({ id: opened.id, state: 'active', size_bytes: size });
    expect((await api.get(`/v1/secrets/${opened.id}`)).body).toMatchObject({
      kind: 'file',
      state: 'active',
      size_bytes: size,
      views_left: 1,
    });

    const claimed = await api.post(`/v1/secrets/${opened.id}/claim`);
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ id: opened.id, kind: 'file', size_bytes: size, views_left: 0 });
    expect(claimed.body).not.toHaveProperty('envelope');
    const url = claimed.body.download.url as string;
    // Ranged reads on chunk boundaries, as the clients download.
    const range = await fetch(url, { headers: { range: `bytes=${MiB}-${2 * MiB - 1}` } });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer()).equals(envelope.subarray(MiB, 2 * MiB))).toBe(true);
    const whole = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(whole.equals(envelope)).toBe(true);
  });

  it('answers 409 for a missing, duplicate or unknown part, an ETag S3 does not have, and an upload no longer pending', async () => {
    const size = 9 * MiB;
    const envelope = randomBytes(size);
    const opened = await open(size);
    const parts = await upload(opened, envelope);
    const reasons = async (list: Array<{ part_number: number; etag: string }>) => {
      const reply = await complete(opened, list);
      expectProblem(reply, 409, 'conflict');
      return reply.body.reason as string;
    };
    expect(await reasons([parts[0]!])).toBe('missing_part');
    expect(await reasons([parts[0]!, parts[0]!, parts[1]!])).toBe('duplicate_part');
    expect(await reasons([...parts, { part_number: 3, etag: parts[0]!.etag }])).toBe('mismatched_part');
    expect(await reasons([parts[0]!, { part_number: 2, etag: '"0123456789abcdef0123456789abcdef"' }])).toBe('mismatched_part');
    // None of that changed anything: the right list completes, once; asked again, the same answer.
    expect((await complete(opened, parts)).status).toBe(200);
    expect(await complete(opened, parts)).toMatchObject({ status: 200, body: { id: opened.id, state: 'active', size_bytes: size } });
    // Revoked, it is no longer pending.
    expect((await api.delete(`/v1/secrets/${opened.id}`, { 'x-delete-token': opened.delete_token })).status).toBe(204);
    expect(await reasons(parts)).toBe('not_pending');
  });

  it('signs each part URL for its part’s exact length: S3 refuses a longer or shorter body, and stores nothing of it', async () => {
    // The finding (issue 26): 150 MiB stored under the URL of a 1,000-byte upload's one part.
    const small = await open(1000);
    const url = new URL(small.parts[0]!.url);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;host');
    for (const length of [1001, 2 * MiB, 999]) {
      const response = await fetch(url, { method: 'PUT', body: new Blob([randomBytes(length)]) });
      expect(response.status, String(length)).toBe(403);
      expect(await response.text()).toContain('SignatureDoesNotMatch');
    }
    expect(await runtime.functions.files.uploads.parts(objectKeyOf(small.id), small.upload_id)).toEqual([]);
    expect((await fetch(url, { method: 'PUT', body: new Blob([randomBytes(1000)]) })).status).toBe(200);
    expect(await runtime.functions.files.uploads.parts(objectKeyOf(small.id), small.upload_id)).toEqual([
      { partNumber: 1, etag: expect.any(String), size: 1000 },
    ]);

    // Every part of a larger upload: part_size but the last, which holds the rest.
    const size = 17 * MiB + 7;
    const opened = await open(size);
    expect(opened.part_count).toBe(3);
    const envelope = randomBytes(size);
    for (const part of opened.parts) {
      const refused = await fetch(part.url, { method: 'PUT', body: new Blob([envelope.subarray(0, opened.part_size + 1)]) });
      expect(refused.status, `part ${part.part_number}`).toBe(403);
    }
    expect(await runtime.functions.files.uploads.parts(objectKeyOf(opened.id), opened.upload_id)).toEqual([]);
    expect((await complete(opened, await upload(opened, envelope))).status).toBe(200);
  });

  it('checks every part’s size at completion: one longer than its share is 413, a shorter one 409 size_mismatch; either ends the secret and its parts at once', async () => {
    // Parts sent by URLs that do not sign their length (as before issue 26), so S3 stored them.
    const declared = 9 * MiB;
    const longer = await open(declared);
    const envelope = randomBytes(declared + 1000);
    const parts = [
      { part_number: 1, etag: await putUnsized(longer, 1, envelope.subarray(0, longer.part_size)) },
      { part_number: 2, etag: await putUnsized(longer, 2, envelope.subarray(longer.part_size)) },
    ];
    const refused = await complete(longer, parts);
    expectProblem(refused, 413, 'payload_too_large');
    expect(refused.body).toMatchObject({
      part_number: 2,
      part_bytes: declared + 1000 - longer.part_size,
      expected_bytes: declared - longer.part_size,
    });
    expect((await api.get(`/v1/secrets/${longer.id}`)).body.state).toBe('revoked');
    // Its parts went with it, not with the stale-upload sweep a day later.
    expect(await runtime.functions.files.uploads.parts(objectKeyOf(longer.id), longer.upload_id)).toBeNull();
    await runtime.drainWork();
    expect(await objectExists(longer.id)).toBe(false);

    // A part other than the last shorter than part_size (S3's own floor is 5 MiB; this is 1 MiB),
    // the sizes adding up to the declared size all the same.
    const shorter = await open(declared);
    const shortParts = [
      { part_number: 1, etag: await putUnsized(shorter, 1, envelope.subarray(0, MiB)) },
      { part_number: 2, etag: await putUnsized(shorter, 2, envelope.subarray(MiB, declared)) },
    ];
    const short = await complete(shorter, shortParts);
    expectProblem(short, 409, 'conflict');
    expect(short.body).toMatchObject({ reason: 'size_mismatch', part_number: 1, part_bytes: MiB, expected_bytes: shorter.part_size });
    expect((await api.get(`/v1/secrets/${shorter.id}`)).body.state).toBe('revoked');
    expect(await runtime.functions.files.uploads.parts(objectKeyOf(shorter.id), shorter.upload_id)).toBeNull();
    // Ended: no second try completes it.
    expectProblem(await complete(shorter, shortParts), 409, 'conflict');
  });

  it.each<[string, Record<string, unknown>]>([
    ['no parts', { id: 'sec_x', upload_id: 'u', delete_token: 't', parts: [] }],
    ['part number 0', { id: 'sec_x', upload_id: 'u', delete_token: 't', parts: [{ part_number: 0, etag: 'e' }] }],
    ['no etag', { id: 'sec_x', upload_id: 'u', delete_token: 't', parts: [{ part_number: 1 }] }],
  ])('answers 400 for %s', async (_, body) => {
    expectProblem(await api.post('/v1/files/multipart/complete', body), 400, 'invalid_request');
  });

  it('of a completion and an abort racing, exactly one wins, and an aborted upload leaves no object', async () => {
    for (let round = 0; round < 4; round++) {
      const size = 9 * MiB;
      const opened = await open(size);
      const parts = await upload(opened, randomBytes(size));
      const [completed, aborted] = await Promise.all([complete(opened, parts), api.post('/v1/files/multipart/abort', ref(opened))]);
      expect(
        [completed.status, aborted.status].filter((status) => status === 200),
        `${completed.status} ${aborted.status}`,
      ).toHaveLength(1);
      await runtime.drainWork();
      const state = (await api.get(`/v1/secrets/${opened.id}`)).body.state;
      if (completed.status === 200) {
        expect(state).toBe('active');
        expect(await objectExists(opened.id)).toBe(true);
      } else {
        expect(state).toBe('revoked');
        expect(await objectExists(opened.id)).toBe(false);
      }
    }
  });
});

describe('POST /v1/files/multipart/abort', () => {
  it('revokes the secret and deletes the parts; then, and for anything unknown, 404', async () => {
    const size = 9 * MiB;
    const opened = await open(size);
    await putPart(opened.parts[0]!.url, randomBytes(opened.part_size));
    expect((await api.post('/v1/files/multipart/abort', ref(opened))).body).toEqual({ id: opened.id, state: 'revoked' });
    expect(await runtime.functions.files.uploads.parts(objectKeyOf(opened.id), opened.upload_id)).toBeNull();
    expect((await api.get(`/v1/secrets/${opened.id}`)).body.state).toBe('revoked');
    expectProblem(await api.post('/v1/files/multipart/abort', ref(opened)), 404, 'not_found');
    expectProblem(await api.post('/v1/files/multipart/abort', { ...ref(await open(10)), delete_token: 'hdt_wrong' }), 404, 'not_found');
    expectProblem(await api.post('/v1/files/multipart/abort', { id: 'nonsense', upload_id: 'u', delete_token: 't' }), 404, 'not_found');
    expectProblem(await api.post('/v1/files/multipart/abort', { id: 'sec_x' }), 400, 'invalid_request');
  });
});

describe('claiming a file', () => {
  it('20 parallel claims of a max_views=3 file issue exactly 3 download URLs', async () => {
    const { opened } = await activeFile(9 * MiB, { max_views: 3 });
    const replies = await Promise.all(Array.from({ length: 20 }, () => api.post(`/v1/secrets/${opened.id}/claim`)));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(3);
    expect(replies.filter((reply) => reply.status === 410)).toHaveLength(17);
    expect(replies.filter((reply) => reply.status === 200).every((reply) => reply.body.download.url.includes(objectKeyOf(opened.id)))).toBe(
      true,
    );
    expect((await api.get(`/v1/secrets/${opened.id}`)).body).toMatchObject({ state: 'burned', views_left: 0 });
  });

  it('a burned file’s object stays until its last download URL has expired (S3 refuses it then), then the sweep deletes it', async () => {
    const { opened } = await activeFile(9 * MiB);
    const claimed = await api.post(`/v1/secrets/${opened.id}/claim`);
    expect(claimed.status).toBe(200);
    await runtime.drainWork();
    expect((await api.get(`/v1/secrets/${opened.id}`)).body.state).toBe('burned');
    expect(await objectExists(opened.id)).toBe(true);
    expect((await fetch(claimed.body.download.url, { headers: { range: 'bytes=0-15' } })).status).toBe(206);
    await runtime.scheduler.run('purge-files');
    expect(await objectExists(opened.id)).toBe(true);
    runtime.clock.advance(fileLimits.downloadUrlSeconds + 1);
    const late = await fetch(claimed.body.download.url, { headers: { range: 'bytes=0-15' } });
    expect(late.status).toBe(403);
    expect(await late.text()).toContain('Request has expired');
    await runtime.scheduler.run('purge-files');
    expect(await objectExists(opened.id)).toBe(false);
  });

  it('revoked, expired or locked: the object is deleted at once', async () => {
    const revoked = await activeFile(9 * MiB);
    expect((await api.delete(`/v1/secrets/${revoked.opened.id}`, { 'x-delete-token': revoked.opened.delete_token })).status).toBe(204);
    const expiring = await activeFile(9 * MiB, { expires_in: 60 });
    runtime.clock.advance(61);
    await runtime.scheduler.run('expire-secrets');
    await runtime.drainWork();
    expect(await objectExists(revoked.opened.id)).toBe(false);
    expect(await objectExists(expiring.opened.id)).toBe(false);
  });
});
