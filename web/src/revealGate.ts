/**
 * The gate of a restricted link on the reveal page: the person gives their address, the
 * server mails a 6-digit code if it is the link's (its answer is the same either way), and the
 * code buys a gate session of 15 minutes that the claim presents. The session's token is a
 * secret, kept like the link key: in this module's memory only, never in web storage, sent only
 * in the claim's body; the code goes only to `gate/verify`.
 */
import { ApiError, problemMessages } from './api.ts';
import { announce, byId, focusHeading, plural, setVisible } from './dom.ts';
import { gateApi } from './linksApi.ts';
import { screenSwitcher } from './screens.ts';

/** What the page does around the gate. */
export interface GateHooks {
  /** Makes the gate screen the one shown. */
  show(): void;
  /** The address is confirmed: on to the reveal form. */
  passed(email: string): void;
  /** A refusal that ends the gate (404: no such secret or link): a message screen. */
  failed(error: ApiError): void;
}

const codeDigits = 6;
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const screen = byId('screen-gate');
const title = byId('gate-title');
const notice = byId('gate-notice');
const emailStep = byId('gate-email-step');
const emailForm = byId<HTMLFormElement>('gate-email-form');
const emailInput = byId<HTMLInputElement>('gate-email');
const emailError = byId('gate-email-error');
const sendButton = byId<HTMLButtonElement>('gate-send');
const codeStep = byId('gate-code-step');
const codeSent = byId('gate-code-sent');
const codeForm = byId<HTMLFormElement>('gate-code-form');
const codeInput = byId<HTMLInputElement>('gate-code');
const codeError = byId('gate-code-error');
const verifyButton = byId<HTMLButtonElement>('gate-verify');
const resendButton = byId<HTMLButtonElement>('gate-resend');
const otherEmail = byId<HTMLButtonElement>('gate-other-email');

let session: { token: string } | null = null;
let email = '';

const step = screenSwitcher({ email: emailStep, code: codeStep }, 'step', screen);

function showError(box: HTMLElement, heading: string, text: string, field?: HTMLInputElement): void {
  box.replaceChildren();
  const h = document.createElement('h2');
  h.className = 'notice-title';
  h.textContent = heading;
  const p = document.createElement('p');
  p.textContent = text;
  box.append(h, p);
  setVisible(box, true);
  announce('');
  if (field) {
    field.setAttribute('aria-invalid', 'true');
    field.focus();
    field.select();
  }
}

function clearErrors(): void {
  for (const box of [emailError, codeError]) setVisible(box, false);
  for (const field of [emailInput, codeInput]) field.removeAttribute('aria-invalid');
}

const waitText = (seconds: number | null) =>
  seconds === null
    ? 'Wait a few minutes and try again.'
    : `Try again in ${seconds < 120 ? plural(seconds, 'second', 'seconds') : plural(Math.ceil(seconds / 60), 'minute', 'minutes')}.`;

/** The gate's refusals that keep the person on the gate; anything else ends it (`failed`). */
function gateProblem(error: unknown, box: HTMLElement, field: HTMLInputElement, hooks: GateHooks): void {
  if (!(error instanceof ApiError)) throw error;
  if (error.status === 0)
    return showError(box, 'Cannot reach Hushlink', 'The server could not be reached. Check your connection and try again.');
  if (error.status === 429)
    return showError(box, 'Too many attempts', `Too many codes were asked for or tried for this link. ${waitText(error.retryAfter)}`);
  if (error.status === 400) return showError(box, 'Please check this', problemMessages(error).join(' '), field);
  hooks.failed(error);
}

async function sendCode(hooks: GateHooks, secretId: string, recipientId: string, again: boolean): Promise<void> {
  const button = again ? resendButton : sendButton;
  button.disabled = true;
  announce('Sending…');
  try {
    await gateApi.start(secretId, recipientId, email);
  } catch (error) {
    gateProblem(error, again ? codeError : emailError, again ? codeInput : emailInput, hooks);
    return;
  } finally {
    button.disabled = false;
  }
  // A code is never replaced: while one sent in the last 10 minutes is live, asking mails none.
  codeSent.textContent = again
    ? `If ${email} is the address this link was made for, a new code is on its way to it, unless one was sent less than 10 minutes ago: that one still works.`
    : `If ${email} is the address this link was made for, a ${codeDigits}-digit code is on its way to it, or is there already from the last 10 minutes (look in spam too). It works for 10 minutes.`;
  codeInput.value = '';
  step('code');
  announce(
    again
      ? 'If the address is the link’s, a new code was sent, or the one from the last 10 minutes still works.'
      : 'Check your email for the code.',
  );
  codeInput.focus();
}

async function verify(hooks: GateHooks, secretId: string, recipientId: string): Promise<void> {
  const code = codeInput.value.replace(/[\s-]/g, '');
  if (!new RegExp(`^\\d{${codeDigits}}$`).test(code)) {
    showError(codeError, 'Check the code', `The code has ${codeDigits} digits: type it as the email shows it.`, codeInput);
    return;
  }
  verifyButton.disabled = true;
  announce('Checking the code…');
  try {
    const answer = await gateApi.verify(secretId, recipientId, email, code);
    session = { token: answer.gate_token };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      const left = typeof error.problem.attempts_left === 'number' ? error.problem.attempts_left : null;
      const why = 'It is not right, or it has expired or been used, or the address is not the one this link was made for.';
      if (left !== null && left > 0)
        showError(
          codeError,
          'This code does not work',
          `${why} Check it and try again (${plural(left, 'attempt', 'attempts')} left), or send another code.`,
          codeInput,
        );
      else if (left === 0)
        showError(codeError, 'This code does not work', `${why} No attempts are left for now; try again later.`, codeInput);
      else showError(codeError, 'This code does not work', `${why} Send another code, or use another address.`, codeInput);
      return;
    }
    gateProblem(error, codeError, codeInput, hooks);
    return;
  } finally {
    verifyButton.disabled = false;
  }
  codeInput.value = '';
  hooks.passed(email);
}

export interface Gate {
  /** Shows the gate (its first step); `expired` says why it is asked again (401 `gate_required`). */
  open(reason?: 'expired'): void;
  /** The gate session's token, while it lasts. */
  token(): string | undefined;
  /** Drops the session (used, refused, or the page is left). */
  forget(): void;
}

export function createGate(secretId: string, recipientId: string, hooks: GateHooks): Gate {
  emailForm.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors();
    const given = emailInput.value.trim();
    if (!emailPattern.test(given)) {
      showError(
        emailError,
        given ? 'This is not an email address' : 'Enter your email address',
        'Type the address the sender sent this link to.',
        emailInput,
      );
      return;
    }
    email = given;
    void sendCode(hooks, secretId, recipientId, false);
  });
  codeForm.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors();
    void verify(hooks, secretId, recipientId);
  });
  resendButton.addEventListener('click', () => {
    clearErrors();
    void sendCode(hooks, secretId, recipientId, true);
  });
  otherEmail.addEventListener('click', () => {
    clearErrors();
    codeInput.value = '';
    step('email');
    emailInput.focus();
    emailInput.select();
  });
  // Codes typed elsewhere are pasted with spaces or dashes; only digits are kept.
  codeInput.addEventListener('input', () => {
    const digits = codeInput.value.replace(/\D/g, '').slice(0, codeDigits);
    if (digits !== codeInput.value) codeInput.value = digits;
  });

  const gate: Gate = {
    open(reason) {
      session = null;
      clearErrors();
      codeInput.value = '';
      notice.textContent =
        reason === 'expired'
          ? 'Your confirmation has run out (it lasts 15 minutes), or was not accepted. Confirm your address again: nothing was opened or used up.'
          : '';
      setVisible(notice, reason === 'expired');
      screen.dataset.reason = reason ?? '';
      step('email');
      document.title = 'Hushlink: confirm your address';
      hooks.show();
      announce(notice.textContent ?? '');
      focusHeading(title);
    },
    // The server's clock decides whether it still holds: an expired one is answered 401 gate_required.
    token: () => session?.token,
    forget() {
      session = null;
      codeInput.value = '';
    },
  };
  return gate;
}
