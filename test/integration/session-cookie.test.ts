import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { credentialLimits } from '../../shared/limits.ts';
import { bearer, latestCode, mailsTo, newEmail } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime, type Reply } from '../support/runtime.ts';

/**
 * The web client's session per browser (ADR 0178): a sign-in that asks with `session_cookie`
 * gets its refresh token as an HttpOnly cookie scoped to /v1/auth and none in the body; refresh
 * and logout read the cookie; API clients' body field works as before.
 */

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const cookieAttributes = `Max-Age=${credentialLimits.refreshTokenSeconds}; Path=/v1/auth; HttpOnly; Secure; SameSite=Strict`;
/** A browser's request: same-origin, with its cookie. */
const fromThisSite = (cookie: string) => ({ cookie, 'sec-fetch-site': 'same-origin' });

/** The `hushlink_refresh=…` pair a reply set, and its attributes, when it set one. */
function setCookie(reply: Reply): { pair: string; attributes: string } | null {
  const [value] = reply.headers.getSetCookie();
  if (!value) return null;
  const split = value.indexOf(';');
  return { pair: value.slice(0, split), attributes: value.slice(split + 2) };
}

async function codeFor(email: string): Promise<string> {
  expect((await api.post('/v1/auth/otp/start', { email })).status).toBe(200);
  return latestCode(runtime, email)!;
}

/** Signs in as a browser does: the refresh token comes back as the cookie only. */
async function signInAsBrowser(email: string) {
  const reply = await api.post('/v1/auth/otp/verify', { email, code: await codeFor(email), session_cookie: true });
  expect(reply.status).toBe(200);
  const cookie = setCookie(reply);
  expect(cookie).not.toBeNull();
  return { reply, cookie: cookie!.pair };
}

describe('a session per browser', () => {
  it('a code sign-in with session_cookie sets an HttpOnly, Secure, SameSite=Strict cookie for /v1/auth and answers no refresh_token', async () => {
    const { reply, cookie } = await signInAsBrowser(newEmail('cookie'));
    expect(cookie).toMatch(/^hushlink_refresh=hlr_ses_[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect(setCookie(reply)!.attributes).toBe(cookieAttributes);
    expect(Object.keys(reply.body).sort()).toEqual(['access_token', 'expires_in', 'token_type', 'user']);
    expect((await api.get('/v1/auth/sessions', bearer(reply.body.access_token))).status).toBe(200);
  });

  it('without session_cookie (API clients, a shared computer) the token is in the body and no cookie is set', async () => {
    const email = newEmail('body');
    const reply = await api.post('/v1/auth/otp/verify', { email, code: await codeFor(email) });
    expect(reply.status).toBe(200);
    expect(reply.body.refresh_token).toMatch(/^hlr_/);
    expect(setCookie(reply)).toBeNull();
    const refreshed = await api.post('/v1/auth/refresh', { refresh_token: reply.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toMatch(/^hlr_/);
    expect(setCookie(refreshed)).toBeNull();
  });

  it('refresh by the cookie rotates it: a new cookie, no token in the body, and the old cookie past its grace signs the session out', async () => {
    const { cookie } = await signInAsBrowser(newEmail('rotate'));
    const refreshed = await api.post('/v1/auth/refresh', {}, fromThisSite(cookie));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toBeUndefined();
    const next = setCookie(refreshed)!;
    expect(next.attributes).toBe(cookieAttributes);
    expect(next.pair).not.toBe(cookie);
    expect((await api.post('/v1/auth/refresh', {}, fromThisSite(next.pair))).status).toBe(200);
    runtime.clock.advance(credentialLimits.refreshGraceSeconds + 1);
    // The first cookie again, after its grace: a copy, so the session ends for every holder.
    expectProblem(await api.post('/v1/auth/refresh', {}, fromThisSite(cookie)), 401, 'unauthorized');
    expectProblem(await api.post('/v1/auth/refresh', {}, fromThisSite(next.pair)), 401, 'unauthorized');
  });

  it('tabs refreshing one after another each send the cookie the last answer set, and all stay signed in', async () => {
    let { cookie } = await signInAsBrowser(newEmail('tabs'));
    const tokens: string[] = [];
    for (let tab = 0; tab < 5; tab++) {
      const reply = await api.post('/v1/auth/refresh', {}, fromThisSite(cookie));
      expect(reply.status).toBe(200);
      tokens.push(reply.body.access_token);
      cookie = setCookie(reply)!.pair;
    }
    for (const token of tokens) expect((await api.get('/v1/auth/sessions', bearer(token))).status).toBe(200);
  });

  it('a cookie sent by another site’s request is not read: 401, and the session is untouched', async () => {
    const { cookie } = await signInAsBrowser(newEmail('cross'));
    for (const site of ['cross-site', 'same-site', 'none']) {
      const reply = await api.post('/v1/auth/refresh', {}, { cookie, 'sec-fetch-site': site });
      expectProblem(reply, 401, 'unauthorized');
      expect(setCookie(reply)).toBeNull();
    }
    // A client that sends no Sec-Fetch-Site (not a browser) is not refused for its absence.
    expect((await api.post('/v1/auth/refresh', {}, { cookie })).status).toBe(200);
  });

  it('refresh with neither a body token nor a cookie is 401; a malformed body is 400', async () => {
    const none = await api.post('/v1/auth/refresh', {});
    expectProblem(none, 401, 'unauthorized');
    expect(none.body.detail).toBe('No refresh token: send refresh_token, or sign in again.');
    expectProblem(await api.post('/v1/auth/refresh', { refresh_token: 42 }), 400, 'invalid_request');
    expectProblem(
      await api.post('/v1/auth/otp/verify', { email: 'a@example.com', code: '12345678', session_cookie: 'yes' }),
      400,
      'invalid_request',
    );
  });

  it('a body token wins over the cookie: an API client in a browser-like context keeps its own session', async () => {
    const browser = await signInAsBrowser(newEmail('both-browser'));
    const email = newEmail('both-api');
    const client = await api.post('/v1/auth/otp/verify', { email, code: await codeFor(email) });
    const reply = await api.post('/v1/auth/refresh', { refresh_token: client.body.refresh_token }, fromThisSite(browser.cookie));
    expect(reply.status).toBe(200);
    expect(reply.body.user.email).toBe(email);
    expect(reply.body.refresh_token).toMatch(/^hlr_/);
    expect(setCookie(reply)).toBeNull();
  });

  it('logout by the cookie ends the session and tells the browser to forget the cookie', async () => {
    const { reply: signedIn, cookie } = await signInAsBrowser(newEmail('logout'));
    const out = await api.post('/v1/auth/logout', {}, fromThisSite(cookie));
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signed_out: true });
    expect(out.headers.getSetCookie()).toEqual(['hushlink_refresh=; Max-Age=0; Path=/v1/auth; HttpOnly; Secure; SameSite=Strict']);
    expectProblem(await api.post('/v1/auth/refresh', {}, fromThisSite(cookie)), 401, 'unauthorized');
    expect((await api.get('/v1/auth/sessions', bearer(signedIn.body.access_token))).status).toBe(401);
    // Logging out again (another tab, a stale cookie) is still 200.
    expect((await api.post('/v1/auth/logout', {}, fromThisSite(cookie))).status).toBe(200);
  });

  it('logout by an earlier session’s access token alone (no cookie) leaves the browser’s current session', async () => {
    const email = newEmail('switch');
    const earlier = await signInAsBrowser(email);
    const current = await signInAsBrowser(email);
    const out = await api.post('/v1/auth/logout', {}, bearer(earlier.reply.body.access_token));
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()).toEqual([]);
    expectProblem(await api.post('/v1/auth/refresh', {}, fromThisSite(earlier.cookie)), 401, 'unauthorized');
    expect((await api.post('/v1/auth/refresh', {}, fromThisSite(current.cookie))).status).toBe(200);
  });

  it('logout clears the cookie only when it used it: not for a body token, nor for a cookie another site’s request carried', async () => {
    const browser = await signInAsBrowser(newEmail('keep-browser'));
    const email = newEmail('keep-tab');
    const tab = await api.post('/v1/auth/otp/verify', { email, code: await codeFor(email) });
    const byBody = await api.post('/v1/auth/logout', { refresh_token: tab.body.refresh_token }, fromThisSite(browser.cookie));
    expect(byBody.status).toBe(200);
    expect(byBody.headers.getSetCookie()).toEqual([]);
    const crossSite = await api.post('/v1/auth/logout', {}, { cookie: browser.cookie, 'sec-fetch-site': 'same-site' });
    expect(crossSite.status).toBe(200);
    expect(crossSite.headers.getSetCookie()).toEqual([]);
    // The browser's session is untouched by both; the tab's is over.
    expect((await api.post('/v1/auth/refresh', {}, fromThisSite(browser.cookie))).status).toBe(200);
    expectProblem(await api.post('/v1/auth/refresh', { refresh_token: tab.body.refresh_token }), 401, 'unauthorized');
  });

  it('logout with the cookie another tab’s refresh just replaced still ends the session (within the grace)', async () => {
    const { cookie } = await signInAsBrowser(newEmail('raced-logout'));
    const refreshed = await api.post('/v1/auth/refresh', {}, fromThisSite(cookie));
    const next = setCookie(refreshed)!.pair;
    expect((await api.post('/v1/auth/logout', {}, fromThisSite(cookie))).status).toBe(200);
    expectProblem(await api.post('/v1/auth/refresh', {}, fromThisSite(next)), 401, 'unauthorized');
    expect((await api.get('/v1/auth/sessions', bearer(refreshed.body.access_token))).status).toBe(401);
  });

  it('logout-all ends every session and clears the cookie of the browser that asked', async () => {
    const email = newEmail('everywhere');
    const one = await signInAsBrowser(email);
    const two = await signInAsBrowser(email);
    const out = await api.post('/v1/auth/logout-all', undefined, { ...bearer(one.reply.body.access_token), ...fromThisSite(one.cookie) });
    expect(out.status).toBe(200);
    expect(out.body.signed_out).toBe(2);
    expect(out.headers.getSetCookie()).toEqual(['hushlink_refresh=; Max-Age=0; Path=/v1/auth; HttpOnly; Secure; SameSite=Strict']);
    expectProblem(await api.post('/v1/auth/refresh', {}, fromThisSite(two.cookie)), 401, 'unauthorized');
  });

  it('the sign-in link with session_cookie sets the cookie too', async () => {
    const email = newEmail('link');
    await codeFor(email);
    const url = new URL(/^http:\/\/\S+$/m.exec(mailsTo(runtime, email)[0]!.text)![0]);
    const token = new URLSearchParams(url.hash.slice(1)).get('token')!;
    const reply = await api.post('/v1/auth/otp/link', { email, token, session_cookie: true });
    expect(reply.status).toBe(200);
    expect(reply.body.refresh_token).toBeUndefined();
    expect(setCookie(reply)!.pair).toMatch(/^hushlink_refresh=hlr_/);
  });
});
