/**
 * A workspace's branding on the reveal page (issue 15), for display only: when the metadata of
 * a secret sent in a Team workspace carries `branding`, a band above the page's content says
 * "Sent from <name> on Hushlink" with the logo beside the name, and the accent fills the
 * primary buttons (under their white label) and, in the light theme only, colours the links and
 * the name (docs/decisions.md, "Accent: where it is drawn"). Nothing else changes: the page's
 * headings, warnings and the Hushlink brand are its own. The name sits in a `<bdi>`, so a
 * right-to-left name cannot reorder the sentence around it.
 *
 * The server checked all three when they were set; they are checked again here before any is
 * drawn: a name with controls, a logo that is not a base64 PNG, JPEG or WebP `data:` URL, or an
 * accent that is not `#rrggbb` with enough contrast is left out. The accent reaches the styles
 * only as a checked `#rrggbb`, in a custom property set with the CSSOM (`style.setProperty`),
 * which the CSP's `style-src 'self'` does not govern (it forbids style attributes in markup).
 */
import { accentShortfalls, isHexColour } from '../../shared/domain/workspaces/accent.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import type { SecretMetadata } from './api.ts';
import { byId, element, setVisible } from './dom.ts';
import { hasMessage, tNodes } from './i18n.ts';

const band = byId('sent-from');
const nameElement = byId('sent-from-name');
// The sentence around the name, in the page's language (the name keeps its own element); the
// markup's English stays should the messages not have loaded.
if (hasMessage('reveal.sentFrom')) byId('sent-from-line').replaceChildren(...tNodes('reveal.sentFrom', { name: nameElement }));

const logoUrl = /^data:image\/(?:png|jpeg|webp);base64,[A-Za-z0-9+/]+={0,2}$/;
/** What the server refuses in a name (branding.ts): controls, separators, lone surrogates, bidi controls, annotation characters. */
const refusedInName = /[\p{Cc}\p{Cs}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufff9-\ufffb]/u;

const validName = (name: unknown): name is string => {
  if (typeof name !== 'string') return false;
  const { min, max } = workspaceLimits.displayName;
  return name.trim().length >= min && name.trim().length <= max && !refusedInName.test(name);
};

const validAccent = (accent: unknown): accent is string =>
  typeof accent === 'string' && isHexColour(accent) && accentShortfalls(accent).length === 0;

/** Shows the band for `branding`, or takes it away (none, or a name that does not pass). */
export function showBranding(branding: SecretMetadata['branding']): void {
  const root = document.documentElement;
  band.querySelector('img')?.remove();
  root.style.removeProperty('--brand-accent');
  delete root.dataset.brandAccent;
  if (!branding || !validName(branding.display_name)) {
    nameElement.textContent = '';
    setVisible(band, false);
    return;
  }
  nameElement.textContent = branding.display_name.trim();
  if (typeof branding.logo === 'string' && logoUrl.test(branding.logo)) {
    // Beside the name, which says who it is: the image itself is decoration (alt="").
    const logo = element('img', 'sent-from-logo');
    logo.alt = '';
    logo.src = branding.logo;
    band.prepend(logo);
  }
  if (validAccent(branding.accent)) {
    const accent = branding.accent.toLowerCase();
    root.style.setProperty('--brand-accent', accent);
    root.dataset.brandAccent = accent;
  }
  setVisible(band, true);
}
