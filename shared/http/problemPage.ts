import type { Route } from '../routes.ts';
import type { HttpError } from './errors.ts';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What a person reads first, by status: the detail below it says why, the link what to do. */
const headlines: Record<number, string> = {
  400: 'This link is not complete',
  401: 'This sign-in has expired or was used already',
  403: 'You were not let in',
  429: 'Too many tries from here',
  503: 'A service this needs did not answer',
};

/**
 * A refusal as a page, for a browser that navigated to a route (a provider's redirect, a mailed
 * link) rather than a client that asked for JSON: the same status, headers and detail (which says
 * when to try again, where that helps) as the problem, the request id for support, and a link
 * back (ADR 0173). Unstyled and without script: the API's policy (`default-src 'none'`) allows
 * neither.
 */
export function problemPage(error: HttpError, requestId: string, back: NonNullable<Route['browser']>): string {
  const headline = headlines[error.status] ?? 'Something went wrong';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(headline)} · Hushlink</title></head>
<body>
<h1>${escapeHtml(headline)}</h1>
<p>${escapeHtml(error.detail)}</p>
<p><a href="${escapeHtml(back.path)}">${escapeHtml(back.label)}</a></p>
<p><small>Reference for your administrator: ${escapeHtml(requestId)} (${escapeHtml(error.code)}, ${error.status})</small></p>
</body></html>
`;
}

/**
 * Whether a request is a browser's navigation: its Accept names text/html (every browser's
 * navigation does; fetch, curl and the SDKs do not unless told).
 */
export const acceptsHtml = (accept: string | undefined): boolean =>
  accept !== undefined && /(^|,)\s*(text\/html|application\/xhtml\+xml)\s*(;|,|$)/i.test(accept);
