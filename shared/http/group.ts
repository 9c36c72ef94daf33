import middy from '@middy/core';
import httpRouterHandler from '@middy/http-router';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Deps } from '../deps.ts';
import { routesOf, type Group, type OperationOf, type Route } from '../routes.ts';
import { accessLog, problemResponses, requestMetrics, responseHeaders } from './middleware.ts';
import { authenticate } from './auth.ts';
import { enforceCredentialRateLimit, enforceRateLimit } from './rateLimit.ts';
import { clientAddress } from './clientAddress.ts';
import { toApiRequest, type ApiReply, type ApiRequest } from './request.ts';

export type Operation = (request: ApiRequest, deps: Deps) => Promise<ApiReply>;
export type Operations<G extends Group> = Record<OperationOf<G>, Operation>;
export type GroupHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * The Lambda handler of one endpoint group: every row of the route table for the group,
 * each running the same steps (rate limit, then the operation), inside the shared middleware.
 */
export function groupHandler<G extends Group>(group: G, operations: Operations<G>, deps: Deps): GroupHandler {
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

async function run(route: Route, operation: Operation, event: APIGatewayProxyEventV2, deps: Deps): Promise<APIGatewayProxyStructuredResultV2> {
  const request = toApiRequest(event, route);
  request.sourceIp = clientAddress(request.headers, request.sourceIp, deps.config.ORIGIN_VERIFY);
  // Per address first: cheap, and it bounds how fast anyone can try credentials.
  if (route.rate) await enforceRateLimit(route.rate, request.sourceIp, deps);
  request.principal = await authenticate(route, request, deps);
  if (request.principal) {
    const { userId } = request.principal;
    await Promise.all([
      route.rate ? enforceCredentialRateLimit(route.rate, userId, deps) : undefined,
      deps.calls.countCall(userId, deps.clock.now()),
    ]);
  }
  const reply = await operation(request, deps);
  return {
    statusCode: reply.status,
    headers: { ...(reply.body === undefined ? {} : { 'content-type': 'application/json' }), ...reply.headers },
    ...(reply.body === undefined ? {} : { body: JSON.stringify(reply.body) }),
  };
}
