import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { corsPolicy } from '../shared/http/cors.ts';
import { HttpError, problemBody } from '../shared/http/errors.ts';
import { bodyTooLarge, type GroupHandler } from '../shared/http/group.ts';
import { commonHeaders } from '../shared/http/middleware.ts';
import { maxRequestBodyBytes } from '../shared/limits.ts';
import { matchRoute, routeKey, scimFallbackPath, type Group } from '../shared/routes.ts';

export interface GatewayOptions {
  handlers: Record<Group, GroupHandler>;
  webOrigin: string;
  /** Answers what is not the API (`/_dev/*`, the web client); false when nothing does. */
  localRoutes: (request: IncomingMessage, response: ServerResponse) => boolean;
  /** API Gateway gives up on an integration after 30 s. */
  timeoutMs?: number;
}

/** Paths API Gateway routes to the functions; everything else is the web client's. */
const apiPrefixes = ['/v1/', '/scim/v2/'];

/**
 * The local API Gateway (HTTP API, payload format 2.0): matches the route table, builds the
 * same `APIGatewayProxyEventV2` API Gateway would, invokes the group's handler in-process and
 * writes its result back.
 */
export function gatewayListener(options: GatewayOptions) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const requestId = randomBytes(12).toString('base64url');
    try {
      await serve(request, response, requestId, options);
    } catch (error) {
      if (!response.headersSent) {
        const fault =
          error instanceof HttpError ? error : new HttpError(500, 'internal', 'The local gateway failed to serve this request.');
        const headers = commonHeaders(requestId, request.headers.origin, options.webOrigin);
        sendProblem(response, fault, requestId, headers);
      } else {
        response.destroy();
      }
    }
  };
}

async function serve(request: IncomingMessage, response: ServerResponse, requestId: string, options: GatewayOptions) {
  const url = URL.canParse(request.url ?? '/', 'http://localhost') ? new URL(request.url ?? '/', 'http://localhost') : null;
  if (!url) throw new HttpError(400, 'invalid_request', 'The request target is not a valid path.');
  const method = request.method ?? 'GET';

  if (method === 'OPTIONS' && request.headers['access-control-request-method']) {
    return preflight(request, response, options.webOrigin);
  }
  if (options.localRoutes(request, response)) return;
  if (!apiPrefixes.some((prefix) => url.pathname.startsWith(prefix))) {
    throw new HttpError(404, 'not_found', 'Nothing is served at this path.');
  }

  const match = matchRoute(method, url.pathname);
  // As API Gateway's `ANY /scim/v2/{proxy+}` route does: what no SCIM row matches goes to the scim function, which answers in SCIM's shape.
  const target = match.route
    ? { group: match.route.group, key: routeKey(match.route), maxBody: match.route.maxBodyBytes, parameters: match.pathParameters }
    : url.pathname.startsWith('/scim/v2/')
      ? {
          group: 'scim' as const,
          key: `ANY ${scimFallbackPath}`,
          maxBody: undefined,
          parameters: { proxy: url.pathname.slice('/scim/v2/'.length) },
        }
      : null;
  if (!target) throw new HttpError(404, 'not_found', `No route for ${method} ${url.pathname}.`);

  const body = await readBody(request, target.maxBody ?? maxRequestBodyBytes);
  const event = toEvent(request, url, body, requestId, target.key, target.parameters);
  const result = await withTimeout(
    options.handlers[target.group](event, lambdaContext(target.group, requestId, options.timeoutMs ?? 30_000)),
    options.timeoutMs ?? 30_000,
  );
  writeResult(response, result);
}

function preflight(request: IncomingMessage, response: ServerResponse, webOrigin: string): void {
  const headers: Record<string, string> = { vary: 'origin' };
  if (request.headers.origin === webOrigin) {
    headers['access-control-allow-origin'] = webOrigin;
    headers['access-control-allow-methods'] = corsPolicy.allowMethods.join(', ');
    headers['access-control-allow-headers'] = corsPolicy.allowHeaders.join(', ');
    headers['access-control-max-age'] = String(corsPolicy.maxAgeSeconds);
  }
  response.writeHead(204, headers).end();
}

/**
 * The request's body, up to `limit` bytes (API Gateway's own, or less where the route takes
 * less): beyond it the answer is 413 at once, without reading the rest (it is drained).
 */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > limit) {
      request.resume();
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

const tooLarge = (limit: number) =>
  limit < maxRequestBodyBytes
    ? bodyTooLarge(limit)
    : new HttpError(413, 'payload_too_large', `Request bodies are limited to ${maxRequestBodyBytes} bytes.`);

/** Text bodies arrive as strings, anything else base64-encoded, as API Gateway does. */
const isTextType = (contentType: string | undefined) =>
  contentType === undefined || /^(text\/|application\/([\w.+-]+\+)?json|application\/x-www-form-urlencoded)/i.test(contentType);

function toEvent(
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  requestId: string,
  key: string,
  pathParameters: Record<string, string>,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // A map with no prototype, as API Gateway delivers one: `?constructor=` and `?__proto__=` are parameters like any other.
  const query: Record<string, string> = Object.create(null);
  for (const [name, value] of url.searchParams) query[name] = Object.hasOwn(query, name) ? `${query[name]},${value}` : value;
  const cookies = request.headers.cookie
    ?.split(';')
    .map((cookie) => cookie.trim())
    .filter(Boolean);
  const text = isTextType(request.headers['content-type']);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies?.length ? { cookies } : {}),
    headers,
    ...(url.search ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: request.headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
        userAgent: request.headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(Object.keys(pathParameters).length ? { pathParameters } : {}),
    ...(body.length ? { body: text ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !text,
  };
}

function lambdaContext(group: Group, requestId: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `hushlink-local-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:hushlink-local-${group}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/hushlink-local-${group}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HttpError(504, 'timeout', 'The function did not answer in time.')), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function writeResult(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body = result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(body);
}

function sendProblem(response: ServerResponse, error: HttpError, requestId: string, headers: Record<string, string>): void {
  response.writeHead(error.status, { ...headers, 'content-type': 'application/problem+json', ...error.extras.headers });
  response.end(JSON.stringify(problemBody(error, requestId)));
}
