import { apiKeyView, createApiKey, revokeApiKey } from '../../shared/domain/accounts/apiKeys.ts';
import { closeSessionByRefreshToken, deviceNameOf, listSessions, refreshSession } from '../../shared/domain/accounts/sessions.ts';
import { resendSignInCode, signInWithLink, startSignIn, verifySignInCode } from '../../shared/domain/accounts/signIn.ts';
import { adoptSecrets } from '../../shared/domain/secrets/owner.ts';
import { requireSession } from '../../shared/http/auth.ts';
import { clearedRefreshCookie, refreshTokenFromCookie } from '../../shared/http/refreshCookie.ts';
import { Unauthenticated } from '../../shared/domain/refusals.ts';
import type { Operations } from '../../shared/http/group.ts';
import { requestLanguage } from '../../shared/http/language.ts';
import type { AccountDeps } from '../account.ts';
import { issued } from './issued.ts';
import type { OperationOf } from '../../shared/routes.ts';
import { toIso } from '../../shared/clock.ts';

type SessionOperation = Extract<
  OperationOf<'account'>,
  | 'startSignIn'
  | 'resendSignInCode'
  | 'verifySignInCode'
  | 'signInWithLink'
  | 'refreshSession'
  | 'publishSigningKeys'
  | 'listSessions'
  | 'logout'
  | 'logoutEverywhere'
  | 'acceptTerms'
  | 'adoptSecrets'
  | 'listApiKeys'
  | 'createApiKey'
  | 'revokeApiKey'
>;

/** Sign-in, sessions, terms, adoption and API keys (interface §4.4). */
export const sessionOperations: Pick<Operations<'account', AccountDeps>, SessionOperation> = {
  async startSignIn(request, deps) {
    await startSignIn(request.body.email, request.sourceIp, deps, requestLanguage(request));
    return { status: 200, body: { sent: true } };
  },

  async resendSignInCode(request, deps) {
    await resendSignInCode(request.body.email, request.sourceIp, deps, requestLanguage(request));
    return { status: 200, body: { sent: true } };
  },

  async verifySignInCode(request, deps) {
    const { email, code, device_name: deviceName, session_cookie: asCookie } = request.body;
    const tokens = await verifySignInCode(email, code, deviceNameOf(deviceName, request.headers['user-agent']), request.sourceIp, deps);
    return issued(tokens, asCookie === true);
  },

  async signInWithLink(request, deps) {
    const { email, token, device_name: deviceName, session_cookie: asCookie } = request.body;
    const tokens = await signInWithLink(email, token, deviceNameOf(deviceName, request.headers['user-agent']), deps);
    return issued(tokens, asCookie === true);
  },

  async refreshSession(request, deps) {
    // An API client's token is in the body; a browser's in its cookie, answered the same way.
    const fromBody = request.body.refresh_token;
    const token = fromBody ?? refreshTokenFromCookie(request);
    if (token === null) throw new Unauthenticated('No refresh token: send refresh_token, or sign in again.');
    return issued(await refreshSession(token, deps), fromBody === undefined);
  },

  async publishSigningKeys(_request, deps) {
    // Public keys only; clients may cache them for a few minutes.
    return { status: 200, body: await deps.accessTokens.jwks() };
  },

  async listSessions(request, deps) {
    return { status: 200, body: { items: await listSessions(requireSession(request.principal), deps), next_cursor: null } };
  },

  async logout(request, deps) {
    // Always 200: signing out twice, or with a stale token, leaves the device signed out.
    const fromCookie = refreshTokenFromCookie(request);
    const refreshToken = request.body.refresh_token ?? fromCookie ?? undefined;
    if (refreshToken !== undefined) await closeSessionByRefreshToken(refreshToken, deps);
    const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const claims = bearer ? await deps.accessTokens.verify(bearer) : null;
    if (claims) await deps.sessions.revoke(claims.sessionId, deps.clock.now());
    // Only a logout by the cookie clears it: a shared-computer tab's (body token) leaves the browser's session.
    return { status: 200, body: { signed_out: true }, ...(request.body.refresh_token === undefined ? forgetCookie(request) : {}) };
  },

  async logoutEverywhere(request, deps) {
    const { userId } = requireSession(request.principal);
    const count = await deps.sessions.revokeAllForUser(userId, deps.clock.now());
    return { status: 200, body: { signed_out: count }, ...forgetCookie(request) };
  },

  async acceptTerms(request, deps) {
    const { userId } = requireSession(request.principal);
    const { version } = request.body;
    const at = deps.clock.now();
    await deps.users.acceptTerms(userId, version, at);
    return { status: 200, body: { version, accepted_at: toIso(at) } };
  },

  async adoptSecrets(request, deps) {
    const { userId } = requireSession(request.principal);
    const secrets = request.body.secrets.map(({ id, delete_token: deleteToken }) => ({ id, deleteToken }));
    return { status: 200, body: { items: await adoptSecrets(userId, secrets, deps) } };
  },

  async listApiKeys(request, deps) {
    const keys = await deps.apiKeys.listForUser(requireSession(request.principal).userId);
    return { status: 200, body: { items: keys.map(apiKeyView), next_cursor: null } };
  },

  async createApiKey(request, deps) {
    const { userId } = requireSession(request.principal);
    const { name, scopes, expires_in: expiresInSeconds } = request.body;
    return { status: 201, body: await createApiKey(userId, { name, scopes, expiresInSeconds }, deps) };
  },

  async revokeApiKey(request, deps) {
    await revokeApiKey(requireSession(request.principal).userId, request.params.id!, deps);
    return { status: 200, body: { revoked: true } };
  },
};

/**
 * A browser whose cookie this request used is told to forget it (its session is over). A cookie
 * the request only carried (another site's form, refused by `refreshTokenFromCookie`) is left.
 */
const forgetCookie = (request: { cookies: readonly string[]; headers: Record<string, string | undefined> }) =>
  refreshTokenFromCookie(request) !== null ? { cookies: [clearedRefreshCookie] } : {};
