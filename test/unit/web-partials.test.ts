import { describe, expect, it } from 'vitest';
import { buildWeb } from '../../web/build.ts';
import { expandIncludes } from '../../web/partials.ts';

describe('page includes', () => {
  it('expands each include of a page on its own, with quoted and bare arguments', () => {
    const html =
      '<!-- include head "API keys" keys -->\n<body>\n<!-- include site-header /keys -->\n<main></main>\n<!-- include site-footer -->';
    const page = expandIncludes(html, 'keys.html');
    expect(page).toContain('<title>Hushlink: API keys</title>');
    expect(page).toContain('<script type="module" src="/assets/keys.js"></script>');
    // Text between two includes survives: an include ends at its own closing mark.
    expect(page).toContain('</head>\n<body>\n<a class="skip-link" href="#main">Skip to content</a>\n  <header class="site-header">');
    expect(page).toContain('<a href="/keys" aria-current="page">API keys</a>');
    expect(page.match(/aria-current/g)).toHaveLength(1);
    expect(page).toContain('<main></main>\n<footer class="site-footer">');
    expect(page).not.toContain('include');
  });

  it('fails the build on an unknown include rather than serve a page with a gap', () => {
    expect(() => expandIncludes('<!-- include sidebar -->', 'x.html')).toThrowError('x.html: unknown include "sidebar"');
  });

  it('escapes what goes into the head', () => {
    expect(expandIncludes('<!-- include head "<b>" x -->', 'x.html')).toContain('<title>Hushlink: &lt;b&gt;</title>');
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
