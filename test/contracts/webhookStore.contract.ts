import { beforeEach, describe, expect, it } from 'vitest';
import type { Delivery, DeliveryAttempt, WebhookEndpoint } from '../../shared/domain/webhooks/model.ts';
import type { WebhookStore } from '../../shared/domain/webhooks/ports.ts';
import { newDeliveryId, newEventId, newUserId, newWebhookId } from '../../shared/ids.ts';
import { t0 } from './secretFixtures.ts';

const minute = 60_000;

export const anEndpoint = (userId: string, overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: newWebhookId(),
  userId,
  url: 'https://hooks.example.com/hushlink',
  events: ['secret.viewed', 'secret.burned'],
  sealedSecret: 'sealed-signing-secret',
  enabled: true,
  consecutiveFailures: 0,
  createdAt: t0,
  ...overrides,
});

export const aDelivery = (endpoint: WebhookEndpoint, overrides: Partial<Delivery> = {}): Delivery => ({
  id: newDeliveryId(overrides.createdAt ?? t0),
  endpointId: endpoint.id,
  userId: endpoint.userId,
  eventId: newEventId(),
  eventType: 'secret.viewed',
  body: '{"type":"secret.viewed"}',
  status: 'pending',
  attempts: [],
  createdAt: t0,
  ...overrides,
});

const anAttempt = (number: number, at: number, overrides: Partial<DeliveryAttempt> = {}): DeliveryAttempt => ({
  number,
  at,
  status: 500,
  durationMs: 120,
  signature: `t=${at},v1=abc`,
  ...overrides,
});

/**
 * The WebhookStore port's contract (shared/store/webhooks.ts, pendingTests.ts): at most `max`
 * endpoints per user and `max` pending test deliveries per endpoint however calls interleave,
 * exactly one caller switching an endpoint off, each attempt claimed by one worker and recorded
 * once, and the retry index holding only waits SQS cannot. `make` must give a store whose retry
 * index is empty.
 */
export function describeWebhookStoreContract(name: string, make: () => WebhookStore | Promise<WebhookStore>): void {
  describe(`WebhookStore contract: ${name}`, () => {
    let store: WebhookStore;
    let userId: string;
    let endpoint: WebhookEndpoint;
    beforeEach(async () => {
      store = await make();
      userId = newUserId();
      endpoint = anEndpoint(userId);
      await store.insertEndpoint(endpoint, 10);
    });

    describe('endpoints', () => {
      it('keeps an endpoint as given, listed oldest first', async () => {
        const later = anEndpoint(userId, { createdAt: t0 + minute, events: ['secret.created'], disabledAt: t0, enabled: false });
        const earlier = anEndpoint(userId, { createdAt: t0 - minute });
        for (const one of [later, earlier]) expect(await store.insertEndpoint(one, 10)).toBe(true);
        expect(await store.getEndpoint(userId, later.id)).toEqual(later);
        expect(await store.listEndpoints(userId)).toEqual([earlier, endpoint, later]);
        expect(await store.getEndpoint(newUserId(), endpoint.id)).toBeNull();
        expect(await store.listEndpoints(newUserId())).toEqual([]);
      });

      it('adds no more than `max` per user, however many at once; a deletion frees a place', async () => {
        const outcomes = await Promise.all(Array.from({ length: 5 }, () => store.insertEndpoint(anEndpoint(userId), 3)));
        expect(outcomes.filter(Boolean)).toHaveLength(2);
        expect(await store.listEndpoints(userId)).toHaveLength(3);
        expect(await store.deleteEndpoint(userId, endpoint.id)).toBe(true);
        expect(await store.deleteEndpoint(userId, endpoint.id)).toBe(false);
        expect(await store.insertEndpoint(anEndpoint(userId), 3)).toBe(true);
        expect(await store.insertEndpoint(anEndpoint(userId), 3)).toBe(false);
      });

      it('refuses an id it holds already', async () => {
        expect(await store.insertEndpoint({ ...endpoint, url: 'https://other.example.com' }, 10)).toBe(false);
        expect((await store.getEndpoint(userId, endpoint.id))!.url).toBe(endpoint.url);
      });

      it('counts failures and switches the endpoint off once, for exactly one of those failing at once', async () => {
        expect(await store.recordFailure(userId, endpoint.id, 3, t0)).toEqual({ failures: 1, disabled: false });
        const outcomes = await Promise.all(Array.from({ length: 4 }, () => store.recordFailure(userId, endpoint.id, 3, t0 + minute)));
        expect(outcomes.filter((outcome) => outcome?.disabled)).toHaveLength(1);
        expect(outcomes.map((outcome) => outcome!.failures).sort()).toEqual([2, 3, 4, 5]);
        expect(await store.getEndpoint(userId, endpoint.id)).toMatchObject({
          enabled: false,
          consecutiveFailures: 5,
          disabledAt: t0 + minute,
        });
        expect(await store.recordFailure(userId, endpoint.id, 3, t0)).toEqual({ failures: 6, disabled: false });
        expect(await store.recordFailure(userId, newWebhookId(), 3, t0)).toBeNull();
      });

      it('a success counts failures from 0 again and switches the endpoint back on', async () => {
        await store.recordFailure(userId, endpoint.id, 1, t0);
        await store.recordSuccess(userId, endpoint.id);
        expect(await store.getEndpoint(userId, endpoint.id)).toEqual(endpoint);
        await store.recordSuccess(userId, newWebhookId());
        expect(await store.getEndpoint(userId, newWebhookId())).toBeNull();
      });
    });

    describe('deliveries', () => {
      it('adds a delivery once; a second add answers the one stored', async () => {
        const delivery = aDelivery(endpoint);
        expect(await store.insertDelivery(delivery)).toEqual(delivery);
        expect(await store.getDelivery(endpoint.id, delivery.id)).toEqual(delivery);
        expect(await store.insertDelivery({ ...delivery, body: 'other' })).toEqual(delivery);
        expect(await store.getDelivery(endpoint.id, newDeliveryId(t0))).toBeNull();
      });

      it('keeps a new delivery without attempts or a next attempt, whatever it was given with', async () => {
        const delivery = aDelivery(endpoint, { nextAttemptAt: t0 + minute, attempts: [anAttempt(1, t0)] });
        await store.insertDelivery(delivery);
        const stored = { ...delivery, attempts: [] };
        delete stored.nextAttemptAt;
        expect(await store.getDelivery(endpoint.id, delivery.id)).toEqual(stored);
      });

      it('gives each attempt to one worker at a time, and again once its lease ends', async () => {
        const delivery = aDelivery(endpoint);
        await store.insertDelivery(delivery);
        const claims = await Promise.all([1, 2, 3].map(() => store.claimAttempt(endpoint.id, delivery.id, 1, t0, t0 + minute)));
        expect(claims.filter((claim) => claim !== null)).toHaveLength(1);
        expect(claims.find((claim) => claim !== null)).toEqual(delivery);
        expect(await store.claimAttempt(endpoint.id, delivery.id, 1, t0 + minute, t0 + 2 * minute)).toBeNull();
        expect(await store.claimAttempt(endpoint.id, delivery.id, 2, t0 + 2 * minute, t0 + 3 * minute)).toBeNull();
        expect(await store.claimAttempt(endpoint.id, delivery.id, 1, t0 + minute + 1, t0 + 2 * minute)).toEqual(delivery);
        expect(await store.claimAttempt(endpoint.id, newDeliveryId(t0), 1, t0, t0 + minute)).toBeNull();
      });

      it('records an attempt once: the next is due, claimable as the next number; a settled one is not', async () => {
        const delivery = aDelivery(endpoint);
        await store.insertDelivery(delivery);
        await store.claimAttempt(endpoint.id, delivery.id, 1, t0, t0 + minute);
        const first = anAttempt(1, t0, { error: 'timeout', status: undefined });
        delete first.status;
        await store.recordAttempt(delivery, first, { status: 'pending', nextAttemptAt: t0 + minute, swept: false });
        expect(await store.getDelivery(endpoint.id, delivery.id)).toEqual({ ...delivery, attempts: [first], nextAttemptAt: t0 + minute });
        await expect(
          store.recordAttempt(delivery, first, { status: 'pending', nextAttemptAt: t0 + minute, swept: false }),
        ).rejects.toThrow();
        expect(await store.claimAttempt(endpoint.id, delivery.id, 2, t0 + minute, t0 + 2 * minute)).not.toBeNull();
        const second = anAttempt(2, t0 + minute, { status: 204 });
        await store.recordAttempt(delivery, second, { status: 'delivered' });
        expect(await store.getDelivery(endpoint.id, delivery.id)).toEqual({ ...delivery, status: 'delivered', attempts: [first, second] });
        expect(await store.claimAttempt(endpoint.id, delivery.id, 3, t0 + 2 * minute, t0 + 3 * minute)).toBeNull();
      });

      it('puts only the waits it is told are longer than the queue holds on the retry index, due at their time', async () => {
        const [short, long] = [aDelivery(endpoint), aDelivery(endpoint)];
        for (const one of [short, long]) await store.insertDelivery(one);
        await store.recordAttempt(short, anAttempt(1, t0), { status: 'pending', nextAttemptAt: t0 + 5 * minute, swept: false });
        await store.recordAttempt(long, anAttempt(1, t0), { status: 'pending', nextAttemptAt: t0 + 30 * minute, swept: true });
        expect(await store.dueRetries(t0 + 29 * minute, 10)).toEqual([]);
        expect(await store.dueRetries(t0 + 30 * minute, 10)).toEqual([
          { endpointId: endpoint.id, deliveryId: long.id, userId, attempt: 2 },
        ]);
        await store.recordAttempt(long, anAttempt(2, t0 + 30 * minute), { status: 'failed' });
        expect(await store.dueRetries(t0 + 60 * minute, 10)).toEqual([]);
      });

      it('cancels a pending delivery; a settled one stays as it is', async () => {
        const [pending, delivered] = [aDelivery(endpoint), aDelivery(endpoint)];
        for (const one of [pending, delivered]) await store.insertDelivery(one);
        await store.recordAttempt(pending, anAttempt(1, t0), { status: 'pending', nextAttemptAt: t0 + 30 * minute, swept: true });
        await store.recordAttempt(delivered, anAttempt(1, t0, { status: 200 }), { status: 'delivered' });
        await store.cancelDelivery(pending);
        await store.cancelDelivery(delivered);
        expect(await store.getDelivery(endpoint.id, pending.id)).toEqual({ ...pending, status: 'cancelled', attempts: [anAttempt(1, t0)] });
        expect((await store.getDelivery(endpoint.id, delivered.id))!.status).toBe('delivered');
        expect(await store.dueRetries(t0 + 60 * minute, 10)).toEqual([]);
      });

      it('lists an endpoint’s deliveries newest first, in pages, refusing a changed cursor', async () => {
        const deliveries = [0, 1, 2, 3, 4].map((n) => aDelivery(endpoint, { createdAt: t0 + n * minute }));
        for (const one of deliveries) await store.insertDelivery(one);
        const first = await store.listDeliveries(endpoint.id, 2, null);
        expect(first.items.map((one) => one.id)).toEqual([deliveries[4]!.id, deliveries[3]!.id]);
        const rest = await store.listDeliveries(endpoint.id, 3, first.nextCursor);
        expect(rest.items.map((one) => one.id)).toEqual([deliveries[2]!.id, deliveries[1]!.id, deliveries[0]!.id]);
        expect(rest.nextCursor).toBeNull();
        await expect(store.listDeliveries(newWebhookId(), 2, first.nextCursor)).rejects.toMatchObject({ name: 'InvalidCursor' });
        const outside = Buffer.from(JSON.stringify({ pk: `DELIVERIES#${endpoint.id}`, sk: 'PENDING_TESTS' })).toString('base64url');
        await expect(store.listDeliveries(endpoint.id, 2, outside)).rejects.toMatchObject({ name: 'InvalidCursor' });
        expect(await store.listDeliveries(newWebhookId(), 2, null)).toEqual({ items: [], nextCursor: null });
      });
    });

    describe('test deliveries', () => {
      const aTest = (at = t0) => aDelivery(endpoint, { eventType: 'webhook.test', createdAt: at });

      it('keeps at most `max` pending, however many are asked for at once, naming the newest when refused', async () => {
        const tests = [0, 1, 2, 3, 4].map((n) => aTest(t0 + n));
        const outcomes = await Promise.all(tests.map((one) => store.insertTestDelivery(one, 3, t0 - minute)));
        expect(outcomes.filter((outcome) => outcome.queued)).toHaveLength(3);
        const queued = tests.filter((_, i) => outcomes[i]!.queued).map((one) => one.id);
        const newest = [...queued].sort().at(-1);
        expect(await store.insertTestDelivery(aTest(t0 + 9), 3, t0 - minute)).toEqual({ queued: false, newestPendingId: newest });
        expect(await store.getDelivery(endpoint.id, queued[0]!)).toMatchObject({ eventType: 'webhook.test', status: 'pending' });
      });

      it('frees a place when a test delivery settles (delivered, failed for good or cancelled), not while it retries', async () => {
        const [a, b] = [aTest(t0), aTest(t0 + 1)];
        for (const one of [a, b]) await store.insertTestDelivery(one, 2, t0 - minute);
        await store.recordAttempt(a, anAttempt(1, t0), { status: 'pending', nextAttemptAt: t0 + minute, swept: false });
        expect((await store.insertTestDelivery(aTest(t0 + 2), 2, t0 - minute)).queued).toBe(false);
        await store.recordAttempt(a, anAttempt(2, t0 + minute, { status: 200 }), { status: 'delivered' });
        const c = aTest(t0 + 3);
        expect(await store.insertTestDelivery(c, 2, t0 - minute)).toEqual({ queued: true });
        await store.cancelDelivery(b);
        expect(await store.insertTestDelivery(aTest(t0 + 4), 2, t0 - minute)).toEqual({ queued: true });
      });

      it('takes test deliveries older than `lostBefore` off the list when it is full', async () => {
        const old = aTest(t0 - 10 * minute);
        const recent = aTest(t0);
        for (const one of [old, recent]) await store.insertTestDelivery(one, 2, t0 - 60 * minute);
        expect(await store.insertTestDelivery(aTest(t0 + 1), 2, t0 - 5 * minute)).toEqual({ queued: true });
        expect(await store.insertTestDelivery(aTest(t0 + 2), 2, t0 - 5 * minute)).toMatchObject({ queued: false });
      });
    });
  });
}
