/**
 * The command-line client and the browser speak one envelope (issue 20): a link made by the real
 * `hushlink` binary (a child process, test/support/cli.ts) opens on Chromium's reveal page, and a
 * link made on Chromium's compose page opens with `hushlink open`, against one local runtime.
 * Texts exactly, files byte for byte, passphrases typed on either side, per-recipient links
 * split between the two. Every request the browsers make is recorded: no key, passphrase, file
 * name or plaintext reaches the server from them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { newConfigDir, runCli, type CliOptions, type CliResult } from '../support/cli.ts';
import { apiClient } from '../support/runtime.ts';
import { findLeaks, guard as guardValue, Session, settleTraffic, startRuntimeAndBrowser, stopRuntimeAndBrowser } from './harness.ts';

const MiB = 1024 * 1024;
let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
/** Keys, passphrases, file names and plaintexts: no request of a browser may carry them. */
const guarded = new Map<string, string>();
const work = mkdtempSync(join(tmpdir(), 'hushlink-cli-e2e-'));
/** One config folder for every run: the CLI here is one person's, signed in nowhere. */
const configDir = newConfigDir();

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
  api = apiClient(runtime);
}, 180_000);

afterAll(async () => {
  await stopRuntimeAndBrowser(runtime, browser);
  rmSync(work, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
});

const guard = (label: string, value: string) => guardValue(guarded, label, value);

/** Several lines, non-ASCII, and the final newline `echo` leaves: all of it must come through. */
function newPlaintext(): string {
  const text = `cli e2e ${randomUUID()}\nsecond line: grüße, ünïcödé ✓ ${randomBytes(6).toString('hex')}\n`;
  guard('plaintext', text.trim());
  for (const line of text.split('\n')) if (line.length >= 8) guard('plaintext line', line);
  return text;
}

/** `hushlink …args` against the runtime, piped. */
function hushlink(args: string[], options: Omit<CliOptions, 'api' | 'configDir'> = {}): Promise<CliResult> {
  return runCli(args, { api: runtime.url, configDir, cwd: work, ...options });
}

/** A link's secret id, recipient id (per-recipient links) and key; the key and link guarded. */
function linkParts(link: string): { id: string; recipientId: string | undefined; key: string } {
  const url = new URL(link);
  expect(url.origin).toBe(runtime.url);
  const [, s, id, r, recipientId] = url.pathname.split('/');
  expect(s).toBe('s');
  expect(id).toMatch(/^sec_[A-Za-z0-9_-]+$/);
  if (r !== undefined) expect([r, recipientId]).toEqual(['r', expect.stringMatching(/^rcp_[A-Za-z0-9_-]+$/)]);
  const key = url.hash.slice(1);
  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  guard('link key', key);
  guard('full link', link);
  return { id: id!, recipientId, key };
}

/** `hushlink send …`: exit 0 and only links on stdout, one a line; the delete token on stderr. */
async function send(args: string[], options: Omit<CliOptions, 'api' | 'configDir'> = {}): Promise<string[]> {
  const sent = await hushlink(['send', ...args], options);
  expect(sent.code, sent.stderr).toBe(0);
  expect(sent.stdout).toMatch(/\n$/);
  expect(sent.stderr).toMatch(/^Delete token: hdt_[A-Za-z0-9_-]+$/m);
  return sent.stdout.trimEnd().split('\n');
}

/** No file system access API: the reveal page saves through its download worker, as a browser download. */
const noPicker = 'delete window.showSaveFilePicker; delete Window.prototype.showSaveFilePicker;';

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

/** Opens `link` on the reveal page and waits for its ready screen (metadata read, nothing claimed). */
async function openReady(s: Session, link: string): Promise<void> {
  await s.page.goto(link);
  await s.ready('reveal');
  await s.page.waitForSelector('#screen-ready:not([hidden])');
}

/** Reveals a text from the ready screen and returns it as the page shows it. */
async function revealText(s: Session): Promise<string> {
  await s.page.click('#reveal-button');
  await s.page.waitForSelector('#screen-revealed:not([hidden])');
  return s.page.inputValue('#secret-text');
}

/** On the compose page: a text, or a file chosen, with options; returns the link shown. */
async function compose(
  s: Session,
  secret: { text: string } | { file: string },
  options: { passphrase?: string; maxViews?: number } = {},
): Promise<string> {
  const { page } = s;
  await page.goto(`${runtime.url}/`);
  await s.ready('compose');
  if ('text' in secret) await page.fill('#secret-text', secret.text);
  else await page.setInputFiles('#secret-file', secret.file);
  // Views and the passphrase are folded under "Options".
  if (options.maxViews !== undefined || options.passphrase !== undefined) {
    await page.locator('#more-options').evaluate((details) => ((details as HTMLDetailsElement).open = true));
  }
  if (options.maxViews !== undefined) await page.fill('#max-views', String(options.maxViews));
  if (options.passphrase !== undefined) await page.fill('#passphrase', options.passphrase);
  await page.click('#create-button');
  await page.waitForSelector('#result:not([hidden])', { timeout: 60_000 });
  return page.inputValue('#share-link');
}

/** `size` random bytes in a file of the work folder, its name guarded (it travels encrypted). */
function randomFile(size: number): { path: string; name: string; bytes: Buffer } {
  const name = `cli-e2e-${randomUUID()}.bin`;
  guard('file name', name);
  const bytes = randomBytes(size);
  const path = join(work, name);
  writeFileSync(path, bytes);
  return { path, name, bytes };
}

describe('a link made by the CLI, opened in Chromium', () => {
  it('a piped text opens on the reveal page exactly; then it is burned, and `hushlink open` of it exits 2', async () => {
    const text = newPlaintext();
    const [link, ...more] = await send([], { input: text });
    expect(more).toEqual([]);
    const { id } = linkParts(link!);

    const s = await session('cli-text');
    await openReady(s, link!);
    expect(await revealText(s)).toBe(text);
    expect(await s.page.textContent('#revealed-note')).toContain('This was the last view');
    await finish(s);

    const status = await hushlink(['status', id, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ id, kind: 'text', state: 'burned', views_left: 0, max_views: 1, passphrase: false });

    const again = await hushlink(['open', link!]);
    expect(again).toMatchObject({ code: 2, stdout: '' });
    expect(again.stderr).toContain('[gone]');
  });

  it('a text sealed with HUSHLINK_PASSPHRASE opens with the passphrase typed in Chromium', async () => {
    const text = newPlaintext();
    const passphrase = `cli passphrase ${randomBytes(6).toString('hex')}`;
    guard('passphrase', passphrase);
    const [link] = await send(['--passphrase'], { input: text, env: { HUSHLINK_PASSPHRASE: passphrase } });
    const { id } = linkParts(link!);
    expect((await api.get(`/v1/secrets/${id}`)).body).toMatchObject({ state: 'active', passphrase: true });

    const s = await session('cli-passphrase');
    await openReady(s, link!);
    expect(await s.page.isVisible('#passphrase-field')).toBe(true);
    await s.page.fill('#passphrase', passphrase);
    expect(await revealText(s)).toBe(text);
    await finish(s);
  });

  it('a file of random bytes downloads in Chromium byte for byte, under its name', async () => {
    const file = randomFile(3 * MiB + 4321);
    const [link] = await send([file.path]);
    const { id } = linkParts(link!);
    expect((await api.get(`/v1/secrets/${id}`)).body).toMatchObject({ kind: 'file', state: 'active' });

    const s = await session('cli-file', noPicker);
    await openReady(s, link!);
    await s.page.click('#reveal-button');
    await s.page.waitForSelector('#screen-file:not([hidden])');
    expect(await s.page.textContent('#file-name')).toBe(file.name);
    const started = s.page.waitForEvent('download');
    await s.page.click('#save-file');
    const download = await started;
    expect(await download.failure()).toBeNull();
    expect(download.suggestedFilename()).toBe(file.name);
    expect(readFileSync(await download.path()).equals(file.bytes)).toBe(true);
    await s.page.waitForSelector('#file-saved:not([hidden])');
    await finish(s);
  });
});

describe('a link made in Chromium, opened by the CLI', () => {
  it('a text: exactly that text on stdout, and nothing else', async () => {
    const text = newPlaintext();
    const s = await session('compose-text');
    const link = await compose(s, { text });
    const { id } = linkParts(link);
    await finish(s);

    const opened = await hushlink(['open', link]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe(text);
    expect((await api.get(`/v1/secrets/${id}`)).body).toMatchObject({ state: 'burned', views_left: 0 });
  });

  it('a file: saved with -o byte for byte', async () => {
    const file = randomFile(2 * MiB + 99);
    const s = await session('compose-file');
    const link = await compose(s, { file: file.path });
    linkParts(link);
    await finish(s);

    const saved = join(work, `saved-${randomUUID()}.bin`);
    const opened = await hushlink(['open', link, '-o', saved]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe('');
    expect(opened.stderr).toContain(`Saved ${file.name} (${file.bytes.length} bytes) to ${saved}.`);
    expect(readFileSync(saved).equals(file.bytes)).toBe(true);
  });

  it('with a passphrase: a wrong one exits 4 and uses no view (its attempt counted), Chromium opens it, and HUSHLINK_PASSPHRASE opens the last view', async () => {
    const text = newPlaintext();
    const passphrase = `web passphrase ${randomBytes(6).toString('hex')}`;
    const wrong = `not it ${randomBytes(6).toString('hex')}`;
    guard('passphrase', passphrase);
    guard('wrong passphrase', wrong);
    const sender = await session('compose-passphrase');
    const link = await compose(sender, { text }, { passphrase, maxViews: 2 });
    const { id } = linkParts(link);
    await finish(sender);

    const refused = await hushlink(['open', link], { env: { HUSHLINK_PASSPHRASE: wrong } });
    expect(refused).toMatchObject({ code: 4, stdout: '' });
    expect(refused.stderr).toContain('The key in the link or the passphrase does not open this secret. 4 attempts left before it locks.');
    expect((await api.get(`/v1/secrets/${id}`)).body).toMatchObject({ state: 'active', views_left: 2 });

    // The page's own wrong attempt is the second counted: the CLI's was the first.
    const s = await session('passphrase-after-cli');
    await openReady(s, link);
    await s.page.fill('#passphrase', wrong);
    await s.page.click('#reveal-button');
    await s.page.waitForSelector('#reveal-error-title:has-text("Wrong passphrase")');
    expect(await s.page.textContent('#reveal-error-text')).toContain('3 attempts left');
    await s.page.fill('#passphrase', passphrase);
    expect(await revealText(s)).toBe(text);
    await finish(s);

    const opened = await hushlink(['open', link], { env: { HUSHLINK_PASSPHRASE: passphrase } });
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe(text);
    expect((await api.get(`/v1/secrets/${id}`)).body).toMatchObject({ state: 'burned', views_left: 0 });
  });
});

describe('per-recipient links', () => {
  it('`send --recipient alice --recipient bob` prints two links: alice’s opens in Chromium, bob’s with the CLI', async () => {
    const text = newPlaintext();
    const sent = await hushlink(['send', '--recipient', 'alice', '--recipient', 'bob'], { input: text });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toContain('One link each, in this order: alice, bob.');
    const [alice, bob, ...more] = sent.stdout.trimEnd().split('\n');
    expect(more).toEqual([]);
    const [aliceLink, bobLink] = [linkParts(alice!), linkParts(bob!)];
    // One secret and one key; a path of its own for each.
    expect(bobLink.id).toBe(aliceLink.id);
    expect(bobLink.key).toBe(aliceLink.key);
    expect(bobLink.recipientId).not.toBe(aliceLink.recipientId);

    const s = await session('recipient-alice');
    await openReady(s, alice!);
    expect(await revealText(s)).toBe(text);
    await finish(s);
    const recipientState = async (recipientId: string) =>
      (await api.get(`/v1/secrets/${aliceLink.id}?recipient_id=${recipientId}`)).body.recipient;
    expect(await recipientState(aliceLink.recipientId!)).toMatchObject({ state: 'used', views_left: 0 });
    expect(await recipientState(bobLink.recipientId!)).toMatchObject({ state: 'active', views_left: 1 });

    const opened = await hushlink(['open', bob!]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe(text);
    expect(await recipientState(bobLink.recipientId!)).toMatchObject({ state: 'used', views_left: 0 });
    // Alice's link, used in the browser, is refused by the CLI before any claim.
    const again = await hushlink(['open', alice!]);
    expect(again).toMatchObject({ code: 2, stdout: '' });
    expect(again.stderr).toContain('[gone]');
  });
});

describe('what the browsers sent', () => {
  it('never a key, passphrase, file name or plaintext, and only to the runtime and its bucket', async () => {
    const traffic = await settleTraffic();
    expect(traffic.length).toBeGreaterThan(0);
    expect(findLeaks(traffic, guarded)).toEqual([]);
    const origins = new Set(traffic.map((request) => new URL(request.url).origin));
    origins.delete(runtime.url);
    origins.delete(runtime.s3.endpoint);
    expect([...origins]).toEqual([]);
  });
});
