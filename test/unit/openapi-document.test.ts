import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { contracts, schemas } from '../../shared/api/index.ts';
import { openApiDocument } from '../../shared/api/document.ts';
import { isLenient } from '../../shared/api/input.ts';
import { errorCodes } from '../../shared/http/errors.ts';
import { groups, hostCheckedGroups, routeKey, routes, type Route } from '../../shared/routes.ts';

const document = openApiDocument('https://hushlink.example.com');
type Operation = {
  operationId: string;
  security: Array<Record<string, string[]>>;
  parameters: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
  responses: Record<
    string,
    { description?: string; content?: Record<string, { schema: { $ref: string } }>; headers?: Record<string, unknown> }
  >;
};
const operationOf = (route: Route) => (document.paths[route.path] as Record<string, Operation>)[route.method.toLowerCase()]!;

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has every route of the table and nothing else, one operation id each', () => {
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map(routeKey).sort());
    const ids = routes.map((route) => operationOf(route).operationId);
    expect(new Set(ids).size).toBe(routes.length);
  });

  it.each(routes as readonly Route[])('$method $path: its statuses, bodies and errors as its row says', (route) => {
    const operation = operationOf(route);
    // A host-checked group's route also answers 404 unknown_host on a workspace's hostname that is not verified (issue 17).
    const unknownHost = hostCheckedGroups.includes(route.group) && !(route.errors as readonly number[]).includes(404) ? [404] : [];
    const accepted = route.accepted ? [route.accepted.status] : [];
    expect(Object.keys(operation.responses).map(Number).sort()).toEqual(
      [route.reply.status, ...accepted, ...route.errors, ...unknownHost].sort(),
    );
    // Work accepted to finish later (a large upload's completion): its own body.
    if (route.accepted)
      expect(operation.responses[route.accepted.status]!.content?.['application/json']?.schema).toEqual({
        $ref: `#/components/schemas/${route.accepted.body}`,
      });
    for (const status of unknownHost) expect(operation.responses[status]!.description).toContain('unknown_host');
    const success = operation.responses[route.reply.status]!;
    // SCIM's routes answer in SCIM's media type, errors as SCIM error messages (RFC 7644 §3.1, §3.12), and read either JSON type.
    const scim = route.media === 'scim';
    const [json, errorType, errorSchema] = scim
      ? ['application/scim+json', 'application/scim+json', 'ScimErrorMessage']
      : ['application/json', 'application/problem+json', 'Problem'];
    if (route.reply.body) expect(success.content?.[json]?.schema).toEqual({ $ref: `#/components/schemas/${route.reply.body}` });
    // A page (the chat install's landing): HTML, for a browser.
    else if (route.page) expect(success.content).toEqual({ 'text/html': { schema: { type: 'string' } } });
    else expect(success.content).toBeUndefined();
    for (const status of [...route.errors, ...unknownHost]) {
      expect(operation.responses[status]!.content?.[errorType]?.schema).toEqual({ $ref: `#/components/schemas/${errorSchema}` });
      if (status === 429) expect(operation.responses[status]!.headers).toHaveProperty('retry-after');
      if (status === 401 && scim) expect(operation.responses[status]!.headers).toHaveProperty('www-authenticate');
    }
    if (route.body) {
      for (const type of scim ? ['application/scim+json', 'application/json'] : ['application/json']) {
        expect(operation.requestBody?.content[type]?.schema).toEqual({ $ref: `#/components/schemas/${route.body}` });
      }
    } else expect(operation.requestBody).toBeUndefined();
    expect(operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name)).toEqual(
      [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name),
    );
  });

  it('states each credential as security requirements, with the scope a key must hold', () => {
    const security = Object.fromEntries(routes.map((route) => [routeKey(route), operationOf(route).security]));
    expect(security['GET /v1/secrets/{id}']).toEqual([{}, { session: [] }, { apiKey: ['secrets:read'] }]);
    expect(security['POST /v1/secrets/{id}/claim']).toEqual([]);
    expect(security['POST /v1/secrets']).toEqual([{}, { session: [] }, { apiKey: ['secrets:write'] }]);
    expect(security['GET /v1/secrets']).toEqual([{ session: [] }, { apiKey: ['secrets:read'] }]);
    expect(security['GET /v1/usage']).toEqual([{ session: [] }, { apiKey: [] }]);
    expect(security['POST /v1/api-keys']).toEqual([{ session: [] }]);
    expect(security['POST /v1/webhooks/{id}/test']).toEqual([{ apiKey: [] }]);
    expect(security['POST /scim/v2/Users']).toEqual([{ directoryKey: [] }]);
    expect(security['GET /scim/v2/ServiceProviderConfig']).toEqual([]);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['apiKey', 'directoryKey', 'session']);
  });

  it('documents the query parameters of a listing, with their defaults, and optional bodies as optional', () => {
    const list = operationOf(routes.find((route) => route.operation === 'listSecrets')!);
    expect(list.parameters.filter((parameter) => parameter.in === 'query')).toEqual([
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100, default: 25 }),
      },
      { name: 'cursor', in: 'query', required: false, schema: expect.objectContaining({ type: 'string' }) },
    ]);
    expect(operationOf(routes.find((route) => route.operation === 'claimSecret')!).requestBody?.required).toBe(false);
    expect(operationOf(routes.find((route) => route.operation === 'createSecret')!).requestBody?.required).toBe(true);
    const revoke = operationOf(routes.find((route) => route.operation === 'revokeSecret')!);
    expect(revoke.parameters).toContainEqual(expect.objectContaining({ name: 'x-delete-token', in: 'header' }));
  });

  it('describes the problem body with every error code', () => {
    const problem = document.components.schemas.Problem as { properties: { code: { enum: string[] } }; required: string[] };
    expect(problem.properties.code.enum).toEqual([...errorCodes]);
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'code']));
  });

  it('marks the routes beyond the interface', () => {
    const beyond = routes.filter((route) => (operationOf(route) as Record<string, unknown>)['x-beyond-interface']).map(routeKey);
    expect(beyond.sort()).toEqual([
      'DELETE /scim/v2/Groups/{id}',
      'GET /scim/v2/Groups',
      'GET /scim/v2/Groups/{id}',
      'GET /scim/v2/ResourceTypes',
      'GET /scim/v2/Schemas',
      'GET /v1/auth/account',
      'GET /v1/auth/sso/callback',
      'GET /v1/auth/sso/start',
      'GET /v1/billing/prices',
      'GET /v1/openapi.json',
      'PATCH /scim/v2/Groups/{id}',
      'PATCH /v1/auth/account',
      'POST /scim/v2/Groups',
      'POST /v1/auth/otp/link',
      'POST /v1/auth/sso/exchange',
      'POST /v1/chat/install',
      'POST /v1/workspaces/invitations/preview',
      'PUT /scim/v2/Groups/{id}',
      'PUT /scim/v2/Users/{id}',
    ]);
  });
});

describe('the route table and the contracts', () => {
  it('names requests of the row’s own group for body and query, its replies for the answer, and each name means one schema', () => {
    for (const route of routes as readonly Route[]) {
      const { requests, replies } = contracts[route.group] as { requests: Record<string, unknown>; replies: Record<string, unknown> };
      for (const name of [route.body, route.query]) if (name) expect(requests[name], `${routeKey(route)}: ${name}`).toBe(schemas[name]);
      if (route.reply.body) expect(replies[route.reply.body], `${routeKey(route)}: ${route.reply.body}`).toBe(schemas[route.reply.body]);
    }
    const seen = new Map<string, unknown>();
    for (const group of groups) {
      for (const [name, schema] of [...Object.entries(contracts[group].requests), ...Object.entries(contracts[group].replies)]) {
        if (seen.has(name)) expect(schema, `${name} in ${group}`).toBe(seen.get(name));
        seen.set(name, schema);
      }
    }
  });

  it('lists what input, credential and rate limit make a route answer', () => {
    for (const route of routes as readonly Route[]) {
      const errors = new Set<number>(route.errors);
      const label = routeKey(route);
      // A body or query that is parsed can be refused, unless it is lenient (never refused).
      const refusable = (name: keyof typeof schemas | null) => name !== null && !isLenient(schemas[name]);
      if (refusable(route.query) || refusable(route.body)) expect(errors.has(400), `${label} 400`).toBe(true);
      if (['user', 'session', 'key'].includes(route.credential)) expect(errors.has(401), `${label} 401`).toBe(true);
      // A refused credential or scope is 403, or 401 where a route open to anyone lists no 403.
      if (route.credential === 'session' || (route.credential === 'user' && route.scope))
        expect(errors.has(403), `${label} 403`).toBe(true);
      if (route.credential === 'optional') expect(errors.has(403) || errors.has(401), `${label} 403 or 401`).toBe(true);
      if (route.rate) expect(errors.has(429), `${label} 429`).toBe(true);
    }
  });
});
