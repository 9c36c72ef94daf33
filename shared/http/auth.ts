import { apiKeyPrincipal, looksLikeApiKey } from '../domain/accounts/apiKeys.ts';
import type { Principal } from '../domain/accounts/model.ts';
import type { AccountPorts } from '../domain/accounts/ports.ts';
import type { TokenVerifier } from '../domain/accounts/tokenVerifier.ts';
import { credentialLimits } from '../limits.ts';
import type { Route } from '../routes.ts';
import { HttpError } from './errors.ts';
import type { ApiRequest } from './request.ts';

export interface AuthPorts extends Pick<AccountPorts, 'apiKeys' | 'sessions' | 'clock'> {
  accessTokens: TokenVerifier;
}

const bearer = /^Bearer ([\x21-\x7e]+)$/i;

/**
 * Reads the caller's credential as the route's row says (`shared/routes.ts`), and refuses what
 * the row does not allow. Public routes never read a credential.
 */
export async function authenticate(route: Route, request: Pick<ApiRequest, 'headers'>, ports: AuthPorts): Promise<Principal | null> {
  if (route.credential === 'public') return null;
  const header = request.headers.authorization;
  if (route.credential === 'lenient') return header === undefined ? null : recognized(route, header, ports);
  if (header === undefined) {
    if (route.credential === 'optional') return null;
    const ask = route.credential === 'key' ? 'Send an API key' : 'Sign in, or send an API key';
    throw new HttpError(401, 'unauthorized', `${ask} as \`authorization: Bearer <key>\`.`, {
      headers: { 'www-authenticate': 'Bearer' },
    });
  }
  const token = bearer.exec(header)?.[1];
  const principal = token ? await principalOf(token, ports) : null;
  if (!principal) {
    // A route open to anonymous callers still refuses a bad credential that is sent, with the
    // status it lists for that: 403 where it lists no 401.
    if (route.credential === 'optional' && !(route.errors as readonly number[]).includes(401)) {
      throw new HttpError(403, 'forbidden', 'The credential sent is not valid or has expired.', {
        members: { reason: 'invalid_credential' },
      });
    }
    throw new HttpError(401, 'unauthorized', 'The credential is not valid or has expired.', {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    });
  }
  if (route.credential === 'key' && principal.kind !== 'api_key') {
    throw new HttpError(401, 'unauthorized', 'This route takes an API key, not a session: send `authorization: Bearer hlk_…`.', {
      headers: { 'www-authenticate': 'Bearer' },
      members: { reason: 'api_key_required' },
    });
  }
  if (principal.kind === 'api_key') {
    if (route.credential === 'session') {
      throw new HttpError(403, 'forbidden', 'API keys cannot administer the account; sign in to do this.');
    }
    if (route.scope && !principal.scopes.includes(route.scope)) {
      // 403, unless the route lists none (an anonymous-or-owner route answering 401 and 404 only).
      const status = (route.errors as readonly number[]).includes(403) ? 403 : 401;
      throw new HttpError(status, status === 403 ? 'forbidden' : 'unauthorized', `This API key lacks the ${route.scope} scope.`, {
        members: { required_scope: route.scope },
      });
    }
  }
  return principal;
}

/** The caller a `lenient` route recognizes: a valid credential allowed there, else nobody (never an error). */
async function recognized(route: Route, header: string, ports: AuthPorts): Promise<Principal | null> {
  const token = bearer.exec(header)?.[1];
  const principal = token ? await principalOf(token, ports) : null;
  if (principal?.kind === 'api_key' && route.scope && !principal.scopes.includes(route.scope)) return null;
  return principal;
}

async function principalOf(token: string, ports: AuthPorts): Promise<Principal | null> {
  if (looksLikeApiKey(token)) return apiKeyPrincipal(token, ports);
  const claims = await ports.accessTokens.verify(token);
  if (!claims) return null;
  // A signed token is not enough: its session must still be open (logout takes effect at once).
  const session = await ports.sessions.get(claims.sessionId);
  const now = ports.clock.now();
  if (!session || session.userId !== claims.userId || session.revokedAt !== undefined || session.refreshExpiresAt <= now) return null;
  const resolution = credentialLimits.lastUsedResolutionSeconds * 1000;
  // Written at most once a minute, and only when due: most requests cost the one read above.
  if (now - session.lastUsedAt >= resolution) await ports.sessions.touch(session.id, now, resolution);
  return { kind: 'session', userId: session.userId, sessionId: session.id };
}

/** The user behind a principal, for operations that need one. */
export function requireUser(principal: Principal | null): Principal {
  if (!principal) throw new HttpError(401, 'unauthorized', 'Sign in first.');
  return principal;
}

export function requireSession(principal: Principal | null): Extract<Principal, { kind: 'session' }> {
  if (principal?.kind !== 'session') throw new HttpError(401, 'unauthorized', 'Sign in first.');
  return principal;
}
