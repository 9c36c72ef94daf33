import { eventDeliveryId } from '../../ids.ts';
import { secretEvents } from '../secrets/model.ts';
import type { WebhookPorts } from './ports.ts';
import { deliverMessage, sendWork } from './work.ts';

/**
 * Fans a secret's events not yet relayed out to its owner's endpoints: one delivery per event
 * and endpoint that subscribes to it, each with an id derived from both, so relaying the same
 * events twice (a redelivered message, the sweep racing the handler) makes no second delivery.
 * Anonymous secrets have no endpoints; their events are only marked relayed.
 */
export async function relaySecretEvents(secretId: string, ports: Pick<WebhookPorts, 'secrets' | 'webhooks' | 'queue'>): Promise<number> {
  const secret = await ports.secrets.get(secretId);
  if (!secret) return 0;
  const events = secretEvents(secret);
  const pending = events.slice(secret.eventsRelayed);
  let queued = 0;
  if (secret.ownerId && pending.length > 0) {
    const endpoints = (await ports.webhooks.listEndpoints(secret.ownerId)).filter((endpoint) => endpoint.enabled);
    const pairs = pending.flatMap((event) => endpoints.filter((endpoint) => endpoint.events.includes(event.type)).map((endpoint) => ({ event, endpoint })));
    // Independent of one another: an owner with ten endpoints waits one round trip, not twenty.
    const queuedEach = await Promise.all(
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
        // Queued again if an earlier relay stored it but did not get to queue it.
        if (delivery.status !== 'pending' || delivery.attempts.length > 0) return 0;
        await sendWork(ports.queue, deliverMessage(delivery, 1));
        return 1;
      }),
    );
    queued = queuedEach.reduce((sum: number, one) => sum + one, 0);
  }
  if (pending.length > 0) await ports.secrets.markRelayed(secretId, secret.eventsRelayed, events.length);
  return queued;
}

/**
 * The schedule's safety net for the outbox: secrets whose events were not relayed a minute
 * after they happened (the handler's notice was lost, or the worker failed) get a relay
 * message again.
 */
export async function relayStaleOutbox(ports: Pick<WebhookPorts, 'secrets' | 'queue' | 'clock'>, limit = 1000): Promise<number> {
  const stale = await ports.secrets.unrelayed(ports.clock.now() - 60_000, limit);
  await inChunks(stale, (id) => sendWork(ports.queue, { kind: 'relay', secret_id: id }));
  return stale.length;
}

/** Sends in parallel, 25 at a time: a backlog of anonymous secrets' events clears in one run. */
async function inChunks<T>(items: T[], send: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += 25) await Promise.all(items.slice(start, start + 25).map(send));
}

/** The schedule's half of the retry schedule: attempts due later than SQS can delay a message. */
export async function queueDueRetries(ports: Pick<WebhookPorts, 'webhooks' | 'queue' | 'clock'>, limit = 200): Promise<number> {
  const due = await ports.webhooks.dueRetries(ports.clock.now(), limit);
  await inChunks(due, (retry) => sendWork(ports.queue, deliverMessage({ id: retry.deliveryId, endpointId: retry.endpointId, userId: retry.userId }, retry.attempt)));
  return due.length;
}
