/**
 * THE route table. `lib/` turns every row into an API Gateway route integrated with its
 * group's Lambda; `local/` serves the same rows. A route exists here and nowhere else.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One Lambda per group; the entry is `functions/<group>.ts`. */
export const groups = ['secrets'] as const;
export type Group = (typeof groups)[number];

/**
 * Who may call a route.
 * - `public`: anyone; no credential is read.
 */
export type Credential = 'public';

/** Rate classes name a row of `limits.ts`; `null` for routes the interface lists without 429. */
export type RateClass = 'secret_create' | 'secret_claim';

export interface Route {
  readonly method: HttpMethod;
  readonly path: string;
  readonly group: Group;
  /** Name of the operation the group's function implements for this route. */
  readonly operation: string;
  readonly credential: Credential;
  readonly scope: string | null;
  readonly rate: RateClass | null;
}

export const routes = [
  { method: 'POST', path: '/v1/secrets', group: 'secrets', operation: 'createSecret', credential: 'public', scope: null, rate: 'secret_create' },
  { method: 'GET', path: '/v1/secrets/{id}', group: 'secrets', operation: 'readSecret', credential: 'public', scope: null, rate: null },
  { method: 'DELETE', path: '/v1/secrets/{id}', group: 'secrets', operation: 'revokeSecret', credential: 'public', scope: null, rate: null },
  { method: 'POST', path: '/v1/secrets/{id}/claim', group: 'secrets', operation: 'claimSecret', credential: 'public', scope: null, rate: 'secret_claim' },
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
