/**
 * Sign-in page `/signin`: email → an 8-digit code by email (`signinCode.ts`) → signed in →
 * `/account` (or the page named by `?next=`, one of this site's). Tokens go to `session.ts`; the
 * code and the address stay in the form only. An address whose workspace has single sign-on is
 * told which identity provider it uses and offered "Continue with <workspace>’s sign-in"
 * (`signinDiscovery.ts`), which comes back signed in through `/signin/sso` (`signinSso.ts`); the
 * emailed code stays second, unless the server says single sign-on is required (403
 * `sso_required`).
 *
 * The same email carries a sign-in link, `/signin#email=…&token=hls_…` (ADR 0167,
 * `signinLink.ts`): the page asks "Sign in as …?" and sends nothing until the button is chosen.
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { t } from './i18n.ts';
import { accountApi, ApiError, problemText } from './api.ts';
import { announce, byId, setVisible } from './dom.ts';
import { renderNav } from './nav.ts';
import { nextPath, resume, wasCopiedTab } from './session.ts';
import { screenSwitcher } from './screens.ts';
import { wireCodeStep } from './signinCode.ts';
import { wireSsoDiscovery } from './signinDiscovery.ts';
import { readSignInLink, wireLinkStep } from './signinLink.ts';
import { retryAfterOf, seconds, showError, signInWaits } from './signinShared.ts';

// Before anything else: the token leaves the address bar.
const fromLink = readSignInLink();

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

const discovery = wireSsoDiscovery({
  email,
  anchor: stepCode,
  button: byId<HTMLButtonElement>('sso-button'),
  sendCode,
  returnTo: () => nextPath(location.search),
  breakGlass: (address) => void sendSignInCode(address, true),
});
const step = screenSwitcher({ email: stepEmail, code: stepCode, link: byId('step-link') }, 'step');
const waits = signInWaits({
  send: sendCode,
  verify: byId<HTMLButtonElement>('verify-button'),
  resend: byId<HTMLButtonElement>('resend-button'),
  resendHint: byId('resend-hint'),
});
const codeStep = wireCodeStep({ step, waits, backToEmail, ssoRequired });
const linkStep = wireLinkStep({
  step,
  toCode: (address) => {
    email.value = address;
    backToEmail();
  },
});

/** `?reason=` → the sentence's key. */
const reasons: Record<string, string> = {
  'signed-out': 'signin.reason.signedOut',
  everywhere: 'signin.reason.everywhere',
  expired: 'signin.reason.expired',
  required: 'signin.reason.required',
  invitation: 'signin.reason.invitation',
  upgrade: 'signin.reason.upgrade',
  'copied-tab': 'signin.reason.copiedTab',
  'signed-out-elsewhere': 'signin.reason.signedOutElsewhere',
};

async function start(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  setVisible(emailError, false);
  email.removeAttribute('aria-invalid');
  const address = email.value.trim();
  if (!address || !email.checkValidity()) {
    email.setAttribute('aria-invalid', 'true');
    showError(emailError, emailErrorTitle, emailErrorText, t('signin.error.checkAddress'), t('signin.error.addressInvalid'));
    email.focus();
    return;
  }
  discovery.check(address);
  // No code is emailed to an address its organization signs in (Enter in the field lands here too).
  if (discovery.isRequired(address) && discovery.go(address)) return;
  await sendSignInCode(address, false);
}

/**
 * Emails a code to `address` and goes to the code step. `breakGlass`: asked for although single
 * sign-on is required, which only the workspace's owners get a code for (anyone else is emailed
 * the provider's link), so the code step says so.
 */
async function sendSignInCode(address: string, breakGlass: boolean): Promise<void> {
  emailFields.disabled = true;
  announce(t('signin.status.sending'));
  try {
    await accountApi.startSignIn(address);
    emailFields.disabled = false;
    codeStep.show(address, breakGlass);
  } catch (error) {
    announce('');
    if (error instanceof ApiError && error.status === 429) {
      const wait = retryAfterOf(error, 60);
      waits.allowedAt.send = Date.now() + wait * 1000;
      showError(
        emailError,
        emailErrorTitle,
        emailErrorText,
        t('signin.error.tooManyRequests'),
        t('signin.error.tooManyCodes', { wait: seconds(wait) }),
      );
    } else if (error instanceof ApiError && error.status === 403 && error.problem.reason === 'sso_required') {
      emailFields.disabled = false;
      if (await ssoRequired(address)) return;
      showError(emailError, emailErrorTitle, emailErrorText, t('signin.error.ssoTitle'), t('signin.error.ssoRequiredEmail'));
    } else if (error instanceof ApiError && error.status === 400) {
      email.setAttribute('aria-invalid', 'true');
      showError(emailError, emailErrorTitle, emailErrorText, t('signin.error.checkAddress'), problemText(error));
    } else {
      showError(
        emailError,
        emailErrorTitle,
        emailErrorText,
        t('signin.error.notSent'),
        error instanceof ApiError ? problemText(error) : t('signin.error.unexpected'),
      );
    }
    emailFields.disabled = false;
    waits.tick();
    if (email.hasAttribute('aria-invalid')) email.focus();
    else emailError.focus();
  }
}

/**
 * The server refused the emailed code for `address` (403 `sso_required`, from sending a code or
 * checking one): back on the first step, its organization's sign-in is the one way offered, when
 * discovery knows it. False when it does not (the step that was refused says so itself).
 */
async function ssoRequired(address: string): Promise<boolean> {
  email.value = address;
  if (!(await discovery.required(address))) return false;
  step('email');
  codeStep.clear();
  announce('');
  showError(emailError, emailErrorTitle, emailErrorText, t('signin.error.ssoTitle'), t('signin.error.ssoContinue'));
  emailError.focus();
  return true;
}

function backToEmail(): void {
  step('email');
  setVisible(emailError, false);
  codeStep.clear();
  announce('');
  email.focus();
}

emailForm.addEventListener('submit', (event) => void start(event));
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
    renderNav();
    emailFields.disabled = false;
    linkStep.show(fromLink, user?.email ?? null);
    document.documentElement.dataset.ready = 'signin';
    return;
  }
  if (user) {
    location.replace(nextPath(location.search));
    return;
  }
  renderNav();
  const sentenceKey =
    fromLink === 'incomplete'
      ? 'signin.reason.incompleteLink'
      : wasCopiedTab()
        ? reasons['copied-tab']
        : reason
          ? reasons[reason]
          : undefined;
  const sentence = sentenceKey ? t(sentenceKey) : undefined;
  if (sentence) {
    reasonNote.textContent = sentence;
    setVisible(reasonNote, true);
  }
  // An invitation's page sends its address along: the person signs in as the one invited.
  const invited = params.get('email');
  if (invited && !email.value) email.value = invited.slice(0, 254);
  emailFields.disabled = false;
  step('email');
  document.documentElement.dataset.ready = 'signin';
}

void main();
