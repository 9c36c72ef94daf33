import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { send, teamWorkspace } from '../support/workspaces.ts';

// A payment provider that answers 500 (Stripe's api_error, replayed to the request's idempotency
// key as Stripe replays it): every billing route that asks it answers 503 provider_unavailable
// with retry-after, never a 500, and nothing is changed; once it answers again, the same request works.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());
afterEach(() => runtime.stripe.failNextRequests(0));

/** Every request the provider gets next fails (the SDK's own retry included). */
const outage = () => runtime.stripe.failNextRequests(1000);

function expectOutage(reply: { status: number; headers: Headers; body: any }): void {
  expectProblem(reply, 503, 'provider_unavailable');
  expect(reply.headers.get('retry-after')).toBe('60');
  expect(reply.body.detail).toMatch(/not answering right now; nothing was changed/);
}

async function paidPro(): Promise<SignedIn> {
  const buyer = await signIn(runtime, newEmail('outage'));
  const started = await api.post('/v1/billing/checkout', { plan: 'pro' }, buyer.auth);
  expect(started.status).toBe(201);
  await runtime.stripe.completeCheckout(started.body.id);
  await runtime.stripe.settled();
  return buyer;
}

describe('a payment provider outage', () => {
  it('checkout: 503, no customer kept; the next checkout works', async () => {
    const buyer = await signIn(runtime, newEmail('outage-checkout'));
    outage();
    expectOutage(await api.post('/v1/billing/checkout', { plan: 'pro' }, buyer.auth));
    expect(await runtime.functions.billing.billing.customerOf(buyer.user.id)).toBeNull();
    runtime.stripe.failNextRequests(0);
    expect((await api.post('/v1/billing/checkout', { plan: 'pro' }, buyer.auth)).status).toBe(201);
  });

  it('portal and invoices: 503', async () => {
    const buyer = await paidPro();
    outage();
    expectOutage(await api.post('/v1/billing/portal', {}, buyer.auth));
    expectOutage(await api.get('/v1/billing/invoices', buyer.auth));
    runtime.stripe.failNextRequests(0);
    expect((await api.get('/v1/billing/invoices', buyer.auth)).status).toBe(200);
  });

  it('seats: 503, and the seats stay as they were', async () => {
    const workspace = await teamWorkspace(runtime, 1, 'free');
    const started = await api.post('/v1/billing/checkout', { plan: 'team', workspace_id: workspace.id, seats: 3 }, workspace.owner.auth);
    await runtime.stripe.completeCheckout(started.body.id);
    await runtime.stripe.settled();
    outage();
    expectOutage(await send(runtime, 'PATCH', '/v1/billing/seats', { workspace_id: workspace.id, seats: 5 }, workspace.owner.auth));
    runtime.stripe.failNextRequests(0);
    expect((await runtime.functions.billing.billing.subscriptionOf({ kind: 'workspace', workspaceId: workspace.id }))!.seats).toBe(3);
  });

  it('webhook: 503 to the provider, which delivers the event again and it applies', async () => {
    const buyer = await signIn(runtime, newEmail('outage-webhook'));
    const started = await api.post('/v1/billing/checkout', { plan: 'pro' }, buyer.auth);
    await runtime.stripe.holdEvents(true);
    await runtime.stripe.completeCheckout(started.body.id);
    outage();
    await runtime.stripe.holdEvents(false);
    await runtime.stripe.settled();
    const deliveries = runtime.stripe.events().flatMap((record) => record.deliveries.map((delivery) => delivery.status));
    expect(deliveries).toContain(503);
    expect(deliveries).not.toContain(500);
    // The same, posted here: one of those events, signed as the provider signs.
    const held = runtime.stripe.events().find((record) => record.deliveries.some((delivery) => delivery.status === 503))!;
    const payload = JSON.stringify(held.event);
    const signature = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({ payload, secret: runtime.stripe.signingSecret });
    expectOutage(
      await api.call('POST', '/v1/billing/webhook', {
        body: payload,
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      }),
    );
    runtime.stripe.failNextRequests(0);
    for (const record of runtime.stripe.events().filter((record) => record.deliveries.some((delivery) => delivery.status === 503)))
      await runtime.stripe.resendEvent(record.event.id);
    await runtime.stripe.settled();
    expect((await api.get('/v1/billing/subscription', buyer.auth)).body).toMatchObject({ plan: 'pro' });
  });
});
