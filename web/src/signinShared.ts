/**
 * What the sign-in page's steps (`signin.ts`, `signinCode.ts`, `signinLink.ts`) share: their
 * error notices, and the waits (a code's resend cooldown, a 429's retry-after) kept on the buttons
 * that must wait and said in words.
 */
import type { ApiError } from './api.ts';
import { setVisible } from './dom.ts';
import { t } from './i18n.ts';

/** Fills a step's error notice (its heading first: the notice is an alert) and shows it. */
export function showError(box: HTMLElement, title: HTMLElement, text: HTMLElement, heading: string, sentence: string): void {
  title.textContent = heading;
  text.textContent = sentence;
  setVisible(box, true);
}

/** A wait in words: seconds under a minute and a half, whole minutes (rounded up) beyond. */
export function seconds(value: number): string {
  if (value < 90) return t('signin.wait.seconds', { count: value });
  return t('signin.wait.minutes', { count: Math.ceil(value / 60) });
}

/** A 429's wait in seconds: its retry-after, else `fallback`; never less than 1. */
export function retryAfterOf(error: ApiError, fallback: number): number {
  return Math.max(1, error.retryAfter ?? fallback);
}

/** When (epoch ms) each button that must wait may be used again: sending a code, checking one, sending another. */
export interface Waits {
  send: number;
  verify: number;
  resend: number;
}

export interface WaitingButtons {
  send: HTMLButtonElement;
  verify: HTMLButtonElement;
  resend: HTMLButtonElement;
  /** Says how long until another code may be asked for. */
  resendHint: HTMLElement;
}

/** The page's waits: change `allowedAt`, then `tick` to bring the buttons up to date. */
export interface SignInWaits {
  allowedAt: Waits;
  tick(): void;
}

/**
 * Keeps the buttons that must wait disabled, and says for how long, ticking each second while any
 * waits (one ticker for all three).
 */
export function signInWaits(buttons: WaitingButtons): SignInWaits {
  const allowedAt: Waits = { send: 0, verify: 0, resend: 0 };
  let ticker: number | undefined;
  const tick = (): void => {
    const now = Date.now();
    const resendLeft = Math.ceil((allowedAt.resend - now) / 1000);
    buttons.resend.disabled = resendLeft > 0;
    buttons.resendHint.textContent = resendLeft > 0 ? t('signin.code.resendIn', { wait: seconds(resendLeft) }) : '';
    buttons.verify.disabled = allowedAt.verify > now;
    buttons.send.disabled = allowedAt.send > now;
    if (resendLeft <= 0 && allowedAt.verify <= now && allowedAt.send <= now) {
      window.clearInterval(ticker);
      ticker = undefined;
    } else if (ticker === undefined) {
      ticker = window.setInterval(tick, 1000);
    }
  };
  return { allowedAt, tick };
}
