/**
 * The site navigation (`nav.site-nav`): shows "Sign in" or the signed-in address and
 * "Sign out", from the state `session.ts` holds. Visibility is the `hidden` attribute only.
 */
import { currentUser, signOut } from './session.ts';

let wired = false;

export function renderNav(): void {
  const user = currentUser();
  for (const element of document.querySelectorAll<HTMLElement>('[data-signed-in]')) element.hidden = !user;
  for (const element of document.querySelectorAll<HTMLElement>('[data-signed-out]')) element.hidden = user !== null;
  for (const element of document.querySelectorAll<HTMLElement>('[data-user-email]')) element.textContent = user?.email ?? '';
  if (wired) return;
  wired = true;
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-sign-out]')) {
    button.addEventListener('click', () => {
      button.disabled = true;
      void signOut().then(() => location.assign('/signin?reason=signed-out'));
    });
  }
}
