import { toIso } from '../../clock.ts';
import { newDeliveryId, newEventId, newWebhookId } from '../../ids.ts';
import { webhookLimits } from '../../limits.ts';
import { DestinationRefused, parseWebhookUrl, resolveDestination, type HostResolver } from '../../webhooks/destination.ts';
import { newSigningSecret } from '../../webhooks/signature.ts';
import type { SecretEventType } from '../secrets/model.ts';
import { Forbidden, Invalid, NotFound } from '../refusals.ts';
import type { Delivery, DeliveryAttempt, WebhookEndpoint, WebhookEventBody } from './model.ts';
import { secretEventTypes } from './model.ts';
import type { WebhookPorts } from './ports.ts';

/** An endpoint as its owner registers it: where to post, and which kinds (none given: all of them). */
export interface NewWebhookEndpoint {
  url: string;
  events?: SecretEventType[];
}

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  consecutive_failures: number;
  created_at: string;
  disabled_at: string | null;
}

export const endpointView = (endpoint: WebhookEndpoint): WebhookEndpointView => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  enabled: endpoint.enabled,
  consecutive_failures: endpoint.consecutiveFailures,
  created_at: toIso(endpoint.createdAt),
  disabled_at: endpoint.disabledAt === undefined ? null : toIso(endpoint.disabledAt),
});

/** A refused destination is the caller's input being wrong: the field, and why. */
function refusedUrl(error: DestinationRefused): Invalid {
  return new Invalid('This URL cannot receive webhooks.', [{ field: 'url', message: error.message }], { facts: { reason: error.reason } });
}

const noSuchEndpoint = () => new NotFound('No webhook endpoint of yours has this id.');

/**
 * Registers an endpoint after checking its URL and what its host resolves to now (delivery
 * checks again, since DNS can change). The signing secret is returned here only, and stored
 * sealed so the worker can sign with it.
 */
export async function registerEndpoint(
  userId: string,
  request: NewWebhookEndpoint,
  ports: Pick<WebhookPorts, 'webhooks' | 'sealer' | 'local' | 'clock'> & { resolver: HostResolver },
) {
  let url: URL;
  try {
    url = parseWebhookUrl(request.url, { local: ports.local });
    await resolveDestination(url, { local: ports.local, resolver: ports.resolver });
  } catch (error) {
    if (error instanceof DestinationRefused) throw refusedUrl(error);
    throw error;
  }
  const id = newWebhookId();
  const secret = newSigningSecret();
  const endpoint: WebhookEndpoint = {
    id,
    userId,
    url: url.href,
    events: request.events ?? [...secretEventTypes],
    sealedSecret: await ports.sealer.seal(secret, id),
    enabled: true,
    consecutiveFailures: 0,
    createdAt: ports.clock.now(),
  };
  if (!(await ports.webhooks.insertEndpoint(endpoint, webhookLimits.endpointsPerUser))) {
    throw new Forbidden(`An account can have at most ${webhookLimits.endpointsPerUser} webhook endpoints; delete one first.`);
  }
  return { ...endpointView(endpoint), secret };
}

async function ownEndpoint(userId: string, id: string, ports: Pick<WebhookPorts, 'webhooks'>): Promise<WebhookEndpoint> {
  const endpoint = /^whk_[A-Za-z0-9_-]{22}$/.test(id) ? await ports.webhooks.getEndpoint(userId, id) : null;
  if (!endpoint) throw noSuchEndpoint();
  return endpoint;
}

export async function listEndpoints(userId: string, ports: Pick<WebhookPorts, 'webhooks'>) {
  return (await ports.webhooks.listEndpoints(userId)).map(endpointView);
}

/** Removes the endpoint; its queued deliveries are cancelled when the worker reaches them. */
export async function deleteEndpoint(userId: string, id: string, ports: Pick<WebhookPorts, 'webhooks'>): Promise<void> {
  await ownEndpoint(userId, id, ports);
  if (!(await ports.webhooks.deleteEndpoint(userId, id))) throw noSuchEndpoint();
}

const attemptView = (attempt: DeliveryAttempt) => ({
  number: attempt.number,
  at: toIso(attempt.at),
  status: attempt.status ?? null,
  duration_ms: attempt.durationMs,
  error: attempt.error ?? null,
});

export const deliveryView = (delivery: Delivery) => ({
  id: delivery.id,
  event_id: delivery.eventId,
  type: delivery.eventType,
  status: delivery.status,
  created_at: toIso(delivery.createdAt),
  next_attempt_at: delivery.nextAttemptAt === undefined ? null : toIso(delivery.nextAttemptAt),
  request: { body: delivery.body },
  attempts: delivery.attempts.map(attemptView),
});

export async function listDeliveries(
  userId: string,
  id: string,
  limit: number,
  cursor: string | null,
  ports: Pick<WebhookPorts, 'webhooks'>,
) {
  await ownEndpoint(userId, id, ports);
  try {
    const page = await ports.webhooks.listDeliveries(id, limit, cursor);
    return { items: page.items.map(deliveryView), next_cursor: page.nextCursor };
  } catch (error) {
    if ((error as Error).name !== 'InvalidCursor') throw error;
    throw new Invalid('The cursor is not one this listing gave out.', [{ field: 'cursor', message: 'is not valid here', in: 'query' }]);
  }
}

/**
 * Records a real, signed delivery about no secret; the table's stream hands it to the relay,
 * which queues its first attempt, so it goes through the same worker, retries and log as event
 * deliveries. It is the one delivery a switched-off endpoint still gets, so its owner can check
 * the receiver is back: its success switches the endpoint on again.
 *
 * At most `pendingTestDeliveries` of an endpoint are pending at once (written, not yet
 * delivered, failed for good or cancelled): beyond that nothing is written and the answer is
 * `queued: false` with the newest pending one's id, whose log entry tells how it is going.
 */
export async function queueTestDelivery(userId: string, id: string, ports: Pick<WebhookPorts, 'webhooks' | 'clock'>) {
  const endpoint = await ownEndpoint(userId, id, ports);
  const now = ports.clock.now();
  const body: WebhookEventBody = { id: newEventId(), type: 'webhook.test', occurred_at: toIso(now), secret_id: null, views_left: null };
  const delivery: Delivery = {
    id: newDeliveryId(now),
    endpointId: endpoint.id,
    userId,
    eventId: body.id,
    eventType: body.type,
    body: JSON.stringify(body),
    status: 'pending',
    attempts: [],
    createdAt: now,
  };
  const outcome = await ports.webhooks.insertTestDelivery(
    delivery,
    webhookLimits.pendingTestDeliveries,
    now - webhookLimits.lostTestDeliverySeconds * 1000,
  );
  return outcome.queued ? { delivery_id: delivery.id, queued: true } : { delivery_id: outcome.newestPendingId, queued: false };
}
