/**
 * Request links end to end (issue 14) in Chromium against one local runtime: a requester signed
 * in on `/requests` makes a link (a non-extractable key kept in IndexedDB, `s` sealed there), a
 * responder in a fresh browser context answers on `/q/{id}` with a text and with a 16 MiB file,
 * and the requester's inbox opens both, compared byte for byte. Closing from the list (the
 * responder's page then says closed, the inbox still opens); a key substituted in DynamoDB
 * Local (nothing is sent); a forgery made with the public key only; 404, 410, full, 409, 429,
 * network failure; another browser of the same account; keyboard; 360 px. Every request is
 * recorded: no link secret, key, plaintext or prompt text reaches the server or the bucket.
 *
 * Keys are caught where they are made: an init script records every 32-byte
 * `crypto.getRandomValues` of each page (the link's `s`, each response's fresh key), and the
 * test guards them all. Saving a file uses the picker stand-in of files.e2e.ts (a file of the
 * origin's private file system), read back a slice at a time.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import {
  decodePublicKey,
  deriveRequestSecrets,
  encodePublicKey,
  generateRequesterKeys,
  newLinkSecret,
  parseRequestFragment,
  sealText,
  toBase64,
  wrapResponseKey,
  type RequestKem,
} from '../../shared/envelope/index.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { newEmail, signIn as signInOverApi } from '../support/accounts.ts';
import { apiClient } from '../support/runtime.ts';
import {
  cookieProblem,
  findLeaks,
  guard as guardValue,
  Session,
  sessionMarker,
  sessionMarkerKey,
  settleTraffic,
  startRuntimeAndBrowser,
  stopRuntimeAndBrowser,
  signInThroughPage,
  tabRefreshKey as refreshKey,
} from './harness.ts';

const MiB = 1024 * 1024;
let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
/** Link secrets, fragments, keys, plaintexts and prompts: no request may carry them. */
const guarded = new Map<string, string>();
const work = mkdtempSync(join(tmpdir(), 'hushlink-requests-e2e-'));
const requesterEmail = newEmail('requester');
/** The requester's browser, signed in for the whole file (its IndexedDB holds the keys). */
let requester: Session;

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
  api = apiClient(runtime);
  requester = await session('requester', { picker: true });
  await signIn(requester, requesterEmail);
}, 180_000);

afterAll(async () => {
  await stopRuntimeAndBrowser(runtime, browser);
  rmSync(work, { recursive: true, force: true });
});

const guard = (label: string, value: string) => guardValue(guarded, label, value);

/** A value and the spellings a page could send it in. */
function guardText(label: string, text: string): void {
  guard(label, text);
  const bytes = Buffer.from(text, 'utf8');
  guard(`${label} as base64`, bytes.toString('base64').replace(/=+$/, ''));
  guard(`${label} as base64url`, bytes.toString('base64url'));
  guard(`${label} URL-encoded`, encodeURIComponent(text));
}

function guardBytes(label: string, bytes: Uint8Array): void {
  const buffer = Buffer.from(bytes);
  guard(label, buffer.toString('base64url'));
  guard(`${label} as base64`, buffer.toString('base64').replace(/=+$/, ''));
  guard(`${label} as hex`, buffer.toString('hex'));
}

/** Every 32-byte random value a page makes is recorded (the link's `s`, each response's key). */
const recordRandom = `
  (() => {
    const original = Crypto.prototype.getRandomValues;
    const seen = (window.__random32 = []);
    Crypto.prototype.getRandomValues = function (array) {
      const result = original.call(this, array);
      if (array.byteLength === 32) seen.push(Array.from(new Uint8Array(array.buffer, array.byteOffset, 32)));
      return result;
    };
  })();`;

/** The picker's stand-in (as files.e2e.ts): a file of the origin's private file system. */
const opfsPicker = `
  window.showSaveFilePicker = async (options) => {
    window.__suggestedName = options && options.suggestedName;
    const root = await navigator.storage.getDirectory();
    return root.getFileHandle('saved-by-e2e', { create: true });
  };`;

/** Guards the 32-byte values the page made so far (call before it navigates). */
async function guardRandom(s: Session): Promise<number> {
  const seen = await s.page.evaluate(() => (window as unknown as { __random32: number[][] }).__random32.splice(0));
  for (const bytes of seen) guardBytes(`random 32 bytes of ${s.name}`, Uint8Array.from(bytes));
  return seen.length;
}

const sessions: Session[] = [];
async function session(name: string, options: { picker?: boolean; narrow?: boolean; dark?: boolean } = {}): Promise<Session> {
  const s = await Session.open(browser, name, {
    ...(options.narrow ? { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } : {}),
    ...(options.dark ? { colorScheme: 'dark' as const } : {}),
  });
  await s.context.addInitScript({ content: recordRandom + (options.picker ? opfsPicker : '') });
  sessions.push(s);
  return s;
}

/**
 * Nothing of a link, key or text in any storage; only a signed-in browser's marker (its refresh
 * token is the HttpOnly cookie), or a shared computer's tab's refresh token, and the requester's key store.
 */
async function checkStorage(s: Session, keyStore: boolean): Promise<void> {
  const stored = await s.webStorage();
  expect(stored.cookies, `cookies of ${s.name}`).toBe('');
  expect(stored.indexedDb, `IndexedDB of ${s.name}`).toEqual(keyStore ? ['hushlink-requests'] : []);
  const local = { ...stored.local };
  if (local[sessionMarkerKey] !== undefined) expect(local[sessionMarkerKey], `marker in ${s.name}`).toBe(sessionMarker[sessionMarkerKey]);
  delete local[sessionMarkerKey];
  expect(Object.keys(local), `localStorage of ${s.name}`).toEqual([]);
  expect(
    Object.keys(stored.session).filter((key) => key !== refreshKey),
    `sessionStorage of ${s.name}`,
  ).toEqual([]);
  const everything = JSON.stringify(stored);
  for (const [label, value] of guarded) expect(everything.includes(value), `${label} in web storage of ${s.name}`).toBe(false);
}

/** `expected`: console lines the test caused on purpose (a request it aborted). */
async function finish(s: Session, keyStore = false, expected?: RegExp): Promise<void> {
  const problems = (await s.problems()).filter((problem) => !expected?.test(problem));
  expect(problems, `CSP violations or page errors in ${s.name}`).toEqual([]);
  await checkStorage(s, keyStore);
  expect(s.page.url(), 'the address bar keeps no fragment').not.toContain('#');
  await s.close();
}

async function signIn(s: Session, email: string): Promise<void> {
  await signInThroughPage(s, runtime, email, '/requests');
  await requestsReady(s);
}

const requestsReady = (s: Session) => s.page.waitForSelector('html[data-ready="requests"]');

async function openRequests(s: Session = requester): Promise<void> {
  await s.page.goto(`${runtime.url}/requests`);
  await requestsReady(s);
}

interface Made {
  id: string;
  link: string;
  fingerprint: string;
  linkSecret: Uint8Array;
}

/** Makes a request link on `/requests` and returns it, every secret of it guarded. */
async function makeRequest(options: { prompt?: string; max?: number; screenshot?: string } = {}, s: Session = requester): Promise<Made> {
  const { page } = s;
  if (options.prompt !== undefined) {
    guardText('prompt', options.prompt);
    await page.fill('#request-prompt', options.prompt);
  }
  if (options.max !== undefined) await page.fill('#request-max', String(options.max));
  const previous = await page.inputValue('#request-link');
  await page.click('#create-request');
  await page.waitForSelector('#request-result:not([hidden])');
  await expect.poll(() => page.inputValue('#request-link')).not.toBe(previous);
  if (options.screenshot) await s.screenshot(options.screenshot);
  const link = await page.inputValue('#request-link');
  const url = new URL(link);
  expect(url.origin).toBe(runtime.url);
  expect(url.pathname).toMatch(/^\/q\/rql_[\w-]+$/);
  const parsed = parseRequestFragment(url.hash);
  guard('full link', link);
  guard('fragment', url.hash.slice(1));
  guardBytes('link secret', parsed.linkSecret);
  const derived = await deriveRequestSecrets(parsed);
  guardBytes('psk', derived.psk);
  guardBytes('prompt key', derived.promptKey);
  expect(await guardRandom(s), 'the page made s with getRandomValues').toBeGreaterThanOrEqual(1);
  const id = url.pathname.split('/')[2]!;
  await page.waitForSelector(`#requests > li[data-id="${id}"]`);
  return { id, link, ...parsed };
}

const item = (id: string, s: Session = requester) => s.page.locator(`#requests > li[data-id="${id}"]`);

/** Opens a request's "Responses" and waits for it to have loaded `count` responses. */
async function openInbox(id: string, count: number, s: Session = requester) {
  const panel = item(id, s).locator('details[data-role="inbox"]');
  if ((await panel.getAttribute('open')) === null) await panel.locator('summary').click();
  else await panel.locator('button[data-action="refresh-inbox"]').click();
  await expect.poll(() => panel.locator('li[data-response-id][data-outcome]').count(), { timeout: 30_000 }).toBe(count);
  return panel;
}

/** The responder's page of `link` in `s`, checked and ready for an answer. */
async function openLink(s: Session, link: string): Promise<void> {
  await s.page.goto(link);
  await s.page.waitForSelector('html[data-ready="respond"]');
  await s.page.waitForFunction(() => ['ready', 'message'].includes(document.documentElement.dataset.screen ?? ''));
  expect(s.page.url(), 'the fragment left the address bar at once').toBe(link.split('#')[0]);
}

async function answerText(s: Session, link: string, text: string): Promise<void> {
  guardText('plaintext', text);
  await openLink(s, link);
  expect(await s.screen()).toBe('ready');
  await s.page.fill('#respond-text', text);
  await s.page.click('#send-button');
  await s.page.waitForSelector('#screen-sent:not([hidden])');
  expect(await guardRandom(s), 'the response key came from getRandomValues').toBeGreaterThanOrEqual(1);
}

/** A file of random bytes with a marker at every MiB, its name guarded too. */
function plaintextFile(size: number): { path: string; name: string; bytes: Buffer } {
  const name = `e2e-${randomUUID()}.bin`;
  const marker = `hushlink-requests-plaintext-${randomUUID()}`;
  const bytes = randomBytes(size);
  for (let at = 0; at + marker.length <= size; at += MiB) bytes.write(marker, at, 'latin1');
  guard('file name', name);
  guard('plaintext marker', marker);
  const path = join(work, name);
  writeFileSync(path, bytes);
  return { path, name, bytes };
}

function sliceHashes(bytes: Uint8Array, slice: number): string[] {
  const hashes: string[] = [];
  for (let at = 0; at < bytes.length; at += slice)
    hashes.push(
      createHash('sha256')
        .update(bytes.subarray(at, at + slice))
        .digest('hex'),
    );
  return hashes;
}

/** The OPFS file the picker stand-in handed out: its size and SHA-256 per slice. */
function savedFile(s: Session, slice: number): Promise<{ size: number; hashes: string[]; suggested: string }> {
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

/** A response made outside any page, as a Node client would (the forger passes a fresh `s`). */
async function respondFromNode(made: Made, text: string, linkSecret = made.linkSecret): Promise<number> {
  guardText('plaintext', text);
  const served = (await api.get(`/v1/requests/${made.id}`)).body as { kem: RequestKem; public_key: string };
  const publicKey = decodePublicKey(served.kem, served.public_key);
  const sealed = await sealText(text);
  guard('node response key', sealed.key);
  const wrapped = await wrapResponseKey({
    fingerprint: made.fingerprint,
    linkSecret,
    requestId: made.id,
    kem: served.kem,
    publicKey,
    responseKey: Buffer.from(sealed.key, 'base64url'),
  });
  const reply = await api.post(`/v1/requests/${made.id}/responses`, {
    kind: 'text',
    envelope: toBase64(sealed.envelope),
    salt: sealed.salt,
    size_bytes: sealed.envelope.length,
    enc: wrapped.enc,
    wrapped_key: wrapped.wrappedKey,
  });
  return reply.status;
}

const focusedId = (s: Session) => s.page.evaluate(() => document.activeElement?.id ?? '');
const narrowEnough = (s: Session) => s.page.evaluate(() => document.documentElement.scrollWidth);

describe('request links in the web client', () => {
  it('serves the pages with the web headers: /requests and /q/{id}, and nothing at near misses', async () => {
    for (const path of ['/requests', '/q/rql_AAAAAAAAAAAAAAAAAAAAAA']) {
      const response = await fetch(`${runtime.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.text()).toContain(path === '/requests' ? '/assets/requests.js' : '/assets/respond.js');
    }
    for (const path of ['/q/', '/q/a/b', '/q', '/requests/x']) expect((await fetch(`${runtime.url}${path}`)).status, path).toBe(404);
  });

  it('makes a link in the page: the key pair in IndexedDB, not extractable; s sealed there; the link with Copy and QR', async () => {
    const { page } = requester;
    await openRequests();
    expect(await page.getAttribute('header nav a[href="/requests"]', 'aria-current')).toBe('page');
    expect(await page.textContent('#device-only')).toContain('Only this browser can open the responses');
    expect(await page.inputValue('#request-max')).toBe('10');
    expect(await page.inputValue('#request-expiry')).toBe('604800');
    await requester.screenshot('requests-empty');
    const prompt = `The staging database password, please ${randomUUID()}`;
    const made = await makeRequest({ prompt, screenshot: 'requests-created' });
    // What was sent: a public key and a sealed prompt, never the prompt.
    const created = requester
      .apiRequests()
      .filter((request) => request.method === 'POST' && new URL(request.url).pathname === '/v1/requests');
    expect(created).toHaveLength(1);
    const body = JSON.parse(created[0]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      kem: 'x25519',
      expires_in: 604_800,
      max_responses: 10,
      public_key: expect.stringMatching(/^[\w-]{43}$/),
      prompt_envelope: expect.any(String),
    });
    expect(
      createHash('sha256')
        .update(Buffer.from(body.public_key as string, 'base64url'))
        .digest('base64url'),
    ).toBe(made.fingerprint);
    expect(await page.locator('#request-qr svg path').getAttribute('d')).toMatch(/^M\d/);
    expect(await page.textContent('#result-summary')).toContain('Takes up to 10 responses.');
    expect(await focusedId(requester)).toBe('result-title');
    await requester.context.grantPermissions(['clipboard-write'], { origin: runtime.url });
    await page.click('#copy-request-link');
    await expect.poll(() => page.textContent('#copy-request-link')).toBe('Copied ✓');
    // The form is empty again; the list has the link, open, with nothing received.
    expect(await page.inputValue('#request-prompt')).toBe('');
    expect(await item(made.id).getAttribute('data-state')).toBe('open');
    expect(await item(made.id).getAttribute('data-kept')).toBe('true');
    expect(await item(made.id).locator('[data-role="responses"] dd').textContent()).toBe('0 of 10');

    // What the browser keeps: the private key not extractable (exporting it fails), s only sealed.
    const kept = await page.evaluate(
      async ({ id, secret }) => {
        const request = <T>(r: IDBRequest<T>) =>
          new Promise<T>((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
        const db = await request(indexedDB.open('hushlink-requests'));
        const record = await request(db.transaction('requests').objectStore('requests').get(id));
        const deviceKey = (await request(db.transaction('device').objectStore('device').get('link-secret-key'))) as CryptoKey;
        const refused = async (key: CryptoKey, format: 'pkcs8' | 'jwk' | 'raw') =>
          crypto.subtle.exportKey(format, key).then(
            () => 'exported',
            (error: Error) => error.name,
          );
        // Every byte array of the record, flattened: s must be in none of them.
        const arrays = [record.publicKey, record.sealedSecret.iv, record.sealedSecret.ciphertext] as Uint8Array[];
        const holds = (haystack: Uint8Array) => haystack.some((_, at) => secret.every((byte, i) => haystack[at + i] === byte));
        db.close();
        return {
          keys: Object.keys(record).sort(),
          kem: record.kem,
          algorithm: record.privateKey.algorithm.name,
          extractable: record.privateKey.extractable,
          exports: [
            await refused(record.privateKey, 'pkcs8'),
            await refused(record.privateKey, 'jwk'),
            await refused(record.privateKey, 'raw'),
          ],
          deviceKey: { algorithm: deviceKey.algorithm.name, extractable: deviceKey.extractable, exported: await refused(deviceKey, 'raw') },
          fingerprint: record.fingerprint,
          sealedLength: record.sealedSecret.ciphertext.length,
          secretInRecord: arrays.some(holds),
        };
      },
      { id: made.id, secret: [...made.linkSecret] },
    );
    expect(kept).toEqual({
      keys: ['createdAt', 'fingerprint', 'id', 'kem', 'privateKey', 'publicKey', 'sealedSecret', 'urlBase'],
      kem: 'x25519',
      algorithm: 'X25519',
      extractable: false,
      exports: ['InvalidAccessError', 'InvalidAccessError', 'InvalidAccessError'],
      deviceKey: { algorithm: 'AES-GCM', extractable: false, exported: 'InvalidAccessError' },
      fingerprint: made.fingerprint,
      sealedLength: 48,
      secretInRecord: false,
    });

    // "Link and QR code" shows the same link again, from what this browser keeps.
    await item(made.id).locator('details[data-role="link"] > summary').click();
    await expect.poll(() => item(made.id).locator('details[data-role="link"] input').inputValue()).toBe(made.link);
    await requester.screenshot('requests-list');
  });

  it('a text response: the responder’s page checks the key and shows the prompt; the requester’s inbox opens the text', async () => {
    const prompt = `Which token does the deploy use? ${randomUUID()}`;
    const made = await makeRequest({ prompt });
    const responder = await session('text-responder');
    await openLink(responder, made.link);
    expect(await responder.screen()).toBe('ready');
    expect(await responder.page.textContent('#prompt-text')).toBe(prompt);
    expect(await focusedId(responder)).toBe('ready-title');
    await responder.screenshot('requests-respond');
    const text = `the deploy token ${randomUUID()}\nsecond line`;
    guardText('plaintext', text);
    await responder.page.fill('#respond-text', text);
    await responder.page.click('#send-button');
    await responder.page.waitForSelector('#screen-sent:not([hidden])');
    expect(await focusedId(responder)).toBe('sent-title');
    expect(await guardRandom(responder)).toBeGreaterThanOrEqual(1);
    await responder.screenshot('requests-sent');
    // What it sent: one GET and one POST, the text sealed and its key wrapped.
    const calls = responder.apiRequests().map((request) => `${request.method} ${new URL(request.url).pathname}`);
    expect(calls).toEqual([`GET /v1/requests/${made.id}`, `POST /v1/requests/${made.id}/responses`]);
    const sent = JSON.parse(responder.apiRequests()[1]!.body) as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual(['enc', 'envelope', 'kind', 'salt', 'size_bytes', 'wrapped_key']);
    expect(sent).toMatchObject({
      kind: 'text',
      enc: expect.stringMatching(/^[\w-]{43}$/),
      wrapped_key: expect.stringMatching(/^[\w-]{64}$/),
    });
    await finish(responder);

    await openRequests();
    expect(await item(made.id).locator('[data-role="responses"] dd').textContent()).toBe('1 of 10');
    const inbox = await openInbox(made.id, 1);
    const response = inbox.locator('li[data-response-id]').first();
    expect(await response.getAttribute('data-outcome')).toBe('opened');
    expect(await response.locator('textarea').inputValue()).toBe(text);
    await requester.context.grantPermissions(['clipboard-write'], { origin: runtime.url });
    await response.locator('button[data-action="copy-response"]').click();
    await expect.poll(() => response.locator('button[data-action="copy-response"]').textContent()).toBe('Copied ✓');
    await requester.screenshot('requests-inbox-text');
  });

  it('a 16 MiB file response: sealed and uploaded by the responder’s page, saved from the inbox, bytes compared', async () => {
    const made = await makeRequest({ prompt: `The signed contract, please ${randomUUID()}` });
    const file = plaintextFile(16 * MiB + 4321);
    const responder = await session('file-responder');
    await openLink(responder, made.link);
    await responder.page.setInputFiles('#respond-file', file.path);
    expect(await responder.page.isVisible('#text-field'), 'a file replaces the text').toBe(false);
    expect(await responder.page.textContent('#file-chosen-text')).toContain(`${file.name} (16.0 MB)`);
    await responder.page.click('#send-button');
    await responder.page.waitForSelector('#screen-sent:not([hidden])', { timeout: 120_000 });
    expect(await responder.page.textContent('#sent-text')).toContain(`Your file “${file.name}” (16.0 MB) was encrypted`);
    expect(await guardRandom(responder)).toBeGreaterThanOrEqual(1);
    // The upload: opened with the link's id and the wrapped key (no verifiers), parts to the bucket, completed.
    const requests = responder.requests();
    const opened = JSON.parse(
      requests.find((request) => request.method === 'POST' && request.url.endsWith('/v1/files/multipart'))!.body,
    ) as Record<string, unknown>;
    expect(Object.keys(opened).sort()).toEqual(['chunk_log2', 'enc', 'request_id', 'salt', 'size_bytes', 'wrapped_key']);
    expect(opened).toMatchObject({ request_id: made.id, chunk_log2: 20 });
    expect(opened.size_bytes).toBeGreaterThan(file.bytes.length);
    const puts = requests.filter((request) => request.method === 'PUT');
    expect(puts.length).toBe(3);
    expect(puts.every((request) => request.url.startsWith(`${runtime.s3.endpoint}/`))).toBe(true);
    expect(requests.some((request) => request.url.endsWith('/v1/files/multipart/complete'))).toBe(true);
    await finish(responder);

    await openRequests();
    const inbox = await openInbox(made.id, 1);
    const response = inbox.locator('li[data-response-id]').first();
    expect(await response.getAttribute('data-kind')).toBe('file');
    expect(await response.getAttribute('data-outcome')).toBe('opened');
    expect(await response.locator('[data-role="file-name"] dd').textContent()).toBe(file.name);
    await requester.screenshot('requests-inbox-file');
    await response.locator('button[data-action="save-file"]').click();
    await response.locator('[data-role="saved"]:not([hidden])').waitFor({ timeout: 120_000 });
    expect(await response.locator('[data-role="saved"]').textContent()).toBe(`Saved “${file.name}” (16.0 MB).`);
    const saved = await savedFile(requester, 4 * MiB);
    expect(saved.size).toBe(file.bytes.length);
    expect(saved.hashes).toEqual(sliceHashes(file.bytes, 4 * MiB));
    expect(saved.suggested).toBe(file.name);
  }, 300_000);

  it('closes a link from the list behind a confirm step; its page then says closed, and the inbox still opens', async () => {
    const made = await makeRequest();
    const text = `before the close ${randomUUID()}`;
    const responder = await session('close-responder');
    await answerText(responder, made.link, text);
    await finish(responder);

    await openRequests();
    const deletes = () => requester.apiRequests().filter((request) => request.method === 'DELETE').length;
    const before = deletes();
    await item(made.id).locator('button[data-action="close"]').click();
    expect(await item(made.id).locator('[data-role="confirm"]').isVisible()).toBe(true);
    expect(await focusedId(requester)).toBe('');
    expect(await requester.page.evaluate(() => document.activeElement?.textContent)).toContain('Yes, close it');
    await requester.screenshot('requests-close-confirm');
    await item(made.id).locator('button[data-action="cancel-close"]').click();
    expect(await item(made.id).locator('[data-role="confirm"]').isVisible()).toBe(false);
    expect(deletes(), '"Keep it open" sends nothing').toBe(before);
    await item(made.id).locator('button[data-action="close"]').click();
    await item(made.id).locator('button[data-action="confirm-close"]').click();
    await expect.poll(() => item(made.id).getAttribute('data-state')).toBe('closed');
    expect(deletes()).toBe(before + 1);
    expect(await item(made.id).locator('button[data-action="close"]').count()).toBe(0);
    expect(await requester.page.evaluate(() => document.activeElement?.classList.contains('item-title'))).toBe(true);
    expect((await api.get(`/v1/requests/${made.id}`)).body).toMatchObject({ reason: 'closed' });

    const late = await session('closed-responder');
    await openLink(late, made.link);
    expect(await late.message()).toBe('closed');
    expect(await late.page.isVisible('#respond-text')).toBe(false);
    await late.screenshot('requests-respond-closed');
    await finish(late);

    const inbox = await openInbox(made.id, 1);
    expect(await inbox.locator('li[data-response-id] textarea').inputValue()).toBe(text);
  });

  it('refuses a public key substituted in the table before anything can be typed, and sends nothing', async () => {
    const made = await makeRequest({ prompt: `never answered ${randomUUID()}` });
    const attacker = await generateRequesterKeys();
    const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    await db.send(
      new UpdateCommand({
        TableName: runtime.config.TABLE_NAME,
        Key: { pk: `REQUEST#${made.id}`, sk: 'REQUEST' },
        UpdateExpression: 'SET public_key = :key',
        ExpressionAttributeValues: { ':key': encodePublicKey(attacker.publicKey) },
      }),
    );
    db.destroy();
    const responder = await session('substituted-responder');
    await openLink(responder, made.link);
    expect(await responder.message()).toBe('key-mismatch');
    expect(await responder.page.textContent('#message-text')).toContain('may have been tampered with');
    expect(await responder.page.isVisible('#respond-text')).toBe(false);
    expect(await responder.page.isDisabled('#respond-text')).toBe(true);
    expect(await responder.page.isVisible('#prompt-text')).toBe(false);
    expect(
      responder.requests().filter((request) => request.method !== 'GET'),
      'nothing sent',
    ).toEqual([]);
    expect(responder.apiRequests().map((request) => new URL(request.url).pathname)).toEqual([`/v1/requests/${made.id}`]);
    await responder.screenshot('requests-respond-key-mismatch');
    await finish(responder);
    expect((await api.get(`/v1/requests/${made.id}`)).body.responses_left).toBe(10);
  });

  it('says clearly that a forged response does not open, and opens the others', async () => {
    const made = await makeRequest();
    const responder = await session('forgery-neighbour');
    const genuine = `genuine ${randomUUID()}`;
    await answerText(responder, made.link, genuine);
    await finish(responder);
    // A forger with the public key (read off the service) but not the link's s.
    expect(await respondFromNode(made, `forged ${randomUUID()}`, newLinkSecret())).toBe(201);
    await openRequests();
    const inbox = await openInbox(made.id, 2);
    const [forged, opened] = [inbox.locator('li[data-outcome="forged"]'), inbox.locator('li[data-outcome="opened"]')];
    expect(await forged.count()).toBe(1);
    expect(await forged.locator('[data-role="unreadable"]').textContent()).toContain('was not made with your link');
    expect(await forged.locator('textarea').count()).toBe(0);
    expect(await opened.locator('textarea').inputValue()).toBe(genuine);
    // Newest first: the forgery came last.
    expect(await inbox.locator('li[data-response-id]').first().getAttribute('data-outcome')).toBe('forged');
    await requester.screenshot('requests-inbox-forged');
  });

  it('pages the inbox newest first with "More" while next_cursor is set', async () => {
    const made = await makeRequest({ max: 12 });
    const texts: string[] = [];
    for (let i = 0; i < 11; i++) {
      texts.push(`answer ${i} ${randomUUID()}`);
      expect(await respondFromNode(made, texts[i]!)).toBe(201);
      runtime.clock.advance(1);
    }
    await openRequests();
    const inbox = await openInbox(made.id, 10);
    const shown = () =>
      inbox.locator('li[data-response-id] textarea').evaluateAll((areas) => areas.map((area) => (area as HTMLTextAreaElement).value));
    expect(await shown()).toEqual(texts.slice(1).reverse());
    await inbox.locator('button[data-action="more-responses"]').click();
    await expect.poll(() => inbox.locator('li[data-response-id]').count()).toBe(11);
    expect(await shown()).toEqual([...texts].reverse());
    expect(await inbox.locator('button[data-action="more-responses"]').isVisible()).toBe(false);
    expect(await requester.page.evaluate(() => document.activeElement?.closest('li[data-response-id]') !== null)).toBe(true);
  });

  it('shows not found, an incomplete link, expired, and full (from the read, and from a 409 or 403 when it filled meanwhile)', async () => {
    const fragment = `${Buffer.alloc(32, 1).toString('base64url')}.${Buffer.alloc(32, 2).toString('base64url')}`;
    const s = await session('refusals');
    await openLink(s, `${runtime.url}/q/rql_AAAAAAAAAAAAAAAAAAAAAA#${fragment}`);
    expect(await s.message()).toBe('not-found');
    await s.screenshot('requests-respond-not-found');
    const before = s.apiRequests().length;
    await openLink(s, `${runtime.url}/q/rql_BBBBBBBBBBBBBBBBBBBBBB#not-a-fragment`);
    expect(await s.message()).toBe('bad-link');
    await openLink(s, `${runtime.url}/q/rql_CCCCCCCCCCCCCCCCCCCCCC`);
    expect(await s.message()).toBe('bad-link');
    expect(s.apiRequests().length, 'an incomplete link asks nothing').toBe(before);
    // A fragment put on the open page (the link pasted again) is read and taken off as well.
    await Promise.all([s.page.waitForEvent('load'), s.page.evaluate((hash) => void (location.hash = hash), fragment)]);
    await s.page.waitForSelector('html[data-screen="message"]');
    expect(await s.message()).toBe('not-found');
    expect(s.page.url()).toBe(`${runtime.url}/q/rql_CCCCCCCCCCCCCCCCCCCCCC`);

    // Expired: a link of one minute, the service's clock moved past it.
    const other = await signInOverApi(runtime, newEmail('expiring'));
    const keys = await generateRequesterKeys();
    const expiring = await api.post(
      '/v1/requests',
      { public_key: encodePublicKey(keys.publicKey), kem: keys.kem, expires_in: 60 },
      other.auth,
    );
    const fingerprint = createHash('sha256').update(keys.publicKey).digest('base64url');
    runtime.clock.advance(61);
    await openLink(s, `${runtime.url}/q/${expiring.body.id}#${fingerprint}.${Buffer.alloc(32, 3).toString('base64url')}`);
    expect(await s.message()).toBe('expired');
    await s.screenshot('requests-respond-expired');

    // Full from the read: one response allowed, one sent.
    const made = await makeRequest({ max: 1, prompt: `only one ${randomUUID()}` });
    const early = await session('full-early');
    await openLink(early, made.link);
    const earlyFile = await session('full-early-file');
    await openLink(earlyFile, made.link);
    const first = await session('full-first');
    await answerText(first, made.link, `the one answer ${randomUUID()}`);
    await finish(first);
    await openLink(s, made.link);
    expect(await s.message()).toBe('full');
    await s.screenshot('requests-respond-full');
    await finish(s);
    // Pages opened before it filled: the text gets 409 request_full, the file 403 request_full, before anything is uploaded.
    const late = `too late ${randomUUID()}`;
    guardText('plaintext', late);
    await early.page.fill('#respond-text', late);
    await early.page.click('#send-button');
    expect(await early.message()).toBe('full');
    expect(await guardRandom(early)).toBeGreaterThanOrEqual(1);
    await finish(early);
    const small = plaintextFile(1000);
    await earlyFile.page.setInputFiles('#respond-file', small.path);
    await earlyFile.page.click('#send-button');
    expect(await earlyFile.message()).toBe('full');
    expect(
      earlyFile.requests().filter((request) => request.method === 'PUT'),
      'nothing uploaded',
    ).toEqual([]);
    expect(await guardRandom(earlyFile)).toBeGreaterThanOrEqual(1);
    await finish(earlyFile);
  });

  it('429 and a network failure: a screen when reading, the answer kept when sending', async () => {
    const made = await makeRequest();
    const s = await session('flaky');
    const readPath = `**/v1/requests/${made.id}`;
    await s.page.route(readPath, (route) =>
      route.fulfill({
        status: 429,
        headers: { 'retry-after': '7', 'content-type': 'application/problem+json' },
        body: JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status: 429, code: 'rate_limited' }),
      }),
    );
    await openLink(s, made.link);
    expect(await s.message()).toBe('rate-limited');
    expect(await s.page.textContent('#message-detail')).toBe('Try again in 7 seconds.');
    await s.screenshot('requests-respond-429');
    await s.page.unroute(readPath);
    await s.page.route(readPath, (route) => route.abort('internetdisconnected'));
    await s.page.click('#message-retry');
    await expect.poll(() => s.page.getAttribute('#screen-message', 'data-message')).toBe('network');
    await s.page.unroute(readPath);
    await s.page.click('#message-retry');
    await s.page.waitForSelector('#screen-ready:not([hidden])');

    const text = `kept through failures ${randomUUID()}`;
    guardText('plaintext', text);
    await s.page.fill('#respond-text', text);
    const sendPath = `**/v1/requests/${made.id}/responses`;
    await s.page.route(sendPath, (route) => route.abort('internetdisconnected'));
    await s.page.click('#send-button');
    await s.page.waitForSelector('#respond-errors:not([hidden])');
    expect(await s.page.textContent('#respond-errors-title')).toBe('Cannot reach Hushlink');
    expect(await s.page.inputValue('#respond-text')).toBe(text);
    await s.page.unroute(sendPath);
    await s.page.route(sendPath, (route) =>
      route.fulfill({
        status: 429,
        headers: { 'retry-after': '3', 'content-type': 'application/problem+json' },
        body: JSON.stringify({ status: 429, code: 'rate_limited' }),
      }),
    );
    await s.page.click('#send-button');
    await expect.poll(() => s.page.textContent('#respond-errors-text')).toContain('try again in 3 seconds');
    expect(await s.page.inputValue('#respond-text')).toBe(text);
    await s.screenshot('requests-respond-send-429');
    await s.page.unroute(sendPath);
    await s.page.click('#send-button');
    await s.page.waitForSelector('#screen-sent:not([hidden])');
    expect(await guardRandom(s)).toBeGreaterThanOrEqual(3);
    await finish(s, false, /net::ERR_INTERNET_DISCONNECTED/);
    expect((await api.get(`/v1/requests/${made.id}`)).body.responses_left).toBe(9);
  });

  it('lists the requests in another browser of the account, saying their responses open only where they were made', async () => {
    const made = await makeRequest();
    const other = await session('other-device');
    await signIn(other, requesterEmail);
    expect(await item(made.id, other).getAttribute('data-kept')).toBe('false');
    expect(await item(made.id, other).locator('[data-role="elsewhere"]').textContent()).toContain('can be opened only where it was made');
    expect(await item(made.id, other).locator('details[data-role="inbox"]').count()).toBe(0);
    expect(await item(made.id, other).locator('details[data-role="link"]').count()).toBe(0);
    // It can still close it.
    expect(await item(made.id, other).locator('button[data-action="close"]').count()).toBe(1);
    await other.screenshot('requests-other-device');
    await finish(other, true);
  });

  it('works with the keyboard alone, for the requester and the responder', async () => {
    const { page } = requester;
    await openRequests();
    const prompt = `typed with keys ${randomUUID()}`;
    guardText('prompt', prompt);
    await page.focus('#request-prompt');
    await page.keyboard.type(prompt);
    await page.keyboard.press('Tab');
    // The optional private label (ADR 0180), left empty.
    expect(await focusedId(requester)).toBe('request-label');
    await page.keyboard.press('Tab');
    expect(await focusedId(requester)).toBe('request-expiry');
    await page.keyboard.press('Tab');
    expect(await focusedId(requester)).toBe('request-max');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#request-result:not([hidden])');
    expect(await focusedId(requester)).toBe('result-title');
    await page.keyboard.press('Tab');
    expect(await focusedId(requester)).toBe('request-link');
    await page.keyboard.press('Tab');
    expect(await focusedId(requester)).toBe('copy-request-link');
    const link = await page.inputValue('#request-link');
    guard('full link', link);
    guardBytes('link secret', parseRequestFragment(new URL(link).hash).linkSecret);
    await guardRandom(requester);

    const r = await session('keyboard-responder');
    await openLink(r, link);
    expect(await focusedId(r)).toBe('ready-title');
    await r.page.keyboard.press('Tab');
    expect(await focusedId(r)).toBe('respond-text');
    const text = `typed answer ${randomUUID()}`;
    guardText('plaintext', text);
    await r.page.keyboard.type(text);
    await r.page.keyboard.press('Tab');
    expect(await focusedId(r)).toBe('respond-file');
    await r.page.keyboard.press('Tab');
    expect(await focusedId(r)).toBe('send-button');
    await r.page.keyboard.press('Enter');
    await r.page.waitForSelector('#screen-sent:not([hidden])');
    expect(await focusedId(r)).toBe('sent-title');
    await r.page.keyboard.press('Tab');
    expect(await focusedId(r)).toBe('send-another');
    await guardRandom(r);
    await finish(r);

    // The requester opens it with the keyboard: the panel's summary, then Copy.
    await openRequests();
    const id = new URL(link).pathname.split('/')[2]!;
    await item(id).locator('details[data-role="inbox"] > summary').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => item(id).locator('li[data-outcome="opened"] textarea').count()).toBe(1);
    expect(await item(id).locator('li[data-outcome="opened"] textarea').inputValue()).toBe(text);
  });

  it('fits 360 px, in light and dark, for both pages', async () => {
    const narrow = await session('narrow', { narrow: true, dark: true });
    await signIn(narrow, requesterEmail);
    expect(await narrowEnough(narrow)).toBeLessThanOrEqual(360);
    const made = await makeRequest({ prompt: `a long question to wrap ${'x'.repeat(120)} ${randomUUID()}` }, narrow);
    expect(await narrowEnough(narrow)).toBeLessThanOrEqual(360);
    await narrow.screenshot('requests-narrow-dark');
    const r = await session('narrow-responder', { narrow: true });
    await openLink(r, made.link);
    expect(await narrowEnough(r)).toBeLessThanOrEqual(360);
    await r.screenshot('requests-respond-narrow');
    const rDark = await session('narrow-responder-dark', { narrow: true, dark: true });
    await openLink(rDark, made.link);
    expect(await narrowEnough(rDark)).toBeLessThanOrEqual(360);
    await rDark.screenshot('requests-respond-narrow-dark');
    await finish(r);
    await finish(rDark);
    await finish(narrow, true);
  });

  it('never sent a link secret, key, plaintext or prompt; stored nothing but the requester’s key store', async () => {
    await guardRandom(requester).catch(() => 0);
    expect(await requester.problems()).toEqual([]);
    await checkStorage(requester, true);
    expect(requester.page.url()).not.toContain('#');
    await requester.close();
    const requests = await settleTraffic();
    expect(guarded.size).toBeGreaterThan(40);
    expect(findLeaks(requests, guarded)).toEqual([]);
    for (const request of requests) {
      expect([runtime.url, runtime.s3.endpoint], `origin of ${request.url}`).toContain(new URL(request.url).origin);
      // The sign-in cookie goes to /v1/auth/* alone: never with a request's, a response's or a page's request.
      expect(cookieProblem(request), `cookie of ${request.url}`).toBeNull();
      expect(request.headers.referer ?? '', `referer of ${request.url}`).not.toContain('#');
    }
    // The sealed prompts did go (the check above is not empty by accident): envelopes, not text.
    expect(
      requests.some(
        (request) =>
          request.method === 'POST' && new URL(request.url).pathname === '/v1/requests' && request.body.includes('prompt_envelope'),
      ),
    ).toBe(true);
  });
});
