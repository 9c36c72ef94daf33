/**
 * Signing in through a workspace's identity provider in Chromium (issue 29, ADR 0172), against the
 * local OpenID Provider the runtime starts (local/oidc/): on `/signin` an address at the
 * directory's domain brings "Continue with <workspace>’s sign-in" (primary; "Send code" second),
 * the button goes to the provider's login page, the provider comes back through the API's
 * callback to `/signin/sso`, whose one-time code leaves the address bar and is exchanged, and the
 * page lands signed in on `/account`. A used code and an incomplete one say so with the way back
 * to `/signin`; a `return_to` of another site lands on `/account`; with enforcement a refused
 * code brings the organization's sign-in as the one way. Every request is recorded: the one-time
 * code goes in the exchange's body only, and no token or code goes into a URL's query or to
 * anything but the API.
 */
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAt } from '../../local/oidc/provider.ts';
import type { Runtime } from '../../local/runtime.ts';
import { bearer, latestCode, newEmail, signIn } from '../support/accounts.ts';
import { apiClient } from '../support/runtime.ts';
import { ssoDirectory } from '../support/sso.ts';
import { setWorkspace, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';
import {
  cookieProblem,
  findLeaks,
  refreshCookieName,
  type SentRequest,
  Session,
  sessionMarker,
  settleTraffic,
  startRuntimeAndBrowser,
  stopRuntimeAndBrowser,
  tabRefreshKey as refreshKey,
} from './harness.ts';

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
let workspace: TeamWorkspace & { name: string };
let domain: string;
const clientId = 'hushlink-e2e';
const clientSecret = randomBytes(24).toString('base64url');

/** One-time codes (`hlx_…`): in the exchange's body, and nowhere else. */
const codes = new Map<string, string>();
/** Tokens of the sessions opened, and the provider's authorization codes: in no URL, and never sent but to the API. */
const secrets = new Map<string, string>();
const keep = (into: Map<string, string>, label: string, value: string) => into.set(`${label} (${into.size})`, value);

const exchangeRoute = { label: 'one-time code', method: 'POST', path: /^\/v1\/auth\/sso\/exchange$/ };

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser({ identityProvider: true }));
  api = apiClient(runtime);
  const made = await teamWorkspace(runtime);
  domain = `sso-e2e-${process.pid}.example`;
  await ssoDirectory(runtime, made, { domain, clientId, clientSecret, enforce: false });
  const discovered = await api.get(`/v1/workspaces/sso/discover?${new URLSearchParams({ email: `someone@${domain}` }).toString()}`);
  expect(discovered.body).toMatchObject({ sso: true, workspace: { id: made.id } });
  workspace = { ...made, name: discovered.body.workspace.name };
}, 180_000);

afterAll(() => stopRuntimeAndBrowser(runtime, browser));

const address = (label: string) => newEmail(label, domain);
const pathOf = (request: SentRequest) => new URL(request.url).pathname;
/** A request to this runtime's API (not its pages, not the provider). */
const isApi = (request: SentRequest) => request.url.startsWith(`${runtime.url}/v1/`);

/** The main frame's addresses, as the page moved (navigations, and `history` changes). */
function addressBar(s: Session): string[] {
  const seen: string[] = [];
  s.page.on('framenavigated', (frame) => {
    if (frame === s.page.mainFrame()) seen.push(frame.url());
  });
  return seen;
}

/** On `/signin`: the address typed and the field left, until the workspace's button shows. */
async function offered(s: Session, email: string): Promise<void> {
  await s.page.goto(`${runtime.url}/signin`);
  await s.ready('signin');
  await s.page.fill('#email', email);
  await s.page.press('#email', 'Tab');
  await s.page.waitForSelector('#sso-button:not([hidden])');
}

/**
 * From the workspace's button through the provider's login page (the address typed there) to the
 * account, signed in (its one-time code kept as a guarded value). The reply's body is not read:
 * the landing page has navigated away by then.
 */
async function throughProvider(s: Session, email: string): Promise<void> {
  const { page } = s;
  const exchanged = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/auth/sso/exchange');
  await page.click('#sso-button');
  await page.waitForURL((url) => url.origin === runtime.oidc.origin && url.pathname.startsWith('/interaction/'));
  await page.fill('input[name="email"]', email);
  await page.click('form[action$="/login"] button');
  const reply = await exchanged;
  expect(reply.status()).toBe(200);
  const code = (reply.request().postDataJSON() as { code: string }).code;
  expect(code).toMatch(/^hlx_[A-Za-z0-9_-]{43}$/);
  keep(codes, 'one-time code', code);
  await page.waitForURL((url) => url.pathname === '/account');
  await s.ready('account');
  await page.waitForSelector('.nav-user:not([hidden])');
  expect(await page.textContent('.nav-user [data-user-email]')).toBe(email);
}

/**
 * The session tokens this browser sent (the bearers of its API calls, the refresh tokens of its
 * refreshes and sign-outs, in a body or the refresh cookie), kept as guarded values; the newest bearer.
 */
async function sessionTokens(s: Session): Promise<string> {
  await settleTraffic();
  let newest = '';
  for (const request of s.requests().filter(isApi)) {
    const bearerToken = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (bearerToken) {
      keep(secrets, 'access token', bearerToken);
      newest = bearerToken;
    }
    const refresh = /"refresh_token":"([^"]+)"/.exec(request.body)?.[1];
    if (refresh) keep(secrets, 'refresh token', refresh);
    const cookie = new RegExp(`(?:^|; )${refreshCookieName}=([^;]+)`).exec(request.headers.cookie ?? '')?.[1];
    if (cookie) keep(secrets, 'refresh token', cookie);
  }
  expect(newest).not.toBe('');
  return newest;
}

/** A one-time code for `email` made outside the browser (start, the provider, the callback), as the landing page would get it. */
async function codeFromNode(email: string): Promise<string> {
  const started = await fetch(`${runtime.url}/v1/auth/sso/start?${new URLSearchParams({ email, return_to: '/account' })}`, {
    redirect: 'manual',
  });
  expect(started.status).toBe(302);
  const back = await signInAt(runtime.oidc, started.headers.get('location')!, email);
  const landed = await fetch(`${runtime.url}${back.pathname}${back.search}`, { redirect: 'manual' });
  expect(landed.status).toBe(302);
  const code = new URLSearchParams(new URL(landed.headers.get('location')!).hash.slice(1)).get('code')!;
  keep(codes, 'one-time code', code);
  return code;
}

/** Opens the landing page with `fragment` and waits for its refusal. */
async function landingRefuses(s: Session, fragment: string): Promise<void> {
  // From elsewhere: from the landing page itself, a new fragment alone would not load it again.
  await s.page.goto('about:blank');
  await s.page.goto(`${runtime.url}/signin/sso#${fragment}`);
  await s.page.waitForSelector('html[data-ready="signin-sso"]');
  await s.page.waitForSelector('#sso-failed:not([hidden])');
}

describe('signing in through the workspace’s identity provider', () => {
  it('offers the workspace’s sign-in first, goes through the provider, and lands signed in on the account without the code in the address bar', async () => {
    const s = await Session.open(browser, 'sso');
    const { page } = s;
    const bar = addressBar(s);
    const email = address('ana');
    const accountCall = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/v1/secrets' && response.request().method() === 'GET',
    );
    await offered(s, email);
    expect(await page.textContent('#sso-button')).toBe(`Continue with ${workspace.name}’s sign-in`);
    // The button is a flex box: its words are one item (a span), or their spaces would go.
    expect(await page.$eval('#sso-button', (button) => [...button.childNodes].map((node) => node.nodeName))).toEqual(['SPAN']);
    expect(await page.getAttribute('#sso-button', 'class')).toContain('primary');
    // The emailed code stays, second.
    expect(await page.isVisible('#send-code')).toBe(true);
    expect(await page.getAttribute('#send-code', 'class')).not.toContain('primary');
    expect(await page.textContent('#sso-discovery [data-role="sso-uses"]')).toContain(`Your workspace ${workspace.name} uses`);
    expect(await page.textContent('#sso-discovery [data-role="sso-code"]')).toContain('still done with a code emailed');
    await s.screenshot('sso-signin-offered');

    await throughProvider(s, email);
    // On the account, signed in as that address, the fragment gone and nothing added to the address.
    expect(page.url()).toBe(`${runtime.url}/account`);
    const listed = await accountCall;
    expect(listed.status()).toBe(200);
    expect(listed.request().headers().authorization).toMatch(/^Bearer /);
    // The session's token is good for the API from anywhere: its sessions.
    const sessions = await api.get('/v1/auth/sessions', bearer(await sessionTokens(s)));
    expect(sessions.status).toBe(200);
    expect(sessions.body.items.length).toBeGreaterThanOrEqual(1);
    // The landing page took the code off the address bar before going on (replaced, so not in the history either).
    const landings = bar.filter((url) => new URL(url).pathname === '/signin/sso');
    expect(landings.some((url) => url.includes('#code=hlx_'))).toBe(true);
    expect(landings.at(-1)).toBe(`${runtime.url}/signin/sso`);
    // Kept as a code's sign-in keeps it: the refresh token in the HttpOnly cookie, only a marker in storage.
    const stored = await s.webStorage();
    expect(stored.session).toEqual({});
    expect(stored.local).toEqual(sessionMarker);
    expect(stored.cookies).toBe('');
    const [cookie] = (await s.context.cookies(`${runtime.url}/v1/auth/refresh`)).filter((each) => each.name === refreshCookieName);
    expect(cookie).toMatchObject({ path: '/v1/auth', httpOnly: true, sameSite: 'Strict' });
    keep(secrets, 'refresh token', cookie!.value);
    await settleTraffic();
    // The landing page was asked for without a query, and the code went to the exchange alone.
    const landingLoads = s.requests().filter((request) => pathOf(request) === '/signin/sso');
    expect(landingLoads.map((request) => request.url)).toEqual([`${runtime.url}/signin/sso`]);
    expect(s.requests().filter((request) => pathOf(request) === '/v1/auth/sso/exchange')).toHaveLength(1);
    // The provider's own code comes back in the callback's query (OAuth's redirect), and goes nowhere else.
    const callbacks = s.requests().filter((request) => pathOf(request) === '/v1/auth/sso/callback');
    expect(callbacks).toHaveLength(1);
    const providerCode = new URL(callbacks[0]!.url).searchParams.get('code')!;
    expect(providerCode).toBeTruthy();
    keep(secrets, 'provider code', providerCode);
    const elsewhere = s.requests().filter((request) => request !== callbacks[0] && request.url.includes(providerCode));
    expect(elsewhere.map((request) => request.url)).toEqual([]);
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('on a shared computer, carries that choice through the provider and keeps the sign-in to this tab', async () => {
    const s = await Session.open(browser, 'shared-computer');
    const email = address('shared');
    await offered(s, email);
    await s.page.check('#shared-computer');
    await throughProvider(s, email);
    const stored = await s.webStorage();
    // The choice was read once back from the provider and forgotten; the token is this tab's alone.
    expect(Object.keys(stored.session)).toEqual([refreshKey]);
    expect(stored.session[refreshKey]).toMatch(/^hlr_ses_/);
    keep(secrets, 'refresh token', stored.session[refreshKey]!);
    expect(stored.local).toEqual({});
    expect((await s.context.cookies(`${runtime.url}/v1/auth/refresh`)).filter((each) => each.name === refreshCookieName)).toEqual([]);
    await sessionTokens(s);
    // The exchange asked for the token in its body: no `session_cookie`.
    const exchanges = s.requests().filter((request) => pathOf(request) === '/v1/auth/sso/exchange');
    expect(exchanges.map((request) => Object.keys(JSON.parse(request.body)))).toEqual([['code']]);
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('says when the code was used already, or is incomplete, with the way back to sign-in', async () => {
    const email = address('bo');
    const code = await codeFromNode(email);
    const first = await api.post('/v1/auth/sso/exchange', { code });
    expect(first.status).toBe(200);
    keep(secrets, 'access token', first.body.access_token);
    keep(secrets, 'refresh token', first.body.refresh_token);

    const s = await Session.open(browser, 'used');
    const { page } = s;
    await landingRefuses(s, new URLSearchParams({ code, return_to: '/account' }).toString());
    expect(page.url()).toBe(`${runtime.url}/signin/sso`);
    expect(await page.textContent('#sso-error-title')).toBe('This sign-in did not finish');
    expect(await page.textContent('#sso-error-text')).toContain('expired or was used already');
    expect(await page.getAttribute('#sso-signin', 'href')).toBe('/signin');
    expect(await page.isVisible('#sso-retry')).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('sso-error');
    expect((await s.webStorage()).session).toEqual({});
    await s.screenshot('sso-signin-used');
    await settleTraffic();
    const tries = s.requests().filter((request) => pathOf(request) === '/v1/auth/sso/exchange');
    // The code, and the browser's ask for the session in the HttpOnly cookie (ADR 0178): nothing else.
    expect(tries.map((request) => JSON.parse(request.body))).toEqual([{ code, session_cookie: true }]);

    // Cut short: nothing is sent, and the page says so.
    await landingRefuses(s, 'code=hlx_short&return_to=%2Fkeys');
    expect(page.url()).toBe(`${runtime.url}/signin/sso`);
    expect(await page.textContent('#sso-error-title')).toBe('This sign-in link is incomplete');
    // Back to sign-in, to come back to the page it was going to.
    expect(await page.getAttribute('#sso-signin', 'href')).toBe('/signin?next=%2Fkeys');
    await settleTraffic();
    expect(s.requests().filter((request) => pathOf(request) === '/v1/auth/sso/exchange')).toHaveLength(1);
    await page.click('#sso-signin');
    await page.waitForURL((url) => url.pathname === '/signin');
    await s.ready('signin');
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('shows a page, not JSON, when the callback refuses what the browser brought back (ADR 0173)', async () => {
    const s = await Session.open(browser, 'callback-refused');
    const { page } = s;
    const response = await page.goto(`${runtime.url}/v1/auth/sso/callback?code=abc&state=forged`);
    expect(response?.status()).toBe(401);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.textContent('h1')).toBe('This sign-in has expired or was used already');
    expect(await page.textContent('body')).toContain('(unauthorized, 401)');
    await s.screenshot('sso-callback-refused');
    await page.click('text=Back to sign-in');
    await page.waitForURL((url) => url.pathname === '/signin');
    await s.ready('signin');
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('goes to the account, not to another site, when return_to names one', async () => {
    const email = address('cy');
    const code = await codeFromNode(email);
    const s = await Session.open(browser, 'elsewhere');
    const { page } = s;
    const exchanged = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/auth/sso/exchange');
    // Only until the page starts: it goes on to the account by itself.
    await page.goto(`${runtime.url}/signin/sso#${new URLSearchParams({ code, return_to: '//evil.example/account' })}`, {
      waitUntil: 'commit',
    });
    expect((await exchanged).status()).toBe(200);
    await page.waitForURL((url) => url.pathname === '/account');
    expect(page.url()).toBe(`${runtime.url}/account`);
    await s.ready('account');
    await sessionTokens(s);
    await settleTraffic();
    expect(s.requests().filter((request) => request.url.includes('evil.example'))).toEqual([]);
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('under enforcement, the organization’s sign-in is the one way offered, and it signs in', async () => {
    await ssoDirectory(runtime, workspace, { domain, verified: true, clientId, clientSecret, enforce: true });
    const s = await Session.open(browser, 'enforced');
    const { page } = s;
    const email = address('di');
    await offered(s, email);
    // Discovery says the address's SSO is enforced: the organization's sign-in alone, no code offered.
    expect(await page.isVisible('#sso-button')).toBe(true);
    expect(await page.isVisible('#send-code')).toBe(false);
    expect(await page.getAttribute('#sso-discovery', 'data-required')).toBe('true');
    expect(await page.textContent('#sso-discovery')).toContain('requires its own sign-in');
    await s.screenshot('sso-signin-required');

    await throughProvider(s, email);
    expect(page.url()).toBe(`${runtime.url}/account`);
    await sessionTokens(s);
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('under enforcement, an owner breaks the glass with an emailed code, and the workspace’s trail says so', async () => {
    // A workspace whose owner's own address is of its enforced domain.
    const bossDomain = `glass-${process.pid}.example`;
    const boss = await signIn(runtime, `boss@${bossDomain}`);
    const made = await api.post('/v1/workspaces', { name: 'Glass' }, boss.auth);
    expect(made.status).toBe(201);
    await setWorkspace(runtime, made.body.id, { seats: 10, plan: 'team' });
    const owned = { id: made.body.id as string, owner: boss };
    await ssoDirectory(runtime, owned, { domain: bossDomain, clientId, clientSecret, enforce: true });

    const s = await Session.open(browser, 'break-glass');
    const { page } = s;
    await offered(s, `boss@${bossDomain}`);
    expect(await page.isVisible('#send-code')).toBe(false);
    await page.click('#break-glass');
    await page.waitForSelector('#step-code:not([hidden])');
    expect(await page.isVisible('#code-break-glass')).toBe(true);
    expect(await page.textContent('#code-break-glass')).toContain('Only the workspace’s owners get a code');
    await s.screenshot('sso-signin-break-glass');
    await page.fill('#code', latestCode(runtime, `boss@${bossDomain}`)!);
    await page.click('#verify-button');
    await page.waitForURL((url) => url.pathname === '/account');
    await s.ready('account');
    await sessionTokens(s);
    const audit = await api.get(`/v1/workspaces/${owned.id}/audit`, boss.auth);
    expect(audit.body.items.map((row: { action: string }) => row.action)).toContain('sso.break_glass');
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('sent no token or code in a URL’s query or to anything but the API, and each one-time code in the exchange’s body alone', async () => {
    const requests = await settleTraffic();
    expect(requests.filter((request) => pathOf(request) === '/v1/auth/sso/exchange').length).toBeGreaterThanOrEqual(4);
    expect(findLeaks(requests, codes, [exchangeRoute])).toEqual([]);
    // The refresh cookie goes to the sign-in routes alone (the provider's own cookies are its own).
    const ours = requests.filter((request) => request.url.startsWith(`${runtime.url}/`));
    expect(ours.map(cookieProblem).filter((problem) => problem !== null)).toEqual([]);
    const found: string[] = [];
    for (const request of requests) {
      for (const [label, value] of secrets) {
        const query = new URL(request.url).search;
        // The provider's code comes back in the callback's query, as OAuth sends it: that one request only.
        const callback = label.startsWith('provider code') && pathOf(request) === '/v1/auth/sso/callback';
        if (query.includes(value) && !callback) found.push(`${label} in the query of ${request.method} ${request.url}`);
        if (!isApi(request) && !callback && (request.url.includes(value) || request.body.includes(value))) {
          found.push(`${label} sent to ${request.method} ${request.url}`);
        }
        if (!isApi(request) && Object.values(request.headers).some((header) => header.includes(value))) {
          found.push(`${label} in a header of ${request.method} ${request.url}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
