/** What the signed-in pages (`/account`, `/keys`, `/sessions`) share: start, and errors. */
import { ApiError, problemMessages, type AccountUser } from './api.ts';
import { setVisible } from './dom.ts';
import { renderNav } from './nav.ts';
import { goToSignIn, hasStoredSession, resume, SignedOutError } from './session.ts';

/**
 * The signed-in user, after one refresh; sends the page to sign-in (and resolves null) when
 * this tab has no session. When the server cannot be reached, says so in `errorBox`.
 */
export async function startSignedInPage(errorBox: HTMLElement): Promise<AccountUser | null> {
  const hadSession = hasStoredSession();
  let user: AccountUser | null;
  try {
    user = await resume();
  } catch (error) {
    renderNav();
    showProblem(errorBox, error);
    return null;
  }
  if (!user) {
    goToSignIn(hadSession ? 'expired' : 'required');
    return null;
  }
  renderNav();
  return user;
}

/** Explains a failed call in `box`; a lost session goes to sign-in instead. */
export function showProblem(box: HTMLElement, error: unknown, prefix = ''): void {
  if (error instanceof SignedOutError) {
    goToSignIn('expired');
    return;
  }
  let sentence: string;
  if (error instanceof ApiError && error.status === 429) {
    sentence = `Too many requests: try again in ${error.retryAfter ?? 60} seconds.`;
  } else if (error instanceof ApiError) {
    sentence = problemMessages(error).join(' ');
  } else {
    sentence = 'Something went wrong in this page. Reload it and try again.';
  }
  box.textContent = `${prefix}${sentence}`;
  setVisible(box, true);
  box.focus();
}

export function markReady(page: string, section: HTMLElement): void {
  section.setAttribute('aria-busy', 'false');
  document.documentElement.dataset.ready = page;
}

/** `<dt>term</dt><dd>value</dd>` in a `<div>`, as `.facts` lays out. */
export function fact(term: string, value: string | Node): HTMLDivElement {
  const row = document.createElement('div');
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.append(value);
  row.append(dt, dd);
  return row;
}

/** A button whose accessible name says what it acts on ("Revoke" + hidden "secret sec_…"). */
export function actionButton(label: string, object: string, className = ''): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  if (className) button.className = className;
  const hidden = document.createElement('span');
  hidden.className = 'visually-hidden';
  hidden.textContent = ` ${object}`;
  button.append(label, hidden);
  return button;
}
