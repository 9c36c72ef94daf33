import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { ZodMiniType } from 'zod/mini';
import type { Principal } from '../domain/accounts/model.ts';
import type { HostClaim } from '../domain/domains/model.ts';
import type { Deadline } from '../deadline.ts';
import type { Route } from '../routes.ts';
import { HttpError, validationError } from './errors.ts';

/**
 * What an operation sees of a request: already routed, with its route's row, its body and
 * query parsed with the schemas the row names (`body`, `query`; undefined when it names none).
 */
export interface ApiRequest<Body = unknown, Query = unknown> {
  route: Route;
  requestId: string;
  params: Record<string, string>;
  /** Lower-cased names, as API Gateway delivers them. */
  headers: Record<string, string | undefined>;
  /** `name=value` each, as API Gateway delivers the Cookie header (only the sign-in routes read one: shared/http/refreshCookie.ts). */
  cookies: readonly string[];
  sourceIp: string;
  body: Body;
  query: Query;
  /** The body's bytes as they arrived (routes that take a raw body, e.g. curl mode, read these). */
  rawBody: Buffer;
  /** The caller, once the route's credential was checked; null on public or anonymous calls. */
  principal: Principal | null;
  /** Settles when this call is counted in the caller's month (signed-in calls; resolved otherwise). */
  callCounted: Promise<void>;
  /** The workspace's verified hostname the request arrived on; null on this deployment's own host. */
  hostClaim: HostClaim | null;
  /** The query string as it arrived, undecoded (SCIM reads its filter from it: `+` is a space there). */
  rawQueryString: string;
  /** The workspace whose directory key the request carried (`directory` routes); null otherwise. */
  directory: { workspaceId: string } | null;
  /** When its work must be done for its answer to be sent in time (shared/deadline.ts): what bounds its calls to a slow service. */
  deadline: Deadline;
}

/** What an operation answers; the group handler turns it into an API Gateway result. */
export interface ApiReply<Status extends number = number, Body = unknown> {
  status: Status;
  body: Body;
  headers?: Record<string, string>;
  /** `Set-Cookie` values (the web client's refresh token: shared/http/refreshCookie.ts). */
  cookies?: string[];
  /** A text/plain answer sent instead of `body` (routes whose row says `textReply`, for clients that asked for text). */
  text?: string;
  /**
   * `body` already serialized, sent as it is: for a body the same on every request, serialized
   * once per instance (the OpenAPI document: 170 KB, 1.2 ms of JSON.stringify a request).
   */
  serialized?: string;
}

/** The request as it arrived: the body's bytes and the query's strings, not yet parsed. */
export interface RawRequest extends Omit<ApiRequest, 'body' | 'query'> {
  rawQuery: Record<string, string>;
}

export function toRawRequest(event: APIGatewayProxyEventV2, route: Route, deadline: Deadline): RawRequest {
  return {
    route,
    requestId: event.requestContext.requestId,
    params: (event.pathParameters ?? {}) as Record<string, string>,
    headers: event.headers ?? {},
    cookies: event.cookies ?? [],
    sourceIp: event.requestContext.http.sourceIp,
    rawBody: Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8'),
    rawQuery: (event.queryStringParameters ?? {}) as Record<string, string>,
    principal: null,
    callCounted: Promise.resolve(),
    hostClaim: null,
    rawQueryString: event.rawQueryString ?? '',
    directory: null,
    deadline,
  };
}

const isJsonType = (contentType: string) => /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType);

/**
 * Parses a JSON body against a schema; every failure is a 400 that says what was wrong. A
 * lenient schema (the route lists no 400, shared/api/input.ts) gets `{}` for a body it cannot use.
 */
export function parseJsonBody<T>(request: RawRequest, schema: ZodMiniType<T>, lenient = false): T {
  const contentType = request.headers['content-type'];
  const unreadable = (error: HttpError): T => {
    if (lenient) return {} as T;
    throw error;
  };
  // SCIM's routes read either JSON type (Okta posts application/json, Entra application/scim+json).
  const expected = request.route.media === 'scim' ? 'application/scim+json or application/json' : 'application/json';
  if (contentType !== undefined && !isJsonType(contentType)) {
    return unreadable(
      new HttpError(400, 'unsupported_media_type', `Send the body as ${expected}.`, {
        errors: [{ path: 'header.content-type', message: `must be ${expected}, not ${contentType}` }],
      }),
    );
  }
  let value: unknown;
  try {
    value = request.rawBody.length === 0 && lenient ? {} : JSON.parse(request.rawBody.toString('utf8'));
  } catch {
    return unreadable(
      new HttpError(400, 'invalid_json', 'The body is not valid JSON.', {
        errors: [{ path: 'body', message: request.rawBody.length === 0 ? 'a JSON body is required' : 'is not valid JSON' }],
      }),
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) return unreadable(validationError(parsed.error, 'body'));
  return parsed.data;
}

/** Parses the query string against a schema; failures are 400 naming the parameter. */
export function parseQuery<T>(request: RawRequest, schema: ZodMiniType<T>): T {
  const parsed = schema.safeParse(request.rawQuery);
  if (!parsed.success) throw validationError(parsed.error, 'query');
  return parsed.data;
}
