/**
 * The web client's refresh token as a cookie (ADR 0178): one sign-in per browser, not per tab,
 * and out of reach of page scripts. API clients keep the body field; a browser asks for the
 * cookie with `session_cookie: true` when it signs in, and the refresh and logout routes then
 * read it here.
 *
 * - `HttpOnly`: no script reads it, ours included.
 * - `Secure` and `SameSite=Strict`: sent over HTTPS (and to localhost, which browsers treat as
 *   secure), and only by requests the site itself starts.
 * - `Path=/v1/auth`: sent to the refresh and logout routes (and the other sign-in routes beside
 *   them), never to a page, a secret's route or the files bucket.
 * - No `Domain`: this host only, not its subdomains.
 */
import { credentialLimits } from '../limits.ts';

export const refreshCookieName = 'hushlink_refresh';
const attributes = 'Path=/v1/auth; HttpOnly; Secure; SameSite=Strict';

/** The `Set-Cookie` value that hands a browser its refresh token, for the token's life. */
export function refreshCookie(refreshToken: string): string {
  return `${refreshCookieName}=${refreshToken}; Max-Age=${credentialLimits.refreshTokenSeconds}; ${attributes}`;
}

/** The `Set-Cookie` value that makes the browser forget it. */
export const clearedRefreshCookie = `${refreshCookieName}=; Max-Age=0; ${attributes}`;

/**
 * The refresh token a request's cookie carries, when it carries one and the browser says the
 * request came from this site: a `Sec-Fetch-Site` other than `same-origin` (a form another site
 * posted, a link followed from elsewhere) gets none, whatever `SameSite` let through.
 */
export function refreshTokenFromCookie(request: {
  cookies: readonly string[];
  headers: Record<string, string | undefined>;
}): string | null {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return null;
  for (const cookie of request.cookies) {
    const split = cookie.indexOf('=');
    if (split > 0 && cookie.slice(0, split).trim() === refreshCookieName) return cookie.slice(split + 1).trim() || null;
  }
  return null;
}
