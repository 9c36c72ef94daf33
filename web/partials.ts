/**
 * The pieces every page shares, written once and expanded by `buildWeb` wherever a page says
 * `<!-- include name arg… -->` (arguments are bare words or "quoted strings"). The pages stay
 * plain HTML; the expanded files are what the local runtime and CloudFront serve.
 */

import { readCatalogue } from './catalogues.ts';

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * The site navigation, the same on every page: the public links always, the account's only once
 * a session is resumed (`data-signed-in`, shown by web/src/nav.ts). `aria-current` marks the page
 * it appears on.
 */
const siteLinks: { href: string; label: string; signedIn?: true }[] = [
  { href: '/', label: 'common.nav.compose' },
  { href: '/account', label: 'common.nav.secrets', signedIn: true },
  { href: '/requests', label: 'common.nav.requests', signedIn: true },
  { href: '/workspaces', label: 'common.nav.workspaces', signedIn: true },
  { href: '/keys', label: 'common.nav.keys', signedIn: true },
  { href: '/sessions', label: 'common.nav.devices', signedIn: true },
  { href: '/webhooks', label: 'common.nav.webhooks', signedIn: true },
  { href: '/billing', label: 'common.nav.billing', signedIn: true },
  { href: '/plans', label: 'common.nav.plans' },
];

let english: Map<string, string> | undefined;

/**
 * A message of the English catalogue, escaped: the served markup reads in English before (and
 * without) the page script, which swaps in the visitor's language by the `data-i18n` keys.
 */
function en(key: string): string {
  english ??= new Map([...readCatalogue('en').values()].flatMap((area) => [...area]));
  const message = english.get(key);
  if (message === undefined) throw new Error(`web/i18n/en: no message ${key}`);
  return escapeHtml(message);
}

/** An element whose text is the message `key`. */
const text = (tag: string, key: string, attributes = '') => `<${tag}${attributes} data-i18n="${key}">${en(key)}</${tag}>`;

const current = (href: string, page: string) => (href === page ? ' aria-current="page"' : '');

export const partials: Record<string, (...args: string[]) => string> = {
  /** `head area.documentTitle script`: the document head with the page's one module script. */
  head: (title = '', script = '') => `<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <meta name="color-scheme" content="light dark">
  <meta name="robots" content="noindex, nofollow">
  ${text('title', title)}
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/styles.css">
  <script type="module" src="/assets/${escapeHtml(script)}.js"></script>
</head>`,

  /**
   * `site-header /path`: the skip link, then the brand, the navigation and the signed-in line.
   * Until nav.ts has resumed the session, the sign-in slot says "…" (busy), never Sign in nor
   * Sign out. On phones the links fold behind "Menu" (styles: web/styles/shell.css).
   */
  'site-header': (page = '') => siteHeader(page),

  /** `brand-header`: the same header with no page marked (the reveal and responder pages). */
  'brand-header': () => siteHeader(''),

  /**
   * `needs-javascript "why"`: what a page says when scripts are off, and why it needs them. In
   * English only: choosing a language takes the script this says is off.
   */
  'needs-javascript': (why = '') => `<noscript>
      <div class="notice notice-error">
        <h2>JavaScript is needed</h2>
        <p>${escapeHtml(why)}</p>
      </div>
    </noscript>`,

  /**
   * The footer: what the site promises, and the language switcher (web/src/i18n.ts lists every
   * language by its own name; the markup names the current one so it reads before the script).
   */
  'site-footer': () => `<footer class="site-footer">
    ${text('p', 'common.footer.promise')}
    <p class="language-switcher">
      ${text('label', 'common.footer.language', ' for="language-switcher"')}
      <select id="language-switcher" data-language-switcher><option value="en" lang="en">English</option></select>
      <span class="hint" data-language-note role="status" hidden></span>
    </p>
  </footer>`,
};

function siteHeader(page: string): string {
  const links = siteLinks.map(
    ({ href, label, signedIn }) =>
      `        <li${signedIn ? ' data-signed-in hidden' : ''}>${text('a', label, ` href="${href}"${current(href, page)}`)}</li>`,
  );
  // The brand is a name, the same in every language (translate="no").
  return `${text('a', 'common.nav.skip', ' class="skip-link" href="#main"')}
  <header class="site-header">
    <a class="brand" href="/" translate="no"><img src="/favicon.svg" alt="" width="24" height="24"> Hushlink</a>
    ${text('button', 'common.nav.menu', ' type="button" class="menu-button" aria-expanded="false" aria-controls="site-menu"')}
    <nav id="site-menu" class="site-nav" aria-label="${en('common.nav.label')}" data-i18n-aria-label="common.nav.label">
      <ul>
${links.join('\n')}
        <li data-session-pending><span class="nav-pending" aria-busy="true"><span aria-hidden="true">…</span>${text('span', 'common.nav.checking', ' class="visually-hidden"')}</span></li>
        <li data-signed-out hidden>${text('a', 'common.nav.signIn', ` href="/signin"${current('/signin', page)}`)}</li>
        <li data-signed-in hidden>${text('button', 'common.nav.signOut', ' type="button" class="link-button" data-sign-out')}</li>
      </ul>
      <p class="nav-user" data-signed-in data-user-line hidden></p>
    </nav>
  </header>`;
}

// A bare argument never starts with `-->`, so an include ends at its own closing mark.
const includePattern = /<!--\s*include\s+([\w-]+)((?:\s+(?:"[^"]*"|(?!-->)[^\s"]+))*)\s*-->/g;

/** Expands every include of a page; an unknown include fails the build rather than ship a gap. */
export function expandIncludes(html: string, file: string): string {
  return html.replace(includePattern, (_, name: string, rawArgs: string) => {
    const partial = partials[name];
    if (!partial) throw new Error(`${file}: unknown include "${name}"`);
    const args = [...rawArgs.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]!);
    return partial(...args);
  });
}
