import { Agent, request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { expect } from 'vitest';
import { matchRoute, type Route } from '../../../shared/routes.ts';
import { checkApiResponse } from '../contractCheck.ts';
import { scimTypes } from '../../../shared/domain/scim/model.ts';

/**
 * HTTP for the property suites: `node:http` on kept-alive sockets rather than fetch, so paths,
 * headers and bodies reach the gateway as generated (fetch normalises paths and refuses some
 * header values), and the checks every answer must pass, whatever was sent.
 */

export interface SentRequest {
  method: string;
  path: string;
  headers: OutgoingHttpHeaders;
  body?: string | Uint8Array;
}

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export function rawClient(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  function send(request: SentRequest): Promise<RawReply> {
    const headers: OutgoingHttpHeaders = { ...request.headers };
    // Node frames a GET or DELETE body only when told its length; unframed bytes would be read
    // as the next request on the kept-alive connection.
    if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest({ host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
  }
  return { send, close: () => agent.destroy() };
}

const stackTrace = /\n\s+at\s|\bat\s+\S+\s+\(|\.ts:\d+:\d+|node_modules|node:internal|file:\/\/|\b(?:Type|Reference|Range|Syntax)?Error:\s/;

/** A short, printable account of a request, for failure messages. */
export function describeRequest(request: SentRequest): string {
  const body =
    request.body === undefined
      ? '(no body)'
      : typeof request.body === 'string'
        ? JSON.stringify(request.body.slice(0, 300))
        : `${request.body.length} bytes`;
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      typeof value === 'string' && value.length > 120 ? `${value.slice(0, 120)}… (${value.length})` : value,
    ]),
  );
  return `${request.method} ${request.path.length > 300 ? `${request.path.slice(0, 300)}… (${request.path.length})` : request.path} ${JSON.stringify(headers)} ${body}`;
}

/**
 * What every answer must be: never a 5xx; a refusal is problem+json (RFC 9457) whose `status`
 * is the HTTP status, with a snake_case `code`, and a 400 names what was wrong in `errors`
 * (`body…`, `query…`, `header…`, `path…`); no stack trace; and for a request a route serves,
 * a status its row lists and a body the OpenAPI document describes (the contract check).
 * Only the HTTP server's own refusal of a request it cannot parse (400, 414, 431) has no body.
 * Under /scim/v2/ a refusal is SCIM's error message instead (`checkScimError`).
 */
export function checkReply(request: SentRequest, reply: RawReply): void {
  const context = `${describeRequest(request)}\n→ ${reply.status} ${reply.text.slice(0, 400)}`;
  expect(reply.status, context).toBeLessThan(500);
  if (reply.status < 400) {
    const route = routeOf(request);
    expect(route, `${context}: a success from no route`).not.toBeNull();
    checkApiResponse(request.method, new URL(request.path, 'http://127.0.0.1'), {
      status: reply.status,
      contentType: reply.headers['content-type'] ?? '',
      text: reply.text,
    });
    return;
  }
  expect(reply.text, `${context}: stack trace in the answer`).not.toMatch(stackTrace);
  if (reply.text === '') {
    expect([400, 414, 431], context).toContain(reply.status);
    return;
  }
  if (speaksScim(request) && !answeredByGateway(reply)) return checkScimError(request, reply, context);
  expect(reply.headers['content-type'], context).toMatch(/^application\/problem\+json/);
  let problem: Record<string, unknown>;
  try {
    problem = JSON.parse(reply.text) as Record<string, unknown>;
  } catch {
    throw new Error(`${context}: the problem is not JSON`);
  }
  expect(problem.status, context).toBe(reply.status);
  expect(problem.code, context).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
  expect(typeof problem.detail, context).toBe('string');
  expect(typeof problem.title, context).toBe('string');
  expect(typeof problem.type, context).toBe('string');
  if (reply.headers['x-request-id'] !== undefined) expect(problem.request_id, context).toBe(reply.headers['x-request-id']);
  const route = routeOf(request);
  if (!route) return;
  if (reply.status === 400) {
    expect(Array.isArray(problem.errors) && problem.errors.length > 0, `${context}: a 400 without errors`).toBe(true);
    for (const error of problem.errors as Array<Record<string, unknown>>) {
      expect(error.path, context).toMatch(/^(body|query|header|path)(\.|$)/);
      expect(typeof error.message, context).toBe('string');
    }
  }
  checkApiResponse(request.method, new URL(request.path, 'http://127.0.0.1'), {
    status: reply.status,
    contentType: reply.headers['content-type'] ?? '',
    text: reply.text,
  });
}

/** The row that serves a request, as the gateway matches it (null: the gateway answers). */
export function routeOf(request: Pick<SentRequest, 'method' | 'path'>): Route | null {
  if (!URL.canParse(request.path, 'http://127.0.0.1')) return null;
  const match = matchRoute(request.method, new URL(request.path, 'http://127.0.0.1').pathname);
  return match.route;
}

/**
 * The scim function answers everything under /scim/v2/ (a SCIM row, or API Gateway's `ANY
 * /scim/v2/{proxy+}` for the rest: 405, 404), the path as the gateway's URL parser reads it
 * (`/scim/v2/Users/..` is `/scim/v2/`, still the function's).
 */
function speaksScim(request: SentRequest): boolean {
  if (!URL.canParse(request.path, 'http://127.0.0.1')) return false;
  return routeOf(request)?.media === 'scim' || new URL(request.path, 'http://127.0.0.1').pathname.startsWith('/scim/v2/');
}

/**
 * What the local gateway answers itself before any function, in problem+json whatever the path
 * (local/gateway.ts): a body over API Gateway's 10 MB (413). Its other answers (a target the URL
 * parser refuses, a path outside the API) never reach a /scim/v2/ path.
 */
const answeredByGateway = (reply: RawReply) =>
  reply.status === 413 && /^application\/problem\+json/.test(reply.headers['content-type'] ?? '');

/**
 * SCIM's error message (RFC 7644 §3.12) in application/scim+json: the Error schema alone in
 * `schemas`, `status` the HTTP status as a string, a `detail`, a `scimType` of the RFC's when
 * there is one, and always one on a route's 400 (an unreadable body is `invalidSyntax`); 401
 * with `WWW-Authenticate: Bearer`, 405 with `Allow`.
 */
function checkScimError(request: SentRequest, reply: RawReply, context: string): void {
  expect(reply.headers['content-type'], context).toMatch(/^application\/scim\+json/);
  let error: Record<string, unknown>;
  try {
    error = JSON.parse(reply.text) as Record<string, unknown>;
  } catch {
    throw new Error(`${context}: the SCIM error is not JSON`);
  }
  expect(error.schemas, context).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
  expect(error.status, context).toBe(String(reply.status));
  expect(typeof error.detail === 'string' && error.detail.trim() !== '', `${context}: no detail`).toBe(true);
  if (error.scimType !== undefined) expect(scimTypes as readonly string[], context).toContain(error.scimType);
  if (reply.status === 401) expect(reply.headers['www-authenticate'], context).toMatch(/^Bearer/);
  if (reply.status === 405) expect(reply.headers.allow, `${context}: a 405 without allow`).toMatch(/^[A-Z]+(?:, [A-Z]+)*$/);
  const route = routeOf(request);
  if (!route) return;
  if (reply.status === 400) expect(error.scimType, `${context}: a 400 without a scimType`).toEqual(expect.any(String));
  checkApiResponse(request.method, new URL(request.path, 'http://127.0.0.1'), {
    status: reply.status,
    contentType: reply.headers['content-type'] ?? '',
    text: reply.text,
  });
}
