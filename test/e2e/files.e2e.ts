/**
 * Files end to end (issue 13) in Chromium against one local runtime and its local S3: a file
 * composed in the page (sealed chunk by chunk, parts PUT straight to the bucket), revealed and
 * saved in fresh browsers by each way the page saves (the File System Access API, the download
 * worker's stream, a Blob), bytes compared; a 512 MiB download with the page's JS heap sampled;
 * Cancel mid-upload; tampered, truncated and reordered objects; the plan's limit before and
 * after the server's refusal. Every request is recorded: no key, passphrase, file name or
 * plaintext reaches the server or the bucket.
 *
 * Saving through `showSaveFilePicker`: the test's init script answers the picker with a file
 * of the origin's private file system (OPFS). Everything after the picker is the page's real
 * path: `createWritable()`, a `write()` per decrypted chunk, `close()` or `abort()`, on a real
 * file on disk that the test reads back. (Headless Chromium cannot show the picker itself.)
 */
import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { objectKeyOf } from '../../shared/domain/files/ports.ts';
import { fileSealer } from '../../shared/envelope/index.ts';
import { fileLimits } from '../../shared/limits.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { latestCode, newEmail, signIn as signInOverApi } from '../support/accounts.ts';
import { apiClient } from '../support/runtime.ts';
import {
  findLeaks,
  guard as guardValue,
  Session,
  sessionMarker,
  settleTraffic,
  startRuntimeAndBrowser,
  stopRuntimeAndBrowser,
} from './harness.ts';

const MiB = 1024 * 1024;
let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
/** Keys, passphrases, file names and plaintext markers: no request may carry them. */
const guarded = new Map<string, string>();
const work = mkdtempSync(join(tmpdir(), 'hushlink-files-e2e-'));
/** What each long step took, printed at the end (the machine is shared: these are for a reader). */
const timings: string[] = [];

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
  api = apiClient(runtime);
}, 180_000);

afterAll(async () => {
  if (timings.length > 0) console.log(`files.e2e timings:\n  ${timings.join('\n  ')}`);
  await stopRuntimeAndBrowser(runtime, browser);
  rmSync(work, { recursive: true, force: true });
});

const guard = (label: string, value: string) => guardValue(guarded, label, value);

async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    timings.push(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

/**
 * The picker's stand-in: a file in the origin's private file system, named by the test. Its
 * writable is the browser's own; the calls the page makes on it are counted (`__writable`).
 */
const opfsPicker = `
  window.showSaveFilePicker = async (options) => {
    window.__suggestedName = options && options.suggestedName;
    const root = await navigator.storage.getDirectory();
    const handle = await root.getFileHandle('saved-by-e2e', { create: true });
    const record = (window.__writable = { writes: 0, closed: false, aborted: false });
    const createWritable = handle.createWritable.bind(handle);
    handle.createWritable = async (...args) => {
      const writable = await createWritable(...args);
      const [write, close, abort] = [writable.write.bind(writable), writable.close.bind(writable), writable.abort.bind(writable)];
      writable.write = (data) => (record.writes++, write(data));
      writable.close = () => ((record.closed = true), close());
      writable.abort = (reason) => ((record.aborted = true), abort(reason));
      return writable;
    };
    return handle;
  };`;

/** What the page did with the picker's writable. */
const writableCalls = (s: Session) =>
  s.page.evaluate(() => (window as unknown as { __writable: { writes: number; closed: boolean; aborted: boolean } }).__writable);
/** A browser without the File System Access API: the page saves through its download worker. */
const noPicker = 'delete window.showSaveFilePicker; delete Window.prototype.showSaveFilePicker;';
/** Nor service workers: the page keeps the file and saves it as a Blob (under 256 MB). */
const noWorker = `${noPicker} Object.defineProperty(Navigator.prototype, 'serviceWorker', { get: () => undefined });`;

const sessions: Session[] = [];
async function session(name: string, initScript?: string): Promise<Session> {
  const s = await Session.open(browser, name, { acceptDownloads: true });
  if (initScript) await s.context.addInitScript({ content: initScript });
  sessions.push(s);
  return s;
}

/** The checks every page must pass before its session is closed. */
async function finish(s: Session, storage: { local: number; session: number } = { local: 0, session: 0 }): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  expect(await s.storage(), `web storage of ${s.name}`).toEqual({ local: storage.local, session: storage.session, cookies: '' });
  expect(s.page.url(), 'the address bar keeps no fragment').not.toContain('#');
  await s.close();
}

/**
 * A file of random bytes with an ASCII marker at the start of every MiB: the marker in any
 * request would be plaintext leaving the page. Its name is guarded too (it is encrypted).
 */
function plaintextFile(size: number): { path: string; name: string; bytes: Buffer } {
  const name = `e2e-${randomUUID()}.bin`;
  const marker = `hushlink-e2e-plaintext-${randomUUID()}`;
  const bytes = randomBytes(size);
  for (let at = 0; at + marker.length <= size; at += MiB) bytes.write(marker, at, 'latin1');
  guard('file name', name);
  guard('plaintext marker', marker);
  const path = join(work, name);
  writeFileSync(path, bytes);
  return { path, name, bytes };
}

interface Composed {
  link: string;
  key: string;
  id: string;
}

interface Uploaded extends Composed {
  /** Where the first chunk starts in the stored object (header and meta block before it). */
  bodyOffset: number;
}

async function linkOf(s: Session): Promise<Composed> {
  const link = await s.page.inputValue('#share-link');
  const url = new URL(link);
  const key = url.hash.slice(1);
  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  guard('link key', key);
  guard('full link', link);
  return { link, key, id: url.pathname.split('/')[2]! };
}

/** Opens a link in a fresh session, reveals it, and waits for the file screen. */
async function revealFile(s: Session, link: string): Promise<void> {
  await s.page.goto(link);
  await s.ready('reveal');
  await s.page.waitForSelector('#screen-ready:not([hidden])');
  await s.page.click('#reveal-button');
  await s.page.waitForSelector('#screen-file:not([hidden])');
}

/** The OPFS file the picker stand-in handed out: its size and SHA-256 per `slice` bytes (read a slice at a time). */
function savedFile(s: Session, slice = 64 * MiB): Promise<{ size: number; hashes: string[]; suggested: string }> {
  return s.page.evaluate(async (sliceBytes) => {
    const root = await navigator.storage.getDirectory();
    const file = await (await root.getFileHandle('saved-by-e2e')).getFile();
    const hashes: string[] = [];
    for (let at = 0; at < file.size; at += sliceBytes) {
      const digest = await crypto.subtle.digest('SHA-256', await file.slice(at, at + sliceBytes).arrayBuffer());
      hashes.push([...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join(''));
    }
    return { size: file.size, hashes, suggested: (window as unknown as { __suggestedName: string }).__suggestedName };
  }, slice);
}

function sliceHashes(bytes: Uint8Array, slice = 64 * MiB): string[] {
  const hashes: string[] = [];
  for (let at = 0; at < bytes.length; at += slice)
    hashes.push(
      createHash('sha256')
        .update(bytes.subarray(at, at + slice))
        .digest('hex'),
    );
  return hashes;
}

async function setPlan(userId: string, plan: string): Promise<void> {
  const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  await db.send(
    new UpdateCommand({
      TableName: runtime.config.TABLE_NAME,
      Key: { pk: `USER#${userId}`, sk: 'PROFILE' },
      UpdateExpression: 'SET #plan = :plan',
      ExpressionAttributeNames: { '#plan': 'plan' },
      ExpressionAttributeValues: { ':plan': plan },
    }),
  );
  db.destroy();
}

/**
 * Uploads a file through the API as a Node client does (the envelope's own `fileSealer`, parts
 * PUT to their presigned URLs, one part in memory at a time): `chunk(i)` gives its plaintext.
 */
async function uploadThroughApi(
  size: number,
  chunk: (index: number, bytes: number) => Uint8Array,
  options: { maxViews?: number; headers?: Record<string, string> } = {},
): Promise<Uploaded> {
  const name = `e2e-${randomUUID()}.bin`;
  guard('file name', name);
  const sealer = await fileSealer({ meta: { name, type: 'application/octet-stream', size } });
  const opened = await api.post(
    '/v1/files/multipart',
    {
      size_bytes: sealer.envelopeSize(size),
      salt: sealer.salt,
      claim_verifier: sealer.claimVerifier,
      link_verifier: sealer.linkVerifier,
      max_views: options.maxViews ?? 1,
      chunk_log2: sealer.chunkLog2,
    },
    options.headers,
  );
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const { id, upload_id, delete_token, part_size, parts, url_base } = opened.body as {
    id: string;
    upload_id: string;
    delete_token: string;
    part_size: number;
    parts: Array<{ part_number: number; url: string }>;
    url_base: string;
  };
  const part = Buffer.alloc(part_size);
  let filled = 0;
  const etags: Array<{ part_number: number; etag: string }> = [];
  const flush = async () => {
    const number = etags.length + 1;
    const response = await fetch(parts[number - 1]!.url, { method: 'PUT', body: part.subarray(0, filled) });
    expect(response.status, await response.clone().text()).toBe(200);
    etags.push({ part_number: number, etag: response.headers.get('etag')! });
    filled = 0;
  };
  const append = async (bytes: Uint8Array) => {
    for (let offset = 0; offset < bytes.length; ) {
      const take = Math.min(part_size - filled, bytes.length - offset);
      part.set(bytes.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === part_size) await flush();
    }
  };
  await append(sealer.prefix);
  const count = sealer.chunkCount(size);
  for (let index = 0; index < count; index++) {
    const bytes = Math.min(sealer.chunkBytes, size - index * sealer.chunkBytes);
    await append(await sealer.encryptChunk(index, index === count - 1, chunk(index, bytes)));
  }
  if (filled > 0) await flush();
  const completed = await api.post('/v1/files/multipart/complete', { id, upload_id, delete_token, parts: etags });
  expect(completed.status, JSON.stringify(completed.body)).toBe(200);
  guard('link key', sealer.key);
  return { id, key: sealer.key, link: `${url_base}#${sealer.key}`, bodyOffset: sealer.prefix.length };
}

/** The stored object, read and rewritten through the local S3 as anyone with access to the bucket could. */
async function rewriteObject(id: string, change: (bytes: Buffer) => Buffer): Promise<void> {
  const s3 = new S3Client({
    endpoint: runtime.s3.endpoint,
    region: 'us-east-1',
    credentials: runtime.s3.credentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  try {
    const object = await s3.send(new GetObjectCommand({ Bucket: runtime.s3.bucket, Key: objectKeyOf(id) }));
    const bytes = Buffer.from(await object.Body!.transformToByteArray());
    await s3.send(new PutObjectCommand({ Bucket: runtime.s3.bucket, Key: objectKeyOf(id), Body: change(bytes) }));
  } finally {
    s3.destroy();
  }
}

describe('files in the web client', () => {
  it('serves the download worker, and lets the pages reach the files bucket and nothing else', async () => {
    const worker = await fetch(`${runtime.url}/download/worker.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toMatch(/^text\/javascript/);
    for (const path of ['/', '/s/sec_AAAAAAAAAAAAAAAAAAAAAA']) {
      const csp = (await fetch(`${runtime.url}${path}`)).headers.get('content-security-policy') ?? '';
      expect(csp).toContain(`connect-src 'self' ${runtime.s3.endpoint};`);
      expect(csp).toContain("default-src 'none'");
    }
  });

  it('round-trips a 64 MiB file: composed in the page, saved through the picker and through the download worker, bytes compared', async () => {
    const file = plaintextFile(64 * MiB + 12_345);
    const sender = await session('round-trip-sender');
    const composed = await timed('64 MiB upload through the page (seal, 9 parts, complete)', async () => {
      await sender.page.goto(`${runtime.url}/`);
      await sender.ready('compose');
      await sender.page.setInputFiles('#secret-file', file.path);
      expect(await sender.page.isVisible('#text-field'), 'a file replaces the text').toBe(false);
      expect(await sender.page.textContent('#file-chosen-text')).toContain(`${file.name} (64.0 MB)`);
      await sender.screenshot('files-compose-chosen');
      await sender.page.locator('#more-options').evaluate((details) => ((details as HTMLDetailsElement).open = true));
      await sender.page.fill('#max-views', '2');
      await sender.page.click('#create-button');
      await sender.page.waitForSelector('#upload:not([hidden])');
      await sender.page.waitForFunction(() => /MB of 64\.0 MB/.test(document.getElementById('upload-status')?.textContent ?? ''));
      await sender.screenshot('files-upload-progress');
      await sender.page.waitForSelector('#result:not([hidden])', { timeout: 120_000 });
      return linkOf(sender);
    });
    expect(await sender.page.textContent('#result-summary')).toContain(`The file “${file.name}” (64.0 MB), encrypted.`);
    await sender.screenshot('files-result');
    // What the page sent: an upload of the envelope's length, its parts to the bucket, the completion.
    const requests = sender.requests();
    const opened = requests.find((request) => request.method === 'POST' && request.url.endsWith('/v1/files/multipart'))!;
    const body = JSON.parse(opened.body) as Record<string, unknown>;
    expect(body).toMatchObject({ max_views: 2, expires_in: 86_400, chunk_log2: 20 });
    expect(body.size_bytes).toBeGreaterThan(file.bytes.length);
    const puts = requests.filter((request) => request.method === 'PUT');
    expect(puts.length).toBe(9);
    expect(puts.every((request) => request.url.startsWith(`${runtime.s3.endpoint}/`))).toBe(true);
    expect(requests.some((request) => request.url.endsWith('/v1/files/multipart/complete'))).toBe(true);
    expect((await api.get(`/v1/secrets/${composed.id}`)).body).toMatchObject({ kind: 'file', state: 'active' });
    await finish(sender);

    // The picker: chunks written to the chosen file as they are decrypted.
    const picker = await session('round-trip-picker', opfsPicker);
    await revealFile(picker, composed.link);
    expect(await picker.page.textContent('#file-name')).toBe(file.name);
    expect(await picker.page.textContent('#file-size')).toContain('64.0 MB (67,121,209 bytes)');
    await picker.screenshot('files-reveal-file');
    await timed('64 MiB download through the picker (ranged GETs, decrypt, write)', async () => {
      await picker.page.click('#save-file');
      await picker.page.waitForSelector('#file-saved:not([hidden])', { timeout: 120_000 });
    });
    expect(await picker.page.textContent('#file-saved')).toBe(`Saved “${file.name}” (64.0 MB).`);
    expect(await writableCalls(picker)).toEqual({ writes: 65, closed: true, aborted: false });
    await picker.screenshot('files-saved');
    const saved = await savedFile(picker, 16 * MiB);
    expect(saved.size).toBe(file.bytes.length);
    expect(saved.hashes).toEqual(sliceHashes(file.bytes, 16 * MiB));
    expect(saved.suggested).toBe(file.name);
    // Ranged reads of whole chunks, never the whole object at once.
    const gets = picker.requests().filter((request) => request.method === 'GET' && request.url.startsWith(runtime.s3.endpoint));
    expect(gets.length).toBeGreaterThan(2);
    expect(gets.every((request) => /^bytes=\d+-\d+$/.test(request.headers.range ?? ''))).toBe(true);
    await finish(picker);

    // The download worker: the browser's own download, fed as it asks.
    const worker = await session('round-trip-worker', noPicker);
    await revealFile(worker, composed.link);
    expect(await worker.page.textContent('#file-how')).toContain('your browser saves it as it goes');
    const download = await timed('64 MiB download through the download worker', async () => {
      const started = worker.page.waitForEvent('download');
      await worker.page.click('#save-file');
      const begun = await started;
      expect(await begun.failure()).toBeNull();
      return begun;
    });
    expect(download.suggestedFilename()).toBe(file.name);
    expect(readFileSync(await download.path()).equals(file.bytes)).toBe(true);
    await worker.page.waitForSelector('#file-saved:not([hidden])');
    expect(worker.page.url(), 'the page stayed where it was').toBe(composed.link.split('#')[0]);
    await finish(worker);
  }, 300_000);

  it('shares a file with a passphrase and a personal link, and saves it as a Blob where nothing else works', async () => {
    const file = plaintextFile(3 * MiB + 7);
    const passphrase = `pass ${randomUUID()}`;
    guard('passphrase', passphrase);
    const sender = await session('blob-sender');
    await sender.page.goto(`${runtime.url}/`);
    await sender.ready('compose');
    await sender.page.setInputFiles('#secret-file', file.path);
    await sender.page.click('#more-options summary');
    await sender.page.selectOption('#expiry', '3600');
    await sender.page.fill('#passphrase', passphrase);
    await sender.page.click('#add-recipient');
    await sender.page.locator('#recipient-list input[type="text"]').first().fill('Ana');
    await sender.page.click('#create-button');
    await sender.page.waitForSelector('#result:not([hidden])');
    const opened = JSON.parse(sender.requests().find((request) => request.url.endsWith('/v1/files/multipart'))!.body) as Record<
      string,
      unknown
    >;
    expect(opened).toMatchObject({ expires_in: 3600, max_views: 1, recipients: [{ label: 'Ana' }] });
    expect(await sender.page.isVisible('#result-passphrase')).toBe(true);
    const link = await sender.page.locator('#link-list input').first().inputValue();
    expect(link).toMatch(/\/s\/sec_[^/]+\/r\/rcp_[^#]+#[A-Za-z0-9_-]{43}$/);
    guard('link key', new URL(link).hash.slice(1));
    await finish(sender);

    const recipient = await session('blob-recipient', noWorker);
    await recipient.page.goto(link);
    await recipient.ready('reveal');
    await recipient.page.waitForSelector('#screen-ready:not([hidden])');
    expect(await recipient.page.textContent('#ready-title')).toBe('Someone shared a file with you');
    expect(await recipient.page.textContent('#fact-size')).toBe('about 3.0 MB');
    // A wrong passphrase is refused by the server with no view used.
    await recipient.page.fill('#passphrase', 'not it');
    await recipient.page.click('#reveal-button');
    await recipient.page.waitForSelector('#reveal-error:not([hidden])');
    await recipient.page.fill('#passphrase', passphrase);
    await recipient.page.click('#reveal-button');
    await recipient.page.waitForSelector('#screen-file:not([hidden])');
    expect(await recipient.page.textContent('#file-note')).toContain('This was the last view');
    expect(await recipient.page.textContent('#file-how')).toBe('It is downloaded and decrypted in this browser, then saved as a download.');
    const started = recipient.page.waitForEvent('download');
    await recipient.page.click('#save-file');
    const download = await started;
    expect(download.suggestedFilename()).toBe(file.name);
    expect(readFileSync(await download.path()).equals(file.bytes)).toBe(true);
    await finish(recipient);
  });

  it('takes a file dropped on the form, one at a time', async () => {
    const text = `dropped ${randomUUID()}`;
    guard('plaintext marker', text);
    const name = `dropped-${randomUUID()}.txt`;
    guard('file name', name);
    const s = await session('drop');
    await s.page.goto(`${runtime.url}/`);
    await s.ready('compose');
    const drop = async (files: Array<{ name: string; text: string }>) => {
      const dataTransfer = await s.page.evaluateHandle((list) => {
        const transfer = new DataTransfer();
        for (const entry of list) transfer.items.add(new File([entry.text], entry.name, { type: 'text/plain' }));
        return transfer;
      }, files);
      await s.page.dispatchEvent('#compose-form', 'dragover', { dataTransfer });
      expect(await s.page.getAttribute('#compose-form', 'class')).toContain('dropping');
      await s.page.dispatchEvent('#compose-form', 'drop', { dataTransfer });
    };
    await drop([
      { name: 'a.txt', text: 'a' },
      { name: 'b.txt', text: 'b' },
    ]);
    expect(await s.page.textContent('#file-limit')).toBe('One file at a time: put several in a zip archive first.');
    expect(await s.page.isVisible('#file-chosen')).toBe(false);
    await drop([{ name, text }]);
    await s.page.waitForSelector('#file-chosen:not([hidden])');
    expect(await s.page.textContent('#secret-file-label')).toBe('File');
    await s.page.click('#create-button');
    await s.page.waitForSelector('#result:not([hidden])');
    const { link } = await linkOf(s);
    await finish(s);

    const r = await session('drop-recipient', opfsPicker);
    await revealFile(r, link);
    expect(await r.page.textContent('#file-name')).toBe(name);
    await r.page.click('#save-file');
    await r.page.waitForSelector('#file-saved:not([hidden])');
    expect(await savedFile(r)).toMatchObject({ size: text.length, hashes: sliceHashes(Buffer.from(text)), suggested: name });
    await finish(r);
  });

  it('downloads 512 MiB with the page’s JS heap, and its array buffers, under 128 MiB throughout', async () => {
    // Uploaded by a Node client (a Pro account: Free stops at 100 MiB), so the browser's time
    // and memory here are the download's alone; the page's upload is measured above.
    const owner = await signInOverApi(runtime, newEmail('files-pro'));
    await setPlan(owner.user.id, 'pro');
    const size = 512 * MiB;
    const stream = createCipheriv('aes-256-ctr', randomBytes(32), randomBytes(16));
    const zeros = new Uint8Array(MiB);
    const plaintextHash = createHash('sha256');
    const composed = await timed('512 MiB upload by the Node client', () =>
      uploadThroughApi(
        size,
        (_, bytes) => {
          const chunk = stream.update(zeros.subarray(0, bytes));
          plaintextHash.update(chunk);
          return chunk;
        },
        { maxViews: 1, headers: owner.auth },
      ),
    );
    const expected = plaintextHash.digest('hex');

    const s = await session('big-download', opfsPicker);
    await revealFile(s, composed.link);
    const cdp = await s.context.newCDPSession(s.page);
    await cdp.send('Performance.enable');
    const samples: Array<{ heap: number; backing: number }> = [];
    let saving = true;
    const sampler = (async () => {
      while (saving) {
        const { metrics } = await cdp.send('Performance.getMetrics');
        const usage = await cdp.send('Runtime.getHeapUsage');
        samples.push({ heap: metrics.find((metric) => metric.name === 'JSHeapUsedSize')!.value, backing: usage.backingStorageSize });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await timed('512 MiB download through the picker', async () => {
      await s.page.click('#save-file');
      await s.page.waitForSelector('#file-saved:not([hidden]), #file-error:not([hidden]), #screen-message:not([hidden])', {
        timeout: 600_000,
      });
    });
    saving = false;
    await sampler;
    expect(await s.page.isVisible('#file-saved')).toBe(true);
    const peakHeap = Math.max(...samples.map((sample) => sample.heap));
    const peakBacking = Math.max(...samples.map((sample) => sample.backing));
    const peakBoth = Math.max(...samples.map((sample) => sample.heap + sample.backing));
    timings.push(
      `512 MiB download: ${samples.length} samples, peak JSHeapUsedSize ${(peakHeap / MiB).toFixed(1)} MiB, peak array buffer backing store ${(peakBacking / MiB).toFixed(1)} MiB, peak of both ${(peakBoth / MiB).toFixed(1)} MiB`,
    );
    expect(samples.length).toBeGreaterThan(10);
    expect(peakHeap).toBeLessThan(128 * MiB);
    // JSHeapUsedSize leaves out array buffers' bytes, which is where file bytes live: a page
    // holding the whole file read 2.9 MiB there (and 554 MiB here). So both, together.
    expect(peakBoth).toBeLessThan(128 * MiB);

    // Hashed in the page a slice at a time, and whole in Node: the same bytes.
    const saved = await timed('512 MiB read back and hashed in the page', () => savedFile(s, size));
    expect(saved.size).toBe(size);
    expect(saved.hashes).toEqual([expected]);
    await cdp.detach();
    await finish(s);
  }, 900_000);
});

describe('a download near its URL’s end', () => {
  it('asks for everything left in one request, which S3 lets stream to the end, and saves the file', async () => {
    // 20 MiB: three ranged requests of 8 MiB ordinarily. The service's clock (and its S3's) is
    // a URL's life behind the page's, so the claim's URL ends now by the page's clock.
    const size = 20 * MiB + 3;
    const bytes = randomBytes(size);
    const uploaded = await uploadThroughApi(size, (index, length) => bytes.subarray(index * MiB, index * MiB + length));
    runtime.clock.advance(-fileLimits.downloadUrlSeconds);
    try {
      const s = await session('url-tail', opfsPicker);
      await revealFile(s, uploaded.link);
      await s.page.click('#save-file');
      await s.page.waitForSelector('#file-saved:not([hidden])', { timeout: 120_000 });
      const saved = await savedFile(s, 4 * MiB);
      expect(saved.size).toBe(size);
      expect(saved.hashes).toEqual(sliceHashes(bytes, 4 * MiB));
      const ranges = s
        .requests()
        .filter((request) => request.method === 'GET' && request.url.startsWith(runtime.s3.endpoint))
        .map((request) => request.headers.range);
      // The envelope's first bytes, then the rest at once (to the object's last byte).
      expect(ranges).toHaveLength(2);
      expect(ranges[1]).toBe(`bytes=${uploaded.bodyOffset}-${uploaded.bodyOffset + size + 21 * 16 - 1}`);
      await finish(s);
    } finally {
      runtime.clock.advance(fileLimits.downloadUrlSeconds);
    }
  }, 120_000);
});

describe('leaving nothing behind', () => {
  it('cancels mid-upload: the abort comes after the last part, and the bucket keeps no part', async () => {
    // Six parts: four go out at once; part 5 follows part 1, part 6 never starts.
    const file = plaintextFile(40 * MiB);
    const s = await session('cancel');
    // Part 1 goes through; the others are held in flight until the test lets them go.
    const held: Route[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await s.page.route(`${runtime.s3.endpoint}/**`, async (route) => {
      const url = new URL(route.request().url());
      if (route.request().method() !== 'PUT' || url.searchParams.get('partNumber') === '1') return route.continue();
      held.push(route);
      await released;
      await route.continue().catch(() => undefined);
    });
    await s.page.goto(`${runtime.url}/`);
    await s.ready('compose');
    await s.page.setInputFiles('#secret-file', file.path);
    const firstPart = s.page.waitForResponse(
      (response) => response.request().method() === 'PUT' && new URL(response.url()).searchParams.get('partNumber') === '1',
    );
    await s.page.click('#create-button');
    const partUrl = new URL((await firstPart).url());
    const uploadId = partUrl.searchParams.get('uploadId')!;
    const id = partUrl.pathname.split('/').pop()!;
    await expect.poll(() => held.length, { timeout: 30_000 }).toBe(4);
    // Before Cancel, the bucket holds part 1 of the upload.
    expect((await runtime.functions.files.uploads.parts(objectKeyOf(id), uploadId))?.map((part) => part.partNumber)).toEqual([1]);
    await s.page.click('#upload-cancel');
    await s.page.waitForSelector('#compose:not([hidden]) #compose-errors:not([hidden])');
    expect(await s.page.textContent('#compose-errors-title')).toBe('Upload cancelled');
    expect(await s.page.textContent('#file-chosen-text'), 'the file is still chosen').toContain(file.name);
    await s.screenshot('files-upload-cancelled');
    release();

    expect(await runtime.functions.files.uploads.parts(objectKeyOf(id), uploadId), 'no part left').toBeNull();
    expect((await api.get(`/v1/secrets/${id}`)).body).toMatchObject({ state: 'revoked' });
    const sent = s.requests();
    const abort = sent.findIndex((request) => request.url.endsWith('/v1/files/multipart/abort'));
    expect(abort).toBeGreaterThan(-1);
    expect(JSON.parse(sent[abort]!.body)).toMatchObject({ id, upload_id: uploadId });
    // Parts 2-5 were in flight and cancelled; part 6 never started.
    expect(
      sent
        .filter((request) => request.method === 'PUT')
        .map((request) => new URL(request.url).searchParams.get('partNumber'))
        .sort(),
    ).toEqual(['1', '2', '3', '4', '5']);
    await s.page.unroute(`${runtime.s3.endpoint}/**`);
    await finish(s);
  }, 120_000);

  it('retries a failed part three times; a part that keeps failing aborts the upload and leaves no part', async () => {
    // Two parts; the storage answers part 2 with 503 `failures` times, then takes it.
    const upload = async (failures: number) => {
      const file = plaintextFile(9 * MiB);
      const s = await session(`retry-${failures}`);
      let attempts = 0;
      await s.page.route(`${runtime.s3.endpoint}/**`, async (route) => {
        const url = new URL(route.request().url());
        if (route.request().method() !== 'PUT' || url.searchParams.get('partNumber') !== '2') return route.continue();
        if (++attempts > failures) return route.continue();
        return route.fulfill({ status: 503, headers: { 'access-control-allow-origin': runtime.url }, body: 'SlowDown' });
      });
      await s.page.goto(`${runtime.url}/`);
      await s.ready('compose');
      await s.page.setInputFiles('#secret-file', file.path);
      await s.page.click('#create-button');
      await s.page.waitForSelector('#result:not([hidden]), #compose:not([hidden]) #compose-errors:not([hidden])', { timeout: 60_000 });
      const part = s.requests().find((request) => request.method === 'PUT')!;
      const id = new URL(part.url).pathname.split('/').pop()!;
      const uploadId = new URL(part.url).searchParams.get('uploadId')!;
      await s.page.unroute(`${runtime.s3.endpoint}/**`);
      return { s, attempts, id, uploadId };
    };

    const recovered = await upload(3);
    expect(recovered.attempts).toBe(4);
    expect(await recovered.s.page.isVisible('#result')).toBe(true);
    expect((await api.get(`/v1/secrets/${recovered.id}`)).body).toMatchObject({ state: 'active' });
    await finish(recovered.s);

    const failed = await upload(4);
    expect(failed.attempts).toBe(4);
    expect(await failed.s.page.textContent('#compose-errors-title')).toBe('The upload failed');
    expect(await failed.s.page.textContent('#compose-error-list')).toBe(
      'The file storage refused a part (HTTP 503). Nothing was kept: the parts already uploaded were deleted. Try again.',
    );
    expect(await runtime.functions.files.uploads.parts(objectKeyOf(failed.id), failed.uploadId), 'no part left').toBeNull();
    expect((await api.get(`/v1/secrets/${failed.id}`)).body).toMatchObject({ state: 'revoked' });
    await failed.s.screenshot('files-upload-failed');
    await finish(failed.s);
  }, 120_000);

  it('renews the part URLs when the bucket refuses one as expired (resume), and completes', async () => {
    // An hour-old URL is refused by S3 with 403 (S3's answer, given here to part 2's first
    // attempt alone: moving the runtime's clock would expire every part's URL at once).
    const file = plaintextFile(9 * MiB);
    const s = await session('renew');
    let refused = false;
    await s.page.route(`${runtime.s3.endpoint}/**`, async (route) => {
      const url = new URL(route.request().url());
      if (route.request().method() !== 'PUT' || url.searchParams.get('partNumber') !== '2' || refused) return route.continue();
      refused = true;
      return route.fulfill({
        status: 403,
        headers: { 'access-control-allow-origin': runtime.url, 'content-type': 'application/xml' },
        body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
      });
    });
    await s.page.goto(`${runtime.url}/`);
    await s.ready('compose');
    await s.page.setInputFiles('#secret-file', file.path);
    await s.page.click('#create-button');
    await s.page.waitForSelector('#result:not([hidden])', { timeout: 60_000 });
    const sent = s.requests();
    expect(sent.filter((request) => request.method === 'PUT' && new URL(request.url).searchParams.get('partNumber') === '2')).toHaveLength(
      2,
    );
    const resumed = sent.filter(
      (request) => request.url.endsWith('/v1/files/multipart') && 'resume' in (JSON.parse(request.body) as object),
    );
    expect(resumed).toHaveLength(1);
    const { id } = await linkOf(s);
    expect(JSON.parse(resumed[0]!.body)).toMatchObject({ resume: { id } });
    expect((await api.get(`/v1/secrets/${id}`)).body).toMatchObject({ state: 'active' });
    await s.page.unroute(`${runtime.s3.endpoint}/**`);
    await finish(s);
  }, 120_000);

  /** Chunk `index`'s place in the stored object (1 MiB chunks, each with its 16-byte tag). */
  const chunkAt = (uploaded: Uploaded, index: number) => uploaded.bodyOffset + index * (MiB + 16);
  /** What is changed, and when the page meets it: opening the file, or saving it after `written` good chunks. */
  const tampering: Array<{
    what: string;
    change: (stored: Buffer, uploaded: Uploaded) => Buffer;
    met: 'saving' | 'opening';
    written?: number;
  }> = [
    {
      what: 'a flipped byte in its third chunk',
      met: 'saving',
      written: 2,
      change: (stored, uploaded) => {
        const at = chunkAt(uploaded, 2) + 1000;
        stored[at] = stored[at]! ^ 1;
        return stored;
      },
    },
    {
      what: 'its second and third chunks swapped',
      met: 'saving',
      written: 1,
      change: (stored, uploaded) => {
        const [one, two, three] = [1, 2, 3].map((index) => chunkAt(uploaded, index)) as [number, number, number];
        return Buffer.concat([stored.subarray(0, one), stored.subarray(two, three), stored.subarray(one, two), stored.subarray(three)]);
      },
    },
    { what: 'its last chunk cut off', met: 'opening', change: (stored, uploaded) => stored.subarray(0, chunkAt(uploaded, 3)) },
  ];

  it.each(tampering)('refuses a stored file with $what: a clear error and nothing of it saved', async ({ change, met, written }) => {
    // Four chunks (the last shorter), the object rewritten in the bucket after its upload.
    const size = 3 * MiB + 100_000;
    const bytes = randomBytes(size);
    const uploaded = await uploadThroughApi(size, (index, length) => bytes.subarray(index * MiB, index * MiB + length), { maxViews: 2 });
    await rewriteObject(uploaded.id, (stored) => change(stored, uploaded));

    const s = await session(`tampered-${sessions.length}`, opfsPicker);
    await s.page.goto(uploaded.link);
    await s.ready('reveal');
    await s.page.waitForSelector('#screen-ready:not([hidden])');
    await s.page.click('#reveal-button');
    if (met === 'saving') {
      // The name and size come from the intact first bytes; the bad chunk is met while saving,
      // after the chunks before it were written to the chosen file.
      await s.page.waitForSelector('#screen-file:not([hidden])');
      await s.page.click('#save-file');
    }
    expect(await s.message()).toBe('file-tampered');
    expect(await s.page.textContent('#message-text')).toContain('it was not saved');
    if (met === 'saving') {
      // The chunks before the bad one were written, then the writable aborted, never closed:
      // the chosen file holds nothing of the plaintext.
      expect(await writableCalls(s)).toEqual({ writes: written, closed: false, aborted: true });
      expect((await savedFile(s)).size).toBe(0);
      await s.screenshot('files-tampered');
    }
    await finish(s);
    if (met === 'opening') return;

    // Through the download worker, the browser's download fails and keeps no file.
    const w = await session(`tampered-worker-${sessions.length}`, noPicker);
    await w.page.goto(uploaded.link);
    await w.ready('reveal');
    await w.page.waitForSelector('#screen-ready:not([hidden])');
    await w.page.click('#reveal-button');
    await w.page.waitForSelector('#screen-file:not([hidden])');
    const started = w.page.waitForEvent('download');
    await w.page.click('#save-file');
    const download = await started;
    expect(await w.message()).toBe('file-tampered');
    expect(await download.failure()).toBe('canceled');
    await expect(download.path()).rejects.toThrow();
    await finish(w);
  });
});

describe('the plan’s limit', () => {
  it('says it before anything is sent, and after the server refuses', async () => {
    // Sparse files: the page reads nothing of them before the limit is checked.
    const overFree = join(work, 'over-free.iso');
    writeFileSync(overFree, '');
    truncateSync(overFree, 100 * MiB + 1);
    const anonymous = await session('limit-anonymous');
    await anonymous.page.goto(`${runtime.url}/`);
    await anonymous.ready('compose');
    await anonymous.page.setInputFiles('#secret-file', overFree);
    await anonymous.page.waitForSelector('#file-limit:not([hidden])');
    expect(await anonymous.page.textContent('#file-limit')).toBe(
      '“over-free.iso” is 104,857,601 bytes, and files are limited to 104,857,600 bytes (100 MB) without an account (the Free plan). Pro allows 5 GB, Team allows 20 GB: sign in with such an account to share it.',
    );
    await anonymous.page.click('#create-button');
    // Said beside the file field (composeErrors.ts), not in the summary box.
    await anonymous.page.waitForSelector('#secret-file-error:not([hidden])');
    expect(await anonymous.page.getAttribute('#secret-file', 'aria-invalid')).toBe('true');
    expect(
      anonymous.apiRequests().filter((request) => request.url.includes('/v1/files/')),
      'nothing sent',
    ).toEqual([]);
    await anonymous.screenshot('files-limit-before');
    await finish(anonymous);

    // A Pro account chooses the file (the page reads the plan), then the plan drops to Free: the server refuses.
    const email = newEmail('files-limit');
    const owner = await session('limit-owner');
    await owner.page.goto(`${runtime.url}/signin`);
    await owner.ready('signin');
    await owner.page.fill('#email', email);
    await owner.page.click('#send-code');
    await owner.page.waitForSelector('html[data-step="code"]');
    await owner.page.fill('#code', latestCode(runtime, email)!);
    await owner.page.click('#verify-button');
    await owner.page.waitForURL((url) => url.pathname === '/account');
    const user = await runtime.stores.users.findByEmail(email);
    await setPlan(user!.id, 'pro');
    await owner.page.goto(`${runtime.url}/`);
    await owner.ready('compose');
    const planRead = owner.page.waitForResponse((response) => response.url().endsWith('/v1/usage'));
    await owner.page.setInputFiles('#secret-file', overFree);
    expect((await planRead).status()).toBe(200);
    expect(await owner.page.isVisible('#file-limit'), 'Pro takes it').toBe(false);
    await setPlan(user!.id, 'free');
    await owner.page.click('#create-button');
    await owner.page.waitForSelector('#compose:not([hidden]) #secret-file-error:not([hidden])');
    expect(await owner.page.textContent('#secret-file-error')).toBe(
      '“over-free.iso” is 104,857,601 bytes, and files are limited to 104,857,600 bytes (100 MB) on your Free plan. Pro allows 5 GB, Team allows 20 GB.',
    );
    const refused = owner.apiRequests().filter((request) => request.url.endsWith('/v1/files/multipart'));
    expect(refused.length).toBeGreaterThan(0);
    expect(
      owner.requests().filter((request) => request.method === 'PUT'),
      'no part sent',
    ).toEqual([]);
    await owner.screenshot('files-limit-after');
    // Signed in: the refresh token is the HttpOnly cookie's; the page keeps only the marker.
    expect((await owner.webStorage()).local).toEqual(sessionMarker);
    await finish(owner, { local: 1, session: 0 });
  });
});

describe('what the browsers sent', () => {
  it('never sent a key, passphrase, file name or plaintext, and talked to the runtime and its bucket only', async () => {
    const traffic = await settleTraffic();
    expect(traffic.length).toBeGreaterThan(0);
    expect(findLeaks(traffic, guarded)).toEqual([]);
    const origins = new Set(traffic.map((request) => new URL(request.url).origin));
    origins.delete(runtime.url);
    origins.delete(runtime.s3.endpoint);
    expect([...origins]).toEqual([]);
  });
});
