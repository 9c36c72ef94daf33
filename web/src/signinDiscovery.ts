/**
 * The sign-in page's single sign-on discovery (issue 17): once an address is typed (when the
 * field is left, or the form sent; never at each key), `GET /v1/workspaces/sso/discover` is
 * asked once per address, and only for an address that looks valid. When a workspace's
 * directory speaks for its domain, the page says which identity provider that workspace uses,
 * linked when it is an https URL, and that signing in here is still the emailed code: the
 * interface has no sign-in through the identity provider. An answer that comes back for an
 * address no longer in the field is dropped.
 */
import { element, setVisible } from './dom.ts';
import { domainsApi, issuerUrl, type SsoDiscovery } from './domainsApi.ts';

/** As the invitation form checks it; the server's own check is stricter, and a 400 shows nothing. */
const addressPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Wires discovery to the address field; its notice (a live region) is placed after `anchor`. */
export function wireSsoDiscovery(email: HTMLInputElement, anchor: HTMLElement): { check(address: string): void } {
  // The region is there from the start, so what appears in it is announced wherever focus is.
  const region = element('div');
  region.setAttribute('role', 'status');
  const notice = element('div', 'notice notice-info');
  notice.id = 'sso-discovery';
  notice.hidden = true;
  region.append(notice);
  anchor.after(region);
  /** One question per address, however often it is typed or sent. */
  const answers = new Map<string, Promise<SsoDiscovery>>();
  let shownFor = '';

  const hide = () => {
    shownFor = '';
    notice.replaceChildren();
    setVisible(notice, false);
  };

  const show = (address: string, found: Extract<SsoDiscovery, { sso: true }>) => {
    const url = issuerUrl(found.issuer);
    let provider: Node = document.createTextNode(found.issuer);
    if (url) {
      const link = element('a', '', url.host);
      link.href = url.href;
      link.rel = 'noopener noreferrer';
      provider = link;
    }
    const uses = element('p');
    uses.dataset.role = 'sso-uses';
    uses.append('Your workspace ', element('bdi', '', found.workspace.name), ' uses ', provider, ' for single sign-on.');
    const still = element('p', '', 'Signing in to Hushlink is still done with a code emailed to this address: send it as usual.');
    notice.replaceChildren(uses, still);
    notice.dataset.workspaceId = found.workspace.id;
    shownFor = address;
    setVisible(notice, true);
  };

  const check = (typed: string) => {
    const address = typed.trim();
    if (address !== shownFor) hide();
    if (address === shownFor || !addressPattern.test(address) || !email.checkValidity()) return;
    let answer = answers.get(address);
    if (!answer) {
      answer = domainsApi.discover(address);
      answers.set(address, answer);
    }
    answer.then(
      (found) => {
        // Answered for an address since changed: it says nothing of the one typed now.
        if (email.value.trim() === address && found.sso) show(address, found);
      },
      () => {
        // Unreachable or refused: sign-in does not depend on it, so nothing is said, and the address may be asked about again.
        answers.delete(address);
      },
    );
  };

  email.addEventListener('change', () => check(email.value));
  email.addEventListener('input', () => {
    if (email.value.trim() !== shownFor) hide();
  });
  return { check };
}
