import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { stripeClient } from '../../shared/adapters/stripe.ts';
import { mailsTo, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';

// The payment provider's webhook (interface §4.6, §6.6) against the local Stripe emulator: its
// events are signed as Stripe signs them and posted to this runtime, which verifies them on the
// raw body, applies each once and in any order (it reads the subscription from the provider),
// and gives the plan: Pro to an account, Team and its seats to a workspace. Subscriptions are
// made here through the official SDK, as the checkout route will make them. The rules (failed
// payments, seats, order of news) are test/usecases/billing-webhook.test.ts's; events in every
// interleaving are billing-parallel.test.ts's.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let stripe: Stripe;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  stripe = stripeClient({ secretKey: runtime.stripe.apiKey, apiUrl: runtime.stripe.url });
});
afterAll(() => runtime?.stop());
beforeEach(() => runtime.stripe.holdEvents(false));

const planOf = async (who: SignedIn) => (await api.get('/v1/usage', who.auth)).body.plan as string;

/** A subscription bought and paid through the emulator's checkout, its events delivered. */
async function subscribe(who: SignedIn, price: string, quantity: number, metadata: Record<string, string>) {
  const customer = await stripe.customers.create({ email: who.user.email, metadata: { user_id: who.user.id } });
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    customer: customer.id,
    client_reference_id: who.user.id,
    line_items: [{ price, quantity }],
    success_url: `${runtime.url}/billing?checkout=done`,
    cancel_url: `${runtime.url}/billing`,
    metadata,
    subscription_data: { metadata },
  });
  const completed = await runtime.stripe.completeCheckout(session.id);
  await runtime.stripe.settled();
  return String(completed.subscription);
}

/** Every delivery the emulator made was answered 200. */
function expectAllDelivered(): void {
  for (const record of runtime.stripe.events())
    for (const delivery of record.deliveries) expect(delivery.status, `${record.event.type} ${record.event.id}`).toBe(200);
}

describe('POST /v1/billing/webhook', () => {
  it('gives an account Pro when its checkout is paid, and back Free when the subscription ends at its period’s end (mailed)', async () => {
    const buyer = await signIn(runtime, newEmail('pro'));
    expect(await planOf(buyer)).toBe('free');
    runtime.stripe.clearRequests();
    const subscription = await subscribe(buyer, runtime.config.PRICE_PRO, 1, { target: 'user', user_id: buyer.user.id });
    expect(await planOf(buyer)).toBe('pro');
    expect((await api.get('/v1/flags', buyer.auth)).body.flags).toMatchObject({ receipts_location: true, receipts_device: true });
    expectAllDelivered();
    // What the service asked the provider: the subscription, read for each event, at the SDK's pinned API version.
    const reads = runtime.stripe.requests().filter((request) => request.path === `/v1/subscriptions/${subscription}`);
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const read of reads)
      expect(read).toMatchObject({ method: 'GET', form: {}, idempotency_key: null, stripe_version: Stripe.API_VERSION, status: 200 });

    await stripe.subscriptions.update(subscription, { cancel_at_period_end: true });
    await runtime.stripe.settled();
    expect(await planOf(buyer)).toBe('pro');
    await runtime.stripe.endPeriod(subscription);
    await runtime.stripe.settled();
    expect(await planOf(buyer)).toBe('free');
    // Mailed by the delivery worker, from the queue.
    await runtime.drainWork();
    expect(mailsTo(runtime, buyer.user.email)[0]!.subject).toBe('Hushlink: your subscription ended');
    expectAllDelivered();
  });

  it('applies an event once: a repeat is answered 200 and changes nothing', async () => {
    const buyer = await signIn(runtime, newEmail('repeat'));
    await subscribe(buyer, runtime.config.PRICE_PRO, 1, { target: 'user', user_id: buyer.user.id });
    const paid = runtime.stripe.events().findLast((record) => record.event.type === 'invoice.paid')!;
    const before = paid.deliveries.length;
    const resent = await runtime.stripe.resendEvent(paid.event.id);
    expect(resent.deliveries).toHaveLength(before + 1);
    expect(resent.deliveries.at(-1)!.status).toBe(200);
    expect(await planOf(buyer)).toBe('pro');
  });

  it('answers 400 for a missing, wrong or stale signature, and takes nothing from the body', async () => {
    const buyer = await signIn(runtime, newEmail('forged'));
    const payload = JSON.stringify({
      id: 'evt_forged',
      object: 'event',
      type: 'customer.subscription.updated',
      data: { object: { id: 'sub_forged', object: 'subscription' } },
    });
    const post = (headers: Record<string, string>) =>
      api.call('POST', '/v1/billing/webhook', { body: payload, headers: { 'content-type': 'application/json', ...headers } });
    const now = Math.floor(runtime.clock.now() / 1000);
    const signed = (secret: string, timestamp: number) => stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
    const attempts: Record<string, string>[] = [
      {},
      { 'stripe-signature': signed('whsec_not_the_secret', now) },
      { 'stripe-signature': signed(runtime.stripe.signingSecret, now - 360) },
      { 'stripe-signature': signed(runtime.stripe.signingSecret, now + 360) },
      { 'stripe-signature': 't=1,v1=00' },
    ];
    for (const headers of attempts) {
      const refused = await post(headers);
      expectProblem(refused, 400, 'invalid_request');
      expect(refused.body.errors[0].path).toBe('header.stripe-signature');
    }
    expect(await planOf(buyer)).toBe('free');
  });

  it('answers 400 to a header with two timestamps, the first now and the signature over a later one (issue 26)', async () => {
    const buyer = await signIn(runtime, newEmail('two-timestamps'));
    const subscription = await subscribe(buyer, runtime.config.PRICE_PRO, 1, { target: 'user', user_id: buyer.user.id });
    await stripe.subscriptions.update(subscription, { cancel_at_period_end: true });
    await runtime.stripe.endPeriod(subscription);
    await runtime.stripe.settled();
    // A genuine event, its signature made for an hour ahead: replayable then, were it taken now.
    const deleted = runtime.stripe.events().findLast((record) => record.event.type === 'customer.subscription.deleted')!;
    const payload = JSON.stringify({ ...deleted.event, id: `evt_later_${Date.now()}` }, null, 2);
    const now = Math.floor(runtime.clock.now() / 1000);
    const later = stripe.webhooks.generateTestHeaderString({ payload, secret: runtime.stripe.signingSecret, timestamp: now + 3600 });
    for (const header of [`t=${now},${later}`, `${later.replace(/,v1=/, `,t=${now},v1=`)}`]) {
      const refused = await api.call('POST', '/v1/billing/webhook', {
        body: payload,
        headers: { 'content-type': 'application/json', 'stripe-signature': header },
      });
      expectProblem(refused, 400, 'invalid_request');
      expect(refused.body.errors).toEqual([{ path: 'header.stripe-signature', message: expect.stringMatching(/timestamp/i) }]);
    }
    // The same event signed once, now, is taken.
    const once = stripe.webhooks.generateTestHeaderString({ payload, secret: runtime.stripe.signingSecret, timestamp: now });
    expect(
      (
        await api.call('POST', '/v1/billing/webhook', {
          body: payload,
          headers: { 'content-type': 'application/json', 'stripe-signature': once },
        })
      ).status,
    ).toBe(200);
  });

  it('answers 200 to a signed event about a subscription the provider does not have, and applies nothing', async () => {
    const payload = JSON.stringify({
      id: `evt_missing_${Date.now()}`,
      object: 'event',
      type: 'customer.subscription.updated',
      data: { object: { id: 'sub_nowhere', object: 'subscription' } },
    });
    const header = stripe.webhooks.generateTestHeaderString({
      payload,
      secret: runtime.stripe.signingSecret,
      timestamp: Math.floor(runtime.clock.now() / 1000),
    });
    const reply = await api.call('POST', '/v1/billing/webhook', {
      body: payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
    });
    expect(reply.status).toBe(200);
    expect(runtime.stripe.requests().at(-1)).toMatchObject({ method: 'GET', path: '/v1/subscriptions/sub_nowhere', status: 404 });
  });

  it('answers 200 to an event it does not act on, signed', async () => {
    const payload = JSON.stringify({
      id: `evt_other_${Date.now()}`,
      object: 'event',
      type: 'customer.created',
      data: { object: { id: 'cus_x', object: 'customer' } },
    });
    const header = stripe.webhooks.generateTestHeaderString({
      payload,
      secret: runtime.stripe.signingSecret,
      timestamp: Math.floor(runtime.clock.now() / 1000),
    });
    const reply = await api.call('POST', '/v1/billing/webhook', {
      body: payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ received: true });
  });
});
