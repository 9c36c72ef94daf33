/**
 * The sign-in page's second step (`signin.ts`): the 8-digit code sent to an address is typed and
 * checked (`POST /v1/auth/otp/verify`), or another one asked for once the cooldown is over. The
 * code stays in the form only; tokens go to `session.ts`.
 */
import { accountApi, ApiError, problemText } from './api.ts';
import { announce, byId, setVisible } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { nextPath, signedIn, signingIn, signInMode } from './session.ts';
import { retryAfterOf, seconds, showError, type SignInWaits } from './signinShared.ts';

const resendCooldownSeconds = 60;

export interface CodeStep {
  /**
   * Shows the step for a code just sent to `address`: another may be asked for after the
   * cooldown. `breakGlass`: sent while single sign-on is required, so only an owner gets a code.
   */
  show(address: string, breakGlass?: boolean): void;
  /** Empties the code field (the page went back to the address). */
  clear(): void;
}

/**
 * Wires the code step's form, its resend and its "change the address" buttons. `ssoRequired`: the
 * page's answer to a 403 `sso_required` (true when it offers the organization's sign-in instead;
 * false leaves the refusal to this step).
 */
export function wireCodeStep(page: {
  step: (name: 'code') => void;
  waits: SignInWaits;
  backToEmail: () => void;
  ssoRequired: (address: string) => Promise<boolean>;
}): CodeStep {
  const { step, waits } = page;
  const codeSent = byId('code-sent');
  const codeEmail = byId('code-email');
  const codeForm = byId<HTMLFormElement>('code-form');
  const code = byId<HTMLInputElement>('code');
  const codeError = byId('code-error');
  const codeErrorTitle = byId('code-error-title');
  const codeErrorText = byId('code-error-text');
  const verifyButton = byId<HTMLButtonElement>('verify-button');
  const resendButton = byId<HTMLButtonElement>('resend-button');
  const changeEmail = byId<HTMLButtonElement>('change-email');
  const breakGlassNote = byId('code-break-glass');
  const sharedComputer = byId<HTMLInputElement>('shared-computer');

  /** The address the code was sent to. */
  let sentTo = '';

  function show(address: string, breakGlass = false): void {
    sentTo = address;
    setVisible(breakGlassNote, breakGlass);
    waits.allowedAt.resend = Date.now() + resendCooldownSeconds * 1000;
    codeEmail.textContent = sentTo;
    // "We sent an 8-digit code to <address>.": the address stays its own element, in the language's word order.
    codeSent.replaceChildren(...tNodes('signin.code.sentTo', { email: codeEmail }));
    code.value = '';
    code.removeAttribute('aria-invalid');
    setVisible(codeError, false);
    step('code');
    waits.tick();
    announce(t('signin.code.sentAnnounce', { email: sentTo }));
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
      showError(codeError, codeErrorTitle, codeErrorText, t('signin.error.checkCode'), t('signin.error.codeShape'));
      code.focus();
      return;
    }
    verifyButton.disabled = true;
    announce(t('signin.status.signingIn'));
    try {
      const tokens = await signingIn(() => accountApi.verifyCode(sentTo, value, signInMode(sharedComputer.checked)));
      signedIn(tokens);
      code.value = '';
      announce(t('signin.status.signedIn'));
      location.assign(nextPath(location.search));
    } catch (error) {
      announce('');
      verifyButton.disabled = false;
      refused(error);
    }
  }

  function refused(error: unknown): void {
    if (!(error instanceof ApiError)) {
      showError(codeError, codeErrorTitle, codeErrorText, t('signin.error.notSignedIn'), t('signin.error.pageReload'));
      codeError.focus();
      return;
    }
    const problem = error.problem;
    if (error.status === 401) {
      // Wrong, expired or already used: the server does not say which. Tries are counted from
      // here, across codes, so a new code brings none; after the last, 429 says how long to wait.
      const left = typeof problem.attempts_left === 'number' ? problem.attempts_left : 0;
      code.setAttribute('aria-invalid', 'true');
      showError(codeError, codeErrorTitle, codeErrorText, t('signin.error.wrongCode'), t('signin.error.wrongCodeText', { left }));
      code.focus();
      code.select();
      return;
    }
    if (error.status === 403 && problem.reason === 'sso_required') {
      // Its workspace's sign-in, when discovery knows it, is offered on the first step instead.
      void page.ssoRequired(sentTo).then((offered) => {
        if (offered) return;
        showError(codeError, codeErrorTitle, codeErrorText, t('signin.error.ssoTitle'), t('signin.error.ssoRequiredCode'));
        codeError.focus();
      });
      return;
    }
    if (error.status === 429) {
      const wait = retryAfterOf(error, 60);
      waits.allowedAt.verify = Date.now() + wait * 1000;
      waits.tick();
      showError(
        codeError,
        codeErrorTitle,
        codeErrorText,
        t('signin.error.tooManyAttempts'),
        t('signin.error.tooManyAttemptsText', { wait: seconds(wait) }),
      );
      codeError.focus();
      return;
    }
    if (error.status === 400) {
      code.setAttribute('aria-invalid', 'true');
      showError(codeError, codeErrorTitle, codeErrorText, t('signin.error.checkCode'), problemText(error));
      code.focus();
      return;
    }
    showError(codeError, codeErrorTitle, codeErrorText, t('signin.error.notSignedIn'), problemText(error));
    codeError.focus();
  }

  async function resend(): Promise<void> {
    if (resendButton.disabled || !sentTo) return;
    setVisible(codeError, false);
    resendButton.disabled = true;
    announce(t('signin.status.sendingNew'));
    try {
      await accountApi.resendCode(sentTo);
      waits.allowedAt.resend = Date.now() + resendCooldownSeconds * 1000;
      code.value = '';
      code.removeAttribute('aria-invalid');
      waits.tick();
      announce(t('signin.code.resent', { email: sentTo }));
      code.focus();
    } catch (error) {
      announce('');
      if (error instanceof ApiError && error.status === 429) {
        const wait = retryAfterOf(error, resendCooldownSeconds);
        waits.allowedAt.resend = Date.now() + wait * 1000;
        waits.tick();
        showError(
          codeError,
          codeErrorTitle,
          codeErrorText,
          t('signin.error.notSentYet'),
          t('signin.error.resendWait', { wait: seconds(wait) }),
        );
      } else {
        waits.tick();
        showError(
          codeError,
          codeErrorTitle,
          codeErrorText,
          t('signin.error.notSent'),
          error instanceof ApiError ? problemText(error) : t('signin.error.unexpected'),
        );
      }
      code.focus();
    }
  }

  code.addEventListener('input', () => {
    // Pasted codes often carry spaces or dashes ("1234 5678"): keep the digits.
    const digits = code.value.replace(/\D+/g, '').slice(0, 8);
    if (digits !== code.value) code.value = digits;
  });
  codeForm.addEventListener('submit', (event) => void verify(event));
  resendButton.addEventListener('click', () => void resend());
  changeEmail.addEventListener('click', page.backToEmail);

  return {
    show,
    clear: () => {
      code.value = '';
    },
  };
}
