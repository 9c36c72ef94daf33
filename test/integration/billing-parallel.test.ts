import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { stripeClient } from '../../shared/adapters/stripe.ts';
import { mailsTo, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { teamWorkspace } from '../support/workspaces.ts';

// Issue 26, item 3: checkouts opened before paying must not become parallel subscriptions. A
// target (an account's Pro, a workspace's Team) has one live subscription, the one its plan
// follows; a second one paid for it is cancelled at the provider at once, its unused time
// credited, and news of it never changes the plan. Against the Stripe emulator, through the
// checkout route, with the events delivered in every order, more than once, and at once.

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

const liveStatuses = ['active', 'trialing', 'past_due'];
const held = () =>
  runtime.stripe
    .events()
    .filter((record) => record.deliveries.length === 0)
    .map((record) => record.event.id);
const eventsOf = (subscriptionId: string, among: string[]) =>
  among.filter((id) => {
    const object = runtime.stripe.events().find((record) => record.event.id === id)!.event.data.object as Record<string, any>;
    return [object.id, object.subscription, object.parent?.subscription_details?.subscription].includes(subscriptionId);
  });

async function startCheckout(who: SignedIn, body: Record<string, unknown>): Promise<string> {
  const started = await api.post('/v1/billing/checkout', body, who.auth);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return started.body.id as string;
}

/** Pays the sessions in this order, events held: the subscriptions made, in the same order. */
async function payHeld(sessionIds: string[]): Promise<string[]> {
  await runtime.stripe.holdEvents(true);
  const subscriptions: string[] = [];
  for (const id of sessionIds) subscriptions.push(String((await runtime.stripe.completeCheckout(id)).subscription));
  return subscriptions;
}

/** Delivers the held events in this order, then whatever handling them made (a cancellation's events), and waits. */
async function deliver(order: string[]): Promise<void> {
  await runtime.stripe.sendEvents(order);
  await runtime.stripe.holdEvents(false);
  await runtime.stripe.settled();
}

/**
 * The invariant: at most one of the target's subscriptions is live at the provider, the plan
 * (and a workspace's seats) is what it gives or Free without one, and it is the one linked.
 */
async function expectFollowsLive(
  target: { userId: string } | { workspaceId: string },
  subscriptionIds: string[],
): Promise<Stripe.Subscription | null> {
  const states = await Promise.all(subscriptionIds.map((id) => stripe.subscriptions.retrieve(id)));
  const live = states.filter((subscription) => liveStatuses.includes(subscription.status));
  expect(live.length, `live at the provider: ${live.map((subscription) => subscription.id).join(', ')}`).toBeLessThanOrEqual(1);
  const linked = await runtime.functions.billing.billing.subscriptionOf(
    'userId' in target ? { kind: 'user', userId: target.userId } : { kind: 'workspace', workspaceId: target.workspaceId },
  );
  if ('userId' in target) {
    expect((await runtime.functions.billing.users.get(target.userId))!.plan ?? 'free').toBe(live.length > 0 ? 'pro' : 'free');
  } else {
    expect((await runtime.functions.workspaces.workspaces.get(target.workspaceId))!.plan).toBe(live.length > 0 ? 'team' : 'free');
    if (live.length > 0)
      expect((await runtime.functions.workspaces.workspaces.roster(target.workspaceId))!.seats).toBe(live[0]!.items.data[0]!.quantity);
  }
  if (live.length > 0) expect(linked).toMatchObject({ id: live[0]!.id, status: live[0]!.status });
  return live[0] ?? null;
}

/** The subscription was ended at once by the service, asked as Stripe is asked to credit the unused time on a final invoice; that invoice credits it. */
async function expectCancelledWithCredit(subscriptionId: string): Promise<void> {
  const cancels = runtime.stripe
    .requests()
    .filter((request) => request.method === 'DELETE' && request.path === `/v1/subscriptions/${subscriptionId}`);
  expect(cancels.filter((request) => request.status === 200)).toHaveLength(1);
  for (const request of cancels)
    expect(request).toMatchObject({ query: { prorate: 'true', invoice_now: 'true' }, form: {}, stripe_version: Stripe.API_VERSION });
  const subscription = await stripe.subscriptions.retrieve(subscriptionId, { expand: ['latest_invoice'] });
  expect(subscription).toMatchObject({ status: 'canceled', cancellation_details: { reason: 'cancellation_requested' } });
  const final = subscription.latest_invoice as Stripe.Invoice;
  expect(final.billing_reason).toBe('subscription_update');
  expect(final.total).toBeLessThan(0);
  expect(final).toMatchObject({ amount_due: 0, status: 'paid' });
}

/** Every interleaving of two sequences, each kept in its order. */
function interleavings<T>(a: T[], b: T[]): T[][] {
  if (a.length === 0) return [b];
  if (b.length === 0) return [a];
  return [...interleavings(a.slice(1), b).map((rest) => [a[0]!, ...rest]), ...interleavings(a, b.slice(1)).map((rest) => [b[0]!, ...rest])];
}

describe('one live subscription per target', () => {
  it('three Pro checkouts opened before paying: the first paid gives Pro, and the other two are expired at the provider and cannot be paid', async () => {
    const buyer = await signIn(runtime, newEmail('three'));
    const sessions = [
      await startCheckout(buyer, { plan: 'pro' }),
      await startCheckout(buyer, { plan: 'pro' }),
      await startCheckout(buyer, { plan: 'pro' }),
    ];
    runtime.stripe.clearRequests();
    const first = String((await runtime.stripe.completeCheckout(sessions[1]!)).subscription);
    await runtime.stripe.settled();
    const customer = (await runtime.functions.billing.billing.customerOf(buyer.user.id))!;
    expect(
      runtime.stripe
        .requests()
        .filter((request) => request.path.startsWith('/v1/checkout/sessions'))
        .map(({ method, path, query }) => ({ method, path, query })),
    ).toEqual([
      { method: 'GET', path: '/v1/checkout/sessions', query: { customer, status: 'open', limit: '100' } },
      ...[sessions[2], sessions[0]].map((id) => ({ method: 'POST', path: `/v1/checkout/sessions/${id}/expire`, query: {} })),
    ]);
    for (const id of [sessions[0]!, sessions[2]!]) {
      expect(await stripe.checkout.sessions.retrieve(id)).toMatchObject({ status: 'expired', url: null });
      await expect(runtime.stripe.completeCheckout(id)).rejects.toMatchObject({ status: 400 });
    }
    expect(await expectFollowsLive({ userId: buyer.user.id }, [first])).toMatchObject({ id: first, status: 'active' });
  });

  it('three Pro checkouts all paid before any event arrives: one stays, the other two are cancelled at once and credited', async () => {
    const buyer = await signIn(runtime, newEmail('three-paid'));
    const sessions = [
      await startCheckout(buyer, { plan: 'pro' }),
      await startCheckout(buyer, { plan: 'pro' }),
      await startCheckout(buyer, { plan: 'pro' }),
    ];
    runtime.stripe.clearRequests();
    const subscriptions = await payHeld(sessions);
    await deliver(held());
    const live = await expectFollowsLive({ userId: buyer.user.id }, subscriptions);
    // The first whose events were applied stays: the others were cancelled and credited.
    expect(live?.id).toBe(subscriptions[0]);
    for (const id of subscriptions.slice(1)) await expectCancelledWithCredit(id);
    const customer = await stripe.customers.retrieve((await runtime.functions.billing.billing.customerOf(buyer.user.id))!);
    expect((customer as Stripe.Customer).balance).toBeLessThanOrEqual(-2 * 1190);
    // The buyer heard of no ending: what they have did not change.
    await runtime.drainWork();
    expect(mailsTo(runtime, buyer.user.email).map((mail) => mail.subject)).not.toContain('Hushlink: your subscription ended');
    expect((await api.get('/v1/billing/subscription', buyer.auth)).body).toMatchObject({ plan: 'pro', status: 'active' });
  });

  it('two paid Pro subscriptions, their events in every interleaving (and each reversed): exactly one live, billed, and the plan its', async () => {
    const orders = (a: string[], b: string[]) => [...interleavings(a, b), ...interleavings([...a].reverse(), [...b].reverse())];
    const count = orders(['1', '2', '3'], ['4', '5', '6']).length;
    expect(count).toBe(40);
    for (let index = 0; index < count; index++) {
      const buyer = await signIn(runtime, newEmail(`order-${index}`));
      const sessions = [await startCheckout(buyer, { plan: 'pro' }), await startCheckout(buyer, { plan: 'pro' })];
      const subscriptions = await payHeld(sessions);
      const waiting = held();
      const order = orders(eventsOf(subscriptions[0]!, waiting), eventsOf(subscriptions[1]!, waiting))[index]!;
      await deliver(order);
      const live = await expectFollowsLive({ userId: buyer.user.id }, subscriptions);
      expect(live, `order ${index}`).not.toBeNull();
      await expectCancelledWithCredit(subscriptions.find((id) => id !== live!.id)!);
    }
  }, 100_000);

  it('a second subscription is cancelled while the first is live; the first’s end then gives Free (and the cancelled one’s late news changes nothing)', async () => {
    const buyer = await signIn(runtime, newEmail('then-end'));
    const sessions = [await startCheckout(buyer, { plan: 'pro' }), await startCheckout(buyer, { plan: 'pro' })];
    const [first, second] = await payHeld(sessions);
    const waiting = held();
    await runtime.stripe.sendEvents(eventsOf(first!, waiting));
    // The second's events come while the first is live: it is cancelled; the events its
    // cancellation makes wait, and arrive after the first has ended.
    await runtime.stripe.sendEvents(eventsOf(second!, waiting));
    await runtime.stripe.settled();
    await stripe.subscriptions.update(first!, { cancel_at_period_end: true });
    await runtime.stripe.endPeriod(first!);
    const late = held();
    await runtime.stripe.sendEvents(late.filter((id) => eventsOf(first!, late).includes(id)));
    await deliver(late.filter((id) => eventsOf(second!, late).includes(id)));
    expect(await expectFollowsLive({ userId: buyer.user.id }, [first!, second!])).toBeNull();
    await expectCancelledWithCredit(second!);
    // One ending mailed (by the delivery worker, from the queue): the first's, which the plan followed.
    await runtime.drainWork();
    expect(mailsTo(runtime, buyer.user.email).filter((mail) => mail.subject === 'Hushlink: your subscription ended')).toHaveLength(1);
  });

  it('a second subscription paid after the first ended at the provider takes over, whatever order the news arrives in', async () => {
    for (const secondFirst of [true, false]) {
      const buyer = await signIn(runtime, newEmail('takes-over'));
      const sessions = [await startCheckout(buyer, { plan: 'pro' }), await startCheckout(buyer, { plan: 'pro' })];
      const [first, second] = await payHeld(sessions);
      await runtime.stripe.sendEvents(eventsOf(first!, held()));
      await runtime.stripe.settled();
      // The first ends at the provider before the second's news arrives; the first's end is news too.
      await stripe.subscriptions.update(first!, { cancel_at_period_end: true });
      await runtime.stripe.endPeriod(first!);
      const waiting = held();
      const ofFirst = eventsOf(first!, waiting);
      const ofSecond = eventsOf(second!, waiting);
      await deliver(secondFirst ? [...ofSecond, ...ofFirst] : [...ofFirst, ...ofSecond]);
      expect(await expectFollowsLive({ userId: buyer.user.id }, [first!, second!])).toMatchObject({ id: second });
      expect(
        runtime.stripe.requests().filter((request) => request.method === 'DELETE' && request.path === `/v1/subscriptions/${second}`),
      ).toEqual([]);
    }
  });

  it('two checkouts paid at once and their events delivered at once, each twice: one live subscription, the other cancelled once and credited', async () => {
    const rounds = 4;
    for (let round = 0; round < rounds; round++) {
      const buyer = await signIn(runtime, newEmail(`parallel-${round}`));
      const sessions = [await startCheckout(buyer, { plan: 'pro' }), await startCheckout(buyer, { plan: 'pro' })];
      await runtime.stripe.holdEvents(true);
      const paid = await Promise.all(sessions.map((id) => runtime.stripe.completeCheckout(id)));
      const subscriptions = paid.map((session) => String(session.subscription));
      const waiting = held();
      // Stripe delivers at least once, in parallel: every event posted at the same time, twice.
      const replies = await Promise.all([...waiting, ...waiting].map((id) => postSigned(id)));
      expect(replies).toEqual(replies.map(() => 200));
      await runtime.stripe.holdEvents(false);
      await runtime.stripe.settled();
      const live = await expectFollowsLive({ userId: buyer.user.id }, subscriptions);
      expect(live).not.toBeNull();
      await expectCancelledWithCredit(subscriptions.find((id) => id !== live!.id)!);
    }
  }, 20_000);

  it('a 2-seat and a 7-seat Team for one workspace: one is cancelled at once; cancelling the live one leaves nothing billed, and the workspace Free', async () => {
    for (const order of ['made', 'reversed'] as const) {
      const workspace = await teamWorkspace(runtime, 1, 'free');
      const sessions = [
        await startCheckout(workspace.owner, { plan: 'team', workspace_id: workspace.id, seats: 2 }),
        await startCheckout(workspace.owner, { plan: 'team', workspace_id: workspace.id, seats: 7 }),
      ];
      const subscriptions = await payHeld(sessions);
      const waiting = held();
      const [ofTwo, ofSeven] = subscriptions.map((id) => eventsOf(id, waiting));
      await deliver(order === 'made' ? [...ofTwo!, ...ofSeven!] : [...ofSeven!, ...ofTwo!]);
      const live = await expectFollowsLive({ workspaceId: workspace.id }, subscriptions);
      expect(live?.items.data[0]?.quantity).toBe(order === 'made' ? 2 : 7);
      await expectCancelledWithCredit(subscriptions.find((id) => id !== live!.id)!);

      // The owner cancels the live one in the portal; at its period's end the workspace is Free, and nothing is billed any more.
      const portal = await api.post('/v1/billing/portal', {}, workspace.owner.auth);
      expect(
        (
          await fetch(`${portal.body.url}/subscriptions/${live!.id}/cancel`, {
            method: 'POST',
            body: new URLSearchParams(),
            redirect: 'manual',
          })
        ).status,
      ).toBe(303);
      await runtime.stripe.endPeriod(live!.id);
      await runtime.stripe.settled();
      expect(await expectFollowsLive({ workspaceId: workspace.id }, subscriptions)).toBeNull();
      expect((await runtime.functions.workspaces.workspaces.get(workspace.id))!.plan).toBe('free');
    }
  });
});

/** Posts a held event to the service's webhook as the emulator would, signed now. */
async function postSigned(eventId: string): Promise<number> {
  const payload = JSON.stringify(runtime.stripe.events().find((record) => record.event.id === eventId)!.event, null, 2);
  const signature = stripe.webhooks.generateTestHeaderString({
    payload,
    secret: runtime.stripe.signingSecret,
    timestamp: Math.floor(runtime.clock.now() / 1000),
  });
  const reply = await fetch(runtime.stripe.webhookUrl, {
    method: 'POST',
    body: payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
  });
  await reply.arrayBuffer();
  return reply.status;
}
