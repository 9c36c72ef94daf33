/**
 * The account pages end to end: sign-in with a mailed code, "My secrets" (attach secrets made
 * anonymously in this browser, state and views left, revoke, load more), API keys (shown once,
 * working, revoked), devices (two browsers, sign out everywhere), and where the tokens live:
 * the access token in page memory only, the refresh token in an HttpOnly cookie sent to
 * `/v1/auth/*` only (ADR 0178), or on a shared computer in this tab's sessionStorage. One local
 * runtime and one Chromium for the file; every request is recorded and checked at the end.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { latestCode, newEmail } from '../support/accounts.ts';
import { apiClient, textSecretBody } from '../support/runtime.ts';
import {
  cookieProblem,
  findLeaks,
  guard as guardValue,
  refreshCookie,
  refreshCookieName,
  sessionMarker,
  sessionMarkerKey,
  startRuntimeAndBrowser,
  stopRuntimeAndBrowser,
  screenshotDir,
  Session,
  settleTraffic,
  type SentRequest,
  tabRefreshKey as refreshKey,
} from './harness.ts';

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
/** Link keys, texts and API key values: none may ever be sent by a browser. */
const guarded = new Map<string, string>();
/** Tokens the server issued to the browsers (from the answers of otp/verify and refresh: bodies and Set-Cookie). */
const issued = { access: new Set<string>(), refresh: new Set<string>() };
const answers: Array<{ context: string; method: string; path: string; status: number }> = [];
const pendingBodies: Promise<void>[] = [];

const unattachedKey = 'hushlink.unattached-secrets';
const jwtLike = /eyJ[\w-]+\.[\w-]+\.[\w-]+/;

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
  api = apiClient(runtime);
}, 180_000);

afterAll(() => stopRuntimeAndBrowser(runtime, browser));

const guard = (label: string, value: string) => guardValue(guarded, label, value);

/** The code of the newest mail to `email`. */
function codeFor(email: string): string {
  const code = latestCode(runtime, email);
  if (!code) throw new Error(`no code was mailed to ${email}`);
  return code;
}

async function session(name: string, options: Parameters<typeof Session.open>[2] = {}): Promise<Session> {
  const s = await Session.open(browser, name, options);
  s.context.on('response', (response) => {
    const url = new URL(response.url());
    if (!url.pathname.startsWith('/v1/')) return;
    answers.push({ context: name, method: response.request().method(), path: url.pathname, status: response.status() });
    if ((url.pathname === '/v1/auth/otp/verify' || url.pathname === '/v1/auth/refresh') && response.status() === 200) {
      pendingBodies.push(
        Promise.all([
          response.json().catch(() => ({})) as Promise<{ access_token?: string; refresh_token?: string }>,
          response.headerValue('set-cookie'),
        ]).then(
          ([body, setCookie]) => {
            if (body.access_token) issued.access.add(body.access_token);
            // A shared computer's tab gets it in the body; any other browser in the cookie only.
            if (body.refresh_token) issued.refresh.add(body.refresh_token);
            const cookie = new RegExp(`(?:^|\\n)${refreshCookieName}=([^;]+)`).exec(setCookie ?? '')?.[1];
            if (cookie) issued.refresh.add(cookie);
          },
          () => undefined,
        ),
      );
    }
  });
  return s;
}

/** The access token the page last sent (from the recorded requests). */
async function lastAccessToken(s: Session): Promise<string> {
  await settleTraffic();
  const bearer = s
    .apiRequests()
    .map((request) => /^Bearer (eyJ\S+)$/.exec(request.headers.authorization ?? '')?.[1])
    .filter((token): token is string => token !== undefined)
    .at(-1);
  if (!bearer) throw new Error(`${s.name} sent no access token`);
  return bearer;
}

/**
 * Where this browser keeps tokens: never the access token; the refresh token in the HttpOnly
 * cookie (localStorage only marks that it exists), or on a shared computer in sessionStorage.
 */
async function checkStorage(s: Session): Promise<void> {
  await Promise.all(pendingBodies);
  const stored = await s.webStorage();
  expect(stored.cookies, `cookies of ${s.name}`).toBe('');
  expect(stored.indexedDb, `IndexedDB of ${s.name}`).toEqual([]);
  expect(
    Object.keys(stored.local).filter((key) => key !== unattachedKey && key !== sessionMarkerKey),
    `localStorage keys of ${s.name}`,
  ).toEqual([]);
  if (stored.local[sessionMarkerKey] !== undefined) expect(stored.local[sessionMarkerKey]).toBe(sessionMarker[sessionMarkerKey]);
  expect(
    Object.keys(stored.session).filter((key) => key !== refreshKey),
    `sessionStorage keys of ${s.name}`,
  ).toEqual([]);
  const everything = JSON.stringify(stored);
  expect(everything, 'no JWT in any storage').not.toMatch(jwtLike);
  for (const token of issued.access) expect(everything.includes(token), 'an access token is in web storage').toBe(false);
  const local = JSON.stringify(stored.local);
  for (const token of issued.refresh) expect(local.includes(token), 'a refresh token is in localStorage').toBe(false);
  const refresh = stored.session[refreshKey];
  if (refresh !== undefined) expect(refresh).toMatch(/^hlr_ses_[\w-]+\.[\w-]{43}$/);
  for (const [label, value] of guarded) expect(everything.includes(value), `${label} in web storage`).toBe(false);
  const cookie = await refreshCookie(s);
  if (cookie !== undefined) expect(everything.includes(cookie), 'the cookie’s refresh token is in web storage').toBe(false);
}

/** The checks every page must pass before its session is closed. */
async function finish(s: Session): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  await checkStorage(s);
  await s.close();
}

/**
 * Signs in through the page (the code read from the outbox) and waits for where it leads;
 * `sharedComputer` ticks "This is a shared computer" (a session for this tab only).
 */
async function signIn(
  s: Session,
  email: string,
  from = '/signin',
  lands: 'account' | 'keys' | 'sessions' = 'account',
  sharedComputer = false,
): Promise<void> {
  const { page } = s;
  await page.goto(`${runtime.url}${from}`);
  await s.ready('signin');
  if (sharedComputer) await page.check('#shared-computer');
  await page.fill('#email', email);
  await page.click('#send-code');
  await page.waitForSelector('html[data-step="code"]');
  await page.fill('#code', codeFor(email));
  await page.click('#verify-button');
  await page.waitForURL((url) => url.pathname === `/${lands}`);
  await s.ready(lands);
}

/** Goes to one of the signed-in pages through the navigation (a real click) and waits for it. */
async function navigate(s: Session, label: string, page: 'account' | 'keys' | 'sessions'): Promise<void> {
  // On a phone the links are behind "Menu".
  if (await s.page.isVisible('header .menu-button[aria-expanded="false"]')) await s.page.click('header .menu-button');
  await s.page.click(`header nav a:has-text("${label}")`);
  await s.page.waitForURL((url) => url.pathname === `/${page}`);
  await s.ready(page);
}

const focusedId = (s: Session) =>
  s.page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return 'body';
    if (element.id) return element.id;
    if (element.classList.contains('brand')) return 'brand';
    return `${element.tagName.toLowerCase()}:${element.textContent?.trim()}`;
  });

/** Light and dark screenshots; `viewport` only for long pages. */
async function screenshots(s: Session, name: string, viewport = false): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await s.page.emulateMedia({ colorScheme: scheme });
    const file = `account-${name}${scheme === 'dark' ? '-dark' : ''}`;
    if (viewport) {
      mkdirSync(screenshotDir, { recursive: true });
      await s.page.screenshot({ path: join(screenshotDir, `${file}.png`) });
    } else {
      await s.screenshot(file);
    }
  }
  await s.page.emulateMedia({ colorScheme: 'light' });
}

describe('account pages', () => {
  it('serves them with the hardening headers, without inline script or style', async () => {
    for (const path of ['/signin', '/account', '/keys', '/sessions']) {
      const response = await fetch(`${runtime.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      const html = await response.text();
      expect(html).toContain('<meta name="referrer" content="no-referrer">');
      expect(html).toContain(`<script type="module" src="/assets/${path === '/signin' ? 'signin' : path.slice(1)}.js"></script>`);
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|\sstyle=/);
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    }
  });

  it('signs in with the mailed code, attaches a secret made anonymously, lists it and revokes', async () => {
    const s = await session('owner');
    const { page } = s;

    // 1. An anonymous secret, kept in this browser for later.
    const text = `anonymous ${randomUUID()}`;
    guard('plaintext', text);
    await page.goto(`${runtime.url}/`);
    await s.ready('compose');
    expect(await page.isVisible('header a:has-text("Sign in")')).toBe(true);
    expect(await page.isVisible('#compose-owner')).toBe(false);
    await page.fill('#secret-text', text);
    await page.click('#create-button');
    await page.waitForSelector('#result:not([hidden])');
    const link = new URL(await page.inputValue('#share-link'));
    const anonymousId = link.pathname.split('/')[2]!;
    guard('link key', link.hash.slice(1));
    expect(await page.isVisible('#keep')).toBe(true);
    // Nothing is kept until asked.
    expect((await s.webStorage()).local).toEqual({});
    await screenshots(s, 'compose-keep-offer');
    await page.click('#keep-button');
    await page.waitForSelector('#keep-done:not([hidden])');
    expect(await focusedId(s)).toBe('keep-title');
    const kept = JSON.parse((await s.webStorage()).local[unattachedKey] ?? '[]');
    expect(kept).toEqual([{ id: anonymousId, delete_token: expect.stringMatching(/^hdt_/), expires_at: expect.any(String) }]);
    await screenshots(s, 'compose-kept');

    // A second kept secret that has ended meanwhile: attaching it must fail, on its own line.
    const ended = await api.post('/v1/secrets', textSecretBody());
    expect((await api.delete(`/v1/secrets/${ended.body.id}`, { 'x-delete-token': ended.body.delete_token })).status).toBe(204);
    await page.evaluate(
      ([key, entry]) => {
        const list = JSON.parse(localStorage.getItem(key) ?? '[]');
        localStorage.setItem(key, JSON.stringify([...list, entry]));
      },
      [unattachedKey, { id: ended.body.id, delete_token: ended.body.delete_token, expires_at: ended.body.expires_at }] as const,
    );

    // 2. Sign in: a wrong code first (401 with attempts left), then the right one.
    const email = newEmail('owner');
    await page.click('header a:has-text("Sign in")');
    await s.ready('signin');
    await screenshots(s, 'signin-email');
    await page.fill('#email', email);
    await page.click('#send-code');
    await page.waitForSelector('html[data-step="code"]');
    expect(await focusedId(s)).toBe('code');
    expect(await page.textContent('#code-email')).toBe(email);
    expect(await page.getAttribute('#code', 'inputmode')).toBe('numeric');
    expect(await page.getAttribute('#code', 'autocomplete')).toBe('one-time-code');
    expect(await page.isDisabled('#resend-button')).toBe(true);
    expect(await page.textContent('#resend-hint')).toMatch(/another code in (59|60) s/);
    await screenshots(s, 'signin-code');
    const code = codeFor(email);
    const wrong = String((Number(code) + 1) % 100_000_000).padStart(8, '0');
    await page.fill('#code', wrong);
    await page.click('#verify-button');
    await page.waitForSelector('#code-error:not([hidden])');
    expect(await page.textContent('#code-error-title')).toBe('That code is not right');
    expect(await page.textContent('#code-error-text')).toContain('4 attempts left');
    expect(await page.getAttribute('#code', 'aria-invalid')).toBe('true');
    expect(await focusedId(s)).toBe('code');
    await screenshots(s, 'signin-wrong-code');
    await page.fill('#code', `${code.slice(0, 4)} ${code.slice(4)}`);
    expect(await page.inputValue('#code')).toBe(code);
    await page.click('#verify-button');
    await page.waitForURL((url) => url.pathname === '/account');
    await s.ready('account');
    expect(await page.textContent('header [data-user-email]')).toBe(email);
    await checkStorage(s);
    // The refresh token is the HttpOnly cookie's; the page keeps only the marker, this tab nothing.
    expect(await refreshCookie(s)).toMatch(/^hlr_/);
    expect((await s.webStorage()).session[refreshKey]).toBeUndefined();
    expect((await s.webStorage()).local[sessionMarkerKey]).toBe('cookie');

    // 3. Attach: one line per secret; the answered ones leave this browser.
    expect(await page.textContent('#attach-button')).toBe('Attach 2 secrets created in this browser');
    await screenshots(s, 'attach');
    await page.click('#attach-button');
    await page.waitForSelector('#attach-results:not([hidden])');
    expect(await page.getAttribute(`#attach-results li[data-id="${anonymousId}"]`, 'data-adopted')).toBe('true');
    expect(await page.textContent(`#attach-results li[data-id="${anonymousId}"]`)).toContain('attached');
    expect(await page.getAttribute(`#attach-results li[data-id="${ended.body.id}"]`, 'data-adopted')).toBe('false');
    expect(await page.textContent(`#attach-results li[data-id="${ended.body.id}"]`)).toContain('already ended');
    expect(await page.isVisible('#attach-button')).toBe(false);
    expect(await focusedId(s)).toBe('attach-title');
    expect((await s.webStorage()).local).toEqual(sessionMarker);
    const adopted = page.locator(`#secrets li[data-id="${anonymousId}"]`);
    await adopted.waitFor();
    expect(await adopted.getAttribute('data-state')).toBe('active');
    expect(await adopted.locator('[data-role="views"] dd').textContent()).toBe('1 of 1');
    expect(await adopted.locator('[data-role="state"]').textContent()).toBe('Active');
    await screenshots(s, 'attached');

    // 4. A secret made while signed in is owned at once (the bearer token goes with it).
    await page.click('header nav a:has-text("Compose")');
    await s.ready('compose');
    await page.waitForSelector('#compose-owner:not([hidden])');
    const ownedText = `owned ${randomUUID()}`;
    guard('plaintext', ownedText);
    await page.fill('#secret-text', ownedText);
    await page.locator('#more-options').evaluate((details) => ((details as HTMLDetailsElement).open = true));
    await page.fill('#max-views', '3');
    await page.click('#create-button');
    await page.waitForSelector('#result:not([hidden])');
    const ownedLink = new URL(await page.inputValue('#share-link'));
    guard('link key', ownedLink.hash.slice(1));
    const ownedId = ownedLink.pathname.split('/')[2]!;
    expect(await page.isVisible('#keep')).toBe(false);
    const created = s
      .apiRequests()
      .filter((request) => request.method === 'POST' && request.url.endsWith('/v1/secrets'))
      .at(-1)!;
    expect(created.headers.authorization).toMatch(/^Bearer eyJ/);
    // Only its owner is told it is theirs.
    expect((await api.get(`/v1/secrets/${ownedId}`, { authorization: created.headers.authorization! })).body.owned).toBe(true);
    expect((await api.get(`/v1/secrets/${ownedId}`)).body).not.toHaveProperty('owned');

    // 5. The dashboard lists both, with state and views left; revoke works.
    await page.click('header a:has-text("My secrets")');
    await s.ready('account');
    const owned = page.locator(`#secrets li[data-id="${ownedId}"]`);
    expect(await owned.getAttribute('data-state')).toBe('active');
    expect(await owned.locator('[data-role="views"] dd').textContent()).toBe('3 of 3');
    expect(await page.isVisible('#attach')).toBe(false);
    await owned.locator('button[data-action="revoke"]').click();
    // Revoking asks first (confirmStep.ts): nothing is sent until "Yes, revoke".
    await owned.locator('button[data-action="confirm-revoke"]').click();
    await page.waitForSelector(`#secrets li[data-id="${ownedId}"][data-state="revoked"]`);
    expect(await owned.locator('[data-role="state"]').textContent()).toBe('Revoked');
    expect(await owned.locator('button[data-action="revoke"]').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.closest('li')?.dataset.id)).toBe(ownedId);
    expect((await api.get(`/v1/secrets/${ownedId}`)).body.state).toBe('revoked');
    await screenshots(s, 'revoked');

    // 6. "Load more": 22 more secrets, 20 per page.
    const token = await lastAccessToken(s);
    for (let i = 0; i < 22; i++) {
      expect((await api.post('/v1/secrets', textSecretBody(), { authorization: `Bearer ${token}` })).status).toBe(201);
    }
    await page.reload();
    await s.ready('account');
    expect(await page.locator('#secrets > li').count()).toBe(20);
    expect(await page.isVisible('#load-more')).toBe(true);
    await page.click('#load-more');
    await page.waitForFunction(() => document.querySelectorAll('#secrets > li').length === 24);
    expect(await page.isVisible('#load-more')).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.closest('li') === document.querySelectorAll('#secrets > li')[20])).toBe(true);
    const listed = await page.locator('#secrets > li').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.id));
    expect(new Set(listed).size).toBe(24);
    expect(listed).toContain(anonymousId);
    expect(listed).toContain(ownedId);
    const pages = s.apiRequests().filter((request) => request.method === 'GET' && new URL(request.url).pathname === '/v1/secrets');
    expect(new URL(pages.at(-1)!.url).searchParams.get('cursor')).toBeTruthy();

    // 7. 360 px wide.
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screenshots(s, 'list-narrow', true);
    await finish(s);
  });

  it('creates an API key shown once, which works until it is revoked', async () => {
    const s = await session('keys');
    const { page } = s;
    // Straight to /keys: sign-in first, then back to the keys page.
    await signIn(s, newEmail('keys'), '/keys', 'keys');
    expect(page.url()).toBe(`${runtime.url}/keys`);
    expect(await page.isVisible('#keys-empty')).toBe(true);

    // Checked in the page first.
    await page.uncheck('#scope-secrets-write');
    await page.click('#create-key');
    // Each beside its field.
    await page.waitForSelector('#key-name-error:not([hidden])');
    expect(await page.textContent('#key-name-error')).toBe('Give the key a name.');
    expect(await page.textContent('#key-scopes-error')).toBe('Choose at least one permission.');
    expect(await focusedId(s)).toBe('key-name');
    await screenshots(s, 'keys-errors');

    await page.fill('#key-name', 'ci reader');
    await page.check('#scope-secrets-read');
    await page.check('#scope-secrets-write');
    await page.click('#create-key');
    await page.waitForSelector('#new-key:not([hidden])');
    const key = await page.inputValue('#new-key-value');
    expect(key).toMatch(/^hlk_key_/);
    guard('API key', key);
    expect(await focusedId(s)).toBe('new-key-title');
    expect(await page.textContent('#new-key-label')).toBe('API key “ci reader”');
    await s.context.grantPermissions(['clipboard-write'], { origin: runtime.url });
    await page.click('#copy-key');
    await expect.poll(() => page.textContent('#copy-key')).toBe('Copied ✓');
    const item = page.locator('#keys > li');
    expect(await item.count()).toBe(1);
    expect(await item.locator('.item-title').textContent()).toBe('ci reader');
    expect(await item.textContent()).toContain(`${key.slice(0, 16)}…`);
    expect(await item.textContent()).toContain('list secrets');
    await screenshots(s, 'keys-created');

    // The key works against the API.
    const withKey = { authorization: `Bearer ${key}` };
    const listed = await api.get('/v1/secrets', withKey);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([]);
    expect((await api.post('/v1/secrets', textSecretBody(), withKey)).status).toBe(201);

    // Hidden on "Done", and gone once the page is left.
    await page.click('#new-key-done');
    expect(await page.isVisible('#new-key')).toBe(false);
    expect(await page.inputValue('#new-key-value')).toBe('');
    expect(await page.content()).not.toContain(key);
    await page.fill('#key-name', 'left on screen');
    await page.click('#create-key');
    await page.waitForSelector('#new-key:not([hidden])');
    const second = await page.inputValue('#new-key-value');
    guard('API key', second);
    await navigate(s, 'My secrets', 'account');
    await page.goBack();
    await s.ready('keys');
    expect(await page.isVisible('#new-key')).toBe(false);
    expect(await page.inputValue('#new-key-value')).toBe('');
    expect(await page.content()).not.toContain(second);
    expect(JSON.stringify(await s.webStorage())).not.toContain(second);
    expect(await page.locator('#keys > li').count()).toBe(2);
    // The list shows it was used (last used), without the value.
    expect(await page.locator('#keys > li', { hasText: 'ci reader' }).textContent()).not.toContain('Last usednever');

    // Revoked: the API refuses it at once.
    await page.locator('#keys > li', { hasText: 'ci reader' }).locator('button[data-action="revoke"]').click();
    await page.locator('#keys > li', { hasText: 'ci reader' }).locator('button[data-action="confirm-revoke"]').click();
    await page.waitForFunction(() => document.querySelectorAll('#keys > li').length === 1);
    expect(await focusedId(s)).toBe('keys-list-title');
    expect((await api.get('/v1/secrets', withKey)).status).toBe(401);
    expect((await api.get('/v1/secrets', { authorization: `Bearer ${second}` })).status).toBe(403); // secrets:write only
    await screenshots(s, 'keys-list');
    await finish(s);
  });

  it('lists two devices, and "sign out everywhere" signs the other browser out on its next call', async () => {
    const email = newEmail('devices');
    const here = await session('device-here');
    const there = await session('device-there', {
      colorScheme: 'dark',
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
    });
    await signIn(here, email);
    await signIn(there, email);
    await navigate(there, 'API keys', 'keys');
    expect(await there.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screenshots(there, 'keys-narrow', true);

    await navigate(here, 'Devices', 'sessions');
    const devices = here.page.locator('#devices > li');
    expect(await devices.count()).toBe(2);
    expect(await devices.nth(0).getAttribute('data-current')).toBe('true');
    expect(await devices.nth(0).locator('.badge').textContent()).toBe('This device');
    expect(await devices.nth(1).getAttribute('data-current')).toBe('false');
    expect(await devices.nth(0).locator('.item-title').textContent()).toMatch(/Chrome on Linux|Unknown device/);
    await screenshots(here, 'sessions');

    await here.page.click('#sign-out-everywhere');
    await here.page.click('button[data-action="confirm-sign-out-everywhere"]');
    await here.page.waitForURL((url) => url.pathname === '/signin');
    await here.ready('signin');
    expect(new URL(here.page.url()).searchParams.get('reason')).toBe('everywhere');
    expect(await here.page.textContent('#signin-reason')).toBe('You signed out on every device.');
    expect((await here.webStorage()).session).toEqual({});
    expect((await here.webStorage()).local).toEqual({});
    expect(await here.context.cookies()).toEqual([]);
    expect(await here.page.isVisible('header nav a:has-text("Sign in")')).toBe(true);
    await screenshots(here, 'signed-out-everywhere');

    // The other browser still shows the keys page; its next call gets 401, the refresh too.
    await there.page.fill('#key-name', 'after sign-out');
    await there.page.click('#create-key');
    await there.page.waitForURL((url) => url.pathname === '/signin');
    await there.ready('signin');
    expect(new URL(there.page.url()).searchParams.get('reason')).toBe('expired');
    expect(new URL(there.page.url()).searchParams.get('next')).toBe('/keys');
    const thereAnswers = answers.filter((answer) => answer.context === 'device-there');
    expect(thereAnswers.find((answer) => answer.method === 'POST' && answer.path === '/v1/api-keys')?.status).toBe(401);
    expect(thereAnswers.filter((answer) => answer.path === '/v1/auth/refresh').at(-1)?.status).toBe(401);
    expect((await there.webStorage()).session).toEqual({});
    expect((await there.webStorage()).local).toEqual({});
    await finish(here);
    await finish(there);
  });

  it('signs this device out (and only it)', async () => {
    const email = newEmail('one-device');
    const stays = await session('device-stays');
    const leaves = await session('device-leaves');
    await signIn(stays, email);
    await signIn(leaves, email);
    await navigate(leaves, 'Devices', 'sessions');
    const refreshToken = (await refreshCookie(leaves))!;
    expect(refreshToken).toMatch(/^hlr_ses_/);
    await leaves.page.click('#sign-out-here');
    await leaves.page.click('button[data-action="confirm-sign-out-here"]');
    await leaves.page.waitForURL((url) => url.pathname === '/signin');
    await leaves.ready('signin');
    expect(await leaves.page.textContent('#signin-reason')).toBe('You are signed out.');
    expect((await leaves.webStorage()).session).toEqual({});
    expect((await leaves.webStorage()).local).toEqual({});
    expect(await leaves.context.cookies()).toEqual([]);
    expect((await api.post('/v1/auth/refresh', { refresh_token: refreshToken })).status).toBe(401);
    // The other browser is still signed in.
    await navigate(stays, 'Devices', 'sessions');
    expect(await stays.page.locator('#devices > li').count()).toBe(1);
    await finish(leaves);
    await finish(stays);
  });

  it('signs in with the keyboard alone', async () => {
    const s = await session('keyboard');
    const { page } = s;
    const email = newEmail('keyboard');
    await page.goto(`${runtime.url}/signin`);
    await s.ready('signin');
    const order: string[] = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      order.push(await focusedId(s));
    }
    // The skip link first; signed out, the header offers only what needs no account.
    expect(order).toEqual(['a:Skip to content', 'brand', 'a:Compose', 'a:Plans', 'a:Sign in', 'email', 'shared-computer', 'send-code']);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.type(email);
    await page.keyboard.press('Enter');
    await page.waitForSelector('html[data-step="code"]');
    expect(await focusedId(s)).toBe('code');
    await page.keyboard.type(codeFor(email));
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/account');
    await s.ready('account');
    // Signed in: the navigation offers "Sign out", reachable by keyboard.
    const after: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      after.push(await focusedId(s));
    }
    expect(after).toEqual([
      'a:Skip to content',
      'brand',
      'a:Compose',
      'a:My secrets',
      'a:Request a secret',
      'a:Workspaces',
      'a:API keys',
      'a:Devices',
      'a:Webhooks',
      'a:Billing',
      'a:Plans',
      'button:Sign out',
    ]);
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/signin');
    await s.ready('signin');
    expect((await s.webStorage()).session).toEqual({});
    expect((await s.webStorage()).local).toEqual({});
    expect(await s.context.cookies()).toEqual([]);
    await finish(s);
  });

  it('explains 429 (retry-after), the resend cooldown, too many attempts and 403 (SSO)', async () => {
    const s = await session('signin-errors');
    const { page } = s;

    // 429 from otp/start, as the API sends it.
    await page.route('**/v1/auth/otp/start', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'content-type': 'application/problem+json', 'retry-after': '120' },
        body: JSON.stringify({
          type: 'https://hushlink.dev/problems/rate-limited',
          title: 'Too Many Requests',
          status: 429,
          code: 'rate_limited',
          detail: 'Too many requests; try again later.',
        }),
      }),
    );
    await page.goto(`${runtime.url}/signin`);
    await s.ready('signin');
    await page.fill('#email', newEmail('limited'));
    await page.click('#send-code');
    await page.waitForSelector('#email-error:not([hidden])');
    expect(await page.textContent('#email-error-title')).toBe('Too many sign-in requests');
    expect(await page.textContent('#email-error-text')).toContain('Try again in 2 minutes');
    expect(await page.isDisabled('#send-code')).toBe(true);
    await screenshots(s, 'signin-429');
    await page.unroute('**/v1/auth/otp/start');

    // The resend cooldown: the page waits 60 s; the server's own 429 (retry-after) is honoured.
    const email = newEmail('resend');
    await page.clock.install();
    await page.goto(`${runtime.url}/signin`);
    await s.ready('signin');
    await page.fill('#email', email);
    await page.click('#send-code');
    await page.waitForSelector('html[data-step="code"]');
    const first = codeFor(email);
    expect(await page.isDisabled('#resend-button')).toBe(true);
    await page.clock.fastForward(61_000);
    expect(await page.isEnabled('#resend-button')).toBe(true);
    // The browser's clock ran ahead; the server's did not: it answers 429 with retry-after.
    await page.click('#resend-button');
    await page.waitForSelector('#code-error:not([hidden])');
    expect(await page.textContent('#code-error-title')).toBe('Not sent yet');
    expect(await page.textContent('#code-error-text')).toMatch(/another in \d+ s/);
    expect(await page.isDisabled('#resend-button')).toBe(true);
    expect(answers.filter((answer) => answer.path === '/v1/auth/otp/resend').at(-1)?.status).toBe(429);
    await screenshots(s, 'signin-resend-429');
    runtime.clock.advance(61);
    await page.clock.fastForward(61_000);
    await page.click('#resend-button');
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('A new code was sent'));
    const second = codeFor(email);
    expect(second).not.toBe(first);
    expect(await focusedId(s)).toBe('code');

    // Five wrong codes: the fifth says it was the last attempt for a while, and the next (the
    // right code, even) is refused with the wait. Tries are counted from here across codes, so
    // a new code brings none; after the wait, a resent code signs in.
    const wrong = String((Number(second) + 1) % 100_000_000).padStart(8, '0');
    for (let i = 0; i < 5; i++) {
      await page.fill('#code', wrong);
      await page.click('#verify-button');
      await page.waitForSelector('#code-error:not([hidden])');
    }
    expect(await page.textContent('#code-error-title')).toBe('That code is not right');
    expect(await page.textContent('#code-error-text')).toContain('That was the last attempt for a few minutes.');
    expect(await focusedId(s)).toBe('code');
    await page.fill('#code', second);
    await page.click('#verify-button');
    await page.waitForSelector('#code-error:not([hidden])');
    expect(await page.textContent('#code-error-title')).toBe('Too many attempts');
    expect(await page.textContent('#code-error-text')).toMatch(/try again in \d+ (s|minutes?)\./);
    expect(await page.isDisabled('#verify-button')).toBe(true);
    expect(answers.filter((answer) => answer.path === '/v1/auth/otp/verify').at(-1)?.status).toBe(429);
    await screenshots(s, 'signin-too-many-attempts');
    runtime.clock.advance(600);
    await page.clock.fastForward(600_000);
    await page.click('#resend-button');
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('A new code was sent'));
    await page.fill('#code', codeFor(email));
    await page.click('#verify-button');
    await page.waitForURL((url) => url.pathname === '/account');
    await s.ready('account');
    await finish(s);

    // 403: an address whose domain signs in with SSO (no code is mailed, the way through the provider is; any code gets 403).
    const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    await db.send(
      new PutCommand({ TableName: runtime.config.TABLE_NAME, Item: { pk: 'SSO_DOMAIN#sso-corp.example', sk: 'SSO', enforced: true } }),
    );
    const sso = await session('signin-sso', { colorScheme: 'dark', viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await sso.page.goto(`${runtime.url}/signin`);
    await sso.ready('signin');
    const ssoEmail = newEmail('worker', 'sso-corp.example');
    await sso.page.fill('#email', ssoEmail);
    await sso.page.click('#send-code');
    await sso.page.waitForSelector('html[data-step="code"]');
    expect(
      runtime.outbox
        .list()
        .filter((mail) => mail.to === ssoEmail)
        .map((mail) => mail.subject),
    ).toEqual(['Sign in to Hushlink through your organization']);
    await sso.page.fill('#code', '12345678');
    await sso.page.click('#verify-button');
    await sso.page.waitForSelector('#code-error:not([hidden])');
    expect(await sso.page.textContent('#code-error-title')).toBe('Sign in with your organization');
    expect(await sso.page.textContent('#code-error-text')).toContain('single sign-on');
    expect(await focusedId(sso)).toBe('code-error');
    expect(await sso.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screenshots(sso, 'signin-sso');
    await finish(sso);
  });

  it('refreshes once when the access token has expired, and a copied tab signs in on its own (shared computer)', async () => {
    const s = await session('refresh');
    const { page } = s;
    // A tab-only session: the refresh token in this tab's sessionStorage, no cookie.
    await signIn(s, newEmail('refresh'), '/signin', 'account', true);
    expect(await s.context.cookies()).toEqual([]);
    expect(Object.keys((await s.webStorage()).session)).toEqual([refreshKey]);
    await navigate(s, 'API keys', 'keys');
    const refreshes = () => s.apiRequests().filter((request) => new URL(request.url).pathname === '/v1/auth/refresh').length;

    // 16 minutes later on the server, this page's access token has expired: the call answers
    // 401, the page refreshes once and retries with the new token.
    const beforeCreate = refreshes();
    const sentBefore = s.apiRequests().length;
    const copyBefore = await lastAccessToken(s);
    runtime.clock.advance(16 * 60);
    await page.fill('#key-name', 'after expiry');
    await page.click('#create-key');
    await page.waitForSelector('#new-key:not([hidden])');
    guard('API key', await page.inputValue('#new-key-value'));
    const sent = s
      .apiRequests()
      .slice(sentBefore)
      .map((request) => `${request.method} ${new URL(request.url).pathname}`);
    expect(sent.slice(0, 3)).toEqual(['POST /v1/api-keys', 'POST /v1/auth/refresh', 'POST /v1/api-keys']);
    expect(refreshes()).toBe(beforeCreate + 1);
    expect(await lastAccessToken(s)).not.toBe(copyBefore);
    const statuses = answers
      .filter((answer) => answer.context === 'refresh' && answer.path === '/v1/api-keys' && answer.method === 'POST')
      .map((answer) => answer.status);
    expect(statuses.slice(-2)).toEqual([401, 201]);

    // A tab that starts with a copy of this tab's sessionStorage (duplicate tab) must not use it:
    // it drops it and signs in on its own, and this tab stays signed in.
    const copy = await s.context.newPage();
    await copy.goto(`${runtime.url}/favicon.svg`);
    const stored = (await s.webStorage()).session[refreshKey]!;
    await copy.evaluate(([key, value]) => sessionStorage.setItem(key, value), [refreshKey, stored] as const);
    await copy.goto(`${runtime.url}/account`);
    await copy.waitForURL((url) => url.pathname === '/signin');
    await copy.waitForSelector('html[data-ready="signin"]');
    expect(new URL(copy.url()).searchParams.get('reason')).toBe('copied-tab');
    expect(await copy.textContent('#signin-reason')).toContain('copied from a tab signed in on a shared computer');
    expect(await copy.evaluate(() => sessionStorage.length)).toBe(0);
    await copy.close();
    await page.reload();
    await s.ready('keys');
    expect(page.url()).toBe(`${runtime.url}/keys`);
    await finish(s);
  });

  it('never stored an access token, never sent a key, a text or an API key, and kept tokens off URLs', async () => {
    await Promise.all(pendingBodies);
    const requests: SentRequest[] = await settleTraffic();
    expect(issued.access.size).toBeGreaterThan(5);
    expect(issued.refresh.size).toBeGreaterThan(5);
    expect(findLeaks(requests, guarded)).toEqual([]);
    const tokens = [...issued.access, ...issued.refresh];
    let cookiesSent = 0;
    for (const request of requests) {
      const url = new URL(request.url);
      expect(url.origin, 'no third-party origin').toBe(runtime.url);
      // The refresh cookie goes to the sign-in routes (/v1/auth/*) and nowhere else; no other cookie exists.
      expect(cookieProblem(request), `cookie of ${request.url}`).toBeNull();
      if (request.headers.cookie !== undefined) cookiesSent++;
      for (const token of tokens) expect(request.url.includes(token), `a token in the URL ${request.url}`).toBe(false);
      for (const [name, value] of Object.entries(request.headers)) {
        if (name === 'authorization') continue;
        if (name === 'cookie') {
          // Only refresh tokens, never an access token, in that cookie.
          for (const token of issued.access) expect(value.includes(token), `an access token in the cookie of ${request.url}`).toBe(false);
          continue;
        }
        for (const token of tokens) expect(value.includes(token), `a token in header ${name} of ${request.url}`).toBe(false);
      }
      // The refresh token is sent in the body of refresh and logout, nowhere else.
      if (issued.refresh.size > 0 && [...issued.refresh].some((token) => request.body.includes(token))) {
        expect(['/v1/auth/refresh', '/v1/auth/logout']).toContain(url.pathname);
      }
      // Bearer tokens go to the API only, and never as an API key.
      if (request.headers.authorization) {
        expect(url.pathname.startsWith('/v1/')).toBe(true);
        expect(request.headers.authorization).toMatch(/^Bearer eyJ/);
      }
    }
    expect(cookiesSent, 'the browsers signed in with the cookie used it').toBeGreaterThan(0);
  });
});
