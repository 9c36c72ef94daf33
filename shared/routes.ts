/**
 * THE route table. `lib/` turns every row into an API Gateway route integrated with its
 * group's Lambda; `local/` serves the same rows. A route exists here and nowhere else.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One Lambda per group; the entry is `functions/<group>.ts`. */
export const groups = ['secrets', 'account', 'webhooks'] as const;
export type Group = (typeof groups)[number];

/**
 * Who may call a route.
 * - `public`: anyone; no credential is read.
 * - `optional`: anyone; a session, or an API key holding `scope`, makes the caller known (and
 *   a credential that is present must be valid: 403 otherwise, as these routes list no 401).
 * - `user`: a session, or an API key holding `scope` (any key when `scope` is null).
 * - `session`: a session only; an API key gets 403 (no key administers its account).
 * - `key`: an API key only (any scope when `scope` is null); anything else gets 401, as the
 *   interface says of the webhook test: it "requires an API key in the authorization header".
 */
export type Credential = 'public' | 'optional' | 'user' | 'session' | 'key';

/** API key scopes (interface §5.3). A session may do everything its user may. */
export const scopes = ['secrets:write', 'secrets:read', 'receipts:read'] as const;
export type Scope = (typeof scopes)[number];

/** Rate classes name a row of `limits.ts`; `null` for routes the interface lists without 429. */
export type RateClass =
  | 'secret_create'
  | 'secret_claim'
  | 'otp_start'
  | 'otp_verify'
  | 'adopt'
  | 'report'
  | 'feedback'
  | 'cli_install';

export interface Route {
  readonly method: HttpMethod;
  readonly path: string;
  readonly group: Group;
  /** Name of the operation the group's function implements for this route. */
  readonly operation: string;
  readonly credential: Credential;
  readonly scope: Scope | null;
  readonly rate: RateClass | null;
}

export const routes = [
  // 4.1 Secrets
  { method: 'POST', path: '/v1/secrets', group: 'secrets', operation: 'createSecret', credential: 'optional', scope: 'secrets:write', rate: 'secret_create' },
  { method: 'GET', path: '/v1/secrets', group: 'secrets', operation: 'listSecrets', credential: 'user', scope: 'secrets:read', rate: null },
  { method: 'GET', path: '/v1/secrets/{id}', group: 'secrets', operation: 'readSecret', credential: 'public', scope: null, rate: null },
  { method: 'DELETE', path: '/v1/secrets/{id}', group: 'secrets', operation: 'revokeSecret', credential: 'optional', scope: 'secrets:write', rate: null },
  { method: 'POST', path: '/v1/secrets/{id}/claim', group: 'secrets', operation: 'claimSecret', credential: 'public', scope: null, rate: 'secret_claim' },
  { method: 'POST', path: '/v1/reports', group: 'secrets', operation: 'reportSecret', credential: 'public', scope: null, rate: 'report' },
  { method: 'POST', path: '/v1/feedback/reveal', group: 'secrets', operation: 'recordRevealFeedback', credential: 'public', scope: null, rate: 'feedback' },
  // 4.4 Account, sessions, keys
  { method: 'POST', path: '/v1/auth/otp/start', group: 'account', operation: 'startSignIn', credential: 'public', scope: null, rate: 'otp_start' },
  { method: 'POST', path: '/v1/auth/otp/resend', group: 'account', operation: 'resendSignInCode', credential: 'public', scope: null, rate: 'otp_start' },
  { method: 'POST', path: '/v1/auth/otp/verify', group: 'account', operation: 'verifySignInCode', credential: 'public', scope: null, rate: 'otp_verify' },
  { method: 'POST', path: '/v1/auth/refresh', group: 'account', operation: 'refreshSession', credential: 'public', scope: null, rate: null },
  { method: 'GET', path: '/v1/auth/jwks', group: 'account', operation: 'publishSigningKeys', credential: 'public', scope: null, rate: null },
  { method: 'GET', path: '/v1/auth/sessions', group: 'account', operation: 'listSessions', credential: 'session', scope: null, rate: null },
  { method: 'POST', path: '/v1/auth/logout', group: 'account', operation: 'logout', credential: 'public', scope: null, rate: null },
  { method: 'POST', path: '/v1/auth/logout-all', group: 'account', operation: 'logoutEverywhere', credential: 'session', scope: null, rate: null },
  { method: 'POST', path: '/v1/auth/tos', group: 'account', operation: 'acceptTerms', credential: 'session', scope: null, rate: null },
  { method: 'POST', path: '/v1/auth/adopt-secrets', group: 'account', operation: 'adoptSecrets', credential: 'session', scope: null, rate: 'adopt' },
  { method: 'GET', path: '/v1/api-keys', group: 'account', operation: 'listApiKeys', credential: 'session', scope: null, rate: null },
  { method: 'POST', path: '/v1/api-keys', group: 'account', operation: 'createApiKey', credential: 'session', scope: null, rate: null },
  { method: 'DELETE', path: '/v1/api-keys/{id}', group: 'account', operation: 'revokeApiKey', credential: 'session', scope: null, rate: null },
  { method: 'GET', path: '/v1/usage', group: 'account', operation: 'readUsage', credential: 'user', scope: null, rate: null },
  { method: 'GET', path: '/v1/usage/history', group: 'account', operation: 'readUsageHistory', credential: 'user', scope: null, rate: null },
  { method: 'POST', path: '/v1/events', group: 'account', operation: 'recordProductEvent', credential: 'session', scope: null, rate: null },
  { method: 'GET', path: '/v1/flags', group: 'account', operation: 'readFlags', credential: 'optional', scope: null, rate: null },
  { method: 'GET', path: '/v1/regions', group: 'account', operation: 'listRegions', credential: 'public', scope: null, rate: null },
  { method: 'POST', path: '/v1/cli/install', group: 'account', operation: 'countCliInstall', credential: 'public', scope: null, rate: 'cli_install' },

  { method: 'GET', path: '/v1/webhooks', group: 'webhooks', operation: 'listWebhooks', credential: 'session', scope: null, rate: null },
  { method: 'POST', path: '/v1/webhooks', group: 'webhooks', operation: 'registerWebhook', credential: 'session', scope: null, rate: null },
  { method: 'DELETE', path: '/v1/webhooks/{id}', group: 'webhooks', operation: 'deleteWebhook', credential: 'session', scope: null, rate: null },
  { method: 'GET', path: '/v1/webhooks/{id}/deliveries', group: 'webhooks', operation: 'listWebhookDeliveries', credential: 'session', scope: null, rate: null },
  { method: 'POST', path: '/v1/webhooks/{id}/test', group: 'webhooks', operation: 'testWebhook', credential: 'key', scope: null, rate: null },
] as const satisfies readonly Route[];

export type RouteRow = (typeof routes)[number];
/** Operation names of one group, so a group's function must implement exactly its rows. */
export type OperationOf<G extends Group> = Extract<RouteRow, { group: G }>['operation'];

export const routeKey = (route: Pick<Route, 'method' | 'path'>): string => `${route.method} ${route.path}`;

export function routesOf(group: Group): Route[] {
  return routes.filter((route) => route.group === group);
}

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/**
 * Finds the row serving a request path, as API Gateway does: static segments must be equal,
 * `{name}` matches one non-empty segment. Used by the local gateway only; in AWS, API Gateway
 * does this. Returns the routes on the path (any method) when the method does not match.
 */
export function matchRoute(method: string, path: string): RouteMatch | { route: null; allowed: HttpMethod[] } {
  const segments = path.split('/');
  const allowed: HttpMethod[] = [];
  for (const route of routes as readonly Route[]) {
    const params = matchPath(route.path.split('/'), segments);
    if (!params) continue;
    if (route.method === method) return { route, pathParameters: params };
    allowed.push(route.method);
  }
  return { route: null, allowed };
}

function matchPath(pattern: string[], segments: string[]): Record<string, string> | null {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const actual = segments[i]!;
    if (expected.startsWith('{') && expected.endsWith('}')) {
      if (actual === '') return null;
      let decoded: string;
      try {
        decoded = decodeURIComponent(actual);
      } catch {
        return null;
      }
      params[expected.slice(1, -1)] = decoded;
    } else if (expected !== actual) {
      return null;
    }
  }
  return params;
}
