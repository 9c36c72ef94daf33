/**
 * One sign-in per browser (ADR 0178): a sign-in on one tab is the sign-in of every tab and window
 * of that browser, its refresh token an HttpOnly cookie no script reads; signing out in one ends
 * it in all; "This is a shared computer" keeps today's one-tab sign-in.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { newEmail } from '../support/accounts.ts';
import { Session, settleTraffic, startRuntimeAndBrowser, stopRuntimeAndBrowser, typeSignInCode } from './harness.ts';

let runtime: Runtime;
let browser: Browser;

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
}, 180_000);

afterAll(() => stopRuntimeAndBrowser(runtime, browser));

const signInCalls = (s: Session) =>
  s.apiRequests().filter((request) => /\/v1\/auth\/otp\/(start|verify)$/.test(new URL(request.url).pathname));

/** Signs in on `s`'s page, the shared-computer box as given, and lands on /account. */
async function signIn(s: Session, email: string, sharedComputer = false): Promise<void> {
  await s.page.goto(`${runtime.url}/signin`);
  await s.ready('signin');
  if (sharedComputer) await s.page.check('#shared-computer');
  await typeSignInCode(s, runtime, email);
  await s.page.waitForURL(`${runtime.url}/account`);
  await s.ready('account');
}

/** Another tab of the same browser, at `path`. */
async function newTab(s: Session, path: string): Promise<Page> {
  const page = await s.context.newPage();
  await page.goto(`${runtime.url}${path}`);
  return page;
}

const signedInAs = (page: Page) => page.textContent('[data-user-email]');

describe('a session per browser', () => {
  it('a second tab and a second window are signed in without another code, and no script can read the refresh token', async () => {
    const s = await Session.open(browser, 'browser-wide');
    const email = newEmail('e2e-browser');
    await signIn(s, email);
    const storage = await s.webStorage();
    // No token anywhere a script reaches: a marker that the cookie exists, nothing in this tab's storage.
    expect(storage.local).toEqual({ 'hushlink.session': 'cookie' });
    expect(storage.session).toEqual({});
    expect(storage.cookies).toBe('');
    const [cookie] = await s.context.cookies();
    expect(cookie).toMatchObject({ name: 'hushlink_refresh', path: '/v1/auth', httpOnly: true, secure: true, sameSite: 'Strict' });
    expect(cookie!.value).toMatch(/^hlr_ses_/);

    const tab = await newTab(s, '/requests');
    await tab.waitForSelector('html[data-ready]');
    expect(new URL(tab.url()).pathname).toBe('/requests');
    expect(await signedInAs(tab)).toBe(email);

    // A window opened by the page (its own browsing context, not a copy of this tab's storage).
    const [window] = await Promise.all([s.context.waitForEvent('page'), s.page.evaluate(() => void open('/keys', '_blank', 'noopener'))]);
    await window.waitForSelector('html[data-ready="keys"]');
    expect(new URL(window.url()).pathname).toBe('/keys');

    // A reload of the first tab keeps it too; one code was asked for in all.
    await s.page.reload();
    await s.ready('account');
    expect(await signedInAs(s.page)).toBe(email);
    await settleTraffic();
    expect(signInCalls(s).map((request) => new URL(request.url).pathname)).toEqual(['/v1/auth/otp/start', '/v1/auth/otp/verify']);
    expect(await s.problems()).toEqual([]);
    await s.context.close();
  });

  it('tabs opened at once refresh one after another (one lock), so none presents a rotated-away cookie', async () => {
    const s = await Session.open(browser, 'at-once');
    await signIn(s, newEmail('e2e-at-once'));
    const tabs = await Promise.all(['/account', '/keys', '/sessions', '/requests'].map((path) => newTab(s, path)));
    for (const tab of tabs) await tab.waitForSelector('html[data-ready]');
    for (const tab of tabs) expect(new URL(tab.url()).pathname).not.toBe('/signin');
    // And the session is still good afterwards: a reload of each is signed in.
    await tabs[0]!.reload();
    await tabs[0]!.waitForSelector('html[data-ready="account"]');
    const refreshes = s.apiRequests().filter((request) => new URL(request.url).pathname === '/v1/auth/refresh');
    expect(refreshes.length).toBeGreaterThanOrEqual(5);
    await s.context.close();
  });

  it('signing out in one tab signs out the others: an account page goes to sign-in, compose shows Sign in', async () => {
    const s = await Session.open(browser, 'sign-out-all');
    const email = newEmail('e2e-sign-out');
    await signIn(s, email);
    const account = await newTab(s, '/keys');
    await account.waitForSelector('html[data-ready="keys"]');
    const compose = await newTab(s, '/');
    await compose.waitForSelector('html[data-ready="compose"]');
    await compose.waitForFunction(() => !document.querySelector<HTMLElement>('[data-signed-in]')?.hidden);

    await s.page.locator('button[data-sign-out]').first().click();
    await s.page.waitForURL((url) => url.pathname === '/signin');
    await account.waitForURL((url) => url.pathname === '/signin' && url.searchParams.get('reason') === 'signed-out-elsewhere');
    await account.waitForSelector('html[data-ready="signin"]');
    expect(await account.textContent('#signin-reason')).toBe('You signed out in another tab or window of this browser.');
    await compose.waitForFunction(() => !document.querySelector<HTMLElement>('[data-signed-out]')?.hidden);
    expect(await s.context.cookies()).toEqual([]);
    // And a new tab is signed out: the session is over on the server, not only forgotten here.
    const later = await newTab(s, '/account');
    await later.waitForURL((url) => url.pathname === '/signin');
    await s.context.close();
  });

  it('an invitation’s “Sign in as” fills the invited address in, and the page says why', async () => {
    const s = await Session.open(browser, 'invited');
    const email = newEmail('e2e-invited');
    await s.page.goto(`${runtime.url}/signin?${new URLSearchParams({ reason: 'invitation', next: '/join', email }).toString()}`);
    await s.ready('signin');
    expect(await s.page.inputValue('#email')).toBe(email);
    expect(await s.page.textContent('#signin-reason')).toBe(
      'Sign in with the address your invitation was sent to: you join the workspace right after.',
    );
    expect(await s.problems()).toEqual([]);
    await s.context.close();
  });

  it('“This is a shared computer” keeps the sign-in to its tab: a new tab asks to sign in, and no cookie is set', async () => {
    const s = await Session.open(browser, 'shared-computer');
    await signIn(s, newEmail('e2e-shared'), true);
    const storage = await s.webStorage();
    expect(storage.local).toEqual({});
    expect(Object.keys(storage.session)).toEqual(['hushlink.refresh-token']);
    expect(await s.context.cookies()).toEqual([]);
    const tab = await newTab(s, '/account');
    await tab.waitForURL((url) => url.pathname === '/signin' && url.searchParams.get('reason') === 'required');
    // The first tab is still signed in.
    await s.page.reload();
    await s.ready('account');
    await s.context.close();
  });
});
