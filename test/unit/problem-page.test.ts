import { describe, expect, it } from 'vitest';
import { HttpError } from '../../shared/http/errors.ts';
import { acceptsHtml, problemPage } from '../../shared/http/problemPage.ts';

describe('a refusal as a page (ADR 0173)', () => {
  it('is for browsers’ navigations only: not for fetch, curl, the SDKs or a JSON client', () => {
    // Chromium's and Firefox's navigation Accept headers.
    expect(acceptsHtml('text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8')).toBe(true);
    expect(acceptsHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(true);
    expect(acceptsHtml('TEXT/HTML')).toBe(true);
    expect(acceptsHtml(undefined)).toBe(false);
    expect(acceptsHtml('*/*')).toBe(false);
    expect(acceptsHtml('application/json')).toBe(false);
    expect(acceptsHtml('application/problem+json, text/htmlx')).toBe(false);
  });

  it('says what happened, escaped, with the link back and the reference', () => {
    const error = new HttpError(401, 'unauthorized', 'The state <script>alert(1)</script> & "more"');
    const page = problemPage(error, 'req-1', { path: '/signin', label: 'Back to sign-in' });
    expect(page).toContain('<h1>This sign-in has expired or was used already</h1>');
    expect(page).toContain('The state &#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;more&#34;');
    expect(page).not.toContain('<script>');
    expect(page).toContain('<a href="/signin">Back to sign-in</a>');
    expect(page).toContain('req-1 (unauthorized, 401)');
  });

  it('has a plain headline for a status without its own', () => {
    expect(problemPage(new HttpError(409, 'conflict', 'x'), 'r', { path: '/account', label: 'Back' })).toContain(
      '<h1>Something went wrong</h1>',
    );
  });
});
