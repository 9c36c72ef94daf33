/**
 * Where single sign-on comes back (ADR 0172): the API's callback sends the browser to
 * `/signin/sso#code=hlx_…&return_to=/path` once the workspace's identity provider has signed the
 * person in. Before anything else the fragment leaves the address bar (`history.replaceState`), so
 * the one-time code is never kept in the history, a bookmark or a shared screen. The code goes in
 * the body of `POST /v1/auth/sso/exchange` and nowhere else; its tokens are kept as the emailed
 * code's sign-in keeps them (`session.ts`'s `signedIn`), and the page goes on to `return_to`: a
 * path of this site only, `/account` otherwise. A code refused (used, expired: 401) says so, with
 * the way back to `/signin`.
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { t } from './i18n.ts';
import { accountApi, ApiError, problemText } from './api.ts';
import { announce, byId, setVisible } from './dom.ts';
import { renderNav } from './nav.ts';
import { hasStoredSession, nextPath, resume, signedIn, signingIn, signInMode, takeSharedComputerChoice } from './session.ts';
import { retryAfterOf, seconds, showError } from './signinShared.ts';

const codeShape = /^hlx_[A-Za-z0-9_-]{43}$/;
const fallbackPath = '/account';

/**
 * `return_to` as a path of this site (`origin`'s), its query kept and any fragment dropped:
 * `/account` for anything else (another host, `//host`, `/\host`, a scheme, control characters,
 * the API, or this page itself).
 */
export function returnPath(value: string | null, origin: string): string {
  if (!value || value.length > 512 || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return fallbackPath;
  if (/[\u0000-\u001f\u007f]/.test(value)) return fallbackPath;
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return fallbackPath;
  }
  if (url.origin !== origin) return fallbackPath;
  if (url.pathname === '/signin/sso' || url.pathname.startsWith('/v1/') || url.pathname.startsWith('/scim/')) return fallbackPath;
  return `${url.pathname}${url.search}`;
}

/** What the fragment carried (the code when it has the code's shape), read once and taken off the address bar. */
function readLanding(): { code: string | null; returnTo: string } {
  const fragment = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  const code = fragment.get('code')?.trim() ?? '';
  return { code: codeShape.test(code) ? code : null, returnTo: returnPath(fragment.get('return_to'), location.origin) };
}

// Before anything else: the code leaves the address bar.
const landing = readLanding();

const working = byId('sso-working');
const failedScreen = byId('sso-failed');
const errorBox = byId('sso-error');
const errorTitle = byId('sso-error-title');
const errorText = byId('sso-error-text');
const signInLink = byId<HTMLAnchorElement>('sso-signin');
const retry = byId<HTMLButtonElement>('sso-retry');

// Back to sign-in, to come back to the same page afterwards when it is one sign-in goes back to.
if (nextPath(`?${new URLSearchParams({ next: landing.returnTo }).toString()}`) === landing.returnTo && landing.returnTo !== fallbackPath) {
  signInLink.href = `/signin?${new URLSearchParams({ next: landing.returnTo }).toString()}`;
}

/** Shows why the sign-in did not finish; `canRetry` when the code was not used (the server was not reached, or failed). */
function fail(heading: string, sentence: string, canRetry = false): void {
  announce('');
  showError(errorBox, errorTitle, errorText, heading, sentence);
  setVisible(retry, canRetry);
  retry.disabled = false;
  setVisible(working, false);
  setVisible(failedScreen, true);
  document.documentElement.dataset.screen = 'failed';
  errorBox.focus();
}

function refused(error: unknown): void {
  if (!(error instanceof ApiError)) {
    return fail(t('signin.error.notSignedIn'), t('signin.ssoReturn.errorPage'), true);
  }
  if (error.status === 401) {
    // Used, expired or unknown: the server does not say which.
    return fail(t('signin.ssoReturn.notFinished'), t('signin.ssoReturn.notFinishedText'));
  }
  if (error.status === 400) {
    return fail(t('signin.ssoReturn.incomplete'), t('signin.ssoReturn.signInAgain'));
  }
  if (error.status === 429) {
    return fail(t('signin.ssoReturn.tooMany'), t('signin.ssoReturn.tooManyText', { wait: seconds(retryAfterOf(error, 60)) }));
  }
  // No connection, or the server failed: the code was not used, so trying again (within its minute) can help.
  fail(error.status === 0 ? t('signin.error.unreachable') : t('signin.error.notSignedIn'), problemText(error), true);
}

async function exchange(code: string): Promise<void> {
  announce(t('signin.status.signingIn'));
  try {
    // A session this browser held already ends (on the server too) once the new one is kept:
    // `signedIn` signs it out by its own tokens, which resuming it first gives the page.
    if (hasStoredSession()) await resume().catch(() => null);
    const shared = takeSharedComputerChoice();
    const tokens = await signingIn(() => accountApi.exchangeSsoCode(code, signInMode(shared)));
    signedIn(tokens);
    announce(t('signin.status.signedIn'));
    // Replaced, not added: Back does not come to this page again (its code is spent).
    location.replace(landing.returnTo);
  } catch (error) {
    refused(error);
  }
}

retry.addEventListener('click', () => {
  if (!landing.code || retry.disabled) return;
  retry.disabled = true;
  setVisible(failedScreen, false);
  setVisible(working, true);
  delete document.documentElement.dataset.screen;
  void exchange(landing.code);
});

renderNav();
document.documentElement.dataset.ready = 'signin-sso';
if (landing.code) void exchange(landing.code);
else fail(t('signin.ssoReturn.incomplete'), t('signin.ssoReturn.noCode'));
