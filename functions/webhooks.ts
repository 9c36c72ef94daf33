import * as z from 'zod/mini';
import { kmsSealer } from '../shared/adapters/kms.ts';
import { systemTransport } from '../shared/webhooks/transport.ts';
import { sqsQueue } from '../shared/adapters/sqs.ts';
import { lambdaEntry, webhookPorts, type Deps } from '../shared/deps.ts';
import {
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  queueTestDelivery,
  registerEndpoint,
  registerWebhookRequest,
} from '../shared/domain/webhooks/endpoints.ts';
import { requireUser } from '../shared/http/auth.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { parseJsonBody, parseQuery } from '../shared/http/request.ts';
import { webhookLimits } from '../shared/limits.ts';

const { default: pageDefault, max: pageMax } = webhookLimits.deliveriesPageSize;
const deliveriesQuery = z.strictObject({
  limit: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(pageMax)), pageDefault),
  cursor: z.optional(z.string().check(z.maxLength(2048))),
});

/** The webhooks group (interface §4.5): endpoints, their delivery log, and test deliveries. */
export const operations: Operations<'webhooks'> = {
  async listWebhooks(request, deps) {
    return { status: 200, body: { items: await listEndpoints(requireUser(request.principal).userId, deps), next_cursor: null } };
  },

  async registerWebhook(request, deps) {
    const body = parseJsonBody(request, registerWebhookRequest);
    return { status: 201, body: await registerEndpoint(requireUser(request.principal).userId, body, webhookPorts(deps)) };
  },

  async deleteWebhook(request, deps) {
    const { userId } = requireUser(request.principal);
    await deleteEndpoint(userId, request.params.id ?? '', deps);
    return { status: 200, body: { id: request.params.id, deleted: true } };
  },

  async listWebhookDeliveries(request, deps) {
    const query = parseQuery(request, deliveriesQuery);
    const { userId } = requireUser(request.principal);
    return { status: 200, body: await listDeliveries(userId, request.params.id ?? '', query.limit, query.cursor ?? null, deps) };
  },

  async testWebhook(request, deps) {
    const { userId } = requireUser(request.principal);
    return { status: 202, body: await queueTestDelivery(userId, request.params.id ?? '', webhookPorts(deps)) };
  },
};

export const createHandler = (deps: Deps) => groupHandler('webhooks', operations, deps);
// Registration seals each endpoint's signing secret with KMS; only this function and the
// delivery worker can use the key.
export const handler = lambdaEntry(createHandler, (config) => ({ sealer: kmsSealer(config), transport: systemTransport(), queue: sqsQueue(config) }));
