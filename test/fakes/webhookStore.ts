import type { Delivery, DeliveryAttempt, WebhookEndpoint } from '../../shared/domain/webhooks/model.ts';
import type { NextAttempt, SettlingDelivery, WebhookStore } from '../../shared/domain/webhooks/ports.ts';
import { deliveryIdTime } from '../../shared/ids.ts';
import { decodeCursor, encodeCursor, invalidCursor } from '../../shared/store/cursor.ts';
import { conditionFailed, dueOrder, pair, stored } from './workspaceData.ts';

interface DeliveryRecord {
  delivery: Delivery;
  leaseUntil?: number;
  /** On the retry index (gsi2 `RETRY#…`): a wait longer than SQS can hold. */
  retryAt?: number;
}

/**
 * WebhookStore in memory (shared/store/webhooks.ts, pendingTests.ts): at most `max` endpoints
 * per user, one switch-off per run of failures, each attempt claimed by one worker, at most
 * `max` test deliveries pending per endpoint, and the same cursors for the delivery log.
 */
export class MemoryWebhookStore implements WebhookStore {
  private readonly endpoints = new Map<string, WebhookEndpoint>();
  private readonly counts = new Map<string, number>();
  private readonly deliveries = new Map<string, DeliveryRecord>();
  private readonly pendingTests = new Map<string, Set<string>>();

  async insertEndpoint(endpoint: WebhookEndpoint, maxEndpoints: number): Promise<boolean> {
    const count = this.counts.get(endpoint.userId);
    const key = pair(endpoint.userId, endpoint.id);
    if ((count !== undefined && count >= maxEndpoints) || this.endpoints.has(key)) return false;
    this.counts.set(endpoint.userId, (count ?? 0) + 1);
    this.endpoints.set(key, stored(endpoint));
    return true;
  }

  async getEndpoint(userId: string, id: string): Promise<WebhookEndpoint | null> {
    const endpoint = this.endpoints.get(pair(userId, id));
    return endpoint ? stored(endpoint) : null;
  }

  async listEndpoints(userId: string): Promise<WebhookEndpoint[]> {
    // The partition's order (by id), then oldest first.
    return [...this.endpoints.values()]
      .filter((endpoint) => endpoint.userId === userId)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(stored);
  }

  async deleteEndpoint(userId: string, id: string): Promise<boolean> {
    if (!this.endpoints.delete(pair(userId, id))) return false;
    this.counts.set(userId, (this.counts.get(userId) ?? 0) - 1);
    return true;
  }

  async recordSuccess(userId: string, id: string): Promise<void> {
    const endpoint = this.endpoints.get(pair(userId, id));
    if (!endpoint) return;
    Object.assign(endpoint, { consecutiveFailures: 0, enabled: true });
    delete endpoint.disabledAt;
  }

  async recordFailure(userId: string, id: string, max: number, now: number): Promise<{ failures: number; disabled: boolean } | null> {
    const endpoint = this.endpoints.get(pair(userId, id));
    if (!endpoint) return null;
    endpoint.consecutiveFailures += 1;
    const failures = endpoint.consecutiveFailures;
    if (failures < max || !endpoint.enabled) return { failures, disabled: false };
    // Exactly one caller switches it off (and so emails the owner).
    Object.assign(endpoint, { enabled: false, disabledAt: now });
    return { failures, disabled: true };
  }

  async insertDelivery(delivery: Delivery): Promise<Delivery> {
    const held = this.deliveries.get(pair(delivery.endpointId, delivery.id));
    if (held) return stored(held.delivery);
    this.put(delivery);
    return stored(delivery);
  }

  /** Written as the store writes it: no attempts yet, no next attempt. */
  private put(delivery: Delivery): void {
    const { nextAttemptAt: _next, ...rest } = stored(delivery);
    this.deliveries.set(pair(delivery.endpointId, delivery.id), { delivery: { ...rest, attempts: [] } });
  }

  async insertTestDelivery(
    delivery: Delivery,
    max: number,
    lostBefore: number,
  ): Promise<{ queued: true } | { queued: false; newestPendingId: string }> {
    const pending =
      this.pendingTests.get(delivery.endpointId) ?? this.pendingTests.set(delivery.endpointId, new Set()).get(delivery.endpointId)!;
    if (pending.size >= max) {
      // A test delivery that old lost its messages and will never settle: it leaves the set, once.
      const lost = [...pending].filter((id) => deliveryIdTime(id) < lostBefore);
      for (const id of lost) pending.delete(id);
      if (pending.size >= max) return { queued: false, newestPendingId: [...pending].sort().at(-1) ?? delivery.id };
    }
    if (this.deliveries.has(pair(delivery.endpointId, delivery.id)))
      throw Object.assign(new Error('the delivery exists'), { name: 'TransactionCanceledException' });
    pending.add(delivery.id);
    this.put(delivery);
    return { queued: true };
  }

  async getDelivery(endpointId: string, deliveryId: string): Promise<Delivery | null> {
    const held = this.deliveries.get(pair(endpointId, deliveryId));
    return held ? stored(held.delivery) : null;
  }

  async claimAttempt(endpointId: string, deliveryId: string, number: number, now: number, leaseUntil: number): Promise<Delivery | null> {
    const held = this.deliveries.get(pair(endpointId, deliveryId));
    if (held?.delivery.status !== 'pending' || held.delivery.attempts.length !== number - 1) return null;
    if (held.leaseUntil !== undefined && held.leaseUntil >= now) return null;
    held.leaseUntil = leaseUntil;
    return stored(held.delivery);
  }

  async recordAttempt(delivery: SettlingDelivery, attempt: DeliveryAttempt, next: NextAttempt): Promise<void> {
    const held = this.deliveries.get(pair(delivery.endpointId, delivery.id));
    // Another attempt recorded first: the store's condition refuses, and the write throws.
    if (!held || held.delivery.attempts.length !== attempt.number - 1) throw conditionFailed(`attempt ${attempt.number} of ${delivery.id}`);
    held.delivery.attempts.push(stored(attempt));
    held.delivery.status = next.status;
    if (next.nextAttemptAt === undefined) delete held.delivery.nextAttemptAt;
    else held.delivery.nextAttemptAt = next.nextAttemptAt;
    delete held.leaseUntil;
    // On the retry index when the domain says the queue cannot hold the wait.
    if (next.swept === true) held.retryAt = next.nextAttemptAt;
    else delete held.retryAt;
    if (next.status !== 'pending') this.leaveTests(delivery);
  }

  async cancelDelivery(delivery: SettlingDelivery): Promise<void> {
    const held = this.deliveries.get(pair(delivery.endpointId, delivery.id));
    // Settled already: nothing to cancel.
    if (held?.delivery.status !== 'pending') return;
    held.delivery.status = 'cancelled';
    delete held.delivery.nextAttemptAt;
    delete held.leaseUntil;
    delete held.retryAt;
    this.leaveTests(delivery);
  }

  private leaveTests(delivery: SettlingDelivery): void {
    if (delivery.eventType === 'webhook.test') this.pendingTests.get(delivery.endpointId)?.delete(delivery.id);
  }

  async listDeliveries(
    endpointId: string,
    limit: number,
    cursor: string | null,
  ): Promise<{ items: Delivery[]; nextCursor: string | null }> {
    const pk = `DELIVERIES#${endpointId}`;
    // The store's cursors: the last item's key, refused when changed (or outside `DELIVERY#`).
    const after = cursor === null ? null : decodeCursor(cursor, pk, 'pk').sk!;
    if (after !== null && !after.startsWith('DELIVERY#')) throw invalidCursor();
    const keys = [...this.deliveries.values()]
      .filter((held) => held.delivery.endpointId === endpointId)
      .map((held) => `DELIVERY#${held.delivery.id}`)
      .sort()
      .reverse()
      .filter((sk) => after === null || sk < after);
    const page = keys.slice(0, limit);
    return {
      items: page.map((sk) => stored(this.deliveries.get(pair(endpointId, sk.slice('DELIVERY#'.length)))!.delivery)),
      nextCursor: keys.length > limit ? encodeCursor({ pk, sk: page.at(-1)! }) : null,
    };
  }

  async dueRetries(
    now: number,
    limit: number,
  ): Promise<Array<{ endpointId: string; deliveryId: string; userId: string; attempt: number }>> {
    return [...this.deliveries.values()]
      .filter((held) => held.retryAt !== undefined && held.retryAt <= now)
      .sort((a, b) => (dueOrder(a.retryAt!, a.delivery.id) < dueOrder(b.retryAt!, b.delivery.id) ? -1 : 1))
      .slice(0, limit)
      .filter((held) => held.delivery.status === 'pending')
      .map(({ delivery }) => ({
        endpointId: delivery.endpointId,
        deliveryId: delivery.id,
        userId: delivery.userId,
        attempt: delivery.attempts.length + 1,
      }));
  }
}
