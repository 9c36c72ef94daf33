import { createHmac, timingSafeEqual } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../shared/clock.ts';
import type { ProviderEvent, ProviderSubscription } from '../../shared/domain/billing/model.ts';
import {
  InvalidSignature,
  UnknownCursor,
  type CheckoutRequest,
  type PaymentProvider,
  type ProviderInvoice,
} from '../../shared/domain/billing/ports.ts';
import { ids } from '../../local/stripe/objects.ts';
import { signatureHeader } from '../../local/stripe/webhooks.ts';
import { FakeProviderAccount, providerRefusal, type FakeCheckout } from './paymentAccount.ts';

export { providerRefusal };

/** The fake's signing secret, as the emulator's (`whsec_…`). */
export const fakeSigningSecret = 'whsec_hushlink_fake_provider';
/** How far a signature's timestamp may be from now (StripeProvider's `signatureToleranceSeconds`). */
const toleranceSeconds = 300;

/** A call the service made, in order, with its arguments as they were. */
export interface ProviderCall {
  method: keyof PaymentProvider;
  args: unknown[];
}

/**
 * The payment provider for use-case tests: it records every call (`calls`) and answers as the
 * Stripe emulator in local/stripe does through StripeProvider (the integration suites keep the
 * emulator): customers and checkouts replayed by idempotency key, a checkout paid only by a
 * test (`account.completeCheckout`), subscriptions changed, cancelled and renewed, invoices
 * newest first, and events signed as Stripe signs them (`signed`). `failNext` makes one call fail.
 */
export class FakePaymentProvider implements PaymentProvider {
  readonly calls: ProviderCall[] = [];
  readonly account: FakeProviderAccount;
  private readonly failures = new Map<keyof PaymentProvider, Error[]>();
  private readonly replies = new Map<string, { method: string; args: unknown; reply: unknown }>();

  constructor(
    private readonly clock: Clock,
    private readonly signingSecret = fakeSigningSecret,
  ) {
    this.account = new FakeProviderAccount(clock);
  }

  /** The next call of `method` throws `error` (after it is recorded); queued, one per call. */
  failNext(method: keyof PaymentProvider, error: Error = new Error(`the provider failed ${method}`)): void {
    (this.failures.get(method) ?? this.failures.set(method, []).get(method)!).push(error);
  }

  /** What a webhook request for `event` carries, signed now: its raw body and `Stripe-Signature`. */
  signed(event: ProviderEvent): { rawBody: Buffer; signature: string } {
    const payload = JSON.stringify({ id: event.id, object: 'event', type: event.type, data: { object: objectOf(event) } }, null, 2);
    return { rawBody: Buffer.from(payload), signature: signatureHeader(payload, this.signingSecret, Math.floor(this.clock.now() / 1000)) };
  }

  private call(method: keyof PaymentProvider, args: unknown[]): void {
    this.calls.push({ method, args: structuredClone(args) });
    const error = this.failures.get(method)?.shift();
    if (error) throw error;
  }

  /** The answer given before for the same key, or a new one; the same key with other parameters is refused, as Stripe refuses it. */
  private idempotent<T>(method: string, key: string, args: unknown, make: () => T): T {
    const held = this.replies.get(key);
    if (held) {
      if (held.method !== method || !isDeepStrictEqual(held.args, args))
        throw Object.assign(
          new Error('Keys for idempotent requests can only be used with the same parameters they were first used with.'),
          { name: 'StripeIdempotencyError' },
        );
      return structuredClone(held.reply) as T;
    }
    const reply = make();
    this.replies.set(key, { method, args: structuredClone(args), reply: structuredClone(reply) });
    return reply;
  }

  async verifyEvent(rawBody: Buffer, signature: string | null): Promise<ProviderEvent> {
    this.call('verifyEvent', [rawBody.toString('utf8'), signature]);
    if (!signature) throw new InvalidSignature('no Stripe-Signature header');
    const elements = signature.split(',').map((element) => element.split('='));
    const timestamps = elements.filter(([name]) => name === 't');
    if (timestamps.length > 1) throw new InvalidSignature('more than one timestamp (t) in the header');
    const signedAt = Number.parseInt(timestamps[0]?.[1] ?? '', 10);
    if (!Number.isFinite(signedAt)) throw new InvalidSignature('Unable to extract timestamp and signatures from header');
    const expected = Buffer.from(
      createHmac('sha256', this.signingSecret)
        .update(`${signedAt}.${rawBody.toString('utf8')}`, 'utf8')
        .digest('hex'),
    );
    const matches = elements.some(
      ([name, value]) =>
        name === 'v1' &&
        value !== undefined &&
        Buffer.byteLength(value) === expected.length &&
        timingSafeEqual(Buffer.from(value), expected),
    );
    if (!matches) throw new InvalidSignature('No signatures found matching the expected signature for payload');
    const now = Math.floor(this.clock.now() / 1000);
    if (now - signedAt > toleranceSeconds) throw new InvalidSignature('Timestamp outside the tolerance zone');
    if (signedAt > now + toleranceSeconds) throw new InvalidSignature('Timestamp outside the tolerance zone (in the future)');
    try {
      const event = JSON.parse(rawBody.toString('utf8')) as { id: string; type: string; data: { object: Record<string, unknown> } };
      return { id: event.id, type: event.type, subscriptionId: subscriptionIdOf(event.type, event.data.object) };
    } catch (error) {
      throw new InvalidSignature((error as Error).message);
    }
  }

  async createCustomer(email: string, userId: string, idempotencyKey: string): Promise<string> {
    this.call('createCustomer', [email, userId, idempotencyKey]);
    return this.idempotent('createCustomer', idempotencyKey, { email, userId }, () => this.account.addCustomer(email, userId));
  }

  async createCheckoutSession(request: CheckoutRequest): Promise<{ id: string; url: string }> {
    this.call('createCheckoutSession', [request]);
    const { idempotencyKey, ...args } = request;
    return this.idempotent('createCheckoutSession', idempotencyKey, args, () => {
      this.account.customer(request.customerId);
      this.account.price(request.priceId);
      if (request.quantity < 1) throw providerRefusal('Quantity must be greater than 0.');
      const id = ids.checkoutSession();
      const checkout: FakeCheckout = {
        id,
        url: `https://checkout.fake.invalid/${id}`,
        customerId: request.customerId,
        priceId: request.priceId,
        quantity: request.quantity,
        metadata: { ...request.metadata },
        status: 'open',
        // Stripe's default: open for 24 hours.
        expiresAt: this.clock.now() + 24 * 3600 * 1000,
        subscriptionId: null,
      };
      this.account.checkouts.set(id, checkout);
      return { id, url: checkout.url };
    });
  }

  async createPortalSession(customerId: string, returnUrl: string): Promise<{ url: string }> {
    this.call('createPortalSession', [customerId, returnUrl]);
    this.account.customer(customerId);
    return { url: `https://billing.fake.invalid/portal/${ids.portalSession()}` };
  }

  async listInvoices(
    customerId: string,
    limit: number,
    startingAfter: string | null,
  ): Promise<{ items: ProviderInvoice[]; hasMore: boolean }> {
    this.call('listInvoices', [customerId, limit, startingAfter]);
    this.account.customer(customerId);
    const newestFirst = this.account.invoices.filter((invoice) => invoice.customerId === customerId).reverse();
    let from = 0;
    if (startingAfter !== null) {
      // Stripe's 400 for a cursor of no invoice (of any customer).
      if (!this.account.invoices.some((invoice) => invoice.id === startingAfter)) throw new UnknownCursor(`no invoice ${startingAfter}`);
      from = newestFirst.findIndex((invoice) => invoice.id === startingAfter) + 1;
      if (from === 0) return { items: [], hasMore: false };
    }
    const page = newestFirst.slice(from, from + limit);
    return { items: page.map(({ customerId: _customer, ...invoice }) => ({ ...invoice })), hasMore: newestFirst.length > from + limit };
  }

  async invoiceCustomer(id: string): Promise<string | null> {
    this.call('invoiceCustomer', [id]);
    return this.account.invoices.find((invoice) => invoice.id === id)?.customerId ?? null;
  }

  async retrieveSubscription(id: string): Promise<ProviderSubscription | null> {
    this.call('retrieveSubscription', [id]);
    const held = this.account.subscriptions.get(id);
    return held ? structuredClone(held) : null;
  }

  async changeQuantity(subscriptionId: string, itemId: string, quantity: number, idempotencyKey: string): Promise<ProviderSubscription> {
    this.call('changeQuantity', [subscriptionId, itemId, quantity, idempotencyKey]);
    return this.idempotent('changeQuantity', idempotencyKey, { subscriptionId, itemId, quantity }, () => {
      const held = this.account.subscription(subscriptionId);
      if (held.status === 'canceled')
        throw providerRefusal('A canceled subscription can only update its cancellation_details and metadata.');
      if (held.itemId !== itemId) throw providerRefusal(`No such subscription_item: '${itemId}'`, 'resource_missing');
      if (quantity < 0) throw providerRefusal(`Invalid non-negative integer: ${quantity}`);
      // Prorated onto the next invoice, as `create_prorations` does: no invoice now.
      if (held.quantity !== quantity) {
        held.quantity = quantity;
        this.account.emit('customer.subscription.updated', held.id);
      }
      return structuredClone(held);
    });
  }

  async cancelSubscription(id: string): Promise<ProviderSubscription | null> {
    this.call('cancelSubscription', [id]);
    const held = this.account.subscriptions.get(id);
    if (!held) return null;
    // Canceled already: Stripe answers "no such subscription", and StripeProvider reads it instead.
    if (held.status !== 'canceled') this.account.cancel(held);
    return structuredClone(held);
  }

  async openCheckouts(customerId: string): Promise<Array<{ id: string; metadata: Record<string, string> }>> {
    this.call('openCheckouts', [customerId]);
    return [...this.account.checkouts.values()]
      .filter((checkout) => checkout.customerId === customerId && this.account.checkoutStatus(checkout) === 'open')
      .reverse()
      .map((checkout) => ({ id: checkout.id, metadata: { ...checkout.metadata } }));
  }

  async expireCheckout(id: string): Promise<boolean> {
    this.call('expireCheckout', [id]);
    const checkout = this.account.checkouts.get(id);
    // Paid, expired, or no such session: Stripe's 400, which StripeProvider answers as false.
    if (!checkout || this.account.checkoutStatus(checkout) !== 'open') return false;
    checkout.status = 'expired';
    return true;
  }
}

/** The event's object as Stripe sends it, as far as the service reads it. */
function objectOf(event: ProviderEvent): Record<string, unknown> {
  if (event.type.startsWith('customer.subscription.')) return { id: event.subscriptionId, object: 'subscription' };
  if (event.type === 'checkout.session.completed') return { object: 'checkout.session', subscription: event.subscriptionId };
  if (event.type.startsWith('invoice.'))
    return { object: 'invoice', parent: { subscription_details: { subscription: event.subscriptionId }, type: 'subscription_details' } };
  return { object: event.type.split('.')[0] };
}

/** The subscription an event is about, read as StripeProvider reads it. */
function subscriptionIdOf(type: string, object: Record<string, unknown>): string | null {
  const id = (value: unknown) => (typeof value === 'string' ? value : null);
  if (type.startsWith('customer.subscription.')) return id(object.id);
  if (type === 'checkout.session.completed') return id(object.subscription);
  if (type.startsWith('invoice.')) {
    const parent = object.parent as { subscription_details?: { subscription?: unknown } } | null | undefined;
    return id(parent?.subscription_details?.subscription) ?? id(object.subscription);
  }
  return null;
}
