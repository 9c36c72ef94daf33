import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { downloadFile, TransferError, uploadFile } from '../../cli/transfer/index.ts';
import { objectKeyOf } from '../../shared/domain/files/ports.ts';
import { newEmail, signIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';

/**
 * A large upload's completion in the background (issue 28) on the local runtime, s3rver and
 * DynamoDB Local: `POST /v1/files/multipart/complete` answers 202 `completing`, the secret's
 * metadata says pending, and the `complete-uploads` schedule completes it in s3rver. Uploads
 * over 8 MiB count as large here (`INLINE_COMPLETION_BYTES`), so two parts make one. S3 taking
 * minutes, retries and giving up: test/usecases/files-completions.test.ts.
 */

const MiB = 1024 * 1024;
let runtime: Runtime;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  runtime = await startTestRuntime({ env: { INLINE_COMPLETION_BYTES: String(8 * MiB) } });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

interface Opened {
  id: string;
  upload_id: string;
  delete_token: string;
  part_size: number;
  parts: Array<{ part_number: number; url: string }>;
}

/** Opens an upload of `size` random bytes and PUTs every part; the reference, the parts to complete with, and the bytes. */
async function uploaded(size: number) {
  const envelope = randomBytes(size);
  const opened = (await api.post('/v1/files/multipart', { size_bytes: size, salt: 'A'.repeat(22) })).body as Opened;
  const parts: Array<{ part_number: number; etag: string }> = [];
  for (const part of opened.parts) {
    const slice = envelope.subarray((part.part_number - 1) * opened.part_size, part.part_number * opened.part_size);
    const put = await fetch(part.url, { method: 'PUT', body: new Blob([slice]) });
    expect(put.status).toBe(200);
    parts.push({ part_number: part.part_number, etag: put.headers.get('etag')! });
  }
  const ref = { id: opened.id, upload_id: opened.upload_id, delete_token: opened.delete_token };
  return { envelope, ref, parts, complete: () => api.post('/v1/files/multipart/complete', { ...ref, parts }) };
}

/** `probe`'s first truthy answer, asked every 25 ms; fails the test after `ms`. */
async function within<T>(ms: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const answer = await probe();
    if (answer) return answer;
    if (Date.now() > until) throw new Error(`nothing after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const stateOf = async (id: string) => (await api.get(`/v1/secrets/${id}`)).body.state as string;
const objectExists = async (id: string) => (await runtime.functions.files.uploads.size(objectKeyOf(id))) !== null;

describe('completing a large upload', () => {
  it('answers 202 completing, the secret pending until the schedule completes it in S3; then a claim downloads every byte', async () => {
    const upload = await uploaded(9 * MiB);
    const accepted = await upload.complete();
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ id: upload.ref.id, state: 'completing', size_bytes: 9 * MiB });
    // Asked again (a client retrying), and in parallel: the same answer, one completion.
    const again = await Promise.all([upload.complete(), upload.complete()]);
    expect(again.map((reply) => [reply.status, reply.body.state])).toEqual([
      [202, 'completing'],
      [202, 'completing'],
    ]);
    expect(await stateOf(upload.ref.id)).toBe('pending');
    expect(await objectExists(upload.ref.id)).toBe(false);

    await runtime.scheduler.run('complete-uploads');
    expect(await stateOf(upload.ref.id)).toBe('active');
    // Completed: asking again answers active (how a client waits on it).
    expect(await upload.complete()).toMatchObject({ status: 200, body: { id: upload.ref.id, state: 'active', size_bytes: 9 * MiB } });
    const claimed = await api.post(`/v1/secrets/${upload.ref.id}/claim`);
    expect(claimed.status).toBe(200);
    const download = await fetch(claimed.body.download.url);
    expect(Buffer.from(await download.arrayBuffer()).equals(upload.envelope)).toBe(true);
  });

  it('completes a small upload inside the request, as before', async () => {
    const upload = await uploaded(MiB);
    const completed = await upload.complete();
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({ id: upload.ref.id, state: 'active', size_bytes: MiB });
  });

  it('refuses a wrong ETag at once (409), and gives way to an abort while completing: nothing is left in S3', async () => {
    const upload = await uploaded(9 * MiB);
    const wrong = await api.post('/v1/files/multipart/complete', {
      ...upload.ref,
      parts: upload.parts.map((part, i) => (i === 0 ? { ...part, etag: '"0123456789abcdef0123456789abcdef"' } : part)),
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body.reason).toBe('mismatched_part');
    expect((await upload.complete()).status).toBe(202);
    expect((await api.post('/v1/files/multipart/abort', upload.ref)).status).toBe(200);
    await runtime.scheduler.run('complete-uploads');
    expect(await stateOf(upload.ref.id)).toBe('revoked');
    expect(await objectExists(upload.ref.id)).toBe(false);
    expect(await runtime.functions.files.uploads.parts(objectKeyOf(upload.ref.id), upload.ref.upload_id)).toBeNull();
  });

  it('makes the CLI wait until the file is completed, so the link it gives works; a completion refused is its error', async () => {
    const plaintext = randomBytes(9 * MiB);
    const waiting = uploadFile({
      api: runtime.url,
      file: {
        stream: (async function* () {
          yield plaintext;
        })(),
        size: plaintext.length,
      },
      retryDelay: () => 0,
      // Bounded, so a completion that never comes fails the test rather than hang it.
      completionPollMs: 20,
      completionWaitMs: 60_000,
    });
    let settled = false;
    void waiting.then(
      () => (settled = true),
      () => (settled = true),
    );
    // The schedule runs (every minute, on npm start's timers) until the CLI has its answer.
    await within(60_000, async () => {
      await runtime.scheduler.run('complete-uploads');
      return settled;
    });
    const uploaded = await waiting;
    expect(await stateOf(uploaded.id)).toBe('active');
    const to = join(tmpdir(), `hushlink-completing-${process.pid}`);
    try {
      const downloaded = await downloadFile({ link: uploaded.link, to, retryDelay: () => 0, overwrite: true });
      expect(downloaded.size).toBe(plaintext.length);
      expect(readFileSync(to).equals(plaintext)).toBe(true);
    } finally {
      rmSync(to, { force: true });
    }

    // Aborted by someone else while it completes: the CLI says the file was not kept.
    const aborting = uploadFile({
      api: runtime.url,
      file: {
        stream: (async function* () {
          yield plaintext;
        })(),
        size: plaintext.length,
      },
      retryDelay: () => 0,
      // Bounded, so a completion that never comes fails the test rather than hang it.
      completionPollMs: 20,
      completionWaitMs: 60_000,
      onProgress: () => {},
    });
    const secretId = await within(
      60_000,
      async () => (await runtime.functions.files.secrets.dueCompletions(runtime.clock.now() + 60_000, 10))[0],
    );
    const secret = (await runtime.functions.files.secrets.get(secretId))!;
    await runtime.functions.files.secrets.end(secretId, {
      state: 'revoked',
      now: runtime.clock.now(),
      event: { id: `evt_${secretId}`, type: 'secret.revoked', at: runtime.clock.now() },
      tombstoneUntil: runtime.clock.now() + 3_600_000,
    });
    expect(secret.state).toBe('pending');
    await expect(aborting).rejects.toBeInstanceOf(TransferError);
    await expect(aborting).rejects.toMatchObject({ code: 'completion_failed' });
  });

  it('completes a large response to a request link the same way: the uploader waits by asking again, then it is in the inbox', async () => {
    const requester = await signIn(runtime, newEmail('completing-requester'));
    const b64url = (bytes: number) => randomBytes(bytes).toString('base64url');
    const link = await api.post('/v1/requests', { public_key: b64url(32), kem: 'x25519' }, requester.auth);
    expect(link.status).toBe(201);
    const requestId = link.body.id as string;
    const bytes = randomBytes(9 * MiB);
    const opened = (
      await api.post('/v1/files/multipart', {
        size_bytes: bytes.length,
        salt: b64url(16),
        request_id: requestId,
        enc: b64url(32),
        wrapped_key: b64url(48),
      })
    ).body as Opened;
    const parts: Array<{ part_number: number; etag: string }> = [];
    for (const part of opened.parts) {
      const slice = bytes.subarray((part.part_number - 1) * opened.part_size, part.part_number * opened.part_size);
      parts.push({
        part_number: part.part_number,
        etag: (await fetch(part.url, { method: 'PUT', body: new Blob([slice]) })).headers.get('etag')!,
      });
    }
    const complete = () =>
      api.post('/v1/files/multipart/complete', { id: opened.id, upload_id: opened.upload_id, delete_token: opened.delete_token, parts });
    expect(await complete()).toMatchObject({ status: 202, body: { state: 'completing' } });
    // A response has no metadata of its own to read: asking again is how its uploader waits.
    expect((await api.get(`/v1/secrets/${opened.id}`)).status).toBe(404);
    expect(await complete()).toMatchObject({ status: 202, body: { state: 'completing' } });
    expect((await api.get(`/v1/requests/${requestId}/inbox`, requester.auth)).body.items).toEqual([]);
    await runtime.scheduler.run('complete-uploads');
    expect(await complete()).toMatchObject({ status: 200, body: { state: 'active', size_bytes: bytes.length } });
    const [item] = (await api.get(`/v1/requests/${requestId}/inbox`, requester.auth)).body.items;
    const download = await fetch(item.download.url, { headers: { range: `bytes=0-${bytes.length - 1}` } });
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });
});
