import { kmsSealer } from '../shared/adapters/kms.ts';
import { deleteEndpoint, listDeliveries, listEndpoints, queueTestDelivery, registerEndpoint } from '../shared/domain/webhooks/endpoints.ts';
import { webhooksRequests } from '../shared/api/webhooks.ts';
import type { WebhookPorts, WebhookTransport } from '../shared/domain/webhooks/ports.ts';
import { apiDeps, type ApiDeps } from './shared/apiDeps.ts';
import { requireUser } from '../shared/http/auth.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { webhookLimits } from '../shared/limits.ts';
import { webhooksRoutes } from '../shared/routes.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { DynamoWebhookStore } from '../shared/store/webhooks.ts';
import { systemResolver, type HostResolver } from '../shared/webhooks/destination.ts';

/**
 * The webhooks group's wiring: endpoints and their log, the sealer for signing secrets and the
 * resolver the destination checks ask (it sends nothing: the worker does). Test deliveries
 * reach the queue through the table's stream.
 */
export interface WebhooksDeps extends ApiDeps, Pick<WebhookPorts, 'webhooks' | 'sealer' | 'local'> {
  resolver: HostResolver;
}

export function compose(
  platform: Platform,
  adapters: Pick<Adapters, 'sealer'> & { transport: Pick<WebhookTransport, 'resolver'> },
): WebhooksDeps {
  const { db, config } = platform;
  return {
    ...apiDeps(platform),
    webhooks: new DynamoWebhookStore(db, config.TABLE_NAME, webhookLimits.deliveryLogSeconds),
    sealer: adapters.sealer,
    resolver: adapters.transport.resolver,
    local: config.HUSHLINK_MODE === 'local',
  };
}

/** The webhooks group (interface §4.5): endpoints, their delivery log, and test deliveries. */
export const operations: Operations<'webhooks', WebhooksDeps> = {
  async listWebhooks(request, deps) {
    return { status: 200, body: { items: await listEndpoints(requireUser(request.principal).userId, deps), next_cursor: null } };
  },

  async registerWebhook(request, deps) {
    const { url, events } = request.body;
    return { status: 201, body: await registerEndpoint(requireUser(request.principal).userId, { url, events }, deps) };
  },

  async deleteWebhook(request, deps) {
    const { userId } = requireUser(request.principal);
    await deleteEndpoint(userId, request.params.id ?? '', deps);
    return { status: 200, body: { id: request.params.id!, deleted: true } };
  },

  async listWebhookDeliveries(request, deps) {
    const { limit, cursor } = request.query;
    const { userId } = requireUser(request.principal);
    return { status: 200, body: await listDeliveries(userId, request.params.id ?? '', limit, cursor ?? null, deps) };
  },

  async testWebhook(request, deps) {
    const { userId } = requireUser(request.principal);
    return { status: 202, body: await queueTestDelivery(userId, request.params.id ?? '', deps) };
  },
};

export const createHandler = (deps: WebhooksDeps) => groupHandler(webhooksRoutes, operations, webhooksRequests, deps);
// Registration seals each endpoint's signing secret with KMS; only this function and the
// delivery worker can use the key.
export const handler = lambdaEntry((platform) =>
  createHandler(compose(platform, { sealer: kmsSealer(platform.config), transport: { resolver: systemResolver() } })),
);
