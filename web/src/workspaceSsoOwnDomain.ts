/** The single sign-on section's note on the owner's own email domain (issue 31, item 6). */
import { element, setVisible } from './dom.ts';
import type { WorkspaceDomain } from './domainsApi.ts';
import { t, tNodes } from './i18n.ts';
import { currentUser } from './session.ts';

/** Public mail services: nobody's organization, so never offered as its domain. */
const mailProviders = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'yahoo.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'yandex.ru',
  'mail.ru',
  'qq.com',
  '163.com',
]);

export const ownDomainNote = element('p', 'notice notice-info');
ownDomainNote.id = 'sso-own-domain';
ownDomainNote.hidden = true;

/**
 * The domain people's addresses use is the one single sign-on needs, and often not a link
 * hostname the workspace verified (`secrets.acme.example`): when the owner's own address is at a
 * domain not verified here, say so, and offer to claim it (a TXT record; it needs no CNAME).
 */
export function showOwnDomain(verified: string[] | null, claims: WorkspaceDomain[]): void {
  const address = currentUser()?.email ?? '';
  const own = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  const show = verified !== null && own !== '' && !verified.includes(own) && !mailProviders.has(own);
  setVisible(ownDomainNote, show);
  if (!show) return;
  const pending = claims.some((claim) => claim.hostname === own);
  const claim = element('button', 'link-button', t('workspaceSso.own.claim', { domain: own }));
  claim.type = 'button';
  claim.dataset.action = 'claim-own-domain';
  claim.addEventListener('click', () => {
    const field = document.getElementById('domain-hostname') as HTMLInputElement | null;
    if (!field) return;
    field.value = own;
    field.focus();
  });
  ownDomainNote.replaceChildren(
    ...(pending ? [t('workspaceSso.own.pending', { domain: own })] : tNodes('workspaceSso.own.unverified', { domain: own, claim })),
  );
}
