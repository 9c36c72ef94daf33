import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRuntime, type Runtime } from '../../local/runtime.ts';
import { defaultRateLimits, type RateLimits } from '../../shared/limits.ts';
import { apiClient, generousRateLimits, textSecretBody, toFreshWindow } from '../support/runtime.ts';

// Two instances of the functions on one table, as two Lambda instances share it: the second
// runtime uses the first one's DynamoDB Local (no second emulator). Limits from the same setting.

const windowSeconds = 60;
const rateLimits: RateLimits = {
  ...generousRateLimits,
  secret_create: { perIp: { limit: 10, windowSeconds } },
  secret_claim: defaultRateLimits.secret_claim,
};

/** Holds the rate counter's writes on the first runtime's client until `releaseRate()`. */
let holdRate = false;
let releaseRate: () => void = () => {};
let rateHeld = Promise.resolve();
const writes: Array<{ what: 'rate' | 'secret'; event: 'start' | 'end'; at: number }> = [];

function watchWrites(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Key?: { pk?: string }; Item?: { pk?: string } };
      const pk = String(input.Key?.pk ?? input.Item?.pk ?? '');
      const what = pk.startsWith('RATE#') ? 'rate' : pk.startsWith('SECRET#') ? 'secret' : null;
      if (what) writes.push({ what, event: 'start', at: performance.now() });
      if (what === 'rate' && holdRate) await rateHeld;
      try {
        return await next(args);
      } finally {
        if (what) writes.push({ what, event: 'end', at: performance.now() });
      }
    },
    { step: 'initialize', name: 'watchWrites' },
  );
}

let first: Runtime;
let second: Runtime;
beforeAll(async () => {
  first = await startRuntime({ port: 0, rateLimits, instrumentDynamo: watchWrites });
  // One clock for both, as Lambda instances share the wall clock.
  second = await startRuntime({ port: 0, rateLimits, dynamo: first.dynamo, clock: first.clock });
});
afterAll(async () => {
  await second?.stop();
  await first?.stop();
});

/** Both runtimes at the start of the same fresh window. */
beforeEach(() => toFreshWindow(first.clock, windowSeconds));

describe('rate limits across instances', () => {
  it('two runtimes on one table admit between the limit and the limit plus one per runtime', async () => {
    const apis = [apiClient(first), apiClient(second)];
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => apis[i % 2]!.post('/v1/secrets', textSecretBody()).then((reply) => reply.status)),
    );
    const admitted = statuses.filter((status) => status === 201).length;
    expect(statuses.filter((status) => status !== 201 && status !== 429)).toEqual([]);
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(12);
    // Once full, both refuse, whichever learned it from the other's count.
    for (const api of apis) expect((await api.post('/v1/secrets', textSecretBody())).status).toBe(429);
  });

  it('a claim does not wait for the rate counter: its write starts while the count is still held', async () => {
    const api = apiClient(first);
    const { body } = await api.post('/v1/secrets', textSecretBody({ max_views: 5 }));
    // A fresh window, so this claim is counted by an increment sent alongside it.
    first.clock.advance(windowSeconds);
    writes.length = 0;
    rateHeld = new Promise<void>((resolve) => (releaseRate = resolve));
    holdRate = true;
    try {
      const claim = api.post(`/v1/secrets/${body.id}/claim`);
      // The secret's write happens, and ends, while the rate write is held.
      await until(() => writes.some((write) => write.what === 'secret' && write.event === 'end'));
      expect(writes.some((write) => write.what === 'rate' && write.event === 'end')).toBe(false);
      releaseRate();
      expect((await claim).status).toBe(200);
    } finally {
      holdRate = false;
      releaseRate();
    }
    const order = writes.map((write) => `${write.what} ${write.event}`);
    expect(order.indexOf('secret end')).toBeLessThan(order.indexOf('rate end'));
  });
});

/** Waits for the request to reach DynamoDB Local (another process): polling is all it offers. */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
