import type { Delivery, WebhookEndpoint } from '../../domain/webhooks/model.ts';

// Webhooks. Endpoints live in their owner's partition (one strongly consistent Query lists them),
// beside a count that bounds how many; deliveries in their endpoint's partition (their ids start
// with the time, so the log reads newest first), beside the set of its test deliveries not yet
// settled. All written by the webhook store (webhooks.ts, with pendingTests.ts).

export const endpointsPartition = (userId: string): string => `WEBHOOKS#${userId}`;

/** An endpoint (`WEBHOOKS#<user>` / `ENDPOINT#<id>`). */
export const endpointKey = (userId: string, id: string) => ({ pk: endpointsPartition(userId), sk: `ENDPOINT#${id}` });
export const endpointPrefix = 'ENDPOINT#';
export interface WebhookEndpointItem {
  pk: string;
  sk: string;
  type: 'webhook_endpoint';
  id: string;
  user_id: string;
  url: string;
  events: WebhookEndpoint['events'];
  sealed_secret: string;
  enabled: boolean;
  consecutive_failures: number;
  created_at: number;
  disabled_at?: number;
}

/** How many endpoints a user has (`WEBHOOKS#<user>` / `COUNT`), moved in the endpoint's transaction. */
export const endpointCountKey = (userId: string) => ({ pk: endpointsPartition(userId), sk: 'COUNT' });
export interface EndpointCountItem {
  pk: string;
  sk: string;
  endpoints: number;
}

export const deliveriesPartition = (endpointId: string): string => `DELIVERIES#${endpointId}`;

/** A delivery (`DELIVERIES#<endpoint>` / `DELIVERY#<id>`), on the work index (`RETRY`) while it waits longer than the queue holds. */
export const deliveryKey = (endpointId: string, id: string) => ({ pk: deliveriesPartition(endpointId), sk: `DELIVERY#${id}` });
export const deliveryPrefix = 'DELIVERY#';
/** The delivery a key names (the work index holds keys only). */
export const deliveryIdsOf = (key: { pk: unknown; sk: unknown }) => ({
  endpointId: String(key.pk).slice(deliveriesPartition('').length),
  deliveryId: String(key.sk).slice(deliveryPrefix.length),
});
export interface DeliveryAttemptEntry {
  number: number;
  at: number;
  duration_ms: number;
  signature: string;
  status?: number;
  error?: string;
}
export interface DeliveryItem {
  pk: string;
  sk: string;
  type: 'webhook_delivery';
  id: string;
  endpoint_id: string;
  user_id: string;
  event_id: string;
  event_type: Delivery['eventType'];
  body: string;
  status: Delivery['status'];
  attempts: DeliveryAttemptEntry[];
  created_at: number;
  next_attempt_at?: number;
  lease_until?: number;
  ttl: number;
  gsi2pk?: string;
  gsi2sk?: string;
}

/** An endpoint's test deliveries not yet settled (`DELIVERIES#<endpoint>` / `PENDING_TESTS`): the set of their ids. */
export const pendingTestsKey = (endpointId: string) => ({ pk: deliveriesPartition(endpointId), sk: 'PENDING_TESTS' });
export interface PendingTestsItem {
  pk: string;
  sk: string;
  ids: Set<string>;
  ttl: number;
}
