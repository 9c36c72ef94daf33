import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { SchemaName, Schemas } from '../api/index.ts';
import { isLenient } from '../api/common.ts';
import { routeKey, routesOf, type Group, type OperationOf, type Route, type RouteRow } from '../routes.ts';
import type { ApiDeps } from './apiDeps.ts';
import { authenticate } from './auth.ts';
import { clientAddress } from './clientAddress.ts';
import { HttpError } from './errors.ts';
import { accessLog, problemResponses, requestMetrics, responseHeaders } from './middleware.ts';
import { parseJsonBody, parseQuery, toRawRequest, type ApiReply, type ApiRequest } from './request.ts';

type RowOf<Op> = Extract<RouteRow, { operation: Op }>;
type Parsed<Name> = Name extends SchemaName ? z.output<Schemas[Name]> : undefined;
/** What a route's operation is handed: its body and query as its row's schemas parse them. */
export type RequestOf<Op> = ApiRequest<Parsed<RowOf<Op>['body']>, Parsed<RowOf<Op>['query']>>;
/** What it must answer: its row's success status, with a body of its row's reply schema. */
export type ReplyOf<Op> = ApiReply<RowOf<Op>['reply']['status'], Parsed<RowOf<Op>['reply']['body']>>;

/** The operations of one group, each typed by its row: its input parsed, its answer checked. */
export type Operations<G extends Group, D extends ApiDeps> = {
  [Op in OperationOf<G>]: (request: RequestOf<Op>, deps: D) => Promise<ReplyOf<Op>>;
};
/** The schemas a group's rows name (its contract, `shared/api/<group>.ts`). */
export type ContractOf<G extends Group> = Pick<Schemas, Extract<Extract<RouteRow, { group: G }>['body' | 'query'], SchemaName>>;
export type GroupHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

type AnyOperation<D> = (request: ApiRequest, deps: D) => Promise<ApiReply>;

/**
 * The Lambda handler of one endpoint group: every row of the route table for the group, each
 * running the same steps (rate limit, credential, body and query parsed with the row's
 * schemas, then the operation), inside the shared middleware. API Gateway has matched the
 * route already: `event.routeKey` names the row.
 */
export function groupHandler<G extends Group, D extends ApiDeps>(group: G, operations: Operations<G, D>, contract: ContractOf<G>, deps: D): GroupHandler {
  const byKey = new Map(
    routesOf(group).map((route) => [routeKey(route), { route, operation: operations[route.operation as OperationOf<G>] as unknown as AnyOperation<D> }]),
  );
  const schemaOf = (name: SchemaName | null) => (name === null ? null : (contract as Record<string, z.ZodMiniType>)[name]!);
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(requestMetrics(deps.metrics))
    .use(accessLog(deps.logger, () => performance.now()))
    .use(responseHeaders(deps.config.WEB_ORIGIN))
    .use(problemResponses(deps.logger))
    .handler(async (event) => {
      const entry = byKey.get(event.routeKey);
      if (!entry) throw new HttpError(404, 'not_found', `No route for ${event.routeKey}.`);
      return run(entry.route, entry.operation, schemaOf(entry.route.body), schemaOf(entry.route.query), event, deps);
    }) as unknown as GroupHandler;
}

async function run<D extends ApiDeps>(
  route: Route,
  operation: AnyOperation<D>,
  bodySchema: z.ZodMiniType | null,
  querySchema: z.ZodMiniType | null,
  event: APIGatewayProxyEventV2,
  deps: D,
): Promise<APIGatewayProxyStructuredResultV2> {
  const raw = toRawRequest(event, route);
  raw.sourceIp = clientAddress(raw.headers, raw.sourceIp, deps.config.ORIGIN_VERIFY);
  // Counting goes alongside the work, never before it: the limiter decides from what this
  // instance knows (shared/http/rateLimit.ts), and the counts are awaited with the operation.
  const counting: Array<Promise<void>> = [];
  try {
    // Per address first: it bounds how fast anyone can try credentials.
    if (route.rate) counting.push((await deps.rateLimiter.admitAddress(route.rate, raw.sourceIp)).counted);
    raw.principal = await authenticate(route, raw, deps);
    if (raw.principal) {
      const { userId } = raw.principal;
      if (route.rate) counting.push((await deps.rateLimiter.admitUser(route.rate, userId)).counted);
      raw.callCounted = countCall(userId, deps);
      counting.push(raw.callCounted);
    }
    const { rawBody: _body, rawQuery: _query, ...rest } = raw;
    const request: ApiRequest = {
      ...rest,
      body: bodySchema ? parseJsonBody(raw, bodySchema, isLenient(bodySchema)) : undefined,
      query: querySchema ? parseQuery(raw, querySchema) : undefined,
    };
    const reply = await operation(request, deps);
    return {
      statusCode: reply.status,
      headers: { ...(reply.body === undefined ? {} : { 'content-type': 'application/json' }), ...reply.headers },
      ...(reply.body === undefined ? {} : { body: JSON.stringify(reply.body) }),
    };
  } finally {
    await Promise.all(counting);
  }
}

/** This month's call count of the caller; a count the table refuses is logged, never the caller's problem. */
function countCall(userId: string, deps: ApiDeps): Promise<void> {
  return deps.calls.countCall(userId, deps.clock.now()).catch((error: unknown) => {
    deps.logger.warn('call not counted', { error: (error as Error).name });
  });
}
