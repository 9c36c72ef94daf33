/**
 * The sign-in page's single sign-on (issues 17 and 29): once an address is typed (when the field
 * is left, or the form sent; never at each key), `GET /v1/workspaces/sso/discover` is asked once
 * per address, and only for an address that looks valid. When a workspace's directory speaks for
 * its domain, the page says which identity provider that workspace uses (linked when it is an
 * https URL) and offers "Continue with <workspace>’s sign-in" as the primary button: a navigation
 * to `GET /v1/auth/sso/start` (ADR 0172), which sends the browser to the provider and, once signed
 * in there, back to `/signin/sso` (`signinSso.ts`). The emailed code stays as the secondary way,
 * unless single sign-on is required for the address: discovery says `enforced: true` (when it
 * does), or the server refused a code with 403 `sso_required`; then "Send code" goes.
 * An answer that comes back for an address no longer in the field is dropped.
 */
import { ssoStartPath } from './api.ts';
import { announce, element, setVisible } from './dom.ts';
import { domainsApi, issuerUrl, type SsoDiscovery } from './domainsApi.ts';
import { t, tNodes } from './i18n.ts';
import { keepSharedComputerChoice } from './session.ts';

/** As the invitation form checks it; the server's own check is stricter, and a 400 shows nothing. */
const addressPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type Found = Extract<SsoDiscovery, { sso: true }>;

/** What the email step lends discovery. */
export interface SsoDiscoveryPage {
  /** The address field. */
  email: HTMLInputElement;
  /** The notice (a live region) is placed after this element, so it shows on every step. */
  anchor: HTMLElement;
  /** The email step's "Continue with …’s sign-in" button, hidden until an address's workspace has single sign-on. */
  button: HTMLButtonElement;
  /** "Send code": secondary while single sign-on is offered, gone while it is required. */
  sendCode: HTMLButtonElement;
  /** Where to come back to once signed in (a path of this site). */
  returnTo: () => string;
  /**
   * The workspace's owners keep the emailed code while single sign-on is required (their
   * break-glass, audited): asks for a code for `address` anyway.
   */
  breakGlass: (address: string) => void;
}

export interface SsoDiscoveryControl {
  /** Asks about `address` (once per address) and shows what is found. */
  check(address: string): void;
  /**
   * The server said `address` signs in through its organization only (403 `sso_required`): the
   * emailed code is no longer offered for it. True once the provider's button is shown for it;
   * false when no workspace's single sign-on is known for it (nothing to offer instead).
   */
  required(address: string): Promise<boolean>;
  /** Whether `address` signs in through its provider only, as far as this page knows. */
  isRequired(address: string): boolean;
  /** Sends the browser to the provider for `address` when its button is shown: false otherwise. */
  go(address: string): boolean;
}

const key = (address: string) => address.trim().toLowerCase();

/** Whether discovery's answer says single sign-on is enforced for the address. */
const enforcedBy = (found: Found) => found.enforced;

/** Wires discovery to the address field and the email step's buttons. */
export function wireSsoDiscovery(page: SsoDiscoveryPage): SsoDiscoveryControl {
  const { email, button, sendCode } = page;
  // The region is there from the start, so what appears in it is announced wherever focus is.
  const region = element('div');
  region.setAttribute('role', 'status');
  const notice = element('div', 'notice notice-info');
  notice.id = 'sso-discovery';
  notice.hidden = true;
  region.append(notice);
  page.anchor.after(region);
  button.setAttribute('aria-describedby', notice.id);
  /** One question per address, however often it is typed or sent. */
  const answers = new Map<string, Promise<SsoDiscovery>>();
  /** Addresses the server refused a code for (403 `sso_required`). */
  const requiredFor = new Set<string>();
  let shown: { address: string; found: Found } | null = null;

  const hide = () => {
    shown = null;
    notice.replaceChildren();
    delete notice.dataset.workspaceId;
    delete notice.dataset.required;
    setVisible(notice, false);
    setVisible(button, false);
    button.replaceChildren();
    sendCode.classList.add('primary');
    setVisible(sendCode, true);
  };

  const isRequired = (address: string) =>
    requiredFor.has(key(address)) || (shown !== null && key(shown.address) === key(address) && enforcedBy(shown.found));

  const show = (address: string, found: Found) => {
    const url = issuerUrl(found.issuer);
    let provider: HTMLElement = element('bdi', '', found.issuer);
    if (url) {
      const link = element('a', '', url.host);
      link.href = url.href;
      link.rel = 'noopener noreferrer';
      provider = link;
    }
    provider.translate = false;
    shown = { address, found };
    const required = isRequired(address);
    const uses = element('p');
    uses.dataset.role = 'sso-uses';
    uses.append(...tNodes('signin.sso.uses', { workspace: element('bdi', '', found.workspace.name), provider }));
    const how = element('p', '', required ? t('signin.sso.required') : t('signin.sso.codeToo'));
    how.dataset.role = required ? 'sso-required' : 'sso-code';
    notice.replaceChildren(uses, how);
    if (required) {
      // Unobtrusive, and plain about who it is for: anyone else is emailed the provider's link, no code.
      const owners = element('p');
      const breakGlass = element('button', '', t('signin.sso.breakGlass'));
      breakGlass.type = 'button';
      breakGlass.id = 'break-glass';
      breakGlass.addEventListener('click', () => page.breakGlass(address));
      owners.append(...tNodes('signin.sso.breakGlassFor', { button: breakGlass }));
      notice.append(owners);
    }
    notice.dataset.workspaceId = found.workspace.id;
    if (required) notice.dataset.required = 'true';
    else delete notice.dataset.required;
    setVisible(notice, true);
    // A directory without its OIDC client signs nobody in (the start would answer 400): the code stays the way.
    if (!found.sign_in) {
      setVisible(button, false);
      button.replaceChildren();
      sendCode.classList.add('primary');
      setVisible(sendCode, true);
      return;
    }
    // One span: the button is a flex box, whose items would each lose the spaces around them.
    const label = element('span');
    label.append(...tNodes('signin.sso.continue', { workspace: element('bdi', '', found.workspace.name) }));
    button.replaceChildren(label);
    button.disabled = false;
    setVisible(button, true);
    sendCode.classList.remove('primary');
    setVisible(sendCode, !required);
  };

  const ask = (address: string): Promise<SsoDiscovery> => {
    let answer = answers.get(address);
    if (!answer) {
      answer = domainsApi.discover(address);
      answers.set(address, answer);
      // Unreachable or refused: sign-in does not depend on it, and the address may be asked about again.
      answer.catch(() => answers.delete(address));
    }
    return answer;
  };

  const check = (typed: string) => {
    const address = typed.trim();
    if (shown && address !== shown.address) hide();
    if ((shown && address === shown.address) || !addressPattern.test(address) || !email.checkValidity()) return;
    ask(address).then(
      (found) => {
        // Answered for an address since changed: it says nothing of the one typed now.
        if (email.value.trim() === address && found.sso) show(address, found);
      },
      () => undefined,
    );
  };

  const required = async (typed: string): Promise<boolean> => {
    const address = typed.trim();
    requiredFor.add(key(address));
    if (shown && shown.address === address) {
      show(address, shown.found);
      return true;
    }
    if (!addressPattern.test(address)) return false;
    let found: SsoDiscovery;
    try {
      found = await ask(address);
    } catch {
      return false;
    }
    if (!found.sso || email.value.trim() !== address) return false;
    show(address, found);
    return true;
  };

  const go = (typed: string): boolean => {
    const address = typed.trim();
    if (!shown || shown.address !== address) return false;
    button.disabled = true;
    announce(t('signin.sso.going', { workspace: shown.found.workspace.name }));
    // A navigation, not a fetch: the API answers with a redirect to the provider.
    keepSharedComputerChoice((document.getElementById('shared-computer') as HTMLInputElement | null)?.checked === true);
    location.assign(ssoStartPath(address, page.returnTo()));
    return true;
  };

  email.addEventListener('change', () => check(email.value));
  email.addEventListener('input', () => {
    if (shown && email.value.trim() !== shown.address) hide();
  });
  button.addEventListener('click', () => void go(email.value));
  // Back from the provider's page restores this one from the cache, its button still disabled.
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) button.disabled = false;
  });
  return { check, required, isRequired, go };
}
