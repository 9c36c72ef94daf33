/**
 * The pieces every page shares, written once and expanded by `buildWeb` wherever a page says
 * `<!-- include name arg… -->` (arguments are bare words or "quoted strings"). The pages stay
 * plain HTML; the expanded files are what the local runtime and CloudFront serve.
 */

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * The site navigation, the same on every page: the public links always, the account's only once
 * a session is resumed (`data-signed-in`, shown by web/src/nav.ts). `aria-current` marks the page
 * it appears on.
 */
const siteLinks: { href: string; label: string; signedIn?: true }[] = [
  { href: '/', label: 'Compose' },
  { href: '/account', label: 'My secrets', signedIn: true },
  { href: '/requests', label: 'Request a secret', signedIn: true },
  { href: '/workspaces', label: 'Workspaces', signedIn: true },
  { href: '/keys', label: 'API keys', signedIn: true },
  { href: '/sessions', label: 'Devices', signedIn: true },
  { href: '/webhooks', label: 'Webhooks', signedIn: true },
  { href: '/billing', label: 'Billing', signedIn: true },
  { href: '/plans', label: 'Plans' },
];

const current = (href: string, page: string) => (href === page ? ' aria-current="page"' : '');

export const partials: Record<string, (...args: string[]) => string> = {
  /** `head "Title" script`: the document head with the page's one module script. */
  head: (title = '', script = '') => `<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <meta name="color-scheme" content="light dark">
  <meta name="robots" content="noindex, nofollow">
  <title>Hushlink: ${escapeHtml(title)}</title>
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

  /** `needs-javascript "why"`: what a page says when scripts are off, and why it needs them. */
  'needs-javascript': (why = '') => `<noscript>
      <div class="notice notice-error">
        <h2>JavaScript is needed</h2>
        <p>${escapeHtml(why)}</p>
      </div>
    </noscript>`,

  'site-footer': () => `<footer class="site-footer">
    <p>End-to-end encrypted in your browser. No analytics; one cookie, only to keep you signed in.</p>
  </footer>`,
};

function siteHeader(page: string): string {
  const links = siteLinks.map(
    ({ href, label, signedIn }) =>
      `        <li${signedIn ? ' data-signed-in hidden' : ''}><a href="${href}"${current(href, page)}>${label}</a></li>`,
  );
  return `<a class="skip-link" href="#main">Skip to content</a>
  <header class="site-header">
    <a class="brand" href="/"><img src="/favicon.svg" alt="" width="24" height="24"> Hushlink</a>
    <button type="button" class="menu-button" aria-expanded="false" aria-controls="site-menu">Menu</button>
    <nav id="site-menu" class="site-nav" aria-label="Site">
      <ul>
${links.join('\n')}
        <li data-session-pending><span class="nav-pending" aria-busy="true"><span aria-hidden="true">…</span><span class="visually-hidden">Checking whether you are signed in</span></span></li>
        <li data-signed-out hidden><a href="/signin"${current('/signin', page)}>Sign in</a></li>
        <li data-signed-in hidden><button type="button" class="link-button" data-sign-out>Sign out</button></li>
      </ul>
      <p class="nav-user" data-signed-in hidden>Signed in as <span data-user-email></span></p>
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
