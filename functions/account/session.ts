import * as z from 'zod/mini';
import { apiKeyView, createApiKey, createApiKeyRequest, revokeApiKey } from '../../shared/domain/accounts/apiKeys.ts';
import { closeSessionByRefreshToken, deviceNameOf, listSessions, refreshSession } from '../../shared/domain/accounts/sessions.ts';
import { resendSignInCode, startSignIn, verifySignInCode } from '../../shared/domain/accounts/signIn.ts';
import { adoptSecrets, adoptSecretsRequest } from '../../shared/domain/secrets/owner.ts';
import { requireSession } from '../../shared/http/auth.ts';
import type { Operation } from '../../shared/http/group.ts';
import type { AccountDeps } from '../account.ts';
import { optionalJsonObject, parseJsonBody } from '../../shared/http/request.ts';
import type { OperationOf } from '../../shared/routes.ts';

const email = z.email().check(z.maxLength(254));
const emailRequest = z.strictObject({ email });
const verifyRequest = z.strictObject({
  email,
  code: z.string().check(z.regex(/^\d{6}$/, 'the code is 6 digits')),
  device_name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
});
const refreshRequest = z.strictObject({ refresh_token: z.string().check(z.minLength(1), z.maxLength(200)) });
const termsRequest = z.strictObject({ version: z.string().check(z.trim(), z.minLength(1), z.maxLength(40)) });

type SessionOperation = Extract<
  OperationOf<'account'>,
  | 'startSignIn'
  | 'resendSignInCode'
  | 'verifySignInCode'
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
export const sessionOperations: Record<SessionOperation, Operation<AccountDeps>> = {
  async startSignIn(request, deps) {
    await startSignIn(parseJsonBody(request, emailRequest).email, deps);
    return { status: 200, body: { sent: true } };
  },

  async resendSignInCode(request, deps) {
    await resendSignInCode(parseJsonBody(request, emailRequest).email, deps);
    return { status: 200, body: { sent: true } };
  },

  async verifySignInCode(request, deps) {
    const body = parseJsonBody(request, verifyRequest);
    const tokens = await verifySignInCode(body.email, body.code, deviceNameOf(body.device_name, request.headers['user-agent']), deps);
    return { status: 200, body: tokens };
  },

  async refreshSession(request, deps) {
    return { status: 200, body: await refreshSession(parseJsonBody(request, refreshRequest).refresh_token, deps) };
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
    const { refresh_token: refreshToken } = optionalJsonObject(request);
    if (typeof refreshToken === 'string') await closeSessionByRefreshToken(refreshToken, deps);
    const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const claims = bearer ? await deps.accessTokens.verify(bearer) : null;
    if (claims) await deps.sessions.revoke(claims.sessionId, deps.clock.now());
    return { status: 200, body: { signed_out: true } };
  },

  async logoutEverywhere(request, deps) {
    const { userId } = requireSession(request.principal);
    const count = await deps.sessions.revokeAllForUser(userId, deps.clock.now());
    return { status: 200, body: { signed_out: count } };
  },

  async acceptTerms(request, deps) {
    const { userId } = requireSession(request.principal);
    const { version } = parseJsonBody(request, termsRequest);
    const at = deps.clock.now();
    await deps.users.acceptTerms(userId, version, at);
    return { status: 200, body: { version, accepted_at: new Date(at).toISOString() } };
  },

  async adoptSecrets(request, deps) {
    const { userId } = requireSession(request.principal);
    const { secrets } = parseJsonBody(request, adoptSecretsRequest);
    return { status: 200, body: { items: await adoptSecrets(userId, secrets, deps) } };
  },

  async listApiKeys(request, deps) {
    const keys = await deps.apiKeys.listForUser(requireSession(request.principal).userId);
    return { status: 200, body: { items: keys.map(apiKeyView), next_cursor: null } };
  },

  async createApiKey(request, deps) {
    const { userId } = requireSession(request.principal);
    return { status: 201, body: await createApiKey(userId, parseJsonBody(request, createApiKeyRequest), deps) };
  },

  async revokeApiKey(request, deps) {
    await revokeApiKey(requireSession(request.principal).userId, request.params.id!, deps);
    return { status: 200, body: { revoked: true } };
  },
};
