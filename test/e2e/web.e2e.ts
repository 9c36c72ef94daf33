/**
 * The web client end to end: compose and reveal pages in Debian's Chromium against one local
 * runtime. Every request the browsers make is recorded; the last test checks that no link
 * key, passphrase or plaintext was ever in a URL, header or body sent to the server.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { linkTokenFor, sealText, toBase64 } from '../../shared/envelope/index.ts';
import { apiClient } from '../support/runtime.ts';
import { findLeaks, guard as guardValue, startRuntimeAndBrowser, stopRuntimeAndBrowser, Session, settleTraffic } from './harness.ts';

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
const sessions: Session[] = [];
/** Every key, passphrase and plaintext the suite used: none may reach the server. */
const guarded = new Map<string, string>();

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
  api = apiClient(runtime);
}, 180_000);

afterAll(() => stopRuntimeAndBrowser(runtime, browser));

const guard = (label: string, value: string) => guardValue(guarded, label, value);

function guardPlaintext(text: string): void {
  guard('plaintext', text);
  const bytes = Buffer.from(text, 'utf8');
  guard('plaintext as base64', bytes.toString('base64').replace(/=+$/, ''));
  guard('plaintext as base64url', bytes.toString('base64url'));
  guard('plaintext URL-encoded', encodeURIComponent(text));
  for (const line of text.split('\n')) if (line.length >= 8) guard('plaintext line', line);
}

function newPlaintext(): string {
  return `e2e secret ${randomUUID()}\nsecond line: grüße, ünïcödé ✓ ${randomBytes(6).toString('hex')}`;
}

async function session(name: string, options: Parameters<typeof Session.open>[2] = {}): Promise<Session> {
  const opened = await Session.open(browser, name, options);
  sessions.push(opened);
  return opened;
}

/** The checks every page must pass before its session is closed. */
async function finish(s: Session): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  expect(await s.storage(), `web storage of ${s.name}`).toEqual({ local: 0, session: 0, cookies: '' });
  expect(s.page.url(), 'the address bar keeps no fragment').not.toContain('#');
  await s.close();
}

interface ComposeOptions {
  text: string;
  passphrase?: string;
  maxViews?: number;
  expiry?: string;
  notBefore?: string;
}

/** Fills the compose page, submits, and returns the link it shows. */
async function compose(s: Session, options: ComposeOptions): Promise<{ link: string; key: string; id: string }> {
  const { page } = s;
  await page.goto(`${runtime.url}/`);
  await s.ready('compose');
  await page.fill('#secret-text', options.text);
  // Expiry, views, passphrase and not before are folded under "Options".
  const folded = [options.expiry, options.maxViews, options.passphrase, options.notBefore].some((option) => option !== undefined);
  if (folded) await page.click('#more-options summary');
  if (options.expiry) await page.selectOption('#expiry', options.expiry);
  if (options.maxViews !== undefined) await page.fill('#max-views', String(options.maxViews));
  if (options.passphrase !== undefined) await page.fill('#passphrase', options.passphrase);
  if (options.notBefore !== undefined) await page.fill('#not-before', options.notBefore);
  await page.click('#create-button');
  await page.waitForSelector('#result:not([hidden])');
  return linkOf(s);
}

async function linkOf(s: Session): Promise<{ link: string; key: string; id: string }> {
  const link = await s.page.inputValue('#share-link');
  const url = new URL(link);
  const key = url.hash.slice(1);
  const id = url.pathname.split('/')[2]!;
  expect(url.origin).toBe(runtime.url);
  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(id).toMatch(/^sec_/);
  guard('link key', key);
  guard('full link', link);
  return { link, key, id };
}

/** Opens a link in the given (fresh) session and waits for the page to settle on a screen. */
async function openLink(s: Session, link: string): Promise<void> {
  await s.page.goto(link);
  await s.ready('reveal');
  await s.page.waitForFunction(
    () => document.documentElement.dataset.screen !== 'loading' && document.documentElement.dataset.screen !== undefined,
  );
  expect(s.page.url(), 'fragment removed from the address bar').toBe(link.split('#')[0]);
}

const claims = (s: Session) => s.apiRequests().filter((request) => request.method === 'POST' && request.url.endsWith('/claim'));

/** A local `datetime-local` value `ms` from now, in the session's time zone (Europe/Berlin). */
function berlinLocal(msFromNow: number): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Europe/Berlin',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(Date.now() + msFromNow));
  const get = (type: string) => parts.find((part) => part.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}`;
}

describe('web client', () => {
  it('serves the pages with the hardening headers', async () => {
    for (const path of ['/', '/s/sec_AAAAAAAAAAAAAAAAAAAAAA']) {
      const response = await fetch(`${runtime.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      const html = await response.text();
      expect(html).toContain('<meta name="referrer" content="no-referrer">');
      // No inline script or style, no third-party origin.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|\sstyle=/);
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    }
  });

  it('composes, reveals once in a fresh browser, then shows the secret is gone', async () => {
    const text = newPlaintext();
    guardPlaintext(text);

    const sender = await session('basic-sender');
    await sender.page.goto(`${runtime.url}/`);
    await sender.ready('compose');
    await sender.screenshot('compose-empty');
    await sender.page.fill('#secret-text', text);
    await sender.page.click('#create-button');
    await sender.page.waitForSelector('#result:not([hidden])');
    const { link, id } = await linkOf(sender);
    expect(await sender.page.locator('#qr-code svg path').getAttribute('d')).toMatch(/^M\d/);
    expect(await sender.page.locator('#result-summary').textContent()).toContain('Can be opened once.');
    // Copy writes the clipboard on this click only.
    await sender.context.grantPermissions(['clipboard-write'], { origin: runtime.url });
    await sender.page.click('#copy-link');
    await expect.poll(() => sender.page.textContent('#copy-link')).toBe('Copied ✓');
    await sender.screenshot('compose-link');
    // The text and passphrase left the form once sealed.
    expect(await sender.page.inputValue('#secret-text')).toBe('');
    const created = sender.apiRequests().find((request) => request.method === 'POST');
    expect(JSON.parse(created!.body)).toMatchObject({
      kind: 'text',
      max_views: 1,
      expires_in: 86_400,
      claim_verifier: expect.any(String),
      link_verifier: expect.any(String),
    });
    await finish(sender);

    const recipient = await session('basic-recipient');
    await openLink(recipient, link);
    expect(await recipient.screen()).toBe('ready');
    expect(await recipient.page.isVisible('#last-view')).toBe(true);
    expect(await recipient.page.textContent('#last-view')).toContain('This is the last view');
    expect(await recipient.page.isVisible('#passphrase-field')).toBe(false);
    expect(await recipient.page.textContent('#fact-expires')).toMatch(/in (23|24) hours/);
    // Reading the page claimed nothing: metadata only.
    expect(claims(recipient)).toEqual([]);
    expect(recipient.apiRequests().map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
      `GET /v1/secrets/${id}`,
    ]);
    expect((await api.get(`/v1/secrets/${id}`)).body.views_left).toBe(1);
    await recipient.screenshot('reveal-ready');

    await recipient.page.click('#reveal-button');
    await recipient.page.waitForSelector('#screen-revealed:not([hidden])');
    expect(await recipient.page.inputValue('#secret-text')).toBe(text);
    expect(await recipient.page.textContent('#revealed-note')).toContain('This was the last view');
    expect(claims(recipient)).toHaveLength(1);
    // The claim proves the link as well as the passphrase: the link token of the link's key.
    const linkToken = await linkTokenFor({ key: new URL(link).hash.slice(1), salt: (await api.get(`/v1/secrets/${id}`)).body.salt });
    expect(JSON.parse(claims(recipient)[0]!.body)).toMatchObject({ claim_token: expect.any(String), link_token: linkToken });
    await recipient.screenshot('reveal-revealed');
    await finish(recipient);

    const again = await session('basic-again');
    await openLink(again, link);
    expect(await again.message()).toBe('gone-burned');
    expect(await again.page.textContent('#message-title')).toContain('already viewed');
    expect(claims(again)).toEqual([]);
    await again.screenshot('error-410-burned');
    await finish(again);
  });

  it('shows views left without the last-view warning when more views remain (dark mode)', async () => {
    const text = newPlaintext();
    guardPlaintext(text);
    const sender = await session('views-sender', { colorScheme: 'dark' });
    const { link, id } = await compose(sender, { text, maxViews: 2, expiry: '3600' });
    expect(await sender.page.locator('#result-summary').textContent()).toContain('Can be opened 2 times.');
    await sender.screenshot('compose-link-dark');
    await finish(sender);

    const first = await session('views-first', { colorScheme: 'dark' });
    await openLink(first, link);
    expect(await first.screen()).toBe('ready');
    expect(await first.page.isVisible('#last-view')).toBe(false);
    expect(await first.page.textContent('#fact-views')).toContain('2 of 2');
    await first.screenshot('reveal-ready-dark');
    await first.page.click('#reveal-button');
    await first.page.waitForSelector('#screen-revealed:not([hidden])');
    expect(await first.page.inputValue('#secret-text')).toBe(text);
    expect(await first.page.textContent('#revealed-note')).toContain('1 view left');
    await first.screenshot('reveal-revealed-dark');
    await finish(first);

    const second = await session('views-second');
    await openLink(second, link);
    expect(await second.page.isVisible('#last-view')).toBe(true);
    expect((await api.get(`/v1/secrets/${id}`)).body.views_left).toBe(1);
    await finish(second);
  });

  it('refuses a wrong passphrase without using a view, then opens with the right one', async () => {
    const text = newPlaintext();
    const passphrase = `correct horse ${randomBytes(4).toString('hex')}`;
    const wrong = `wrong battery ${randomBytes(4).toString('hex')}`;
    guardPlaintext(text);
    guard('passphrase', passphrase);
    guard('wrong passphrase', wrong);

    const sender = await session('pass-sender');
    const { link, id } = await compose(sender, { text, passphrase });
    expect(await sender.page.isVisible('#result-passphrase')).toBe(true);
    await finish(sender);

    const recipient = await session('pass-recipient');
    await openLink(recipient, link);
    expect(await recipient.page.isVisible('#passphrase-field')).toBe(true);
    await recipient.screenshot('reveal-passphrase');

    // Empty: asked for, nothing sent when the server says a passphrase is needed.
    const metadata = (await api.get(`/v1/secrets/${id}`)).body;
    if (metadata.passphrase === true) {
      await recipient.page.click('#reveal-button');
      await recipient.page.waitForSelector('#reveal-error:not([hidden])');
      expect(claims(recipient)).toEqual([]);
    }

    await recipient.page.fill('#passphrase', wrong);
    await recipient.page.click('#reveal-button');
    await recipient.page.waitForSelector('#reveal-error-title:has-text("Wrong passphrase")');
    expect(await recipient.page.textContent('#reveal-error-text')).toContain('No view was used');
    expect(await recipient.page.textContent('#reveal-error-text')).toContain('4 attempts left');
    expect(await recipient.screen()).toBe('ready');
    expect(await recipient.page.evaluate(() => document.activeElement?.id)).toBe('passphrase');
    const after = await api.get(`/v1/secrets/${id}`);
    expect(after.body).toMatchObject({ state: 'active', views_left: 1 });
    await recipient.screenshot('reveal-wrong-passphrase');

    await recipient.page.fill('#passphrase', passphrase);
    await recipient.page.click('#reveal-button');
    await recipient.page.waitForSelector('#screen-revealed:not([hidden])');
    expect(await recipient.page.inputValue('#secret-text')).toBe(text);
    expect(await recipient.page.inputValue('#passphrase')).toBe('');
    await finish(recipient);
  });

  it('says "not yet" before not_before, from the metadata and from a refused claim (425)', async () => {
    const text = newPlaintext();
    guardPlaintext(text);
    const sender = await session('early-sender', { timezoneId: 'Europe/Berlin' });
    const { link, id } = await compose(sender, { text, expiry: '604800', notBefore: berlinLocal(2 * 24 * 3600_000) });
    const created = sender.apiRequests().find((request) => request.method === 'POST');
    const notBefore = JSON.parse(created!.body).not_before as string;
    expect(Math.abs(Date.parse(notBefore) - (Date.now() + 2 * 24 * 3600_000))).toBeLessThan(120_000);
    expect(await sender.page.locator('#result-summary').textContent()).toContain('Cannot be opened before');
    await finish(sender);

    const recipient = await session('early-recipient');
    await openLink(recipient, link);
    expect(await recipient.message()).toBe('too-early');
    expect(await recipient.page.textContent('#message-detail')).toMatch(/It can be opened from .*\(in (47 hours|48 hours|2 days)\)/);
    expect(claims(recipient)).toEqual([]);
    await recipient.screenshot('error-425-not-yet');
    await finish(recipient);

    // A browser whose clock runs ahead sees the time passed; the server still says 425.
    const ahead = await session('early-ahead');
    await ahead.page.clock.setFixedTime(new Date(Date.parse(notBefore) + 3600_000));
    await openLink(ahead, link);
    expect(await ahead.screen()).toBe('ready');
    await ahead.page.click('#reveal-button');
    expect(await ahead.message()).toBe('too-early');
    expect(claims(ahead)).toHaveLength(1);
    expect((await api.get(`/v1/secrets/${id}`)).body).toMatchObject({ state: 'active', views_left: 1 });
    await finish(ahead);
  });

  it('says so for an unknown id (404) and for a link without its key (its state read, nothing claimed)', async () => {
    const unknown = await session('unknown');
    const key = randomBytes(32).toString('base64url');
    guard('unknown key', key);
    await openLink(unknown, `${runtime.url}/s/sec_AAAAAAAAAAAAAAAAAAAAAA#${key}`);
    expect(await unknown.message()).toBe('not-found');
    expect(await unknown.page.textContent('#message-title')).toBe('No secret here');
    await unknown.screenshot('error-404-not-found');
    await finish(unknown);

    const created = await api.post('/v1/secrets', {
      kind: 'text',
      envelope: toBase64(randomBytes(64)),
      salt: randomBytes(16).toString('base64url'),
      size_bytes: 64,
    });
    const keyless = await session('keyless');
    await keyless.page.goto(created.body.url_base);
    await keyless.ready('reveal');
    expect(await keyless.message()).toBe('missing-key');
    // Without a key the page asks only what state the secret is in (ADR 0182), so it can tell a
    // used-up secret from an incomplete link: one read, no claim, no view spent.
    await settleTraffic();
    expect(keyless.apiRequests().map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
      `GET /v1/secrets/${created.body.id}`,
    ]);
    expect(keyless.apiRequests()[0]!.body).toBe('');
    expect((await api.get(`/v1/secrets/${created.body.id}`)).body).toMatchObject({ state: 'active', views_left: 1 });
    await keyless.screenshot('error-missing-key');
    await finish(keyless);
  });

  it('works with the keyboard alone', async () => {
    const text = `typed ${randomUUID()}`;
    guardPlaintext(text);
    const sender = await session('keyboard-sender');
    const { page } = sender;
    await page.goto(`${runtime.url}/`);
    await sender.ready('compose');
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement;
        const named = ['skip-link', 'brand'].find((name) => element?.classList.contains(name));
        return element?.id || named || element?.textContent?.trim() || element?.tagName.toLowerCase();
      });
    const order: Array<string | undefined> = [];
    for (let i = 0; i < 9; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    // The skip link first, the signed-out header's three links, then the form with its options folded.
    expect(order).toEqual([
      'skip-link',
      'brand',
      'Compose',
      'Plans',
      'Sign in',
      'secret-text',
      'secret-file',
      'Options: 1 day, 1 view',
      'create-button',
    ]);
    // The skip link goes straight to the form.
    for (let i = 0; i < 8; i++) await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('skip-link');
    await page.keyboard.press('Enter');
    expect(await focused()).toBe('main');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('secret-text');
    await page.keyboard.type(text);
    await page.keyboard.press('Tab'); // the file picker, left alone
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // opens the options
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('expiry');
    await page.keyboard.press('ArrowDown'); // expiry: 1 day → 7 days
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter'); // folds them again; the choice stays
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('create-button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#result:not([hidden])');
    expect(await focused()).toBe('result-title');
    const { link } = await linkOf(sender);
    expect(JSON.parse(sender.apiRequests().find((request) => request.method === 'POST')!.body).expires_in).toBe(604_800);
    const resultOrder: Array<string | undefined> = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      resultOrder.push(await focused());
    }
    expect(resultOrder).toEqual(['share-link', 'copy-link', 'revoke-button', 'create-another']);
    await page.keyboard.press('Enter'); // Create another
    expect(await focused()).toBe('compose-title');
    expect(await page.isVisible('#compose')).toBe(true);
    await finish(sender);

    const recipient = await session('keyboard-recipient');
    await openLink(recipient, link);
    expect(await recipient.page.evaluate(() => document.activeElement?.id)).toBe('ready-title');
    await recipient.page.keyboard.press('Tab');
    expect(await recipient.page.evaluate(() => document.activeElement?.id)).toBe('reveal-button');
    await recipient.page.keyboard.press('Space');
    await recipient.page.waitForSelector('#screen-revealed:not([hidden])');
    expect(await recipient.page.inputValue('#secret-text')).toBe(text);
    expect(await recipient.page.evaluate(() => document.activeElement?.id)).toBe('revealed-title');
    await recipient.page.keyboard.press('Tab');
    await recipient.page.keyboard.press('Tab');
    expect(await recipient.page.evaluate(() => document.activeElement?.id)).toBe('copy-secret');
    await finish(recipient);
  });

  it('revokes now: an open page and a fresh one both say it was revoked', async () => {
    const text = newPlaintext();
    guardPlaintext(text);
    const sender = await session('revoke-sender');
    const { link, id } = await compose(sender, { text, maxViews: 3 });

    // A recipient has the page open (metadata read) before the sender revokes.
    const early = await session('revoke-early');
    await openLink(early, link);
    expect(await early.screen()).toBe('ready');

    await sender.page.click('#revoke-button');
    // It asks first (confirmStep.ts): nothing is sent until "Yes, revoke".
    expect(sender.apiRequests().filter((request) => request.method === 'DELETE')).toEqual([]);
    await sender.page.click('#result button[data-action="confirm-revoke"]');
    await sender.page.waitForSelector('#result-revoked:not([hidden])');
    expect(await sender.page.isVisible('#share-link')).toBe(false);
    const revoke = sender.apiRequests().find((request) => request.method === 'DELETE');
    expect(revoke?.headers['x-delete-token']).toMatch(/^hdt_/);
    expect((await api.get(`/v1/secrets/${id}`)).body.state).toBe('revoked');
    await sender.screenshot('compose-revoked');
    await finish(sender);

    await early.page.click('#reveal-button');
    expect(await early.message()).toBe('gone-revoked');
    await finish(early);

    const late = await session('revoke-late');
    await openLink(late, link);
    expect(await late.message()).toBe('gone-revoked');
    expect(await late.page.textContent('#message-title')).toContain('revoked');
    await late.screenshot('error-410-revoked');
    await finish(late);
  });

  it('shows the locked screen (423) when the secret locks while the page is open', async () => {
    const text = newPlaintext();
    guardPlaintext(text);
    const sender = await session('locked-sender');
    const { link, id } = await compose(sender, { text });
    await finish(sender);

    const recipient = await session('locked-recipient');
    await openLink(recipient, link);
    expect(await recipient.screen()).toBe('ready');
    // Someone else holding the link, with wrong proofs (a wrong passphrase), locks it meanwhile.
    const linkToken = await linkTokenFor({ key: new URL(link).hash.slice(1), salt: (await api.get(`/v1/secrets/${id}`)).body.salt });
    for (let i = 0; i < 5; i++)
      await api.post(`/v1/secrets/${id}/claim`, { claim_token: randomBytes(32).toString('base64url'), link_token: linkToken });
    expect((await api.get(`/v1/secrets/${id}`)).body.state).toBe('locked');
    await recipient.page.click('#reveal-button');
    expect(await recipient.message()).toBe('locked');
    await recipient.screenshot('error-423-locked');
    await finish(recipient);

    const fresh = await session('locked-fresh', { colorScheme: 'dark' });
    await openLink(fresh, link);
    expect(await fresh.message()).toBe('locked');
    expect(claims(fresh)).toEqual([]);
    await fresh.screenshot('error-423-locked-dark');
    await finish(fresh);
  });

  it('shows "too many attempts" on 429 and recovers with Try again', async () => {
    const text = newPlaintext();
    guardPlaintext(text);
    const sender = await session('limited-sender');
    const { link, id } = await compose(sender, { text });
    await finish(sender);

    const recipient = await session('limited-recipient');
    // The shared runtime's limits are generous; the gateway's 429 is replayed here as the API sends it.
    await recipient.page.route('**/v1/secrets/*/claim', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'content-type': 'application/problem+json', 'retry-after': '42' },
        body: JSON.stringify({
          type: 'https://hushlink.dev/problems/rate-limited',
          title: 'Too Many Requests',
          status: 429,
          code: 'rate_limited',
          detail: 'Too many requests; try again later.',
        }),
      }),
    );
    await openLink(recipient, link);
    await recipient.page.click('#reveal-button');
    expect(await recipient.message()).toBe('rate-limited');
    expect(await recipient.page.textContent('#message-detail')).toContain('42 seconds');
    await recipient.screenshot('error-429-rate-limited');
    await recipient.page.unroute('**/v1/secrets/*/claim');
    expect((await api.get(`/v1/secrets/${id}`)).body.views_left).toBe(1);

    await recipient.page.click('#message-retry');
    await recipient.page.waitForSelector('#screen-ready:not([hidden])');
    await recipient.page.click('#reveal-button');
    await recipient.page.waitForSelector('#screen-revealed:not([hidden])');
    expect(await recipient.page.inputValue('#secret-text')).toBe(text);
    await finish(recipient);
  });

  it('explains a secret that does not decrypt with the key in the link', async () => {
    // Made by another client without a claim verifier, so the claim succeeds and decryption fails.
    const text = newPlaintext();
    guardPlaintext(text);
    const sealed = await sealText(text);
    guard('sealed key', sealed.key);
    const created = await api.post('/v1/secrets', {
      kind: 'text',
      envelope: toBase64(sealed.envelope),
      salt: sealed.salt,
      size_bytes: sealed.envelope.length,
      max_views: 2,
    });
    expect(created.status).toBe(201);
    const otherKey = randomBytes(32).toString('base64url');
    guard('other key', otherKey);

    const recipient = await session('undecryptable');
    await openLink(recipient, `${created.body.url_base}#${otherKey}`);
    await recipient.page.click('#reveal-button');
    expect(await recipient.message()).toBe('decrypt-failed-wrong-key');
    expect(await recipient.page.textContent('#message-detail')).toContain('1 view left');
    await recipient.screenshot('error-decrypt-failed');
    await finish(recipient);
  });

  it('shows validation errors, from the form and from the server', async () => {
    const s = await session('validation');
    await s.page.goto(`${runtime.url}/`);
    await s.ready('compose');
    await s.page.click('#more-options summary');
    await s.page.fill('#max-views', '101');
    await s.page.click('#create-button');
    // Each beside its field, its name not repeated; the summary box is for what has no field.
    await s.page.waitForSelector('#secret-text-error:not([hidden])');
    expect(await s.page.textContent('#secret-text-error')).toMatch(/^Write or paste the text/);
    expect(await s.page.textContent('#max-views-error')).toMatch(/^A whole number from 1 to 100/);
    expect(await s.page.isVisible('#compose-errors')).toBe(false);
    expect(await s.page.evaluate(() => document.activeElement?.id)).toBe('secret-text');
    expect(await s.page.getAttribute('#secret-text', 'aria-invalid')).toBe('true');
    expect(await s.page.getAttribute('#max-views', 'aria-invalid')).toBe('true');
    expect(s.apiRequests()).toEqual([]);
    await s.screenshot('compose-errors');

    // What the server refuses is shown as it says it (errors[].message), field by field.
    const text = newPlaintext();
    guardPlaintext(text);
    await s.page.route('**/v1/secrets', async (route) => {
      const body = JSON.parse(route.request().postData() ?? '{}');
      await route.continue({ postData: JSON.stringify({ ...body, max_views: 500 }) });
    });
    await s.page.fill('#secret-text', text);
    await s.page.fill('#max-views', '1');
    await s.page.click('#create-button');
    await s.page.waitForSelector('#max-views-error:not([hidden])');
    expect(await s.page.textContent('#max-views-error')).toMatch(/^(?!Views allowed:)\S.+/);
    expect(await s.page.getAttribute('#max-views', 'aria-invalid')).toBe('true');
    expect(await s.page.evaluate(() => document.activeElement?.id)).toBe('max-views');
    expect(await s.page.isEnabled('#create-button')).toBe(true);
    await s.page.unroute('**/v1/secrets');
    await s.screenshot('compose-server-error');
    await finish(s);
  });

  it('fits a 360 px wide screen', async () => {
    const text = newPlaintext();
    guardPlaintext(text);
    const sender = await session('narrow-sender', { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await sender.page.goto(`${runtime.url}/`);
    await sender.ready('compose');
    await sender.page.click('#more-options summary');
    await sender.page.selectOption('#expiry', 'custom');
    await sender.screenshot('compose-narrow');
    expect(await sender.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await sender.page.fill('#secret-text', text);
    await sender.page.fill('#custom-expiry-amount', '90');
    await sender.page.selectOption('#custom-expiry-unit', '60');
    await sender.page.click('#create-button');
    await sender.page.waitForSelector('#result:not([hidden])');
    expect(JSON.parse(sender.apiRequests().find((request) => request.method === 'POST')!.body).expires_in).toBe(5400);
    const { link } = await linkOf(sender);
    expect(await sender.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await sender.screenshot('compose-link-narrow');
    await finish(sender);

    const recipient = await session('narrow-recipient', {
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      colorScheme: 'dark',
    });
    await openLink(recipient, link);
    expect(await recipient.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await recipient.screenshot('reveal-ready-narrow-dark');
    await finish(recipient);
  });

  it('never sent a key, passphrase or plaintext to the server', async () => {
    const requests = await settleTraffic();
    // The run really exercised the API from the browsers.
    const api = requests.filter((request) => new URL(request.url).pathname.startsWith('/v1/'));
    expect(api.filter((request) => request.method === 'POST' && request.url.endsWith('/v1/secrets')).length).toBeGreaterThanOrEqual(8);
    expect(api.filter((request) => request.url.endsWith('/claim')).length).toBeGreaterThanOrEqual(8);
    expect(guarded.size).toBeGreaterThan(20);
    expect(findLeaks(requests, guarded)).toEqual([]);
    // Not even where a browser could add it on its own.
    for (const request of requests) {
      expect(request.headers.referer ?? '', `referer of ${request.url}`).not.toContain('#');
      expect(request.headers.cookie, `cookie of ${request.url}`).toBeUndefined();
      expect(new URL(request.url).origin, 'no third-party origin').toBe(runtime.url);
    }
  });
});
