/**
 * The pieces every page shares, written once and expanded by `buildWeb` wherever a page says
 * `<!-- include name arg… -->` (arguments are bare words or "quoted strings"). The pages stay
 * plain HTML; the expanded files are what the local runtime and CloudFront serve.
 */

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The account pages' navigation; `aria-current` marks the page it appears on. */
const siteLinks = [
  { href: '/', label: 'Compose' },
  { href: '/account', label: 'My secrets' },
  { href: '/requests', label: 'Request a secret' },
  { href: '/workspaces', label: 'Workspaces' },
  { href: '/keys', label: 'API keys' },
  { href: '/sessions', label: 'Devices' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/billing', label: 'Billing' },
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

  /** `site-header /path`: brand, the account navigation and the signed-in line. */
  'site-header': (page = '') => `<header class="site-header">
    <a class="brand" href="/"><img src="/favicon.svg" alt="" width="24" height="24"> Hushlink</a>
    <nav class="site-nav" aria-label="Site">
      <ul>
${siteLinks.map(({ href, label }) => `        <li><a href="${href}"${current(href, page)}>${label}</a></li>`).join('\n')}
        <li data-signed-out hidden><a href="/signin"${current('/signin', page)}>Sign in</a></li>
        <li data-signed-in hidden><button type="button" class="link-button" data-sign-out>Sign out</button></li>
      </ul>
    </nav>
    <p class="nav-user" data-signed-in hidden>Signed in as <span data-user-email></span></p>
  </header>`,

  /** `brand-header`: the brand alone (compose and reveal carry no account navigation on top). */
  'brand-header': () => `<header class="site-header">
    <a class="brand" href="/"><img src="/favicon.svg" alt="" width="24" height="24"> Hushlink</a>
  </header>`,

  /** `needs-javascript "why"`: what a page says when scripts are off, and why it needs them. */
  'needs-javascript': (why = '') => `<noscript>
      <div class="notice notice-error">
        <h2>JavaScript is needed</h2>
        <p>${escapeHtml(why)}</p>
      </div>
    </noscript>`,

  'site-footer': () => `<footer class="site-footer">
    <p>End-to-end encrypted in your browser. No cookies, no analytics.</p>
  </footer>`,
};

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
