/**
 * The signed-in state of this browser (ADR 0178).
 *
 * - The access token (15 minutes) lives in this module's memory only: every page load starts
 *   without one and gets one by refreshing.
 * - The refresh token, by default, is an HttpOnly cookie the API sets (`session_cookie`), scoped
 *   to `/v1/auth`: no script reads it, ours included, and every tab and window of this browser
 *   shares it. `localStorage` keeps only a marker that one exists (`browserKey`, no secret), so a
 *   page of a signed-out browser does not ask the API for nothing, and so that signing out in one
 *   tab tells the others (a `storage` event).
 * - "This is a shared computer" keeps the session to this tab: the refresh token is then in
 *   `sessionStorage` (this tab, until it is closed), as the body field API clients get.
 * - Nothing else is stored: no access token, no link key, passphrase or text, ever.
 *
 * Refreshes are single-flight, across tabs too (a Web Lock): a rotated-away refresh token
 * presented again makes the server revoke the session (it looks like a stolen copy), so two
 * refreshes must never race.
 */
import { accountApi, ApiError, type AccountUser, type IssuedTokens } from './api.ts';
import { t } from './i18n.ts';
import { acrossTabs, claimSession, sessionIdOf } from './sessionLocks.ts';

/** Tab-only sessions (a shared computer): the refresh token itself. */
const refreshKey = 'hushlink.refresh-token';
/** Browser-wide sessions: only that the cookie was set, never the token. */
const browserKey = 'hushlink.session';
/** Refresh this long before the access token expires (clock skew, slow networks). */
const earlyMs = 60_000;

let access: { token: string; expiresAt: number } | null = null;
let user: AccountUser | null = null;
let refreshing: Promise<AccountUser | null> | null = null;

/** Thrown by `withAccess` when there is no session (anymore): the page should go to sign-in. */
export class SignedOutError extends Error {
  constructor() {
    super(t('common.session.signedOut'));
    this.name = 'SignedOutError';
  }
}

function read(storage: () => Storage, key: string): string | null {
  try {
    return storage().getItem(key);
  } catch {
    return null;
  }
}

function write(storage: () => Storage, key: string, value: string | null): void {
  try {
    if (value === null) storage().removeItem(key);
    else storage().setItem(key, value);
  } catch {
    // Storage disabled: the session lasts as long as this page (and the cookie, if any).
  }
}

const storedRefreshToken = () => read(() => sessionStorage, refreshKey);
const hasBrowserSession = () => read(() => localStorage, browserKey) !== null;

/**
 * Forgets this page's session: a shared-computer tab's token, or else the browser's marker (which
 * tells every other tab). A tab's own session never ends the browser's, nor the other way round.
 */
function forget(): void {
  access = null;
  user = null;
  if (storedRefreshToken() !== null) write(() => sessionStorage, refreshKey, null);
  else write(() => localStorage, browserKey, null);
}

function accept(tokens: IssuedTokens): AccountUser {
  // A token in the body is a tab's (the shared-computer choice); none means the cookie holds it.
  if (tokens.refresh_token !== undefined) write(() => sessionStorage, refreshKey, tokens.refresh_token);
  else write(() => localStorage, browserKey, 'cookie');
  access = { token: tokens.access_token, expiresAt: Date.now() + tokens.expires_in * 1000 - earlyMs };
  user = tokens.user;
  return user;
}

/** Kept across single sign-on's redirects, in this tab, when the person chose a shared computer. */
const sharedChoiceKey = 'hushlink.shared-computer';

/** Before leaving for the identity provider: remembers "shared computer" (only when chosen). */
export function keepSharedComputerChoice(sharedComputer: boolean): void {
  write(() => sessionStorage, sharedChoiceKey, sharedComputer ? 'yes' : null);
}

/** Back from the identity provider: the choice made before leaving, forgotten as it is read. */
export function takeSharedComputerChoice(): boolean {
  const chosen = read(() => sessionStorage, sharedChoiceKey) === 'yes';
  write(() => sessionStorage, sharedChoiceKey, null);
  return chosen;
}

/**
 * Runs a sign-in request under the browser's refresh lock: its answer sets the cookie, which a
 * refresh in another tab, answered later, would otherwise replace with the earlier session's.
 */
export function signingIn<T>(request: () => Promise<T>): Promise<T> {
  return acrossTabs(request);
}

/**
 * What a sign-in request adds to its body: the cookie, unless the person said this is a shared
 * computer (then the token comes in the body and stays in this tab).
 */
export function signInMode(sharedComputer: boolean): { session_cookie?: true } {
  return sharedComputer ? {} : { session_cookie: true };
}

/** The user this tab is signed in as, when a refresh or sign-in has succeeded on this page. */
export function currentUser(): AccountUser | null {
  return user;
}

/** Whether this tab or browser holds a session (it may still be refused). */
export function hasStoredSession(): boolean {
  return storedRefreshToken() !== null || hasBrowserSession();
}

/**
 * After a sign-in: the tokens of a new session. A session this page held before (another
 * account, or the same one signed in again) is signed out on the server by its own tokens, never
 * by the cookie, which is the new session's now.
 */
export function signedIn(tokens: IssuedTokens): AccountUser {
  const earlier = { refreshToken: storedRefreshToken(), bearer: access?.token };
  // `keepalive`: the page navigates away at once, which would cancel an ordinary request.
  if (earlier.refreshToken || earlier.bearer)
    void accountApi.logout(earlier.refreshToken, earlier.bearer, { withoutCookie: true, keepalive: true }).catch(() => null);
  const session = sessionIdOf(tokens.refresh_token ?? null);
  if (session) void claimSession(session);
  else write(() => sessionStorage, refreshKey, null);
  return accept(tokens);
}

/**
 * Rotates the refresh token for a new access token. Null (and storage cleared) when the
 * server refuses it; an `ApiError` with status 0 when the server cannot be reached (the token
 * is kept: it was not used).
 */
export function refresh(): Promise<AccountUser | null> {
  if (refreshing) return refreshing;
  const token = storedRefreshToken();
  if (!token && !hasBrowserSession()) {
    forget();
    return Promise.resolve(null);
  }
  refreshing = (async () => {
    try {
      const before = user?.id;
      const tokens = await (token ? accountApi.refresh(token) : acrossTabs(() => accountApi.refresh(null)));
      // Another tab signed this browser in as someone else: this page's state is the other
      // account's, so it starts again rather than act for the new one.
      if (before !== undefined && tokens.user.id !== before) {
        location.reload();
        return new Promise<never>(() => undefined);
      }
      return accept(tokens);
    } catch (error) {
      if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429) {
        forget();
        return null;
      }
      throw error;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

let copiedFromAnotherTab = false;
/** True when this tab dropped a refresh token that another open tab holds (see above). */
export function wasCopiedTab(): boolean {
  return copiedFromAnotherTab;
}

/** On page load: the signed-in user (refreshing once), or null when this tab is not signed in. */
export async function resume(): Promise<AccountUser | null> {
  if (access && user) return user;
  const session = sessionIdOf(storedRefreshToken());
  if (!session) return hasBrowserSession() ? refresh() : null;
  if (!(await claimSession(session))) {
    copiedFromAnotherTab = true;
    forget();
    return null;
  }
  return refresh();
}

/**
 * Runs an API call with a valid access token: refreshes first when it is (about to be)
 * expired, and once more when the call answers 401 (or one of `staleStatuses`: routes open to
 * anonymous callers answer 403 to a stale token), then retries once. Throws `SignedOutError`
 * when no session is left.
 */
export async function withAccess<T>(run: (token: string) => Promise<T>, staleStatuses: number[] = [401]): Promise<T> {
  if (!access || access.expiresAt <= Date.now()) {
    if (!(await refresh())) throw new SignedOutError();
  }
  const first = access!.token;
  try {
    return await run(first);
  } catch (error) {
    if (!(error instanceof ApiError) || !staleStatuses.includes(error.status)) throw error;
  }
  // Another call may have refreshed meanwhile; otherwise this token is stale: refresh once.
  if (access?.token === first || !access) {
    access = null;
    if (!(await refresh())) throw new SignedOutError();
  }
  // The session is good (the refresh worked): a second refusal is a real one.
  return run(access!.token);
}

/**
 * Signs this session out on the server (best effort) and forgets it here; a browser-wide one is
 * then gone from every tab (the server drops the cookie, and the others hear `storage`).
 */
export async function signOut(): Promise<void> {
  if (refreshing) await refreshing.catch(() => null);
  const token = storedRefreshToken();
  const cookie = token === null && hasBrowserSession();
  const bearer = access?.token;
  forget();
  if (!token && !cookie && !bearer) return;
  try {
    // A tab's session by its own token, never the browser's cookie; the browser's under the
    // refresh lock, so no other tab's refresh is replacing the cookie while it is sent.
    if (token) await accountApi.logout(token, bearer, { withoutCookie: true });
    else await acrossTabs(() => accountApi.logout(null, bearer));
  } catch {
    // Forgotten here either way; an unreachable server leaves the refresh token to expire.
  }
}

/** Event on `document` when another tab signed this browser out: the page shows it (nav, sign-in). */
export const signedOutElsewhereEvent = 'hushlink:signed-out-elsewhere';

// Another tab signed out (or signed out everywhere): its `forget` removed the marker. This tab's
// access token belongs to the same, now revoked, session: drop it and let the page say so.
addEventListener('storage', (event) => {
  if (event.key !== browserKey && event.key !== null) return;
  if (event.newValue !== null || storedRefreshToken() !== null || !user) return;
  access = null;
  user = null;
  // A page that is the account's goes to sign-in; the others (compose, plans, an invitation, a
  // link) stay, and their header shows the signed-out state (nav.ts listens).
  if (accountPages.includes(location.pathname)) goToSignIn('signed-out-elsewhere');
  else document.dispatchEvent(new Event(signedOutElsewhereEvent));
});

/** The pages that show nothing without a session. */
const accountPages = ['/account', '/requests', '/workspaces', '/workspace', '/keys', '/sessions', '/webhooks', '/billing'];

/** Signs out every session of the account (this one too) and forgets it here. */
export async function signOutEverywhere(): Promise<void> {
  await withAccess((token) => accountApi.logoutEverywhere(token));
  forget();
}

const allowedNext = ['/', '/account', '/requests', '/workspaces', '/join', '/keys', '/sessions', '/webhooks', '/plans', '/billing'];
/** A workspace's page is the one next path with a query: its id, and nothing else. */
const workspacePage = /^\/workspace\?id=wks_[A-Za-z0-9_-]{1,64}$/;
const isAllowedNext = (path: string) => allowedNext.includes(path) || workspacePage.test(path);

/** This page as a next path, when it is one (a workspace's page with its id). */
function herePath(): string {
  if (location.pathname !== '/workspace') return location.pathname;
  return `/workspace?id=${new URLSearchParams(location.search).get('id') ?? ''}`;
}

/** Sends the page to sign-in, to come back here afterwards. */
export function goToSignIn(
  reason: 'signed-out' | 'signed-out-elsewhere' | 'expired' | 'everywhere' | 'required' | 'invitation' = 'required',
): void {
  const params = new URLSearchParams({ reason: copiedFromAnotherTab ? 'copied-tab' : reason });
  const here = herePath();
  if (isAllowedNext(here) && here !== '/account') params.set('next', here);
  location.replace(`/signin?${params.toString()}`);
}

/** Where to go after signing in: one of the app's pages, never another origin. */
export function nextPath(search: string): string {
  const next = new URLSearchParams(search).get('next');
  return next && isAllowedNext(next) ? next : '/account';
}

// A click on a link while a refresh is in flight would unload the page before the rotated
// token is stored, and the next page would present the old one (which signs the session out):
// such navigations wait for the refresh to finish.
document.addEventListener('click', (event) => {
  const pending = refreshing;
  if (!pending || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
  if (!(link instanceof HTMLAnchorElement) || link.origin !== location.origin || link.target) return;
  event.preventDefault();
  void pending.catch(() => null).then(() => location.assign(link.href));
});
