import * as z from 'zod/mini';
import { hostCheckedGroups, routeKey, routes, type Credential, type ErrorStatus, type Route } from '../routes.ts';
import { refreshCookieName } from '../http/refreshCookie.ts';
import { isLenient } from './input.ts';
import { Problem } from './output.ts';
import { ScimErrorMessage } from './scim.ts';
import { schemas, type SchemaName } from './index.ts';

/**
 * The OpenAPI 3.1 document of the API, made from the route table and the schemas its rows
 * name (zod's JSON Schema conversion), so it cannot say something the handlers do not do:
 * they parse with the same schemas, their answers are typed by them, and the contract test
 * checks every response the suites receive against this document.
 */
export function openApiDocument(origin: string) {
  const components: Record<string, unknown> = {
    Problem: jsonSchema(Problem, 'output'),
    ScimErrorMessage: jsonSchema(ScimErrorMessage, 'output'),
  };
  const register = (name: SchemaName | null, io: 'input' | 'output') => {
    if (name !== null) components[name] ??= jsonSchema(schemas[name], io);
    return name === null ? null : { $ref: `#/components/schemas/${name}` };
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes as readonly Route[]) {
    register(route.body, 'input');
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = {
      operationId: route.operation,
      tags: [route.group],
      summary: routeKey(route),
      security: securityOf(route.credential, route.scope),
      parameters: [...pathParameters(route.path), ...queryParameters(route.query), ...headerParameters(route), ...cookieParameters(route)],
      ...(route.body
        ? {
            requestBody: {
              required: !isLenient(schemas[route.body]),
              content: Object.fromEntries(requestMedia(route).map((type) => [type, { schema: register(route.body, 'input') }])),
            },
          }
        : {}),
      responses: {
        [route.reply.status]: successResponse(route, register(route.reply.body, 'output')),
        ...(route.accepted
          ? { [route.accepted.status]: successResponse(route, register(route.accepted.body, 'output'), route.accepted.status) }
          : {}),
        ...Object.fromEntries(route.errors.map((status) => [status, problemResponse(status, route.media, route.browser)])),
        ...(hostCheckedGroups.includes(route.group) && !(route.errors as readonly number[]).includes(404)
          ? { 404: unknownHostResponse(route.media) }
          : {}),
      },
      'x-credential': route.credential,
      ...(route.rate ? { 'x-rate-class': route.rate } : {}),
      ...(route.beyondInterface ? { 'x-beyond-interface': true } : {}),
    };
  }
  return {
    openapi: '3.1.0' as const,
    info: {
      title: 'Hushlink API',
      version: '1',
      description:
        'Zero-knowledge secret sharing: clients encrypt, the service stores ciphertext and public parameters only. ' +
        'Errors are RFC 9457 problem+json with a stable `code`. Made from the route table (shared/routes.ts).',
    },
    servers: [{ url: origin }],
    tags: [...new Set(routes.map((route) => route.group))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        session: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A session: the access token (ES256, 15 minutes) from /v1/auth/otp/verify, /v1/auth/otp/link or /v1/auth/refresh.',
        },
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'hlk_<id>_<secret>',
          description: 'An API key; a requirement lists the scope the key must hold. No key administers its account.',
        },
        directoryKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'hlscim_<secret>',
          description:
            'A workspace’s directory key (from its SSO settings), for its SCIM client: the /scim/v2 routes act on that workspace.',
        },
      },
      schemas: components,
    },
  };
}

/** A schema as JSON Schema 2020-12 (what OpenAPI 3.1 embeds), without its `$schema`. */
function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...converted } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return converted;
}

/** Who may call, as OpenAPI security requirements: any one of the list is enough; `{}` is anyone. */
function securityOf(credential: Credential, scope: string | null): Array<Record<string, string[]>> {
  const key = { apiKey: scope ? [scope] : [] };
  switch (credential) {
    case 'public':
      return [];
    case 'optional':
    case 'lenient':
      return [{}, { session: [] }, key];
    case 'user':
      return [{ session: [] }, key];
    case 'session':
      return [{ session: [] }];
    case 'key':
      return [key];
    case 'directory':
      return [{ directoryKey: [] }];
  }
}

function pathParameters(path: string) {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

function queryParameters(name: SchemaName | null) {
  if (name === null) return [];
  const object = jsonSchema(schemas[name], 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([parameter, schema]) => ({
    name: parameter,
    in: 'query',
    required: (object.required ?? []).includes(parameter),
    schema,
  }));
}

/** Request headers an operation reads besides `authorization`. */
function headerParameters(route: Route) {
  return (route.headers ?? []).map(({ name, description }) => ({
    name,
    in: 'header',
    required: false,
    description,
    schema: { type: 'string' },
  }));
}

/** The web client's refresh token (ADR 0178), on the routes that read it. */
function cookieParameters(route: Route) {
  if (!route.sessionCookie?.reads) return [];
  return [
    {
      name: refreshCookieName,
      in: 'cookie',
      required: false,
      description:
        'A browser’s refresh token, set by a sign-in that asked with `session_cookie` (HttpOnly; Secure; SameSite=Strict; Path=/v1/auth). Read only when `Sec-Fetch-Site` is absent or `same-origin`; a `refresh_token` in the body wins.',
      schema: { type: 'string' },
    },
  ];
}

/** SCIM clients send either JSON media type (Okta's spec test posts application/json, Entra application/scim+json). */
const requestMedia = (route: Route) => (route.media === 'scim' ? ['application/scim+json', 'application/json'] : ['application/json']);

function successResponse(route: Route, body: { $ref: string } | null, status: 200 | 201 | 202 | 204 | 302 = route.reply.status) {
  const description = {
    200: 'OK',
    201: 'Created',
    202: 'Accepted: queued or counted for later',
    204: 'Done; no body',
    302: 'Found: go to `location`',
  }[status];
  if (status === 302) return { description, headers: { location: { description: 'Where to go next', schema: { type: 'string' } } } };
  if (route.page) return { description: `${description}: an HTML page`, content: { 'text/html': { schema: { type: 'string' } } } };
  if (!body) return { description };
  const text = route.textReply
    ? { 'text/plain': { schema: { type: 'string' } } }
    : route.download
      ? { [route.download]: { schema: { type: 'string' } } }
      : {};
  const headers = route.download
    ? {
        headers: {
          'content-disposition': { description: 'attachment, with the file name', schema: { type: 'string' } },
          link: { description: 'rel="next": the next part of a large export', schema: { type: 'string' } },
        },
      }
    : {};
  const located =
    route.media === 'scim' && route.reply.body === 'ScimUser'
      ? { headers: { location: { description: 'The User’s absolute URL, as its meta.location', schema: { type: 'string' } } } }
      : {};
  const cookie = route.sessionCookie?.sets
    ? {
        headers: {
          'set-cookie': {
            description: `\`${refreshCookieName}\`: the browser's refresh token (HttpOnly; Secure; SameSite=Strict; Path=/v1/auth), when the request asked with \`session_cookie\` or came with the cookie; emptied (Max-Age=0) by logout.`,
            schema: { type: 'string' },
          },
        },
      }
    : {};
  return {
    description,
    ...headers,
    ...located,
    ...cookie,
    content: { [route.media === 'scim' ? 'application/scim+json' : 'application/json']: { schema: body }, ...text },
  };
}

const problemDescriptions: Record<ErrorStatus, string> = {
  400: 'Invalid input: `errors` names each field (path) and what is wrong with it.',
  401: 'No credential, or not a valid one (or, where the route says so, a wrong code).',
  403: 'The credential may not do this (a key without the scope, a key where a session is needed), or a refused proof.',
  404: 'No such resource (or none of the caller’s).',
  409: 'Conflict with the resource’s current state.',
  410: 'Gone: ended, closed or expired; `state` says which.',
  413: 'Too large.',
  421: 'Not served by this region.',
  423: 'Locked.',
  425: 'Too early: `not_before` says when; `retry-after` in seconds.',
  429: 'Rate limited: `retry-after` says when the window resets.',
  503: 'A provider this depends on (payments) is not answering: `detail` says whether what was asked may have been applied (a call cut off mid-way) or nothing was changed; `retry-after` says when to try again.',
};

/**
 * An error's body: problem+json, or SCIM's error message on the routes speaking SCIM; a route a
 * browser navigates to answers a page to a request that accepts text/html.
 */
const errorContent = (media: Route['media'], browser?: Route['browser']) =>
  media === 'scim'
    ? { 'application/scim+json': { schema: { $ref: '#/components/schemas/ScimErrorMessage' } } }
    : {
        'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
        ...(browser ? { 'text/html': { schema: { type: 'string' } } } : {}),
      };

/** Any route of a host-checked group, on a workspace's hostname that is not verified (rule 5). */
const unknownHostResponse = (media: Route['media']) => ({
  description: 'This address is a workspace’s hostname that is not (or no longer) verified: `reason: unknown_host`.',
  content: errorContent(media),
});

function problemResponse(status: ErrorStatus, media: Route['media'], browser?: Route['browser']) {
  return {
    description: media === 'scim' ? (scimDescriptions[status] ?? problemDescriptions[status]) : problemDescriptions[status],
    ...(status === 429 || status === 425 || status === 503
      ? { headers: { 'retry-after': { description: 'Seconds to wait.', schema: { type: 'integer' } } } }
      : {}),
    ...(status === 401 && media === 'scim'
      ? { headers: { 'www-authenticate': { description: 'Bearer', schema: { type: 'string' } } } }
      : {}),
    content: errorContent(media, browser),
  };
}

/** What SCIM's refusals mean here (RFC 7644 §3.12; `scimType` says which 400 or 409). */
const scimDescriptions: Partial<Record<ErrorStatus, string>> = {
  400: 'Not a request this service can read: `scimType` says why (invalidFilter, invalidSyntax, invalidPath, noTarget, invalidValue, mutability).',
  401: 'No directory key, or not a valid one (a rotated key stops at once).',
  403: 'The workspace no longer has the Team tier, no seat is free, or the membership is an owner’s or an admin’s.',
  404: 'No such User in the directory key’s workspace.',
  409: '`scimType: uniqueness`: the userName (any case) or externalId is another User’s; or the User kept changing.',
};
