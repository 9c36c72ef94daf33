import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { SchemaName, Schemas } from '../api/index.ts';
import { isLenient } from '../api/input.ts';
import { methodsAt, routeKey, type Group, type OperationOf, type Route, type RouteRow } from '../routes.ts';
import type { Platform } from '../platform.ts';
import { defaultRequestBudget, requestDeadline, type Deadline, type RequestBudget } from '../deadline.ts';
import { clientAddress } from './clientAddress.ts';
import { HttpError } from './errors.ts';
import { accessLog, problemResponses, requestMetrics, responseHeaders, scimMediaType } from './middleware.ts';
import { parseJsonBody, parseQuery, toRawRequest, type ApiReply, type ApiRequest, type RawRequest } from './request.ts';

/**
 * What runs before a route's operation: refuses the request (throws an HttpError), or lets it
 * through, having set its principal and pushed any counts still in flight onto `counting`
 * (awaited with the operation). Each function's wiring brings the one its routes need.
 */
export type RequestGuard = (route: Route, request: RawRequest, counting: Array<Promise<void>>) => Promise<void>;

/** What every group's handler needs: the platform and its guard. */
export interface GroupDeps extends Platform {
  guard: RequestGuard;
  /** The time each request has (shared/deadline.ts): the API functions' default unless a test sets less. */
  requestBudget?: RequestBudget;
}

/** The guard of a group whose every route is public and unlimited: nothing to check. */
export const publicRoutesOnly: RequestGuard = async (route) => {
  if (route.credential !== 'public' || route.rate !== null)
    throw new Error(`${routeKey(route)} needs credentials or limits this function was not wired with`);
};

type RowOf<Op> = Extract<RouteRow, { operation: Op }>;
type Parsed<Name> = Name extends SchemaName ? z.output<Schemas[Name]> : undefined;
/** What a route's operation is handed: its body and query as its row's schemas parse them. */
export type RequestOf<Op> = ApiRequest<Parsed<RowOf<Op>['body']>, Parsed<RowOf<Op>['query']>>;
/**
 * What it must answer: its row's success status, with a body of its row's reply schema; a row
 * that answers a file (`download`) sends the file's text, written by the operation, instead.
 */
export type ReplyOf<Op> =
  | ApiReply<RowOf<Op>['reply']['status'], Parsed<RowOf<Op>['reply']['body']>>
  | (RowOf<Op> extends { accepted: { status: infer S; body: infer B } } ? ApiReply<S & number, Parsed<B>> : never)
  | (RowOf<Op> extends { download: string }
      ? Omit<ApiReply<RowOf<Op>['reply']['status']>, 'body'> & { text: string; headers: Record<string, string> }
      : never);

/** The operations of one group, each typed by its row: its input parsed, its answer checked. */
export type Operations<G extends Group, D extends GroupDeps> = {
  [Op in OperationOf<G>]: (request: RequestOf<Op>, deps: D) => Promise<ReplyOf<Op>>;
};
/** The schemas a group's rows name (its contract, `shared/api/<group>.ts`). */
export type ContractOf<G extends Group> = Pick<Schemas, Extract<Extract<RouteRow, { group: G }>['body' | 'query'], SchemaName>>;
export type GroupHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

type AnyOperation<D> = (request: ApiRequest, deps: D) => Promise<Omit<ApiReply, 'body'> & { body?: unknown }>;

/**
 * The Lambda handler of one endpoint group: every row of the route table for the group (its
 * part of the table, `<group>Routes`), each
 * running the same steps (the guard: rate limit and credential; body and query parsed with the
 * row's schemas; then the operation), inside the shared middleware. API Gateway has matched
 * the route already: `event.routeKey` names the row.
 */
export function groupHandler<G extends Group, D extends GroupDeps>(
  rows: readonly Extract<RouteRow, { group: G }>[],
  operations: Operations<G, D>,
  contract: ContractOf<G>,
  deps: D,
): GroupHandler {
  const byKey = new Map(
    (rows as readonly Route[]).map((route) => [
      routeKey(route),
      { route, operation: operations[route.operation as OperationOf<G>] as unknown as AnyOperation<D> },
    ]),
  );
  const schemaOf = (name: SchemaName | null) => (name === null ? null : (contract as Record<string, z.ZodMiniType>)[name]!);
  // A group whose every route speaks SCIM answers in SCIM's shapes, errors and unmatched requests included.
  const media = (rows as readonly Route[]).every((route) => route.media === 'scim') ? 'scim' : 'problem';
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(requestMetrics(deps.metrics, rows))
    .use(accessLog(deps.logger, () => performance.now()))
    .use(responseHeaders(deps.config.WEB_ORIGIN))
    .use(problemResponses(deps.logger, media, rows))
    .handler(async (event, context) => {
      // Read first: what the invocation has left is Lambda's word on when it will be stopped.
      const deadline = requestDeadline(deps.requestBudget ?? defaultRequestBudget, invocationLeft(context));
      const entry = byKey.get(event.routeKey);
      if (!entry) throw unmatched(rows, event);
      return run(entry.route, entry.operation, schemaOf(entry.route.body), schemaOf(entry.route.query), event, deadline, deps);
    }) as unknown as GroupHandler;
}

/** The invocation's remaining time, when its context tells (Lambda's and the local gateway's do; a test's may not). */
const invocationLeft = (context: Partial<Context> | undefined): number | undefined =>
  typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;

/**
 * A request no row of the group serves (a group with a fallback route, `scimFallbackPath`, gets
 * them): 405 naming what is served at the path, 404 when nothing is.
 */
function unmatched(rows: readonly Route[], event: APIGatewayProxyEventV2): HttpError {
  const allowed = methodsAt(rows, event.rawPath);
  const method = event.requestContext.http.method;
  if (allowed.length === 0) return new HttpError(404, 'not_found', `Nothing is served at ${event.rawPath}.`);
  return new HttpError(405, 'method_not_allowed', `${method} is not served at ${event.rawPath}: ${allowed.join(', ')} is.`, {
    headers: { allow: allowed.join(', ') },
  });
}

async function run<D extends GroupDeps>(
  route: Route,
  operation: AnyOperation<D>,
  bodySchema: z.ZodMiniType | null,
  querySchema: z.ZodMiniType | null,
  event: APIGatewayProxyEventV2,
  deadline: Deadline,
  deps: D,
): Promise<APIGatewayProxyStructuredResultV2> {
  const raw = toRawRequest(event, route, deadline);
  raw.sourceIp = clientAddress(raw.headers, raw.sourceIp, deps.config.ORIGIN_VERIFY);
  const counting: Array<Promise<void>> = [];
  try {
    // API Gateway takes bodies up to 10 MB: a route that takes less refuses the rest here (the
    // local gateway stops reading sooner).
    if (route.maxBodyBytes !== undefined && raw.rawBody.length > route.maxBodyBytes) throw bodyTooLarge(route.maxBodyBytes);
    await deps.guard(route, raw, counting);
    const { rawQuery: _query, ...rest } = raw;
    const request: ApiRequest = {
      ...rest,
      body: bodySchema ? parseJsonBody(raw, bodySchema, isLenient(bodySchema)) : undefined,
      query: querySchema ? parseQuery(raw, querySchema) : undefined,
    };
    const reply = await operation(request, deps);
    const json = route.media === 'scim' ? scimMediaType : 'application/json';
    if (reply.text !== undefined) {
      return { statusCode: reply.status, headers: { 'content-type': 'text/plain; charset=utf-8', ...reply.headers }, body: reply.text };
    }
    return {
      statusCode: reply.status,
      headers: { ...(reply.body === undefined ? {} : { 'content-type': json }), ...reply.headers },
      ...(reply.cookies?.length ? { cookies: reply.cookies } : {}),
      ...(reply.body === undefined ? {} : { body: reply.serialized ?? JSON.stringify(reply.body) }),
    };
  } finally {
    await Promise.all(counting);
  }
}

/** 413 for a body over what the route takes. */
export const bodyTooLarge = (maxBytes: number) =>
  new HttpError(413, 'payload_too_large', `This route takes bodies of at most ${maxBytes} bytes.`);
