/**
 * Sign-in page `/signin`: email → an 8-digit code by email → signed in → `/account` (or the
 * page named by `?next=`, one of this site's). Tokens go to `session.ts`; the code and the
 * address stay in the form only. An address whose workspace has single sign-on is told which
 * identity provider it uses (`signinDiscovery.ts`); signing in stays the emailed code.
 *
 * The same email carries a sign-in link, `/signin#email=…&token=hls_…` (ADR 0167): the fragment
 * is read and taken off the address bar at once, and the page asks "Sign in as …?" and sends
 * nothing until the button is chosen (a mail scanner that opens links uses nothing). The button
 * posts the address and the token to `POST /v1/auth/otp/link`; the token stays in this page's
 * memory only, never in storage.
 */
import { accountApi, ApiError, problemMessages } from './api.ts';
import { announce, byId, setVisible } from './dom.ts';
import { renderNav } from './nav.ts';
import { nextPath, resume, signedIn, signOut, wasCopiedTab } from './session.ts';
import { screenSwitcher } from './screens.ts';
import { wireSsoDiscovery } from './signinDiscovery.ts';

/** What a sign-in link carries: the address it was mailed to and its one-time token. */
interface SignInLink {
  email: string;
  token: string;
}

const linkTokenShape = /^hls_[A-Za-z0-9_-]{43}$/;

/**
 * The link in the address bar's fragment, if any ('incomplete' when it is cut short). Any
 * fragment leaves the address bar at once, so the token never stays in the history, a bookmark
 * or a shared screen, and no later request or Referer can carry it.
 */
function readLink(): SignInLink | 'incomplete' | null {
  if (!location.hash) return null;
  const fragment = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  if (!fragment.has('token') && !fragment.has('email')) return null;
  const email = fragment.get('email')?.trim() ?? '';
  const token = fragment.get('token')?.trim() ?? '';
  return email.includes('@') && linkTokenShape.test(token) ? { email, token } : 'incomplete';
}

// Before anything else: the token leaves the address bar.
const fromLink = readLink();

const stepEmail = byId('step-email');
const reasonNote = byId('signin-reason');
const emailForm = byId<HTMLFormElement>('email-form');
const emailFields = byId<HTMLFieldSetElement>('email-fields');
const email = byId<HTMLInputElement>('email');
const emailError = byId('email-error');
const emailErrorTitle = byId('email-error-title');
const emailErrorText = byId('email-error-text');
const sendCode = byId<HTMLButtonElement>('send-code');

const stepCode = byId('step-code');
const codeEmail = byId('code-email');
const codeForm = byId<HTMLFormElement>('code-form');
const code = byId<HTMLInputElement>('code');
const codeError = byId('code-error');
const codeErrorTitle = byId('code-error-title');
const codeErrorText = byId('code-error-text');
const verifyButton = byId<HTMLButtonElement>('verify-button');
const resendButton = byId<HTMLButtonElement>('resend-button');
const resendHint = byId('resend-hint');
const changeEmail = byId<HTMLButtonElement>('change-email');

const stepLink = byId('step-link');
const linkEmail = byId('link-email');
const linkSignedInNote = byId('link-signed-in');
const linkForm = byId<HTMLFormElement>('link-form');
const linkError = byId('link-error');
const linkErrorTitle = byId('link-error-title');
const linkErrorText = byId('link-error-text');
const linkButton = byId<HTMLButtonElement>('link-button');
const linkCode = byId<HTMLButtonElement>('link-code');

const resendCooldownSeconds = 60;
const discovery = wireSsoDiscovery(email, stepCode);
const step = screenSwitcher({ email: stepEmail, code: stepCode, link: stepLink }, 'step');

/** The address the code was sent to. */
let sentTo = '';
let resendAllowedAt = 0;
let verifyAllowedAt = 0;
let sendAllowedAt = 0;
let ticker: number | undefined;
/** The sign-in link this page was opened with, until it is used or refused for good. */
let link: SignInLink | null = null;
/** Who this tab was signed in as when the link was opened (another account: signed out of this tab after the link signs in). */
let signedInAs: string | null = null;

const reasons: Record<string, string> = {
  'signed-out': 'You are signed out.',
  everywhere: 'You signed out on every device.',
  expired: 'Your session has ended (it was signed out, or it expired). Sign in again to continue.',
  required: 'Sign in to see that page.',
  invitation: 'Sign in with the address your invitation was sent to: you join the workspace right after.',
  upgrade: 'Sign in to upgrade: you come back to the plans right after.',
  'copied-tab':
    'This tab was copied from a signed-in tab. Each tab signs in on its own, so the other tab stays signed in and this one needs its own sign-in.',
};

function showError(box: HTMLElement, title: HTMLElement, text: HTMLElement, heading: string, sentence: string): void {
  title.textContent = heading;
  text.textContent = sentence;
  setVisible(box, true);
}

function seconds(value: number): string {
  if (value < 90) return `${value} s`;
  const minutes = Math.ceil(value / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** Keeps the buttons that must wait (cooldown, 429) disabled, and says for how long. */
function tick(): void {
  const now = Date.now();
  const resendLeft = Math.ceil((resendAllowedAt - now) / 1000);
  resendButton.disabled = resendLeft > 0;
  resendHint.textContent = resendLeft > 0 ? `You can ask for another code in ${seconds(resendLeft)}.` : '';
  verifyButton.disabled = verifyAllowedAt > now;
  sendCode.disabled = sendAllowedAt > now;
  if (resendLeft <= 0 && verifyAllowedAt <= now && sendAllowedAt <= now) {
    window.clearInterval(ticker);
    ticker = undefined;
  } else if (ticker === undefined) {
    ticker = window.setInterval(tick, 1000);
  }
}

function retryAfterOf(error: ApiError, fallback: number): number {
  return Math.max(1, error.retryAfter ?? fallback);
}

async function start(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  setVisible(emailError, false);
  email.removeAttribute('aria-invalid');
  const address = email.value.trim();
  if (!address || !email.checkValidity()) {
    email.setAttribute('aria-invalid', 'true');
    showError(emailError, emailErrorTitle, emailErrorText, 'Check the address', 'Email address: enter an address like name@example.com.');
    email.focus();
    return;
  }
  discovery.check(address);
  emailFields.disabled = true;
  announce('Sending a code…');
  try {
    await accountApi.startSignIn(address);
    sentTo = address;
    resendAllowedAt = Date.now() + resendCooldownSeconds * 1000;
    showCodeStep();
  } catch (error) {
    announce('');
    if (error instanceof ApiError && error.status === 429) {
      const wait = retryAfterOf(error, 60);
      sendAllowedAt = Date.now() + wait * 1000;
      showError(
        emailError,
        emailErrorTitle,
        emailErrorText,
        'Too many sign-in requests',
        `Too many codes were asked for from here. Try again in ${seconds(wait)}.`,
      );
    } else if (error instanceof ApiError && error.status === 400) {
      email.setAttribute('aria-invalid', 'true');
      showError(emailError, emailErrorTitle, emailErrorText, 'Check the address', problemMessages(error).join(' '));
    } else {
      showError(
        emailError,
        emailErrorTitle,
        emailErrorText,
        'No code was sent',
        error instanceof ApiError ? problemMessages(error).join(' ') : 'Something went wrong.',
      );
    }
    emailFields.disabled = false;
    tick();
    if (email.hasAttribute('aria-invalid')) email.focus();
    else emailError.focus();
  }
}

function showCodeStep(): void {
  codeEmail.textContent = sentTo;
  code.value = '';
  code.removeAttribute('aria-invalid');
  setVisible(codeError, false);
  step('code');
  emailFields.disabled = false;
  tick();
  announce(`We sent a code to ${sentTo}.`);
  // The field is described by "We sent an 8-digit code to …", so focus can go straight to it.
  code.focus();
}

async function verify(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  setVisible(codeError, false);
  code.removeAttribute('aria-invalid');
  const value = code.value.replace(/\s+/g, '');
  if (!/^\d{8}$/.test(value)) {
    code.setAttribute('aria-invalid', 'true');
    showError(codeError, codeErrorTitle, codeErrorText, 'Check the code', 'The code is the 8 digits in the email.');
    code.focus();
    return;
  }
  verifyButton.disabled = true;
  announce('Signing in…');
  try {
    const tokens = await accountApi.verifyCode(sentTo, value);
    signedIn(tokens);
    code.value = '';
    announce('Signed in.');
    location.assign(nextPath(location.search));
  } catch (error) {
    announce('');
    verifyButton.disabled = false;
    refused(error);
  }
}

function refused(error: unknown): void {
  if (!(error instanceof ApiError)) {
    showError(codeError, codeErrorTitle, codeErrorText, 'Not signed in', 'Something went wrong in this page. Reload it and try again.');
    codeError.focus();
    return;
  }
  const problem = error.problem;
  if (error.status === 401) {
    // Wrong, expired or already used: the server does not say which. Tries are counted from
    // here, across codes, so a new code brings none; after the last, 429 says how long to wait.
    const left = typeof problem.attempts_left === 'number' ? problem.attempts_left : 0;
    const tries = left > 0 ? `${left} attempt${left === 1 ? '' : 's'} left.` : 'That was the last attempt for a few minutes.';
    code.setAttribute('aria-invalid', 'true');
    showError(
      codeError,
      codeErrorTitle,
      codeErrorText,
      'That code is not right',
      `Check an email from the last 10 minutes and type its code again (older codes have expired: “Resend code” sends another). ${tries}`,
    );
    code.focus();
    code.select();
    return;
  }
  if (error.status === 403 && problem.reason === 'sso_required') {
    showError(
      codeError,
      codeErrorTitle,
      codeErrorText,
      'Sign in with your organization',
      'This address signs in through its organization’s single sign-on, not with an email code. Use your organization’s sign-in, or ask its administrator.',
    );
    codeError.focus();
    return;
  }
  if (error.status === 429) {
    const wait = retryAfterOf(error, 60);
    verifyAllowedAt = Date.now() + wait * 1000;
    tick();
    showError(codeError, codeErrorTitle, codeErrorText, 'Too many attempts', `Wait a moment: you can try again in ${seconds(wait)}.`);
    codeError.focus();
    return;
  }
  if (error.status === 400) {
    code.setAttribute('aria-invalid', 'true');
    showError(codeError, codeErrorTitle, codeErrorText, 'Check the code', problemMessages(error).join(' '));
    code.focus();
    return;
  }
  showError(codeError, codeErrorTitle, codeErrorText, 'Not signed in', problemMessages(error).join(' '));
  codeError.focus();
}

async function resend(): Promise<void> {
  if (resendButton.disabled || !sentTo) return;
  setVisible(codeError, false);
  resendButton.disabled = true;
  announce('Sending a new code…');
  try {
    await accountApi.resendCode(sentTo);
    resendAllowedAt = Date.now() + resendCooldownSeconds * 1000;
    code.value = '';
    code.removeAttribute('aria-invalid');
    tick();
    announce(`A new code was sent to ${sentTo}. Earlier codes still work for their 10 minutes.`);
    code.focus();
  } catch (error) {
    announce('');
    if (error instanceof ApiError && error.status === 429) {
      const wait = retryAfterOf(error, resendCooldownSeconds);
      resendAllowedAt = Date.now() + wait * 1000;
      tick();
      showError(
        codeError,
        codeErrorTitle,
        codeErrorText,
        'Not sent yet',
        `Codes were just asked for from here. You can ask for another in ${seconds(wait)}.`,
      );
    } else {
      tick();
      showError(
        codeError,
        codeErrorTitle,
        codeErrorText,
        'No code was sent',
        error instanceof ApiError ? problemMessages(error).join(' ') : 'Something went wrong.',
      );
    }
    code.focus();
  }
}

function showLinkStep(): void {
  if (!link) return;
  linkEmail.textContent = link.email;
  linkSignedInNote.textContent = signedInAs
    ? `This tab is signed in as ${signedInAs}. Signing in with the link signs that account out of this tab.`
    : '';
  setVisible(linkSignedInNote, signedInAs !== null);
  setVisible(linkError, false);
  setVisible(linkButton, true);
  linkButton.disabled = false;
  step('link');
  announce('');
  // The button is described by "Sign in as …?" and the hint, so focus can go straight to it.
  linkButton.focus();
}

async function signInWithLink(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (!link || linkButton.disabled) return;
  setVisible(linkError, false);
  linkButton.disabled = true;
  announce('Signing in…');
  try {
    const tokens = await accountApi.signInWithLink(link.email, link.token);
    link = null;
    // Another account's session in this tab ends here (on the server too), before the new one is kept.
    if (signedInAs !== null) await signOut();
    signedIn(tokens);
    announce('Signed in.');
    location.assign(nextPath(location.search));
  } catch (error) {
    announce('');
    linkRefused(error);
  }
}

/** A refusal that ends the link for good: the error said, the Sign in button gone. */
function linkDone(heading: string, sentence: string): void {
  link = null;
  setVisible(linkButton, false);
  showError(linkError, linkErrorTitle, linkErrorText, heading, sentence);
  linkError.focus();
}

function linkRefused(error: unknown): void {
  linkButton.disabled = false;
  if (!(error instanceof ApiError)) {
    showError(
      linkError,
      linkErrorTitle,
      linkErrorText,
      'Not signed in',
      'Something went wrong in this page. Try again, or sign in with the code.',
    );
    linkError.focus();
    return;
  }
  if (error.status === 401) {
    // Used (by itself or by its code), expired or unknown: the server does not say which.
    return linkDone(
      'This sign-in link does not work any more',
      'A link works once, for 10 minutes, and signing in with the code from the same email uses it too. Sign in with a code instead: the new email brings a new link as well.',
    );
  }
  if (error.status === 403 && error.problem.reason === 'sso_required') {
    return linkDone(
      'Sign in with your organization',
      'This address signs in through its organization’s single sign-on, not with an email code or link. Use your organization’s sign-in, or ask its administrator.',
    );
  }
  if (error.status === 400) {
    return linkDone('This link is incomplete', 'Open it again from the email, whole, or sign in with a code instead.');
  }
  // No connection, or the server failed: the link was not used, so trying again can help.
  showError(
    linkError,
    linkErrorTitle,
    linkErrorText,
    error.status === 0 ? 'Cannot reach Hushlink' : 'Not signed in',
    problemMessages(error).join(' '),
  );
  linkError.focus();
}

/** From the link's step to the code's first step, the link's address filled in. */
function linkToCode(): void {
  const address = link?.email ?? linkEmail.textContent ?? '';
  link = null;
  email.value = address;
  backToEmail();
}

function backToEmail(): void {
  step('email');
  setVisible(emailError, false);
  code.value = '';
  announce('');
  email.focus();
}

code.addEventListener('input', () => {
  // Pasted codes often carry spaces or dashes ("1234 5678"): keep the digits.
  const digits = code.value.replace(/\D+/g, '').slice(0, 8);
  if (digits !== code.value) code.value = digits;
});
emailForm.addEventListener('submit', (event) => void start(event));
codeForm.addEventListener('submit', (event) => void verify(event));
resendButton.addEventListener('click', () => void resend());
changeEmail.addEventListener('click', backToEmail);
linkForm.addEventListener('submit', (event) => void signInWithLink(event));
linkCode.addEventListener('click', linkToCode);
// A link pasted into this open page changes only the fragment: read it as a fresh load.
window.addEventListener('hashchange', () => location.reload());

async function main(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const reason = params.get('reason');
  let user = null;
  try {
    user = await resume();
  } catch {
    // The server is unreachable: the form says so when it is used.
  }
  if (fromLink !== null && fromLink !== 'incomplete') {
    // Signed in already as the link's address: nothing to do, and the link stays unused.
    if (user && user.email === fromLink.email.toLowerCase()) {
      location.replace(nextPath(location.search));
      return;
    }
    link = fromLink;
    signedInAs = user?.email ?? null;
    renderNav();
    emailFields.disabled = false;
    showLinkStep();
    document.documentElement.dataset.ready = 'signin';
    return;
  }
  if (user) {
    location.replace(nextPath(location.search));
    return;
  }
  renderNav();
  const sentence =
    fromLink === 'incomplete'
      ? 'This sign-in link is incomplete: open it again from the email, whole, or ask for a new code below.'
      : wasCopiedTab()
        ? reasons['copied-tab']
        : reason
          ? reasons[reason]
          : undefined;
  if (sentence) {
    reasonNote.textContent = sentence;
    setVisible(reasonNote, true);
  }
  emailFields.disabled = false;
  step('email');
  document.documentElement.dataset.ready = 'signin';
}

void main();
