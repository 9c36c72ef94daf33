/** What the signed-in pages (`/account`, `/keys`, `/sessions`) share: start, loading, and errors. */
import { ApiError, problemText, type AccountUser } from './api.ts';
import { element, setVisible } from './dom.ts';
import { t } from './i18n.ts';
import { renderNav } from './nav.ts';
import { goToSignIn, hasStoredSession, resume, SignedOutError } from './session.ts';

/**
 * A loading line (role=status) put before `anchor`, and `busy` marked aria-busy, until the
 * returned function is called: so a slow API shows "Loading…" rather than a blank list.
 */
export function showLoading(anchor: HTMLElement, busy: HTMLElement | null, text = t('common.loading')): () => void {
  const line = element('p', 'loading-line', text);
  line.setAttribute('role', 'status');
  anchor.before(line);
  busy?.setAttribute('aria-busy', 'true');
  return () => {
    line.remove();
    busy?.setAttribute('aria-busy', 'false');
  };
}

/**
 * "Retry" under a read's error box, shown by `failed()` and hidden again once pressed (the read
 * starts over). `object` ends its accessible name ("Retry" + hidden "listing your secrets").
 */
export function retryAfter(box: HTMLElement, object: string, retry: () => void): { failed(): void; hide(): void } {
  const actions = element('div', 'actions load-failed');
  actions.hidden = true;
  const button = actionButton(t('common.retry'), object);
  button.dataset.action = 'retry';
  actions.append(button);
  box.after(actions);
  const hide = () => setVisible(actions, false);
  button.addEventListener('click', () => {
    hide();
    retry();
  });
  return { failed: () => setVisible(actions, true), hide };
}

/** The page's loading line while it starts (until `markReady`). */
let pageLoading: (() => void) | null = null;

/**
 * The signed-in user, after one refresh; sends the page to sign-in (and resolves null) when
 * this tab has no session. Until the page is ready (`markReady`) a loading line stands before
 * `errorBox`; when the server cannot be reached, `errorBox` says so, with "Retry".
 */
export async function startSignedInPage(errorBox: HTMLElement): Promise<AccountUser | null> {
  const hadSession = hasStoredSession();
  pageLoading ??= showLoading(errorBox, null);
  let user: AccountUser | null;
  try {
    user = await resume();
  } catch (error) {
    renderNav();
    pageLoading();
    showProblem(errorBox, error);
    // The page never started: starting it again is loading it again.
    retryAfter(errorBox, t('common.page.retryObject'), () => location.reload()).failed();
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
    sentence = t('problem.tooManyRequests', { seconds: error.retryAfter ?? 60 });
  } else if (error instanceof ApiError) {
    sentence = problemText(error);
  } else {
    sentence = t('common.page.broken');
  }
  box.textContent = `${prefix}${sentence}`;
  setVisible(box, true);
  box.focus();
}

export function markReady(page: string, section: HTMLElement): void {
  pageLoading?.();
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
