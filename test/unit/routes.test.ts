import { describe, expect, it } from 'vitest';
import { operations } from '../../functions/secrets.ts';
import {
  accountRoutes,
  filesRoutes,
  gateRoutes,
  groups,
  matchRoute,
  openapiRoutes,
  requestsRoutes,
  routeKey,
  routes,
  secretsRoutes,
  webhooksRoutes,
  workspacesRoutes,
  billingRoutes,
  billingWebhookRoutes,
  scimRoutes,
  chatRoutes,
  type RouteMatch,
} from '../../shared/routes.ts';

/** The match, failing the test when there is none. */
function matched(method: string, path: string): RouteMatch {
  const match = matchRoute(method, path);
  if (!match.route) throw new Error(`no route for ${method} ${path}; allowed: ${match.allowed.join(',')}`);
  return match as RouteMatch;
}

describe('matchRoute', () => {
  it('matches a static path to its row, with no parameters', () => {
    const match = matched('POST', '/v1/secrets');
    expect(match.route.operation).toBe('createSecret');
    expect(match.route.rate).toBe('secret_create');
    expect(match.pathParameters).toEqual({});
  });

  it('matches {id} to one segment and names the parameter', () => {
    expect(matched('GET', '/v1/secrets/sec_abc')).toMatchObject({ route: { operation: 'readSecret' }, pathParameters: { id: 'sec_abc' } });
    expect(matched('DELETE', '/v1/secrets/sec_abc')).toMatchObject({
      route: { operation: 'revokeSecret' },
      pathParameters: { id: 'sec_abc' },
    });
    expect(matched('POST', '/v1/secrets/sec_abc/claim')).toMatchObject({
      route: { operation: 'claimSecret' },
      pathParameters: { id: 'sec_abc' },
    });
  });

  it('decodes percent-encoded parameters, an encoded slash staying inside the segment', () => {
    expect(matched('GET', '/v1/secrets/sec%5Fa%20b').pathParameters).toEqual({ id: 'sec_a b' });
    expect(matched('GET', '/v1/secrets/a%2Fb').pathParameters).toEqual({ id: 'a/b' });
  });

  it('does not match a malformed percent-encoding', () => {
    expect(matchRoute('GET', '/v1/secrets/%E0%A4%A')).toEqual({ route: null, allowed: [] });
  });

  it('on a method mismatch, answers no route and the methods the path has', () => {
    const onItem = matchRoute('PUT', '/v1/secrets/sec_abc');
    expect(onItem.route).toBeNull();
    expect(!onItem.route && [...onItem.allowed].sort()).toEqual(['DELETE', 'GET']);

    expect(matchRoute('GET', '/v1/secrets/sec_abc/claim')).toEqual({ route: null, allowed: ['POST'] });
    expect(
      !matchRoute('DELETE', '/v1/secrets').route && [...(matchRoute('DELETE', '/v1/secrets') as { allowed: string[] }).allowed].sort(),
    ).toEqual(['GET', 'POST']);
  });

  it('is case-sensitive on the method, as API Gateway is', () => {
    expect(matchRoute('post', '/v1/secrets/sec_abc/claim')).toEqual({ route: null, allowed: ['POST'] });
  });

  it('does not match extra or missing segments', () => {
    expect(matchRoute('GET', '/v1/secrets/sec_abc/extra')).toEqual({ route: null, allowed: [] });
    expect(matchRoute('POST', '/v1/secrets/sec_abc/claim/again')).toEqual({ route: null, allowed: [] });
    expect(matchRoute('POST', '/v1')).toEqual({ route: null, allowed: [] });
    expect(matchRoute('POST', '/v2/secrets')).toEqual({ route: null, allowed: [] });
  });

  it('does not let {id} match an empty segment or a trailing slash', () => {
    expect(matchRoute('GET', '/v1/secrets/')).toEqual({ route: null, allowed: [] });
    expect(matchRoute('POST', '/v1/secrets//claim')).toEqual({ route: null, allowed: [] });
    expect(matchRoute('POST', '/v1/secrets/')).toEqual({ route: null, allowed: [] });
    expect(matchRoute('POST', '//v1/secrets')).toEqual({ route: null, allowed: [] });
  });

  it('does not treat a static segment as a parameter', () => {
    expect(matchRoute('POST', '/v1/secrets/sec_abc/claims')).toEqual({ route: null, allowed: [] });
    expect(matchRoute('POST', '/v1/Secrets')).toEqual({ route: null, allowed: [] });
  });
});

describe('the route table', () => {
  it('holds each method and path once', () => {
    const keys = routes.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain('POST /v1/secrets/{id}/claim');
  });

  it('serves every row of the interface §4.1 core with the credential and rate class it needs', () => {
    const table = Object.fromEntries(routes.map((route) => [routeKey(route), [route.credential, route.rate]]));
    expect(table).toMatchObject({
      'POST /v1/secrets': ['optional', 'secret_create'],
      'GET /v1/secrets': ['user', null],
      'GET /v1/secrets/{id}': ['lenient', null],
      'DELETE /v1/secrets/{id}': ['optional', null],
      'POST /v1/secrets/{id}/claim': ['public', 'secret_claim'],
    });
  });

  it('takes a sign-in link’s token from anyone, outside every guess budget, in a per-IP class of its own, as a route beyond the interface (ADR 0167)', () => {
    const link = matched('POST', '/v1/auth/otp/link').route;
    expect(link).toMatchObject({
      group: 'account',
      operation: 'signInWithLink',
      credential: 'public',
      rate: 'otp_link',
      body: 'SignInLinkRequest',
      reply: { status: 200, body: 'IssuedTokens' },
      errors: [400, 401, 403, 429],
      beyondInterface: true,
    });
    // The same session a code opens.
    expect(link.reply).toEqual(matched('POST', '/v1/auth/otp/verify').route.reply);
  });

  it('gives every row a known group whose function implements its operation', () => {
    for (const route of routes) expect(groups).toContain(route.group);
    const secretOperations = secretsRoutes.map((route) => route.operation).sort();
    expect(secretOperations).toEqual(Object.keys(operations).sort());
  });

  it('keeps each group’s rows in its own part of the table, and the table is every part', () => {
    const parts = {
      secrets: secretsRoutes,
      gate: gateRoutes,
      files: filesRoutes,
      requests: requestsRoutes,
      account: accountRoutes,
      webhooks: webhooksRoutes,
      workspaces: workspacesRoutes,
      billing: billingRoutes,
      billingWebhook: billingWebhookRoutes,
      scim: scimRoutes,
      chat: chatRoutes,
      openapi: openapiRoutes,
    };
    expect(Object.keys(parts).sort()).toEqual([...groups].sort());
    for (const [group, rows] of Object.entries(parts)) for (const route of rows) expect(route.group, routeKey(route)).toBe(group);
    expect(routes).toHaveLength(Object.values(parts).reduce((sum, rows) => sum + rows.length, 0));
  });
});
