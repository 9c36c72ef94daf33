import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { retryDelaysSeconds } from '../../shared/domain/webhooks/model.ts';
import { webhookLimits } from '../../shared/limits.ts';
import { createKey, newEmail, signIn, type CreatedKey, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';

/**
 * The cap on an endpoint's pending test deliveries (`webhookLimits.pendingTestDeliveries`):
 * beyond it `POST /v1/webhooks/{id}/test` is still 202 but `queued: false`, writes nothing,
 * and names the newest pending one. A test delivery stops counting when it is delivered, has
 * failed for good or is cancelled, or when its messages were lost long ago.
 */

const cap = webhookLimits.pendingTestDeliveries;

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let receiver: Server;
let receiverPort = 0;
/** What the receiver answers. */
let answer = 204;
/** Requests received, by path: each endpoint has a path of its own. */
const received = new Map<string, number>();
let paths = 0;
let owner: SignedIn;
let key: CreatedKey;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    request.resume().on('end', () => {
      received.set(request.url!, (received.get(request.url!) ?? 0) + 1);
      response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(async () => {
  await runtime?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});
beforeEach(async () => {
  answer = 204;
  owner = await signIn(runtime, newEmail('test-cap'));
  key = await createKey(runtime, owner, ['secrets:read']);
});

const endpointPaths = new Map<string, string>();
async function register(): Promise<string> {
  const path = `/hook-${++paths}`;
  const reply = await api.post('/v1/webhooks', { url: `http://127.0.0.1:${receiverPort}${path}` }, owner.auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  endpointPaths.set(reply.body.id, path);
  return reply.body.id as string;
}
const receivedBy = (endpointId: string) => received.get(endpointPaths.get(endpointId)!) ?? 0;

async function sendTest(endpointId: string): Promise<{ delivery_id: string; queued: boolean }> {
  const reply = await api.post(`/v1/webhooks/${endpointId}/test`, undefined, key.auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  return reply.body;
}

/** The endpoint's test deliveries as stored (the API's log needs a session, which the clock outlives here). */
async function testDeliveries(endpointId: string) {
  const { items } = await runtime.stores.webhooks.listDeliveries(endpointId, 100, null);
  return items.filter((delivery) => delivery.eventType === 'webhook.test');
}

/** `count` test calls, one after another, a second apart so "newest" is unambiguous. */
async function sendTests(endpointId: string, count: number) {
  const replies = [];
  for (let i = 0; i < count; i++) {
    replies.push(await sendTest(endpointId));
    runtime.clock.advance(1);
  }
  return replies;
}

describe('pending test deliveries per endpoint', () => {
  it(`queue at most ${cap} of 20 parallel calls; the others are 202 queued: false and write nothing`, async () => {
    const endpointId = await register();
    const replies = await Promise.all(Array.from({ length: 20 }, () => sendTest(endpointId)));
    const queued = replies.filter((reply) => reply.queued).map((reply) => reply.delivery_id);
    expect(queued).toHaveLength(cap);
    expect(new Set(queued).size).toBe(cap);
    // A refusal names one of the pending ones, never an id that was not written.
    for (const reply of replies.filter((one) => !one.queued)) expect(queued).toContain(reply.delivery_id);
    expect((await testDeliveries(endpointId)).map((delivery) => delivery.id).sort()).toEqual([...queued].sort());

    // Delivered, they leave room for as many again.
    await runtime.drainWork();
    expect(receivedBy(endpointId)).toBe(cap);
    const again = await sendTests(endpointId, cap + 1);
    expect(again.map((reply) => reply.queued)).toEqual([...Array<boolean>(cap).fill(true), false]);
    // The refusal names the newest pending one.
    expect(again[cap]!.delivery_id).toBe(again[cap - 1]!.delivery_id);
  });

  it('count each endpoint on its own', async () => {
    const [first, second] = [await register(), await register()];
    await sendTests(first, cap);
    expect((await sendTest(first)).queued).toBe(false);
    expect((await sendTest(second)).queued).toBe(true);
  });

  it('keep counting while retried, and stop counting once failed for good', async () => {
    const endpointId = await register();
    answer = 500;
    const [failing] = await sendTests(endpointId, 1);
    // All eight attempts: the queue holds the short waits, the schedule's sweep the long ones.
    await runtime.drainWork();
    for (const wait of retryDelaysSeconds) {
      expect((await runtime.stores.webhooks.getDelivery(endpointId, failing!.delivery_id))?.status).toBe('pending');
      runtime.clock.advance(wait);
      await runtime.scheduler.run('sweep-webhooks');
      await runtime.drainWork();
    }
    expect(receivedBy(endpointId)).toBe(retryDelaysSeconds.length + 1);
    expect((await runtime.stores.webhooks.getDelivery(endpointId, failing!.delivery_id))?.status).toBe('failed');
    // Failed for good: all the places are free again.
    expect((await sendTests(endpointId, cap + 1)).map((reply) => reply.queued)).toEqual([...Array<boolean>(cap).fill(true), false]);
  });

  it('stop counting when cancelled (switched off after 20 failures), and the owner can test again', async () => {
    const endpointId = await register();
    answer = 500;
    const first = await sendTests(endpointId, cap);
    expect((await sendTest(endpointId)).queued).toBe(false);
    // Four attempts of five deliveries switch the endpoint off; what was pending is cancelled.
    await runtime.drainWork();
    for (const wait of retryDelaysSeconds.slice(0, 4)) {
      runtime.clock.advance(wait);
      await runtime.scheduler.run('sweep-webhooks');
      await runtime.drainWork();
    }
    expect((await runtime.stores.webhooks.getEndpoint(owner.user.id, endpointId))?.enabled).toBe(false);
    const statuses = await Promise.all(
      first.map(async (reply) => (await runtime.stores.webhooks.getDelivery(endpointId, reply.delivery_id))?.status),
    );
    expect(statuses).toEqual(Array(cap).fill('cancelled'));
    // The receiver is fixed: a test is queued, sent, and switches the endpoint back on.
    answer = 204;
    expect((await sendTest(endpointId)).queued).toBe(true);
    await runtime.drainWork();
    expect((await runtime.stores.webhooks.getEndpoint(owner.user.id, endpointId))?.enabled).toBe(true);
  });

  it('stop counting what was never sent two days after it was written (its messages were lost)', async () => {
    const endpointId = await register();
    // The relay cannot queue them: every try fails and the stream sets the records aside.
    const relay = runtime.functions.relay;
    const queue = relay.queue;
    relay.queue = { send: () => Promise.reject(new Error('queue unavailable')) };
    try {
      await sendTests(endpointId, cap);
      await runtime.drainWork();
    } finally {
      relay.queue = queue;
    }
    expect(runtime.stream.failedRecords).toHaveLength(cap);
    runtime.stream.failedRecords.length = 0;
    expect((await sendTest(endpointId)).queued).toBe(false);

    runtime.clock.advance(webhookLimits.lostTestDeliverySeconds - 60);
    expect((await sendTest(endpointId)).queued).toBe(false);
    runtime.clock.advance(60);
    const fresh = await sendTest(endpointId);
    expect(fresh.queued).toBe(true);
    await runtime.drainWork();
    expect(receivedBy(endpointId)).toBe(1);
    expect((await runtime.stores.webhooks.getDelivery(endpointId, fresh.delivery_id))?.status).toBe('delivered');
    // The lost ones left the count, not the log.
    expect(await testDeliveries(endpointId)).toHaveLength(cap + 1);
  });
});
