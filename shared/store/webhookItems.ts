import type { Delivery, DeliveryAttempt, WebhookEndpoint } from '../domain/webhooks/model.ts';
import type { DeliveryAttemptEntry, DeliveryItem, WebhookEndpointItem } from './items/index.ts';

// How webhook endpoints and deliveries map to their items' attributes (items/webhooks.ts has the keys and shapes).

export const endpointItem = (endpoint: WebhookEndpoint): Omit<WebhookEndpointItem, 'pk' | 'sk'> => ({
  type: 'webhook_endpoint',
  id: endpoint.id,
  user_id: endpoint.userId,
  url: endpoint.url,
  events: endpoint.events,
  sealed_secret: endpoint.sealedSecret,
  enabled: endpoint.enabled,
  consecutive_failures: endpoint.consecutiveFailures,
  created_at: endpoint.createdAt,
  ...(endpoint.disabledAt === undefined ? {} : { disabled_at: endpoint.disabledAt }),
});

export function endpointFromItem(item: Record<string, unknown>): WebhookEndpoint {
  return {
    id: item.id as string,
    userId: item.user_id as string,
    url: item.url as string,
    events: item.events as WebhookEndpoint['events'],
    sealedSecret: item.sealed_secret as string,
    enabled: item.enabled === true,
    consecutiveFailures: Number(item.consecutive_failures ?? 0),
    createdAt: item.created_at as number,
    ...(item.disabled_at === undefined ? {} : { disabledAt: item.disabled_at as number }),
  };
}

export const deliveryItem = (delivery: Delivery): Omit<DeliveryItem, 'pk' | 'sk' | 'ttl'> => ({
  type: 'webhook_delivery',
  id: delivery.id,
  endpoint_id: delivery.endpointId,
  user_id: delivery.userId,
  event_id: delivery.eventId,
  event_type: delivery.eventType,
  body: delivery.body,
  status: delivery.status,
  attempts: [],
  created_at: delivery.createdAt,
});

export const attemptItem = (attempt: DeliveryAttempt): DeliveryAttemptEntry => ({
  number: attempt.number,
  at: attempt.at,
  duration_ms: attempt.durationMs,
  signature: attempt.signature,
  ...(attempt.status === undefined ? {} : { status: attempt.status }),
  ...(attempt.error === undefined ? {} : { error: attempt.error }),
});

function attemptFromItem(item: Record<string, unknown>): DeliveryAttempt {
  return {
    number: item.number as number,
    at: item.at as number,
    durationMs: item.duration_ms as number,
    signature: item.signature as string,
    ...(item.status === undefined ? {} : { status: item.status as number }),
    ...(item.error === undefined ? {} : { error: item.error as string }),
  };
}

export function deliveryFromItem(item: Record<string, unknown>): Delivery {
  return {
    id: item.id as string,
    endpointId: item.endpoint_id as string,
    userId: item.user_id as string,
    eventId: item.event_id as string,
    eventType: item.event_type as Delivery['eventType'],
    body: item.body as string,
    status: item.status as Delivery['status'],
    attempts: ((item.attempts as Record<string, unknown>[] | undefined) ?? []).map(attemptFromItem),
    createdAt: item.created_at as number,
    ...(item.next_attempt_at === undefined ? {} : { nextAttemptAt: item.next_attempt_at as number }),
  };
}
