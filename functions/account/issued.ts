import type { IssuedTokens } from '../../shared/domain/accounts/sessions.ts';
import { refreshCookie } from '../../shared/http/refreshCookie.ts';

/**
 * A new or rotated session's answer: the refresh token in the body for an API client, or, for a
 * browser that asked (ADR 0178), in an HttpOnly cookie only, so no page script ever holds it.
 */
export function issued(tokens: IssuedTokens, asCookie: boolean) {
  if (!asCookie) return { status: 200 as const, body: tokens };
  const { refresh_token: refreshToken, ...body } = tokens;
  return { status: 200 as const, body, cookies: [refreshCookie(refreshToken)] };
}
