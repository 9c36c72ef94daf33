import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  downloadFile,
  resumeUpload,
  TransferError,
  uploadFile,
  type Fetch,
  type UploadProgress,
  type UploadState,
} from '../../cli/transfer/index.ts';
import type { Runtime } from '../../local/runtime.ts';
import { s3Client } from '../../shared/adapters/s3Uploads.ts';
import { objectKeyOf } from '../../shared/domain/files/ports.ts';
import { fileLimits, secretLimits } from '../../shared/limits.ts';
import { EnvelopeError, fileOpener, filePrefixBytes } from '../../shared/envelope/index.ts';
import { apiClient, startTestRuntime, textSecretBody } from '../support/runtime.ts';

// The command-line client's file transfer (cli/transfer) against the local runtime and its S3:
// sealed as read, uploaded in presigned parts, resumed after a crash only where the parts S3
// kept are proved, downloaded by ranged GETs and opened chunk by chunk, byte for byte.

const MiB = 1024 * 1024;
let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let s3: S3Client;
let dir: string;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  s3 = s3Client({ bucket: runtime.s3.bucket, region: 'us-east-1', endpoint: runtime.s3.endpoint, credentials: runtime.s3.credentials });
  dir = mkdtempSync(join(tmpdir(), 'hushlink-transfer-'));
});
afterAll(async () => {
  s3?.destroy();
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let files = 0;
/** A file of `size` random bytes in the test's folder. */
function randomFile(size: number): { path: string; bytes: Buffer } {
  const path = join(dir, `plain-${++files}.bin`);
  const bytes = randomBytes(size);
  writeFileSync(path, bytes);
  return { path, bytes };
}
const outPath = () => join(dir, `out-${++files}.bin`);
const noPause = () => 0;
const base = () => ({ api: runtime.url, retryDelay: noPause });
const stateOf = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as UploadState;
const keyOf = (link: string) => new URL(link).hash.slice(1);
/** What S3 holds of an upload (ListParts), or null when it knows no such upload. */
const heldParts = (id: string, uploadId: string) => runtime.functions.files.uploads.parts(objectKeyOf(id), uploadId);
/** The files left in the test's folder that are not plaintexts or outputs: partial downloads, state files' temporaries. */
const leftovers = () => readdirSync(dir).filter((name) => name.startsWith('.') || name.endsWith('.tmp'));

/** A fetch that lets `fails` decide, per request, to throw as a dropped connection would. */
function failing(fails: (url: URL, init: RequestInit | undefined) => boolean): Fetch {
  return (input, init) =>
    fails(new URL(String(input)), init) ? Promise.reject(new TypeError('fetch failed')) : globalThis.fetch(input, init);
}
const partNumberOf = (url: URL) => Number(url.searchParams.get('partNumber') ?? 0);

describe('uploadFile and downloadFile', () => {
  it.each<[string, number, { chunkLog2?: number }]>([
    ['an empty file', 0, {}],
    ['a file under one chunk', 1000, {}],
    ['a file of exactly 3 chunks', 3 * 2 ** 16, { chunkLog2: 16 }],
    ['a file of exactly 9 chunks, over two parts', 9 * MiB, {}],
    ['a file of several parts', 20 * MiB + 12_345, {}],
  ])('round trip %s, byte for byte', async (_, size, options) => {
    const { path, bytes } = randomFile(size);
    const progress: UploadProgress[] = [];
    const uploaded = await uploadFile({
      ...base(),
      file: path,
      type: 'application/x-test',
      ...options,
      onProgress: (step) => progress.push(step),
    });
    expect(uploaded.link).toMatch(new RegExp(`^${runtime.url}/s/sec_[A-Za-z0-9_-]{22}#[A-Za-z0-9_-]{43}$`));
    expect(uploaded.link.startsWith(`${runtime.url}/s/${uploaded.id}#`)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ id: uploaded.id, sentBytes: uploaded.sizeBytes, totalBytes: uploaded.sizeBytes });
    expect((await api.get(`/v1/secrets/${uploaded.id}`)).body).toMatchObject({
      kind: 'file',
      state: 'active',
      size_bytes: uploaded.sizeBytes,
    });

    const to = outPath();
    const downloaded = await downloadFile({ link: uploaded.link, to, retryDelay: noPause });
    expect(downloaded).toEqual({ path: to, name: path.split('/').at(-1), type: 'application/x-test', size, viewsLeft: 0 });
    expect(readFileSync(to).equals(bytes)).toBe(true);
    expect(statSync(to).mode & 0o777).toBe(0o600);
    expect(leftovers()).toEqual([]);
  });

  it('takes a stream and its size as well as a path, and seals the name it is given', async () => {
    const bytes = randomBytes(9 * MiB + 5);
    // Pieces of odd sizes, so the client makes its chunks of them.
    async function* pieces() {
      for (let at = 0; at < bytes.length; at += 700_001) yield bytes.subarray(at, at + 700_001);
    }
    const uploaded = await uploadFile({
      ...base(),
      file: { stream: pieces(), size: bytes.length },
      name: 'report.pdf',
      type: 'application/pdf',
    });
    const to = outPath();
    expect(await downloadFile({ link: uploaded.link, to })).toMatchObject({
      name: 'report.pdf',
      type: 'application/pdf',
      size: bytes.length,
    });
    expect(readFileSync(to).equals(bytes)).toBe(true);
    async function* short() {
      yield bytes.subarray(0, 1000);
    }
    await expect(uploadFile({ ...base(), file: { stream: short(), size: 2000 } })).rejects.toMatchObject({ code: 'file_changed' });
  });

  it('with a passphrase: not claimed without it (the metadata says), refused with another (no view used), opened with it', async () => {
    const { path, bytes } = randomFile(100_000);
    const uploaded = await uploadFile({ ...base(), file: path, passphrase: 'blue whale', maxViews: 2 });
    await expect(downloadFile({ link: uploaded.link, to: outPath() })).rejects.toMatchObject({ code: 'passphrase_required' });
    const refused = await downloadFile({ link: uploaded.link, to: outPath(), passphrase: 'grey whale' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    // The first refusal it met: the download without a passphrase made no claim.
    expect(refused).toMatchObject({
      status: 403,
      code: 'proof_refused',
      problem: { attempts_left: secretLimits.refusedProofsBeforeLock - 1 },
    });
    expect((await api.get(`/v1/secrets/${uploaded.id}`)).body.views_left).toBe(2);
    const to = outPath();
    expect(await downloadFile({ link: uploaded.link, to, passphrase: 'blue whale' })).toMatchObject({ size: bytes.length, viewsLeft: 1 });
    expect(readFileSync(to).equals(bytes)).toBe(true);
    expect(leftovers()).toEqual([]);
  });

  it('names itself on every request, to the API and to S3 (x-hushlink-client: cli)', async () => {
    const { path } = randomFile(9 * MiB);
    const seen: Array<{ url: string; client: string | null }> = [];
    const recording: Fetch = (input, init) => {
      seen.push({ url: String(input), client: new Headers(init?.headers).get('x-hushlink-client') });
      return globalThis.fetch(input, init);
    };
    const uploaded = await uploadFile({ ...base(), file: path, fetch: recording });
    await downloadFile({ link: uploaded.link, to: outPath(), fetch: recording });
    expect(seen.some((request) => request.url.startsWith(runtime.s3.endpoint))).toBe(true);
    expect(seen.some((request) => request.url.startsWith(`${runtime.url}/v1/`))).toBe(true);
    expect(seen.filter((request) => request.client !== 'cli')).toEqual([]);
  });

  it('retries a failed part; a part failing 4 times fails the upload, which (no state file to resume it) is aborted', async () => {
    const { path, bytes } = randomFile(20 * MiB);
    let failures = 0;
    const onceOnPart2 = failing((url) => partNumberOf(url) === 2 && failures++ === 0);
    const uploaded = await uploadFile({ ...base(), file: path, fetch: onceOnPart2 });
    expect(failures).toBe(2);
    const to = outPath();
    await downloadFile({ link: uploaded.link, to });
    expect(readFileSync(to).equals(bytes)).toBe(true);

    let opened: UploadProgress | undefined;
    let tries = 0;
    const alwaysOnPart2 = failing((url) => partNumberOf(url) === 2 && ++tries > 0);
    const failed = await uploadFile({ ...base(), file: path, fetch: alwaysOnPart2, onProgress: (step) => (opened ??= step) }).catch(
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(TransferError);
    expect(failed).toMatchObject({ code: 'transfer_failed' });
    expect(tries).toBe(4);
    expect((await api.get(`/v1/secrets/${opened!.id}`)).body.state).toBe('revoked');
    expect(await heldParts(opened!.id, opened!.uploadId)).toBeNull();
  });

  it('aborted by its signal: the upload is aborted (S3 knows no such upload), the secret revoked, the state file removed', async () => {
    const { path } = randomFile(40 * MiB);
    const statePath = join(dir, 'aborted.state.json');
    const controller = new AbortController();
    let opened: UploadProgress | undefined;
    const aborted = await uploadFile({
      ...base(),
      file: path,
      statePath,
      signal: controller.signal,
      onProgress: (step) => {
        opened ??= step;
        if (step.sentBytes > 0) controller.abort();
      },
    }).catch((error: unknown) => error);
    expect(aborted).toMatchObject({ name: 'AbortError' });
    expect(opened!.sentBytes).toBe(0);
    expect(await heldParts(opened!.id, opened!.uploadId)).toBeNull();
    expect((await api.get(`/v1/secrets/${opened!.id}`)).body.state).toBe('revoked');
    expect(() => statSync(statePath)).toThrow();
    expect(leftovers()).toEqual([]);
  });
});

describe('resumeUpload', () => {
  /**
   * An upload from `path` whose connection "died" once S3 had its first `partsHeld` parts: its
   * PUTs of the others fail (after those, so the first failure stops no PUT of theirs), and it
   * fails with its state file kept, as a process that died would leave it.
   */
  async function interrupted(path: string, statePath: string, options: { partsHeld: number; passphrase?: string }) {
    let held = 0;
    let allHeld!: () => void;
    const heldDone = new Promise<void>((resolve) => (allHeld = resolve));
    if (options.partsHeld === 0) allHeld();
    const dead: Fetch = async (input, init) => {
      const partNumber = partNumberOf(new URL(String(input)));
      if (partNumber > options.partsHeld) {
        await heldDone;
        throw new TypeError('fetch failed');
      }
      const response = await globalThis.fetch(input, init);
      if (partNumber > 0 && response.ok && ++held === options.partsHeld) allHeld();
      return response;
    };
    const failed = await uploadFile({
      ...base(),
      file: path,
      statePath,
      fetch: dead,
      ...(options.passphrase ? { passphrase: options.passphrase } : {}),
    }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'transfer_failed' });
    const state = stateOf(statePath);
    expect(await heldParts(state.id, state.upload_id)).toHaveLength(options.partsHeld);
    return state;
  }

  it('after the uploading process was killed (SIGKILL), proves the parts S3 kept, sends the rest, and the file opens byte for byte', async () => {
    const { path, bytes } = randomFile(36 * MiB + 999);
    const statePath = join(dir, 'killed.state.json');
    // A child process uploads; its PUTs of parts 3 and later never answer, and once S3 has
    // parts 1 and 2 it is killed with everything else in flight.
    const script = join(dir, 'upload-child.mts');
    writeFileSync(
      script,
      `import { uploadFile } from ${JSON.stringify(fileURLToPath(new URL('../../cli/transfer/index.ts', import.meta.url)))};
const hang = (input: string | URL, init?: RequestInit) => new URL(String(input)).searchParams.has('partNumber') && Number(new URL(String(input)).searchParams.get('partNumber')) > 2 ? new Promise<Response>(() => {}) : fetch(input, init);
await uploadFile({ api: process.argv[2]!, file: process.argv[3]!, statePath: process.argv[4]!, fetch: hang, onProgress: (step) => process.send!(step) });
`,
    );
    const child = fork(script, [runtime.url, path, statePath], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const exited = new Promise((resolve) => child.once('exit', (_, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      let partsDone = 0;
      child.on('message', (step: UploadProgress) => {
        if (step.sentBytes > 0 && ++partsDone === 2) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the uploading child exited (${code}) before it was killed`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const state = stateOf(statePath);
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    expect(state).toMatchObject({ file: { path, size: bytes.length }, part_count: 5, passphrase: false });
    expect((await heldParts(state.id, state.upload_id))!.map((part) => part.partNumber)).toEqual([1, 2]);

    const resumed = await resumeUpload({ statePath, retryDelay: noPause });
    expect(resumed.resumed).toEqual({ reusedParts: 2 });
    expect(resumed.id).toBe(state.id);
    expect(keyOf(resumed.link)).toBe(state.key);
    expect(() => statSync(statePath)).toThrow();
    const to = outPath();
    await downloadFile({ link: resumed.link, to });
    expect(readFileSync(to).equals(bytes)).toBe(true);
  });

  it('with a passphrase, only when given it again, and the same one', async () => {
    const { path, bytes } = randomFile(17 * MiB);
    const statePath = join(dir, 'passphrase.state.json');
    await interrupted(path, statePath, { partsHeld: 1, passphrase: 'blue whale' });
    await expect(resumeUpload({ statePath })).rejects.toMatchObject({ code: 'passphrase_required' });
    await expect(resumeUpload({ statePath, passphrase: 'grey whale' })).rejects.toMatchObject({ code: 'wrong_passphrase' });
    const resumed = await resumeUpload({ statePath, passphrase: 'blue whale', retryDelay: noPause });
    expect(resumed.resumed).toEqual({ reusedParts: 1 });
    const to = outPath();
    await downloadFile({ link: resumed.link, to, passphrase: 'blue whale' });
    expect(readFileSync(to).equals(bytes)).toBe(true);
  });

  it('starts over with a new key when a kept part no longer seals to the bytes S3 has, though size and time are the same', async () => {
    const { path, bytes } = randomFile(17 * MiB);
    // A whole second, which utimes sets again exactly (a file's own time has nanoseconds).
    const mtime = Math.floor(Date.now() / 1000);
    utimesSync(path, mtime, mtime);
    const statePath = join(dir, 'changed.state.json');
    const state = await interrupted(path, statePath, { partsHeld: 2 });
    // The same size and modification time, one byte of part 2's plaintext changed.
    bytes[10 * MiB]! ^= 1;
    writeFileSync(path, bytes);
    utimesSync(path, mtime, mtime);
    expect(statSync(path).mtimeMs).toBe(state.file.mtime_ms);

    const resumed = await resumeUpload({ statePath, retryDelay: noPause });
    expect(resumed.resumed).toEqual({ startedOver: 'part 2 is not what the file seals to now' });
    expect(resumed.id).not.toBe(state.id);
    expect(keyOf(resumed.link)).not.toBe(state.key);
    expect(await heldParts(state.id, state.upload_id)).toBeNull();
    expect((await api.get(`/v1/secrets/${state.id}`)).body.state).toBe('revoked');
    const to = outPath();
    await downloadFile({ link: resumed.link, to });
    expect(readFileSync(to).equals(bytes)).toBe(true);
  });

  it('starts over when the file’s size or time changed, or S3 holds none of it; answers the link when the upload had completed', async () => {
    const { path, bytes } = randomFile(9 * MiB);
    const statePath = join(dir, 'others.state.json');
    let state = await interrupted(path, statePath, { partsHeld: 1 });
    utimesSync(path, new Date(), new Date(state.file.mtime_ms + 5000));
    expect((await resumeUpload({ statePath })).resumed).toEqual({ startedOver: 'the file’s size or modification time changed' });
    expect(await heldParts(state.id, state.upload_id)).toBeNull();

    state = await interrupted(path, statePath, { partsHeld: 0 });
    expect((await resumeUpload({ statePath })).resumed).toEqual({
      startedOver: 'S3 holds no part of it, so nothing proves the file unchanged',
    });

    // Completed, but the answer was lost with the process.
    const lostAnswer: Fetch = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      if (String(input).endsWith('/v1/files/multipart/complete')) throw new TypeError('fetch failed');
      return response;
    };
    await expect(uploadFile({ ...base(), file: path, statePath, fetch: lostAnswer })).rejects.toThrow('fetch failed');
    state = stateOf(statePath);
    const resumed = await resumeUpload({ statePath });
    expect(resumed).toMatchObject({ id: state.id, link: `${state.url_base}#${state.key}`, resumed: { reusedParts: 2 } });
    expect(() => statSync(statePath)).toThrow();
    const to = outPath();
    await downloadFile({ link: resumed.link, to });
    expect(readFileSync(to).equals(bytes)).toBe(true);
  });
});

describe('downloadFile refusing', () => {
  /** The stored envelope of a file secret, through the local S3 (as an attacker with the bucket would). */
  const objectOf = async (id: string) =>
    Buffer.from(
      await (await s3.send(new GetObjectCommand({ Bucket: runtime.s3.bucket, Key: objectKeyOf(id) }))).Body!.transformToByteArray(),
    );
  const replaceObject = (id: string, bytes: Uint8Array) =>
    s3.send(new PutObjectCommand({ Bucket: runtime.s3.bucket, Key: objectKeyOf(id), Body: bytes }));

  it('a tampered, truncated or reordered file: the envelope’s `tampered` error, and nothing left where it was written', async () => {
    const { path, bytes } = randomFile(40 * 2 ** 16 + 77);
    const uploaded = await uploadFile({ ...base(), file: path, chunkLog2: 16, maxViews: 5 });
    const envelope = await objectOf(uploaded.id);
    const opener = await fileOpener(envelope.subarray(0, filePrefixBytes), {
      key: keyOf(uploaded.link),
      salt: (await api.get(`/v1/secrets/${uploaded.id}`)).body.salt,
    });
    const chunk = (index: number) => opener.bodyOffset + index * opener.chunkCipherBytes;

    const flipped = Buffer.from(envelope);
    flipped[chunk(30) + 1000]! ^= 0x01;
    const reordered = Buffer.concat([
      envelope.subarray(0, chunk(5)),
      envelope.subarray(chunk(6), chunk(7)),
      envelope.subarray(chunk(5), chunk(6)),
      envelope.subarray(chunk(7)),
    ]);
    for (const [what, changed] of [
      ['a flipped bit', flipped],
      ['a cut-off end', envelope.subarray(0, envelope.length - 40)],
      ['the final chunk dropped', envelope.subarray(0, chunk(40))],
      ['two chunks swapped', reordered],
    ] as const) {
      await replaceObject(uploaded.id, changed);
      const to = outPath();
      const refused = await downloadFile({ link: uploaded.link, to, retryDelay: noPause }).catch((error: unknown) => error);
      expect(refused, what).toBeInstanceOf(EnvelopeError);
      expect(refused, what).toMatchObject({ code: 'tampered' });
      expect(() => statSync(to), what).toThrow();
      expect(leftovers(), what).toEqual([]);
    }
    await replaceObject(uploaded.id, envelope);
    const to = outPath();
    await downloadFile({ link: uploaded.link, to });
    expect(readFileSync(to).equals(bytes)).toBe(true);
  });

  it('near the end of its URL’s 15 minutes, the rest in one open-ended GET, opened as it streams; cut short there, `tampered`', async () => {
    const { path, bytes } = randomFile(20 * MiB + 3);
    const uploaded = await uploadFile({ ...base(), file: path, maxViews: 2 });
    const ranges: string[] = [];
    const recording: Fetch = (input, init) => {
      if (String(input).startsWith(runtime.s3.endpoint)) ranges.push(new Headers(init?.headers).get('range')!);
      return globalThis.fetch(input, init);
    };
    // The service's clock a URL's life behind: the claim says its URL ends now (S3 signs and checks by real time).
    runtime.clock.advance(-fileLimits.downloadUrlSeconds);
    try {
      const to = outPath();
      await downloadFile({ link: uploaded.link, to, fetch: recording });
      expect(readFileSync(to).equals(bytes)).toBe(true);
      expect(ranges).toHaveLength(2);
      expect(ranges[1]).toMatch(/^bytes=\d+-$/);

      const envelope = await objectOf(uploaded.id);
      await replaceObject(uploaded.id, envelope.subarray(0, envelope.length - 40));
      const cut = outPath();
      await expect(downloadFile({ link: uploaded.link, to: cut })).rejects.toMatchObject({ code: 'tampered' });
      expect(() => statSync(cut)).toThrow();
      expect(leftovers()).toEqual([]);
    } finally {
      runtime.clock.advance(fileLimits.downloadUrlSeconds);
    }
  });

  it('before claiming, so using no view: a target that exists, a text secret, a link without its key', async () => {
    const { path } = randomFile(10);
    const uploaded = await uploadFile({ ...base(), file: path });
    await expect(downloadFile({ link: uploaded.link, to: path })).rejects.toMatchObject({ code: 'exists' });
    await expect(downloadFile({ link: uploaded.link.split('#')[0]!, to: outPath() })).rejects.toMatchObject({ code: 'bad_link' });
    expect((await api.get(`/v1/secrets/${uploaded.id}`)).body.views_left).toBe(1);
    const text = await api.post('/v1/secrets', textSecretBody());
    await expect(
      downloadFile({ link: `${text.body.url_base}#${randomBytes(32).toString('base64url')}`, to: outPath() }),
    ).rejects.toMatchObject({ code: 'not_a_file' });
    expect((await api.get(`/v1/secrets/${text.body.id}`)).body.views_left).toBe(1);
  });
});
