/**
 * The gate of a restricted link on the reveal page: the person gives their address, the
 * server mails a 6-digit code if it is the link's (its answer is the same either way), and the
 * code buys a gate session of 15 minutes that the claim presents. The session's token is a
 * secret, kept like the link key: in this module's memory only, never in web storage, sent only
 * in the claim's body; the code goes only to `gate/verify`.
 */
import { ApiError, problemText } from './api.ts';
import { announce, byId, focusHeading, setVisible } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { gateApi } from './linksApi.ts';
import { dataNode } from './revealMessages.ts';
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

/** Too many codes asked for or tried, and how long to wait (in seconds below two minutes, else in minutes). */
const tooManyText = (seconds: number | null) =>
  seconds === null
    ? t('reveal.gate.tooManyWait')
    : seconds < 120
      ? t('reveal.gate.tooManySeconds', { seconds })
      : t('reveal.gate.tooManyMinutes', { minutes: Math.ceil(seconds / 60) });

/** The gate's refusals that keep the person on the gate; anything else ends it (`failed`). */
function gateProblem(error: unknown, box: HTMLElement, field: HTMLInputElement, hooks: GateHooks): void {
  if (!(error instanceof ApiError)) throw error;
  if (error.status === 0) return showError(box, t('reveal.network.title'), t('reveal.gate.networkText'));
  if (error.status === 429) return showError(box, t('reveal.rateLimited.title'), tooManyText(error.retryAfter));
  if (error.status === 400) return showError(box, t('reveal.gate.checkTitle'), problemText(error), field);
  hooks.failed(error);
}

async function sendCode(hooks: GateHooks, secretId: string, recipientId: string, again: boolean): Promise<void> {
  const button = again ? resendButton : sendButton;
  button.disabled = true;
  announce(t('reveal.gate.sending'));
  try {
    await gateApi.start(secretId, recipientId, email);
  } catch (error) {
    gateProblem(error, again ? codeError : emailError, again ? codeInput : emailInput, hooks);
    return;
  } finally {
    button.disabled = false;
  }
  // A code is never replaced: while one sent in the last 10 minutes is live, asking mails none.
  codeSent.replaceChildren(
    ...(again
      ? tNodes('reveal.gate.codeSentAgain', { email: dataNode(email) })
      : tNodes('reveal.gate.codeSent', { email: dataNode(email), digits: codeDigits })),
  );
  codeInput.value = '';
  step('code');
  announce(again ? t('reveal.gate.codeSentAgainAnnounce') : t('reveal.gate.codeSentAnnounce'));
  codeInput.focus();
}

async function verify(hooks: GateHooks, secretId: string, recipientId: string): Promise<void> {
  const code = codeInput.value.replace(/[\s-]/g, '');
  if (!new RegExp(`^\\d{${codeDigits}}$`).test(code)) {
    showError(codeError, t('reveal.gate.codeFormatTitle'), t('reveal.gate.codeFormatText', { digits: codeDigits }), codeInput);
    return;
  }
  verifyButton.disabled = true;
  announce(t('reveal.gate.verifying'));
  try {
    const answer = await gateApi.verify(secretId, recipientId, email, code);
    session = { token: answer.gate_token };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      const left = typeof error.problem.attempts_left === 'number' ? error.problem.attempts_left : null;
      const text =
        left !== null && left > 0
          ? t('reveal.gate.codeRefusedAttempts', { count: left })
          : left === 0
            ? t('reveal.gate.codeRefusedNoAttempts')
            : t('reveal.gate.codeRefused');
      showError(codeError, t('reveal.gate.codeRefusedTitle'), text, codeInput);
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
      showError(emailError, given ? t('reveal.gate.notAnEmail') : t('reveal.gate.noEmail'), t('reveal.gate.emailErrorText'), emailInput);
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
      notice.textContent = reason === 'expired' ? t('reveal.gate.expired') : '';
      setVisible(notice, reason === 'expired');
      screen.dataset.reason = reason ?? '';
      step('email');
      document.title = t('reveal.gate.documentTitle');
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
