import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../local/stripe/webhooks.ts';
import { startCheckout } from '../../shared/domain/billing/checkout.ts';
import { receiveProviderEvent } from '../../shared/domain/billing/webhook.ts';
import { Invalid } from '../../shared/domain/refusals.ts';
import { fakeSigningSecret } from '../fakes/paymentProvider.ts';
import { billingWorld } from './billing-world.ts';

// The provider's webhook (interface §4.6, §6.6) on the fakes: a signature checked on the raw body,
// each event applied once and in any order (the subscription read from the provider), the plan
// following a target's one live subscription, and the buyer mailed what changed for them.

const day = 24 * 3600;
const planOf = async (b: ReturnType<typeof billingWorld>, userId: string) => b.accounts.planOf(userId);

describe('receiveProviderEvent', () => {
  it('gives an account Pro when its checkout is paid, and Free when it ends at the period’s end (mailed)', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    const subscription = await b.buy(ana, { plan: 'pro' });
    expect(await planOf(b, ana.id)).toBe('pro');
    // Each event read the subscription from the provider.
    expect(b.provider.calls.filter((call) => call.method === 'retrieveSubscription').length).toBeGreaterThanOrEqual(3);
    await b.deliver(b.provider.account.setCancelAtPeriodEnd(subscription.id, true));
    expect(await planOf(b, ana.id)).toBe('pro');
    b.clock.advance(31 * day);
    await b.deliver(b.provider.account.endPeriod(subscription.id));
    expect(await planOf(b, ana.id)).toBe('free');
    expect(b.mailer.to(ana.email).map((mail) => mail.subject)).toEqual(['Hushlink: your subscription ended']);
    expect(b.mailer.to(ana.email)[0]!.text).toContain('Your Pro plan has ended, and falls back to Free.');
  });

  it('keeps the plan through a failed payment (mailed, with the date), and falls back to Free when the provider ends it', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    const subscription = await b.buy(ana, { plan: 'pro' });
    b.provider.account.failNextPayment(subscription.id);
    b.clock.advance(31 * day);
    await b.deliver(b.provider.account.endPeriod(subscription.id));
    expect(b.provider.account.subscriptions.get(subscription.id)!.status).toBe('past_due');
    expect(await planOf(b, ana.id)).toBe('pro');
    const [failed] = b.mailer.to(ana.email);
    expect(failed).toMatchObject({
      subject: 'Hushlink: a payment failed',
      text: expect.stringContaining('https://eu.hushlink.example/billing'),
    });
    b.clock.advance(31 * day);
    await b.deliver(b.provider.account.endPeriod(subscription.id));
    expect(await planOf(b, ana.id)).toBe('free');
  });

  it('gives a workspace Team with the seats paid for; seat changes at the provider follow, never below the members', async () => {
    const b = billingWorld();
    const owner = b.person('owner');
    const id = await b.workspace(owner, { plan: 'free', seats: 1 });
    const subscription = await b.buy(owner, { plan: 'team', workspaceId: id, seats: 5 });
    expect(b.data.workspaceOf(id)!.plan).toBe('team');
    expect(b.roster(id)).toMatchObject({ seats: 5 });
    await b.join(id, owner, 'member');
    await b.join(id, owner, 'admin');
    const item = subscription.itemId;
    await b.provider.changeQuantity(subscription.id, item, 4, 'at-the-provider-1');
    await b.deliver(b.provider.account.events.slice(-1));
    expect(b.roster(id)).toMatchObject({ seats: 4, members: 3 });
    await b.provider.changeQuantity(subscription.id, item, 1, 'at-the-provider-2');
    await b.deliver(b.provider.account.events.slice(-1));
    expect(b.roster(id)).toMatchObject({ seats: 3, members: 3 });
  });

  it('applies an event once: a repeat is a duplicate and changes nothing', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    await b.buy(ana, { plan: 'pro' });
    // The one that gave the plan: its id was written with the change.
    const created = b.provider.account.events.find((event) => event.type === 'customer.subscription.created')!;
    expect(await b.deliver([created])).toEqual(['duplicate']);
    expect(await planOf(b, ana.id)).toBe('pro');
  });

  it('ends in the provider’s latest state whatever order the events arrive in', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    const session = await startCheckout({ plan: 'pro' }, ana.id, b.ports);
    const { subscription, events } = b.provider.account.completeCheckout(session.id);
    const later = [...b.provider.account.setCancelAtPeriodEnd(subscription.id, true)];
    b.clock.advance(31 * day);
    later.push(...b.provider.account.endPeriod(subscription.id));
    // Newest first: the end arrives before the creation and the payment.
    await b.deliver([...events, ...later].reverse());
    expect(await planOf(b, ana.id)).toBe('free');
  });

  it('keeps the plan a new subscription gives when the news of an ended one arrives after it', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    const first = await b.buy(ana, { plan: 'pro' });
    const endOfFirst = [...b.provider.account.setCancelAtPeriodEnd(first.id, true)];
    b.clock.advance(31 * day);
    endOfFirst.push(...b.provider.account.endPeriod(first.id));
    const session = await startCheckout({ plan: 'pro' }, ana.id, b.ports).catch(() => null);
    // The copy still says the first is live: a checkout is refused until its end is heard; bought at the provider instead.
    expect(session).toBeNull();
    const second = await b.provider.createCheckoutSession({
      customerId: first.customerId,
      priceId: 'price_pro_monthly',
      quantity: 1,
      successUrl: 'https://x',
      cancelUrl: 'https://x',
      metadata: { target: 'user', user_id: ana.id },
      clientReferenceId: ana.id,
      idempotencyKey: 'second',
    });
    await b.deliver([...b.provider.account.completeCheckout(second.id).events, ...endOfFirst]);
    expect(await planOf(b, ana.id)).toBe('pro');
    expect((await b.ports.billing.subscriptionOf({ kind: 'user', userId: ana.id }))!.status).toBe('active');
  });

  it('cancels a second live subscription for a target at once, credited, and expires the other open checkouts', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    const sessions = [
      await startCheckout({ plan: 'pro' }, ana.id, b.ports),
      await startCheckout({ plan: 'pro' }, ana.id, b.ports),
      await startCheckout({ plan: 'pro' }, ana.id, b.ports),
    ];
    const [a, c] = [b.provider.account.completeCheckout(sessions[0]!.id), b.provider.account.completeCheckout(sessions[2]!.id)];
    await b.deliver(a.events);
    // The first paid expired the others still open: the second can no longer be paid.
    expect(b.provider.account.checkouts.get(sessions[1]!.id)!.status).toBe('expired');
    expect(b.logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
    // The third was paid before that: cancelled at once, its unused time credited; the plan follows the first.
    await b.deliver(c.events);
    expect(b.provider.account.subscriptions.get(c.subscription.id)!.status).toBe('canceled');
    expect(b.provider.account.invoices.at(-1)!.total).toBeLessThan(0);
    expect(await b.ports.billing.linkedSubscription({ kind: 'user', userId: ana.id })).toBe(a.subscription.id);
    expect(await planOf(b, ana.id)).toBe('pro');
    expect(b.logger.lines.find((line) => line.level === 'warn')).toMatchObject({
      attributes: { subscription_id: c.subscription.id, live_subscription_id: a.subscription.id },
    });
    expect(b.mailer.to(ana.email)).toEqual([]);
  });

  it('refuses a missing, wrong, stale, future or twice-timestamped signature (invalid at header stripe-signature), changing nothing', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    const session = await startCheckout({ plan: 'pro' }, ana.id, b.ports);
    const [created] = b.provider.account.completeCheckout(session.id).events;
    const { rawBody } = b.provider.signed(created!);
    const payload = rawBody.toString('utf8');
    const now = Math.floor(b.clock.now() / 1000);
    const later = signatureHeader(payload, fakeSigningSecret, now + 3600);
    for (const signature of [
      null,
      signatureHeader(payload, 'whsec_not_the_secret', now),
      signatureHeader(payload, fakeSigningSecret, now - 360),
      signatureHeader(payload, fakeSigningSecret, now + 360),
      `t=${now},${later}`,
    ]) {
      const refused = receiveProviderEvent(rawBody, signature, b.ports);
      await expect(refused).rejects.toBeInstanceOf(Invalid);
      await expect(receiveProviderEvent(rawBody, signature, b.ports)).rejects.toMatchObject({
        kind: 'invalid',
        fields: [{ field: 'stripe-signature', in: 'header' }],
      });
    }
    expect(await planOf(b, ana.id)).toBe('free');
    expect(b.data.providerEvents.size).toBe(0);
  });

  it('ignores (recorded, logged) a signed event about a subscription the provider does not have, and one it does not act on', async () => {
    const b = billingWorld();
    const missing = b.provider.signed({ id: 'evt_missing', type: 'customer.subscription.updated', subscriptionId: 'sub_nowhere' });
    expect(await receiveProviderEvent(missing.rawBody, missing.signature, b.ports)).toBe('ignored');
    expect(b.provider.calls.at(-1)).toEqual({ method: 'retrieveSubscription', args: ['sub_nowhere'] });
    expect(b.logger.lines).toEqual([
      expect.objectContaining({ level: 'warn', attributes: { event_id: 'evt_missing', subscription_id: 'sub_nowhere', price_id: null } }),
    ]);
    const other = b.provider.signed({ id: 'evt_other', type: 'customer.created', subscriptionId: null });
    expect(await receiveProviderEvent(other.rawBody, other.signature, b.ports)).toBe('ignored');
    expect(await receiveProviderEvent(other.rawBody, other.signature, b.ports)).toBe('duplicate');
  });
});
