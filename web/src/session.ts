/**
 * The signed-in state of this browser tab.
 *
 * - The access token (15 minutes) lives in this module's memory only: every page load starts
 *   without one and gets one by refreshing.
 * - The refresh token lives in `sessionStorage` (this tab, until it is closed) under one key;
 *   it is rotated on every use, so it is read from storage each time and never cached here.
 * - Nothing else is stored: no access token, no link key, passphrase or text, ever.
 *
 * Refreshes are single-flight: a rotated-away refresh token presented again makes the server
 * revoke the session (it looks like a stolen copy), so two refreshes must never race.
 */
import { accountApi, ApiError, type AccountUser, type IssuedTokens } from './api.ts';

const refreshKey = 'hushlink.refresh-token';
/** Refresh this long before the access token expires (clock skew, slow networks). */
const earlyMs = 60_000;

let access: { token: string; expiresAt: number } | null = null;
let user: AccountUser | null = null;
let refreshing: Promise<AccountUser | null> | null = null;

/** Thrown by `withAccess` when there is no session (anymore): the page should go to sign-in. */
export class SignedOutError extends Error {
  constructor() {
    super('You are not signed in.');
    this.name = 'SignedOutError';
  }
}

function storedRefreshToken(): string | null {
  try {
    return sessionStorage.getItem(refreshKey);
  } catch {
    return null;
  }
}

function forget(): void {
  access = null;
  user = null;
  try {
    sessionStorage.removeItem(refreshKey);
  } catch {
    // Storage disabled: nothing was kept there either.
  }
}

function accept(tokens: IssuedTokens): AccountUser {
  try {
    sessionStorage.setItem(refreshKey, tokens.refresh_token);
  } catch {
    // Without sessionStorage the session lasts as long as this page.
  }
  access = { token: tokens.access_token, expiresAt: Date.now() + tokens.expires_in * 1000 - earlyMs };
  user = tokens.user;
  return user;
}

/** The user this tab is signed in as, when a refresh or sign-in has succeeded on this page. */
export function currentUser(): AccountUser | null {
  return user;
}

/** Whether this tab holds a refresh token (it may still be refused). */
export function hasStoredSession(): boolean {
  return storedRefreshToken() !== null;
}

/** After `otp/verify`: the tokens of a new session. */
export function signedIn(tokens: IssuedTokens): AccountUser {
  const session = sessionIdOf(tokens.refresh_token);
  if (session) void claimSession(session);
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
  if (!token) {
    forget();
    return Promise.resolve(null);
  }
  refreshing = (async () => {
    try {
      return accept(await accountApi.refresh(token));
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

// A duplicated tab (and some "open in new tab" paths) starts with a copy of this tab's
// sessionStorage. Whichever copy refreshed second would present a rotated-away token, and the
// server would revoke the session for both. So every page that uses a session holds a Web Lock
// named after it for as long as it is open (the browser releases it when the page goes). A
// page that finds a refresh token waits for that lock: right away, or as soon as the previous
// page of the same tab is gone; if another open tab keeps holding it, this tab has a copy and
// drops it (without signing anything out) to sign in on its own.
const sessionIdOf = (token: string | null) => /^hlr_(ses_[A-Za-z0-9_-]+)\./.exec(token ?? '')?.[1] ?? null;
/** Longer than a page takes to leave; a copied tab waits this long before it asks to sign in. */
const lockWaitMs = 1500;
const claimed = new Set<string>();

/** Holds the session's lock for the life of this page; false when another open tab holds it. */
function claimSession(session: string): Promise<boolean> {
  if (claimed.has(session)) return Promise.resolve(true);
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return Promise.resolve(true);
  const signal = AbortSignal.timeout(lockWaitMs);
  return new Promise((resolve) => {
    locks
      .request(`hushlink-session:${session}`, { signal }, () => {
        claimed.add(session);
        resolve(true);
        // Never settles: the lock is released when this page is unloaded.
        return new Promise<void>(() => undefined);
      })
      .catch(() => resolve(false));
  });
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
  if (!session) return null;
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

/** Signs this tab's session out on the server (best effort) and forgets it here. */
export async function signOut(): Promise<void> {
  if (refreshing) await refreshing.catch(() => null);
  const token = storedRefreshToken();
  const bearer = access?.token;
  forget();
  if (!token && !bearer) return;
  try {
    await accountApi.logout(token, bearer);
  } catch {
    // Forgotten here either way; an unreachable server leaves the refresh token to expire.
  }
}

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
export function goToSignIn(reason: 'signed-out' | 'expired' | 'everywhere' | 'required' | 'invitation' = 'required'): void {
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
