import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { priceCacheMs, priceFailureMs } from '../../shared/domain/billing/prices.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, generousRateLimits, startTestRuntime, toFreshWindow } from '../support/runtime.ts';

// GET /v1/billing/prices (beyond the interface): the Plans page's prices, read from the payment
// provider (the emulator sells price_pro_monthly at 12.00 USD and price_team_seat_monthly at
// 8.00 USD a month), public, kept a few minutes; 503 while the provider does not answer, that
// refusal kept a minute; 429 past its per-address class.

const perWindow = 20;
const windowSeconds = 60;
let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({
    rateLimits: { ...generousRateLimits, billing_prices: { perIp: { limit: perWindow, windowSeconds } } },
  });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const pricesAsked = () => runtime.stripe.requests().filter((request) => request.method === 'GET' && request.path.startsWith('/v1/prices/'));

describe('GET /v1/billing/prices', () => {
  it('503 provider_unavailable, with retry-after, while the provider does not answer; the refusal is answered again for a minute without asking', async () => {
    runtime.stripe.failNextRequests(1000);
    const reply = await api.get('/v1/billing/prices');
    expectProblem(reply, 503, 'provider_unavailable');
    expect(reply.headers.get('retry-after')).toBe('60');
    runtime.stripe.failNextRequests(0);
    const asked = pricesAsked().length;
    expectProblem(await api.get('/v1/billing/prices'), 503, 'provider_unavailable');
    expect(pricesAsked().length).toBe(asked);
    runtime.clock.advance(priceFailureMs / 1000 + 1);
  });

  it('200 with each self-serve plan’s price as the provider has it, to anyone (no credential)', async () => {
    const reply = await api.get('/v1/billing/prices');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      prices: [
        { plan: 'pro', interval: 'month', unit_amount: 1200, currency: 'usd', per: 'account' },
        { plan: 'team', interval: 'month', unit_amount: 800, currency: 'usd', per: 'seat' },
      ],
    });
    expect(pricesAsked().map((request) => request.path)).toEqual(
      expect.arrayContaining(['/v1/prices/price_pro_monthly', '/v1/prices/price_team_seat_monthly']),
    );
  });

  it('is kept a few minutes: an outage then still answers 200 without asking, and 503 once they are old', async () => {
    const asked = pricesAsked().length;
    runtime.stripe.failNextRequests(1000);
    expect((await api.get('/v1/billing/prices')).status).toBe(200);
    expect(pricesAsked().length).toBe(asked);
    runtime.clock.advance(priceCacheMs / 1000 + 1);
    expectProblem(await api.get('/v1/billing/prices'), 503, 'provider_unavailable');
    runtime.stripe.failNextRequests(0);
    runtime.clock.advance(priceFailureMs / 1000 + 1);
    expect((await api.get('/v1/billing/prices')).status).toBe(200);
  });

  it('429, with retry-after, past its per-address class: a burst of visits is not a burst of calls to the provider', async () => {
    toFreshWindow(runtime.clock, windowSeconds);
    const statuses: number[] = [];
    for (let visit = 0; visit <= perWindow; visit++) statuses.push((await api.get('/v1/billing/prices')).status);
    expect(statuses).toEqual([...Array(perWindow).fill(200), 429]);
    const refused = await api.get('/v1/billing/prices');
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
