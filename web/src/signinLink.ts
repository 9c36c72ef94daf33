/**
 * The sign-in page's one-click link (ADR 0167): the code's email also carries
 * `/signin#email=…&token=hls_…`. The fragment is read and taken off the address bar before anything
 * else (`readSignInLink`, the first thing `signin.ts` does), then the page asks "Sign in as …?" and
 * sends nothing until the button is chosen (a mail scanner that opens links uses nothing). The
 * button posts the address and the token to `POST /v1/auth/otp/link`; the token stays in this
 * page's memory only, never in storage.
 */
import { accountApi, ApiError, problemText } from './api.ts';
import { announce, byId, setVisible } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { nextPath, signedIn, signingIn, signInMode } from './session.ts';
import { showError } from './signinShared.ts';

/** What a sign-in link carries: the address it was mailed to and its one-time token. */
export interface SignInLink {
  email: string;
  token: string;
}

const linkTokenShape = /^hls_[A-Za-z0-9_-]{43}$/;

/**
 * The link in the address bar's fragment, if any ('incomplete' when it is cut short). Any
 * fragment leaves the address bar at once, so the token never stays in the history, a bookmark
 * or a shared screen, and no later request or Referer can carry it.
 */
export function readSignInLink(): SignInLink | 'incomplete' | null {
  if (!location.hash) return null;
  const fragment = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  if (!fragment.has('token') && !fragment.has('email')) return null;
  const email = fragment.get('email')?.trim() ?? '';
  const token = fragment.get('token')?.trim() ?? '';
  return email.includes('@') && linkTokenShape.test(token) ? { email, token } : 'incomplete';
}

export interface LinkStep {
  /**
   * Asks "Sign in as …?" for `link`. `signedInAs`: who this tab is signed in as (another account,
   * signed out of this tab once the link signs in), or null.
   */
  show(link: SignInLink, signedInAs: string | null): void;
}

/** Wires the link step's Sign in button and its way to the code instead (`toCode`, with the link's address). */
export function wireLinkStep(page: { step: (name: 'link') => void; toCode: (address: string) => void }): LinkStep {
  const linkLede = byId('link-lede');
  const linkEmail = byId('link-email');
  const linkSignedInNote = byId('link-signed-in');
  const sharedComputer = byId<HTMLInputElement>('link-shared-computer');
  const linkForm = byId<HTMLFormElement>('link-form');
  const linkError = byId('link-error');
  const linkErrorTitle = byId('link-error-title');
  const linkErrorText = byId('link-error-text');
  const linkButton = byId<HTMLButtonElement>('link-button');
  const linkCode = byId<HTMLButtonElement>('link-code');

  /** The sign-in link this page was opened with, until it is used or refused for good. */
  let link: SignInLink | null = null;
  /** Who this tab was signed in as when the link was opened (another account: signed out of this tab after the link signs in). */
  let signedInAs: string | null = null;

  function show(opened: SignInLink, tabUser: string | null): void {
    link = opened;
    signedInAs = tabUser;
    linkEmail.textContent = link.email;
    // "Sign in as <address>?": the address stays its own element, in the language's word order.
    linkLede.replaceChildren(...tNodes('signin.link.signInAs', { email: linkEmail.parentElement! }));
    linkSignedInNote.textContent = signedInAs ? t('signin.link.otherAccount', { email: signedInAs }) : '';
    setVisible(linkSignedInNote, signedInAs !== null);
    setVisible(linkError, false);
    setVisible(linkButton, true);
    linkButton.disabled = false;
    page.step('link');
    announce('');
    // The button is described by "Sign in as …?" and the hint, so focus can go straight to it.
    linkButton.focus();
  }

  async function signInWithLink(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (!link || linkButton.disabled) return;
    setVisible(linkError, false);
    linkButton.disabled = true;
    announce(t('signin.status.signingIn'));
    try {
      const { email, token } = link;
      const tokens = await signingIn(() => accountApi.signInWithLink(email, token, signInMode(sharedComputer.checked)));
      link = null;
      // Another account's session in this browser ends here (on the server too): `signedIn` does it.
      signedIn(tokens);
      announce(t('signin.status.signedIn'));
      location.assign(nextPath(location.search));
    } catch (error) {
      announce('');
      refused(error);
    }
  }

  /** A refusal that ends the link for good: the error said, the Sign in button gone. */
  function done(heading: string, sentence: string): void {
    link = null;
    setVisible(linkButton, false);
    showError(linkError, linkErrorTitle, linkErrorText, heading, sentence);
    linkError.focus();
  }

  function refused(error: unknown): void {
    linkButton.disabled = false;
    if (!(error instanceof ApiError)) {
      showError(linkError, linkErrorTitle, linkErrorText, t('signin.error.notSignedIn'), t('signin.link.errorPage'));
      linkError.focus();
      return;
    }
    if (error.status === 401) {
      // Used (by itself or by its code), expired or unknown: the server does not say which.
      return done(t('signin.link.expired'), t('signin.link.expiredText'));
    }
    if (error.status === 403 && error.problem.reason === 'sso_required') {
      return done(t('signin.error.ssoTitle'), t('signin.link.ssoRequired'));
    }
    if (error.status === 400) {
      return done(t('signin.link.incomplete'), t('signin.link.incompleteText'));
    }
    // No connection, or the server failed: the link was not used, so trying again can help.
    showError(
      linkError,
      linkErrorTitle,
      linkErrorText,
      error.status === 0 ? t('signin.error.unreachable') : t('signin.error.notSignedIn'),
      problemText(error),
    );
    linkError.focus();
  }

  /** From the link's step to the code's first step, the link's address filled in. */
  function toCode(): void {
    const address = link?.email ?? linkEmail.textContent ?? '';
    link = null;
    page.toCode(address);
  }

  linkForm.addEventListener('submit', (event) => void signInWithLink(event));
  linkCode.addEventListener('click', toCode);
  return { show };
}
