/**
 * The sign-in link of a code's email (ADR 0167) in the browser: opening it shows the address and a
 * Sign in button and sends nothing (a mail scanner that opens links uses nothing); the button signs
 * in and goes to the account, the tokens kept as the code's sign-in keeps them (the HttpOnly cookie,
 * or this tab's sessionStorage on a shared computer, ADR 0178); a used link says so
 * and leads back to the code. The token leaves the address bar at once and is sent in one request's
 * body only, never in a URL, a header (Referer included) or storage.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { mailsTo, newEmail } from '../support/accounts.ts';
import { apiClient } from '../support/runtime.ts';
import {
  findLeaks,
  refreshCookieName,
  Session,
  sessionMarker,
  settleTraffic,
  startRuntimeAndBrowser,
  stopRuntimeAndBrowser,
  tabRefreshKey as refreshKey,
} from './harness.ts';

let runtime: Runtime;
let browser: Browser;

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
}, 180_000);

afterAll(() => stopRuntimeAndBrowser(runtime, browser));

const linkRoute = { label: 'sign-in link token', method: 'POST', path: /^\/v1\/auth\/otp\/link$/ };
const guarded = new Map<string, string>();

/** Asks for a code over HTTP and answers the link of its email. */
async function mailedLink(email: string): Promise<{ href: string; token: string }> {
  expect((await apiClient(runtime).post('/v1/auth/otp/start', { email })).status).toBe(200);
  const href = /^http:\/\/\S+$/m.exec(mailsTo(runtime, email)[0]!.text)![0];
  const token = new URLSearchParams(new URL(href).hash.slice(1)).get('token')!;
  guarded.set(`sign-in link token (${guarded.size})`, token);
  return { href, token };
}

/** Opens the link in a fresh browser and waits for the page's confirm step. */
async function openLink(name: string, href: string): Promise<Session> {
  const s = await Session.open(browser, name);
  await s.page.goto(href);
  await s.ready('signin');
  await s.page.waitForSelector('html[data-step="link"]');
  return s;
}

const linkCalls = (s: Session) => s.apiRequests().filter((request) => new URL(request.url).pathname === '/v1/auth/otp/link');

describe('the sign-in link', () => {
  it('shows the address and signs in only when its button is chosen, then goes to the account', async () => {
    const email = newEmail('e2e-link');
    const { href } = await mailedLink(email);
    const s = await openLink('link', href);
    const { page } = s;
    expect(await page.textContent('#link-email')).toBe(email);
    expect(await page.isVisible('#link-button')).toBe(true);
    // Opened, not used: the token is off the address bar, nothing was posted, nobody is signed in.
    expect(new URL(page.url()).hash).toBe('');
    expect(page.url()).toBe(`${runtime.url}/signin`);
    await settleTraffic();
    expect(linkCalls(s)).toEqual([]);
    expect((await s.webStorage()).session).toEqual({});
    await s.screenshot('signin-link-confirm');

    await page.click('#link-button');
    await page.waitForURL((url) => url.pathname === '/account');
    await s.ready('account');
    await settleTraffic();
    expect(linkCalls(s).map((request) => request.method)).toEqual(['POST']);
    // Kept as a code's sign-in keeps it: the refresh token in the HttpOnly cookie, only a marker in storage.
    const stored = await s.webStorage();
    expect(stored.session).toEqual({});
    expect(stored.local).toEqual(sessionMarker);
    expect(stored.cookies).toBe('');
    const cookies = await s.context.cookies();
    expect(cookies.map((cookie) => cookie.name)).toEqual([refreshCookieName]);
    expect(cookies[0]).toMatchObject({ path: '/v1/auth', httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]!.value).toMatch(/^hlr_ses_[\w-]+\.[\w-]{43}$/);
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('on a shared computer keeps the sign-in to this tab: the refresh token in its sessionStorage, no cookie', async () => {
    const email = newEmail('e2e-link-shared');
    const { href } = await mailedLink(email);
    const s = await openLink('link-shared', href);
    const { page } = s;
    await page.check('#link-shared-computer');
    await page.click('#link-button');
    await page.waitForURL((url) => url.pathname === '/account');
    await s.ready('account');
    const stored = await s.webStorage();
    expect(Object.keys(stored.session)).toEqual([refreshKey]);
    expect(stored.session[refreshKey]).toMatch(/^hlr_ses_[\w-]+\.[\w-]{43}$/);
    expect(stored.local).toEqual({});
    expect(await s.context.cookies()).toEqual([]);
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('says when a link was used already, and leads to the code with its address filled in', async () => {
    const email = newEmail('e2e-used');
    const { href, token } = await mailedLink(email);
    expect((await apiClient(runtime).post('/v1/auth/otp/link', { email, token })).status).toBe(200);
    const s = await openLink('used', href);
    const { page } = s;
    await page.click('#link-button');
    await page.waitForSelector('#link-error:not([hidden])');
    expect(await page.textContent('#link-error-title')).toBe('This sign-in link does not work any more');
    expect(await page.isVisible('#link-button')).toBe(false);
    expect((await s.webStorage()).session).toEqual({});
    await s.screenshot('signin-link-used');
    await page.click('#link-code');
    await page.waitForSelector('html[data-step="email"]');
    expect(await page.inputValue('#email')).toBe(email);
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('sent each token in the body of otp/link alone: never in a URL, a header or storage', async () => {
    const requests = await settleTraffic();
    expect(requests.filter((request) => new URL(request.url).pathname === '/v1/auth/otp/link')).toHaveLength(3);
    expect(findLeaks(requests, guarded, [linkRoute])).toEqual([]);
  });
});
