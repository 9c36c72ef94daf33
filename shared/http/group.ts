import middy from '@middy/core';
import httpRouterHandler from '@middy/http-router';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ApiDeps } from './apiDeps.ts';
import { routesOf, type Group, type OperationOf, type Route } from '../routes.ts';
import { accessLog, problemResponses, requestMetrics, responseHeaders } from './middleware.ts';
import { authenticate } from './auth.ts';
import { clientAddress } from './clientAddress.ts';
import { toApiRequest, type ApiReply, type ApiRequest } from './request.ts';

export type Operation<D extends ApiDeps = ApiDeps> = (request: ApiRequest, deps: D) => Promise<ApiReply>;
export type Operations<G extends Group, D extends ApiDeps> = Record<OperationOf<G>, Operation<D>>;
export type GroupHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * The Lambda handler of one endpoint group: every row of the route table for the group,
 * each running the same steps (rate limit, then the operation), inside the shared middleware.
 */
export function groupHandler<G extends Group, D extends ApiDeps>(group: G, operations: Operations<G, D>, deps: D): GroupHandler {
  const routed = routesOf(group).map((route) => ({
    method: route.method,
    path: route.path,
    handler: (event: APIGatewayProxyEventV2) => run(route, operations[route.operation as OperationOf<G>], event, deps),
  }));
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(requestMetrics(deps.metrics))
    .use(accessLog(deps.logger, () => performance.now()))
    .use(responseHeaders(deps.config.WEB_ORIGIN))
    .use(problemResponses(deps.logger))
    .handler(httpRouterHandler(routed) as never) as unknown as GroupHandler;
}

async function run<D extends ApiDeps>(route: Route, operation: Operation<D>, event: APIGatewayProxyEventV2, deps: D): Promise<APIGatewayProxyStructuredResultV2> {
  const request = toApiRequest(event, route);
  request.sourceIp = clientAddress(request.headers, request.sourceIp, deps.config.ORIGIN_VERIFY);
  // Counting goes alongside the work, never before it: the limiter decides from what this
  // instance knows (shared/http/rateLimit.ts), and the counts are awaited with the operation.
  const counting: Array<Promise<void>> = [];
  try {
    // Per address first: it bounds how fast anyone can try credentials.
    if (route.rate) counting.push((await deps.rateLimiter.admitAddress(route.rate, request.sourceIp)).counted);
    request.principal = await authenticate(route, request, deps);
    if (request.principal) {
      const { userId } = request.principal;
      if (route.rate) counting.push((await deps.rateLimiter.admitUser(route.rate, userId)).counted);
      request.callCounted = countCall(userId, deps);
      counting.push(request.callCounted);
    }
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
