import { eventDeliveryId } from '../../ids.ts';
import { emittedEvents, type Secret, type StoredEvent } from '../secrets/model.ts';
import type { WebhookEndpoint } from './model.ts';
import type { WebhookPorts } from './ports.ts';
import { deliverMessage, sendWork } from './work.ts';

/** A write to an owned secret that added events, as the table's stream tells it: the secret after it, and those events. */
export interface SecretChange {
  secret: Pick<Secret, 'id' | 'viewsLeft' | 'workspaceId'> & { ownerId: string };
  events: StoredEvent[];
}

/**
 * Fans the events that changes added out to their owners' endpoints: one delivery per event
 * and endpoint subscribed to it, each with an id derived from both, so relaying a change twice
 * (the stream retrying a batch) makes no second delivery, and queues each delivery's first
 * attempt. Nothing reads or rewrites the secret: its events come with the change.
 * Each change settles on its own (the caller reports the first that failed).
 */
export async function relaySecretChanges(
  changes: SecretChange[],
  ports: Pick<WebhookPorts, 'webhooks' | 'queue'>,
): Promise<Array<PromiseSettledResult<number>>> {
  // One strongly consistent read of an owner's endpoints per batch, however many changes.
  const endpointsOf = new Map<string, Promise<WebhookEndpoint[]>>();
  const endpoints = (ownerId: string) => {
    let listed = endpointsOf.get(ownerId);
    if (!listed) {
      listed = ports.webhooks.listEndpoints(ownerId).then((all) => all.filter((endpoint) => endpoint.enabled));
      endpointsOf.set(ownerId, listed);
    }
    return listed;
  };
  return Promise.allSettled(changes.map(async (change) => relayChange(change, await endpoints(change.secret.ownerId), ports)));
}

async function relayChange(
  { secret, events: stored }: SecretChange,
  endpoints: WebhookEndpoint[],
  ports: Pick<WebhookPorts, 'webhooks' | 'queue'>,
): Promise<number> {
  const events = emittedEvents(secret, stored);
  const pairs = events.flatMap((event) =>
    endpoints.filter((endpoint) => endpoint.events.includes(event.type)).map((endpoint) => ({ event, endpoint })),
  );
  // Independent of one another: an owner with ten endpoints waits one round trip, not twenty.
  const queued = await Promise.all(
    pairs.map(async ({ event, endpoint }) => {
      const createdAt = Date.parse(event.occurred_at);
      const delivery = await ports.webhooks.insertDelivery({
        id: eventDeliveryId(event.id, endpoint.id, createdAt),
        endpointId: endpoint.id,
        userId: endpoint.userId,
        eventId: event.id,
        eventType: event.type,
        body: JSON.stringify(event),
        status: 'pending',
        attempts: [],
        createdAt,
      });
      // Queued again if an earlier relay of this change stored it but did not get to queue it.
      if (delivery.status !== 'pending' || delivery.attempts.length > 0) return 0;
      await sendWork(ports.queue, deliverMessage(delivery, 1));
      return 1;
    }),
  );
  return queued.reduce((sum: number, one) => sum + one, 0);
}

/** The schedule's half of the retry schedule: attempts due later than SQS can delay a message. */
export async function queueDueRetries(ports: Pick<WebhookPorts, 'webhooks' | 'queue' | 'clock'>, limit = 200): Promise<number> {
  const due = await ports.webhooks.dueRetries(ports.clock.now(), limit);
  await inChunks(due, (retry) =>
    sendWork(ports.queue, deliverMessage({ id: retry.deliveryId, endpointId: retry.endpointId, userId: retry.userId }, retry.attempt)),
  );
  return due.length;
}

/** Sends in parallel, 25 at a time. */
async function inChunks<T>(items: T[], send: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += 25) await Promise.all(items.slice(start, start + 25).map(send));
}
