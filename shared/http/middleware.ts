import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { AppLogger } from '../logger.ts';
import type { AppMetrics, MetricName } from '../metrics.ts';
import { routeKey, type Route } from '../routes.ts';
import { corsPolicy } from './cors.ts';
import { problemBody } from './errors.ts';
import { acceptsHtml, problemPage } from './problemPage.ts';
import { scimErrorBody, toHttpError } from './refusals.ts';

type Middleware = MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

/** Headers every API response carries, errors included. */
const securityHeaders = {
  // API responses are never cacheable: secrets' metadata and payloads least of all.
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
};

/**
 * Request id, security headers and CORS for the web origin: what every response carries,
 * whether a function or the gateway itself produced it.
 */
export function commonHeaders(requestId: string, origin: string | undefined, webOrigin: string): Record<string, string> {
  return {
    ...securityHeaders,
    'x-request-id': requestId,
    ...(origin === webOrigin
      ? {
          'access-control-allow-origin': webOrigin,
          'access-control-expose-headers': corsPolicy.exposeHeaders.join(', '),
          vary: 'origin',
        }
      : {}),
  };
}

export function responseHeaders(webOrigin: string): Middleware {
  const apply: NonNullable<Middleware['after']> = (request) => {
    const response = request.response;
    if (!response) return;
    const cacheControl = response.headers?.['cache-control'];
    response.headers = {
      ...response.headers,
      ...commonHeaders(request.event.requestContext.requestId, request.event.headers?.origin, webOrigin),
      // A route that says it may be cached (the OpenAPI document) keeps its say; nothing else does.
      ...(cacheControl === undefined ? {} : { 'cache-control': cacheControl }),
    };
  };
  return { after: apply, onError: apply };
}

/**
 * The one place errors become responses: RFC 9457 problem+json with a stable `code` (or, for a
 * group speaking SCIM, SCIM's error message in application/scim+json; or, on a route a browser
 * navigates to, a page for a request that accepts HTML). Faults of ours are logged (name and
 * message, never the request) and answered with a bare 500.
 */
export function problemResponses(logger: AppLogger, media: 'problem' | 'scim' = 'problem', rows: readonly Route[] = []): Middleware {
  const browserRoutes = new Map(rows.flatMap((route) => (route.browser ? [[routeKey(route), route.browser] as const] : [])));
  return {
    onError: (request) => {
      const error = toHttpError(request.error);
      const requestId = request.event.requestContext.requestId;
      if (error.status >= 500) {
        const cause = request.error as Error | undefined;
        logger.error('request failed', {
          request_id: requestId,
          route: request.event.routeKey,
          error: cause?.name,
          error_message: cause?.message,
          stack: cause?.stack,
        });
      }
      const back = browserRoutes.get(request.event.routeKey);
      if (back && acceptsHtml(request.event.headers?.accept)) {
        request.response = {
          statusCode: error.status,
          headers: { 'content-type': 'text/html; charset=utf-8', ...error.extras.headers },
          body: problemPage(error, requestId, back),
        };
        return;
      }
      request.response = {
        statusCode: error.status,
        headers: { 'content-type': media === 'scim' ? scimMediaType : 'application/problem+json', ...error.extras.headers },
        body: JSON.stringify(media === 'scim' ? scimErrorBody(error) : problemBody(error, requestId)),
      };
    },
  };
}

/** SCIM's media type (RFC 7644 §3.1), for its answers and errors alike. */
export const scimMediaType = 'application/scim+json; charset=utf-8';

/** One line per request: route, status and duration. Nothing from the request itself. */
export function accessLog(logger: AppLogger, now: () => number): Middleware {
  const started = new WeakMap<object, number>();
  const log: NonNullable<Middleware['after']> = (request) => {
    logger.info('request', {
      request_id: request.event.requestContext.requestId,
      route: request.event.routeKey,
      status: request.response?.statusCode,
      duration_ms: now() - (started.get(request) ?? now()),
    });
  };
  return {
    before: (request) => {
      started.set(request, now());
    },
    after: log,
    onError: log,
  };
}

/** Operations whose outcome is a business metric: what a 2xx counts, and what a 4xx counts. */
const outcomeMetrics: Readonly<Record<string, { ok: MetricName; refused?: MetricName }>> = {
  createSecret: { ok: 'SecretsCreated' },
  claimSecret: { ok: 'SecretsClaimed', refused: 'ClaimsRefused' },
  verifySignInCode: { ok: 'SignIns' },
  signInWithLink: { ok: 'SignIns' },
};

/**
 * Counts each request's outcome and publishes the invocation's metrics at its end, after every
 * other middleware has shaped the response (so it sees the final status). Rate limiting and
 * faults of ours are counted on every route.
 */
export function requestMetrics(metrics: AppMetrics, rows: readonly Route[]): Middleware {
  const operationOf = new Map(rows.map((route) => [routeKey(route), route.operation]));
  const record: NonNullable<Middleware['after']> = (request) => {
    const status = request.response?.statusCode ?? 500;
    const outcome = outcomeMetrics[operationOf.get(request.event.routeKey) ?? ''];
    if (status === 429) metrics.count('RateLimited');
    else if (status >= 500) metrics.count('ServerErrors');
    else if (outcome && status < 300) metrics.count(outcome.ok);
    else if (outcome?.refused && status >= 400) metrics.count(outcome.refused);
    metrics.flush();
  };
  return { after: record, onError: record };
}
