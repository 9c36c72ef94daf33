/**
 * The site header (web/partials.ts), the same on every page: shows "Sign in" or the account's
 * links, the signed-in address and "Sign out", from the state `session.ts` holds, once the page
 * has resumed its session; until then the sign-in slot stays busy ("…"). On phones the links
 * fold behind "Menu". Visibility is the `hidden` attribute only.
 */
import { tNodes } from './i18n.ts';
import { currentUser, resume, signedOutElsewhereEvent, signOut } from './session.ts';

let wired = false;

/** Called by every page once its session is resumed (or known to be absent). */
export function renderNav(): void {
  const user = currentUser();
  for (const element of document.querySelectorAll<HTMLElement>('[data-session-pending]')) element.hidden = true;
  for (const element of document.querySelectorAll<HTMLElement>('[data-signed-in]')) element.hidden = !user;
  for (const element of document.querySelectorAll<HTMLElement>('[data-signed-out]')) element.hidden = user !== null;
  for (const line of document.querySelectorAll<HTMLElement>('[data-user-line]')) {
    const email = document.createElement('span');
    email.dataset.userEmail = '';
    email.translate = false;
    email.textContent = user?.email ?? '';
    line.replaceChildren(...(user ? tNodes('common.nav.signedInAs', { email }) : []));
  }
  if (wired) return;
  wired = true;
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-sign-out]')) {
    button.addEventListener('click', () => {
      button.disabled = true;
      void signOut().then(() => location.assign('/signin?reason=signed-out'));
    });
  }
}

/**
 * For pages with no session work of their own (the reveal, responder and 404 pages): resume the
 * session once, then show the header's signed-in or signed-out state. A server that cannot be
 * reached shows the signed-out state rather than leave the slot busy.
 */
export async function startNav(): Promise<void> {
  await resume().catch(() => null);
  renderNav();
}

/**
 * The phone menu: "Menu" (aria-expanded, aria-controls) opens the links; Escape or a second press
 * closes them, Escape giving focus back to the button. Wired at import, before any session work,
 * so the menu answers while the page is still resuming.
 */
function wireMenu(): void {
  const header = document.querySelector<HTMLElement>('.site-header');
  const button = header?.querySelector<HTMLButtonElement>('.menu-button');
  if (!header || !button) return;
  const setOpen = (open: boolean) => {
    header.dataset.menu = open ? 'open' : 'closed';
    button.setAttribute('aria-expanded', String(open));
  };
  button.addEventListener('click', () => setOpen(header.dataset.menu !== 'open'));
  header.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || header.dataset.menu !== 'open') return;
    setOpen(false);
    button.focus();
  });
}

/**
 * "Skip to content" moves the focus itself into `<main>` (focusable by script only), so the next
 * Tab is the page's first control and screen readers start reading there.
 */
function wireSkipLink(): void {
  const link = document.querySelector<HTMLAnchorElement>('a.skip-link');
  const main = document.getElementById('main');
  if (!link || !main) return;
  link.addEventListener('click', (event) => {
    event.preventDefault();
    if (!main.hasAttribute('tabindex')) main.tabIndex = -1;
    main.focus();
  });
}

wireMenu();
// Another tab signed this browser out (session.ts): a page that stays (compose, plans, a link) shows it.
document.addEventListener(signedOutElsewhereEvent, renderNav);
wireSkipLink();
