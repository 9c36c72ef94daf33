import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { ZodMiniType } from 'zod/mini';
import type { Principal } from '../domain/accounts/model.ts';
import type { Route } from '../routes.ts';
import { HttpError, validationError } from './errors.ts';

/** What an operation sees of a request: already routed, with its route's row. */
export interface ApiRequest {
  route: Route;
  requestId: string;
  params: Record<string, string>;
  /** Lower-cased names, as API Gateway delivers them. */
  headers: Record<string, string | undefined>;
  sourceIp: string;
  body: Buffer;
  query: Record<string, string>;
  /** The caller, once the route's credential was checked; null on public or anonymous calls. */
  principal: Principal | null;
  /** Settles when this call is counted in the caller's month (signed-in calls; resolved otherwise). */
  callCounted: Promise<void>;
}

/** What an operation answers; the group handler turns it into an API Gateway result. */
export interface ApiReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function toApiRequest(event: APIGatewayProxyEventV2, route: Route): ApiRequest {
  const raw = event.body ?? '';
  return {
    route,
    requestId: event.requestContext.requestId,
    params: (event.pathParameters ?? {}) as Record<string, string>,
    headers: event.headers ?? {},
    sourceIp: event.requestContext.http.sourceIp,
    body: Buffer.from(raw, event.isBase64Encoded ? 'base64' : 'utf8'),
    principal: null,
    callCounted: Promise.resolve(),
    query: (event.queryStringParameters ?? {}) as Record<string, string>,
  };
}

const isJsonType = (contentType: string) => /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType);

/** Parses a JSON body against a schema; every failure is a 400 that says what was wrong. */
export function parseJsonBody<T>(request: ApiRequest, schema: ZodMiniType<T>): T {
  const contentType = request.headers['content-type'];
  if (contentType !== undefined && !isJsonType(contentType)) {
    throw new HttpError(400, 'unsupported_media_type', 'Send the body as application/json.', {
      errors: [{ path: 'header.content-type', message: `must be application/json, not ${contentType}` }],
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(request.body.toString('utf8'));
  } catch {
    throw new HttpError(400, 'invalid_json', 'The body is not valid JSON.', {
      errors: [{ path: 'body', message: request.body.length === 0 ? 'a JSON body is required' : 'is not valid JSON' }],
    });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error, 'body');
  return parsed.data;
}

/** Reads an optional JSON object body; anything that is not one counts as no body. */
export function optionalJsonObject(request: ApiRequest): Record<string, unknown> {
  if (request.body.length === 0) return {};
  try {
    const value: unknown = JSON.parse(request.body.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Parses the query string against a schema; failures are 400 naming the parameter. */
export function parseQuery<T>(request: ApiRequest, schema: ZodMiniType<T>): T {
  const parsed = schema.safeParse(request.query);
  if (!parsed.success) throw validationError(parsed.error, 'query');
  return parsed.data;
}
