import { describe, expect, it } from 'vitest';
import { buildWeb } from '../../web/build.ts';
import { checkMarkup } from '../../web/catalogues.ts';
import { expandIncludes } from '../../web/partials.ts';

describe('page includes', () => {
  it('expands each include of a page on its own, with quoted and bare arguments', () => {
    const html =
      '<!-- include head keys.documentTitle keys -->\n<body>\n<!-- include site-header /keys -->\n<main></main>\n<!-- include site-footer -->';
    const page = expandIncludes(html, 'keys.html');
    // The English of each message, with its key for the page's script (ADR 0183).
    expect(page).toContain('<title data-i18n="keys.documentTitle">Hushlink: API keys</title>');
    expect(page).toContain('<script type="module" src="/assets/keys.js"></script>');
    // Text between two includes survives: an include ends at its own closing mark.
    expect(page).toContain(
      '</head>\n<body>\n<a class="skip-link" href="#main" data-i18n="common.nav.skip">Skip to content</a>\n  <header class="site-header">',
    );
    expect(page).toContain('<a href="/keys" aria-current="page" data-i18n="common.nav.keys">API keys</a>');
    expect(page.match(/aria-current/g)).toHaveLength(1);
    expect(page).toContain('<main></main>\n<footer class="site-footer">');
    expect(page).not.toContain('include');
  });

  it('fails the build on an unknown include rather than serve a page with a gap', () => {
    expect(() => expandIncludes('<!-- include sidebar -->', 'x.html')).toThrowError('x.html: unknown include "sidebar"');
  });

  it('names the head by a message of the English catalogue, and fails the build on a key it does not have', () => {
    expect(() => expandIncludes('<!-- include head nowhere.documentTitle x -->', 'x.html')).toThrowError(
      'web/i18n/en: no message nowhere.documentTitle',
    );
  });

  it('fails the build when a page’s English drifted from its catalogue, or a data-i18n element holds markup', () => {
    const english = new Map([['keys.title', 'API keys']]);
    expect(() => checkMarkup('<h1 data-i18n="keys.title">API keys</h1>', 'ok.html', english)).not.toThrow();
    expect(() => checkMarkup('<h1 data-i18n="keys.title">API  keys\n</h1>', 'ok.html', english)).not.toThrow();
    expect(() => checkMarkup('<h1 data-i18n="keys.title">Keys</h1>', 'x.html', english)).toThrowError(
      'keys.title: the markup says "Keys", the catalogue "API keys"',
    );
    expect(() => checkMarkup('<h1 data-i18n="keys.title">API <b>keys</b></h1>', 'x.html', english)).toThrowError('holds text only');
    expect(() => checkMarkup('<nav aria-label="Keys" data-i18n-aria-label="keys.title"></nav>', 'x.html', english)).toThrowError(
      'aria-label="Keys" is not the catalogue\'s "API keys"',
    );
    expect(() => checkMarkup('<p data-i18n="keys.nope">x</p>', 'x.html', english)).toThrowError('keys.nope: no such English message');
  });

  it('leaves no include in any served page, and one head, header and script each', async () => {
    const pages = [...(await buildWeb())].filter(([path]) => path.endsWith('.html'));
    expect(pages.length).toBeGreaterThanOrEqual(6);
    for (const [path, asset] of pages) {
      const html = asset.body.toString('utf8');
      expect(html, path).not.toMatch(/<!--\s*include/);
      expect(html.match(/<head>/g), path).toHaveLength(1);
      expect(html.match(/<header class="site-header">/g), path).toHaveLength(1);
      expect(html.match(/<script type="module" src="\/assets\/[\w-]+\.js"><\/script>/g), path).toHaveLength(1);
    }
  });
});
