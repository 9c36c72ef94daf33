import { beforeEach, describe, expect, it } from 'vitest';
import type { ProviderEvent } from '../../shared/domain/billing/model.ts';
import { InvalidSignature, UnknownCursor, type CheckoutRequest, type PaymentProvider } from '../../shared/domain/billing/ports.ts';
import { newUserId, newWorkspaceId } from '../../shared/ids.ts';

/** A webhook request as the service receives it. */
export interface SignedEvent {
  rawBody: Buffer;
  signature: string;
}

/**
 * What the provider's contract runs against: the provider, and what a payer and time do there
 * (the emulator's test controls, or the fake's account).
 */
export interface ProviderWorld {
  provider: PaymentProvider;
  /** Pays an open checkout on the provider's page; the subscription it made. */
  completeCheckout(sessionId: string): Promise<string>;
  /** The subscription's period ends now (renewed and invoiced, or ended). */
  endPeriod(subscriptionId: string): Promise<void>;
  /** Every event sent so far, as the webhook endpoint received it, oldest first. */
  events(): Promise<SignedEvent[]>;
  /** Moves the provider's and the service's clock. */
  advance(seconds: number): void;
}

const teamPrice = 'price_team_seat_monthly';

/**
 * The PaymentProvider port's contract: what the service relies on of Stripe, run against the
 * fake (test/fakes/paymentProvider.ts) and against StripeProvider on the local emulator
 * (local/stripe), so the fake answers as the emulator does.
 */
export function describePaymentProviderContract(name: string, make: () => ProviderWorld | Promise<ProviderWorld>): void {
  describe(`PaymentProvider contract: ${name}`, () => {
    let world: ProviderWorld;
    let provider: PaymentProvider;
    let customerId: string;
    beforeEach(async () => {
      world = await make();
      provider = world.provider;
      const userId = newUserId();
      customerId = await provider.createCustomer(`${userId}@example.com`, userId, `customer-${userId}`);
    });
    const checkout = (quantity = 3, key = `checkout-${newUserId()}`): CheckoutRequest => {
      const workspaceId = newWorkspaceId();
      return {
        customerId,
        priceId: teamPrice,
        quantity,
        successUrl: 'https://app.example.com/billing?paid=1',
        cancelUrl: 'https://app.example.com/billing',
        metadata: { target: 'workspace', workspace_id: workspaceId, user_id: 'usr_owner' },
        clientReferenceId: workspaceId,
        idempotencyKey: key,
      };
    };
    const subscribed = async (quantity = 3) => {
      const request = checkout(quantity);
      const session = await provider.createCheckoutSession(request);
      return { request, subscriptionId: await world.completeCheckout(session.id) };
    };
    const verified = async (): Promise<ProviderEvent[]> =>
      Promise.all((await world.events()).map((event) => provider.verifyEvent(event.rawBody, event.signature)));

    it('makes one customer per idempotency key', async () => {
      expect(customerId).toMatch(/^cus_/);
      const userId = newUserId();
      const again = await provider.createCustomer(`${userId}@example.com`, userId, `customer-${userId}`);
      expect(await provider.createCustomer(`${userId}@example.com`, userId, `customer-${userId}`)).toBe(again);
      expect(again).not.toBe(customerId);
    });

    it('opens a checkout once per idempotency key, listed open with its metadata until it is expired', async () => {
      const request = checkout();
      const session = await provider.createCheckoutSession(request);
      expect(session.id).toMatch(/^cs_/);
      expect(session.url).toMatch(/^https?:\/\//);
      expect(await provider.createCheckoutSession(request)).toEqual(session);
      const other = await provider.createCheckoutSession(checkout());
      expect(await provider.openCheckouts(customerId)).toEqual([
        { id: other.id, metadata: expect.any(Object) },
        { id: session.id, metadata: request.metadata },
      ]);
      expect(await provider.expireCheckout(session.id)).toBe(true);
      expect(await provider.expireCheckout(session.id)).toBe(false);
      expect(await provider.expireCheckout('cs_test_none')).toBe(false);
      expect((await provider.openCheckouts(customerId)).map((open) => open.id)).toEqual([other.id]);
    });

    it('refuses a checkout or a portal for a customer it does not have', async () => {
      await expect(provider.createCheckoutSession({ ...checkout(), customerId: 'cus_none' })).rejects.toThrow();
      await expect(provider.createPortalSession('cus_none', 'https://app.example.com/billing')).rejects.toThrow();
      expect((await provider.createPortalSession(customerId, 'https://app.example.com/billing')).url).toMatch(/^https?:\/\//);
    });

    it('makes a paid checkout’s subscription, with the checkout’s metadata, and signs its events', async () => {
      const { request, subscriptionId } = await subscribed(3);
      const live = (await provider.retrieveSubscription(subscriptionId))!;
      expect(live).toMatchObject({
        id: subscriptionId,
        customerId,
        status: 'active',
        priceId: teamPrice,
        quantity: 3,
        cancelAtPeriodEnd: false,
        metadata: request.metadata,
      });
      expect(live.itemId).toMatch(/^si_/);
      expect(live.currentPeriodEnd).toBeGreaterThan(0);
      expect(await provider.openCheckouts(customerId)).toEqual([]);
      const events = await verified();
      expect(events.map((event) => event.type)).toEqual(['customer.subscription.created', 'checkout.session.completed', 'invoice.paid']);
      expect(events.every((event) => event.subscriptionId === subscriptionId && /^evt_/.test(event.id))).toBe(true);
      expect(await provider.retrieveSubscription('sub_none')).toBeNull();
    });

    it('changes the quantity (once per idempotency key), and refuses it once the subscription ended', async () => {
      const { subscriptionId } = await subscribed(3);
      const { itemId } = (await provider.retrieveSubscription(subscriptionId))!;
      const changed = await provider.changeQuantity(subscriptionId, itemId, 5, `seats-${subscriptionId}`);
      expect(changed).toMatchObject({ id: subscriptionId, quantity: 5, status: 'active' });
      expect(await provider.changeQuantity(subscriptionId, itemId, 5, `seats-${subscriptionId}`)).toEqual(changed);
      expect((await provider.retrieveSubscription(subscriptionId))!.quantity).toBe(5);
      await provider.cancelSubscription(subscriptionId);
      await expect(provider.changeQuantity(subscriptionId, itemId, 6, `seats-${subscriptionId}-2`)).rejects.toThrow();
    });

    it('cancels now, crediting the unused time; cancelled again, answers it as it is', async () => {
      const { subscriptionId } = await subscribed(2);
      const ended = (await provider.cancelSubscription(subscriptionId))!;
      expect(ended).toMatchObject({ id: subscriptionId, status: 'canceled' });
      expect(await provider.cancelSubscription(subscriptionId)).toMatchObject({ id: subscriptionId, status: 'canceled' });
      expect(await provider.cancelSubscription('sub_none')).toBeNull();
      const { items } = await provider.listInvoices(customerId, 10, null);
      expect(items).toHaveLength(2);
      expect(items[0]!.total).toBeLessThan(0);
      expect((await verified()).map((event) => event.type)).toContain('customer.subscription.deleted');
    });

    it('lists a customer’s invoices newest first, in pages, and names an invoice’s customer', async () => {
      const { subscriptionId } = await subscribed(3);
      world.advance(3600);
      await world.endPeriod(subscriptionId);
      const all = await provider.listInvoices(customerId, 10, null);
      expect(all.hasMore).toBe(false);
      expect(all.items).toHaveLength(2);
      expect(all.items.map((invoice) => invoice.total)).toEqual([2400, 2400]);
      expect(all.items[0]!.createdAt).toBeGreaterThan(all.items[1]!.createdAt);
      expect(all.items[0]).toMatchObject({ status: 'paid', currency: 'usd' });
      expect(all.items[0]!.id).toMatch(/^in_[A-Za-z0-9]+$/);
      const first = await provider.listInvoices(customerId, 1, null);
      expect(first).toEqual({ items: [all.items[0]], hasMore: true });
      expect(await provider.listInvoices(customerId, 1, first.items[0]!.id)).toEqual({ items: [all.items[1]], hasMore: false });
      await expect(provider.listInvoices(customerId, 1, 'in_1none')).rejects.toBeInstanceOf(UnknownCursor);
      expect(await provider.invoiceCustomer(all.items[1]!.id)).toBe(customerId);
      expect(await provider.invoiceCustomer('in_1none')).toBeNull();
    });

    it('verifies an event only with its signature, on its exact bytes, within five minutes', async () => {
      await subscribed();
      const [event] = await world.events();
      const { rawBody, signature } = event!;
      expect((await provider.verifyEvent(rawBody, signature)).type).toBe('customer.subscription.created');
      await expect(provider.verifyEvent(rawBody, null)).rejects.toBeInstanceOf(InvalidSignature);
      await expect(provider.verifyEvent(Buffer.concat([rawBody, Buffer.from(' ')]), signature)).rejects.toBeInstanceOf(InvalidSignature);
      await expect(provider.verifyEvent(rawBody, signature.replace(/v1=[0-9a-f]{4}/, 'v1=0000'))).rejects.toBeInstanceOf(InvalidSignature);
      await expect(provider.verifyEvent(rawBody, `t=1,${signature}`)).rejects.toBeInstanceOf(InvalidSignature);
      world.advance(301);
      await expect(provider.verifyEvent(rawBody, signature)).rejects.toBeInstanceOf(InvalidSignature);
    });
  });
}
