/**
 * A large file completed in the background (ADR 0170), end to end in Chromium: the page uploads
 * every part, the service answers 202 `completing`, and the page says it is finishing the file
 * and looks at the secret every 3 s (real time) until the `complete-uploads` schedule (run here
 * by the test) has made it active; only then does it show the link, which a fresh browser opens
 * and saves, bytes compared. And an upload aborted while it completes: the page says the file
 * was not kept. Uploads over 8 MiB count as large here (`INLINE_COMPLETION_BYTES`), so a 9 MiB
 * file (two parts) is one. Nothing secret reaches the server or the bucket.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { objectKeyOf } from '../../shared/domain/files/ports.ts';
import { apiClient } from '../support/runtime.ts';
import { findLeaks, guard as guardValue, Session, settleTraffic, startRuntimeAndBrowser, stopRuntimeAndBrowser } from './harness.ts';

const MiB = 1024 * 1024;
const finishing = 'Uploaded. Finishing the file: this can take a minute or two…';
let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
/** Keys, file names and plaintext markers: no request may carry them. */
const guarded = new Map<string, string>();
const work = mkdtempSync(join(tmpdir(), 'hushlink-files-completing-e2e-'));
/** What each case took, printed at the end (the machine is shared: these are for a reader). */
const timings: string[] = [];
const started = performance.now();

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser({ env: { INLINE_COMPLETION_BYTES: String(8 * MiB) } }));
  api = apiClient(runtime);
  timings.push(`runtime and Chromium started: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}, 180_000);

afterAll(async () => {
  timings.push(`whole file: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(`files-completing.e2e timings:\n  ${timings.join('\n  ')}`);
  await stopRuntimeAndBrowser(runtime, browser);
  rmSync(work, { recursive: true, force: true });
});

const guard = (label: string, value: string) => guardValue(guarded, label, value);

async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
  const begun = performance.now();
  try {
    return await run();
  } finally {
    timings.push(`${label}: ${((performance.now() - begun) / 1000).toFixed(1)} s`);
  }
}

/** Neither the File System Access API nor service workers: the page saves the file as a Blob download. */
const noWorker = `delete window.showSaveFilePicker; delete Window.prototype.showSaveFilePicker;
  Object.defineProperty(Navigator.prototype, 'serviceWorker', { get: () => undefined });`;

async function session(name: string, initScript?: string): Promise<Session> {
  const s = await Session.open(browser, name, { acceptDownloads: true });
  if (initScript) await s.context.addInitScript({ content: initScript });
  return s;
}

/** The checks every page must pass before its session is closed. */
async function finish(s: Session): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  expect(await s.storage(), `web storage of ${s.name}`).toEqual({ local: 0, session: 0, cookies: '' });
  expect(s.page.url(), 'the address bar keeps no fragment').not.toContain('#');
  await s.close();
}

/** Random bytes with a guarded ASCII marker at the start of every MiB, and a guarded name. */
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

const stateOf = async (id: string) => (await api.get(`/v1/secrets/${id}`)).body.state as string;

/**
 * Composes `file` in the page and waits until the page says it is finishing it: the service's
 * answer to the completion (202 `completing`), and the upload's reference as the page sent it.
 */
async function composeUntilFinishing(s: Session, file: { path: string; name: string }) {
  await s.page.goto(`${runtime.url}/`);
  await s.ready('compose');
  await s.page.setInputFiles('#secret-file', file.path);
  const completed = s.page.waitForResponse(
    (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/v1/files/multipart/complete',
  );
  await s.page.click('#create-button');
  const answer = await completed;
  expect(answer.status(), 'a large upload is completed in the background').toBe(202);
  const body = (await answer.json()) as { id: string; state: string; size_bytes: number };
  expect(body.state).toBe('completing');
  expect(body.size_bytes).toBeGreaterThan(8 * MiB);
  await s.page.waitForFunction((text) => document.getElementById('upload-status')?.textContent === text, finishing);
  const sent = s.requests().find((request) => request.method === 'POST' && request.url.endsWith('/v1/files/multipart/complete'))!;
  const ref = JSON.parse(sent.body) as { id: string; upload_id: string; delete_token: string; parts: unknown[] };
  expect(ref.id).toBe(body.id);
  expect(ref.parts, 'two parts of 8 MiB at most').toHaveLength(2);
  return { id: body.id, ref: { id: ref.id, upload_id: ref.upload_id, delete_token: ref.delete_token } };
}

/** The page's next ask whether the file is finished (every 3 s): the completion asked for again. */
const isLook = (method: string, url: string) => method === 'POST' && new URL(url).pathname === '/v1/files/multipart/complete';
const nextLook = (s: Session) =>
  s.page.waitForResponse((response) => isLook(response.request().method(), response.url()), { timeout: 15_000 });

describe('a large file completed in the background', () => {
  it('says it is finishing the file, shows the link only once the schedule has completed it, and the link saves every byte', async () => {
    const file = plaintextFile(9 * MiB + 4321);
    const sender = await session('completing-sender');
    const { id } = await timed('upload through the page until “Finishing”', () => composeUntilFinishing(sender, file));

    // Finishing: the link is not shown, and the secret is pending.
    expect(await sender.page.isVisible('#upload')).toBe(true);
    expect(await sender.page.isVisible('#result'), 'no link while the file is being finished').toBe(false);
    expect(await sender.page.inputValue('#share-link')).toBe('');
    expect(await stateOf(id)).toBe('pending');
    expect(await runtime.functions.files.uploads.size(objectKeyOf(id)), 'no object before the schedule completes it').toBeNull();
    await sender.screenshot('files-completing-finishing');
    // The page asks again, hears it is still completing (202), and keeps waiting.
    const pendingLook = await timed('the page’s first look (completing)', () => nextLook(sender));
    expect(pendingLook.status()).toBe(202);
    expect(((await pendingLook.json()) as { state: string }).state).toBe('completing');
    expect(await sender.page.textContent('#upload-status')).toBe(finishing);
    expect(await sender.page.isVisible('#result')).toBe(false);

    // The schedule completes it (the completion is due at once); the page's next look shows the link.
    const link = await timed('schedule run, then the page’s next look until the link', async () => {
      await expect
        .poll(
          async () => {
            await runtime.scheduler.run('complete-uploads');
            return stateOf(id);
          },
          { timeout: 30_000 },
        )
        .toBe('active');
      await sender.page.waitForSelector('#result:not([hidden])', { timeout: 15_000 });
      return sender.page.inputValue('#share-link');
    });
    const url = new URL(link);
    expect(url.pathname.split('/')[2]).toBe(id);
    expect(url.hash.slice(1)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    guard('link key', url.hash.slice(1));
    guard('full link', link);
    expect(await sender.page.textContent('#result-summary')).toContain(`The file “${file.name}”`);
    const looks = sender.requests().filter((request) => isLook(request.method, request.url));
    expect(looks.length, 'the completion, an ask while completing, one that saw it done').toBeGreaterThanOrEqual(3);
    await sender.screenshot('files-completing-result');
    await finish(sender);

    // A fresh browser opens the link and saves the file (as a Blob download): the same bytes.
    const recipient = await session('completing-recipient', noWorker);
    await timed('reveal and save in a fresh browser', async () => {
      await recipient.page.goto(link);
      await recipient.ready('reveal');
      await recipient.page.waitForSelector('#screen-ready:not([hidden])');
      await recipient.page.click('#reveal-button');
      await recipient.page.waitForSelector('#screen-file:not([hidden])');
      expect(await recipient.page.textContent('#file-name')).toBe(file.name);
      const saving = recipient.page.waitForEvent('download');
      await recipient.page.click('#save-file');
      const download = await saving;
      expect(await download.failure()).toBeNull();
      expect(download.suggestedFilename()).toBe(file.name);
      expect(readFileSync(await download.path()).equals(file.bytes), 'the saved file has every byte').toBe(true);
    });
    await finish(recipient);
  }, 120_000);

  it('says the file was not kept when its upload is aborted while it is being finished', async () => {
    const file = plaintextFile(9 * MiB);
    const sender = await session('completing-aborted');
    const { id, ref } = await timed('upload through the page until “Finishing” (aborted case)', () => composeUntilFinishing(sender, file));
    expect(await stateOf(id)).toBe('pending');

    // Aborted with the page's own reference, as another tab of the sender could: the abort wins.
    expect((await api.post('/v1/files/multipart/abort', ref)).status).toBe(200);
    expect(await stateOf(id)).toBe('revoked');
    await timed('the page’s next look until its error', () =>
      sender.page.waitForSelector('#compose:not([hidden]) #compose-errors:not([hidden])', { timeout: 15_000 }),
    );
    expect(await sender.page.textContent('#compose-errors-title')).toBe('The upload failed');
    expect(await sender.page.textContent('#compose-error-list')).toContain('The server could not finish the file.');
    expect(await sender.page.isVisible('#result')).toBe(false);
    expect(await sender.page.inputValue('#share-link')).toBe('');
    expect(await sender.page.textContent('#file-chosen-text'), 'the file is still chosen').toContain(file.name);
    await sender.screenshot('files-completing-aborted');

    // The schedule finds nothing to complete: nothing is left in the bucket.
    await runtime.scheduler.run('complete-uploads');
    expect(await stateOf(id)).toBe('revoked');
    expect(await runtime.functions.files.uploads.size(objectKeyOf(id)), 'no object').toBeNull();
    expect(await runtime.functions.files.uploads.parts(objectKeyOf(id), ref.upload_id), 'no part').toBeNull();
    await finish(sender);
  }, 60_000);
});

describe('what the browsers sent', () => {
  it('never sent a key, file name or plaintext, and talked to the runtime and its bucket only', async () => {
    const traffic = await settleTraffic();
    expect(traffic.length).toBeGreaterThan(0);
    expect(findLeaks(traffic, guarded)).toEqual([]);
    const origins = new Set(traffic.map((request) => new URL(request.url).origin));
    origins.delete(runtime.url);
    origins.delete(runtime.s3.endpoint);
    expect([...origins]).toEqual([]);
  });
});
