import type { Clock } from '../../shared/clock.ts';
import type { ProviderEvent, ProviderSubscription } from '../../shared/domain/billing/model.ts';
import type { ProviderInvoice } from '../../shared/domain/billing/ports.ts';
import { ids, periodEnd } from '../../local/stripe/objects.ts';

/** A checkout session as the fake keeps it. */
export interface FakeCheckout {
  id: string;
  url: string;
  customerId: string;
  priceId: string;
  quantity: number;
  metadata: Record<string, string>;
  status: 'open' | 'complete' | 'expired';
  /** Ms; an open session is expired from then on, as Stripe expires them. */
  expiresAt: number;
  subscriptionId: string | null;
}

/** The emulator's default prices (local/stripe/emulator.ts `defaultStripePrices`), in cents a month. */
export const fakePrices: Readonly<Record<string, number>> = { price_pro_monthly: 1200, price_team_seat_monthly: 800 };

/** An error as the provider's SDK throws it for a request Stripe refuses (a 400). */
export const providerRefusal = (message: string, code?: string): Error =>
  Object.assign(new Error(message), { name: 'StripeInvalidRequestError', type: 'StripeInvalidRequestError', code });

/**
 * The fake provider's account (what the emulator's StripeStore holds), and what a test does that
 * the API does not: pay a checkout, ask the portal to cancel at the period's end, decline the
 * next payment, end a period. Each returns the events Stripe would send, in Stripe's order; every
 * event made is also in `events`.
 */
export class FakeProviderAccount {
  readonly customers = new Map<string, { id: string; email: string; userId: string }>();
  readonly checkouts = new Map<string, FakeCheckout>();
  readonly subscriptions = new Map<string, ProviderSubscription>();
  /** Oldest first. */
  readonly invoices: Array<ProviderInvoice & { customerId: string }> = [];
  readonly events: ProviderEvent[] = [];
  private readonly periodStarts = new Map<string, number>();
  private readonly declining = new Set<string>();

  constructor(private readonly clock: Clock) {}

  private seconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  emit(type: string, subscriptionId: string): ProviderEvent {
    const event = { id: ids.event(), type, subscriptionId };
    this.events.push(event);
    return { ...event };
  }

  addCustomer(email: string, userId: string): string {
    const id = ids.customer();
    this.customers.set(id, { id, email, userId });
    return id;
  }

  customer(id: string): { id: string; email: string; userId: string } {
    const customer = this.customers.get(id);
    if (!customer) throw providerRefusal(`No such customer: '${id}'`, 'resource_missing');
    return customer;
  }

  price(id: string): number {
    const amount = fakePrices[id];
    if (amount === undefined) throw providerRefusal(`No such price: '${id}'`, 'resource_missing');
    return amount;
  }

  subscription(id: string): ProviderSubscription {
    const held = this.subscriptions.get(id);
    if (!held) throw providerRefusal(`No such subscription: '${id}'`, 'resource_missing');
    return held;
  }

  checkoutStatus(checkout: FakeCheckout): FakeCheckout['status'] {
    if (checkout.status === 'open' && checkout.expiresAt <= this.clock.now()) checkout.status = 'expired';
    return checkout.status;
  }

  /** Pay: the subscription (its metadata the checkout's), its first invoice paid, and Stripe's three events. */
  completeCheckout(sessionId: string): { subscription: ProviderSubscription; events: ProviderEvent[] } {
    const checkout = this.checkouts.get(sessionId);
    if (!checkout || this.checkoutStatus(checkout) !== 'open')
      throw providerRefusal(`This Checkout Session is ${checkout?.status ?? 'unknown'}; only an open session can be paid.`);
    const now = this.seconds();
    const subscription: ProviderSubscription = {
      id: ids.subscription(),
      customerId: checkout.customerId,
      status: 'active',
      priceId: checkout.priceId,
      quantity: checkout.quantity,
      itemId: ids.subscriptionItem(),
      currentPeriodEnd: periodEnd(now) * 1000,
      cancelAtPeriodEnd: false,
      metadata: { ...checkout.metadata },
    };
    this.subscriptions.set(subscription.id, subscription);
    this.periodStarts.set(subscription.id, now);
    Object.assign(checkout, { status: 'complete', subscriptionId: subscription.id });
    this.invoice(subscription, this.price(subscription.priceId) * subscription.quantity);
    const events = [
      this.emit('customer.subscription.created', subscription.id),
      this.emit('checkout.session.completed', subscription.id),
      this.emit('invoice.paid', subscription.id),
    ];
    return { subscription: structuredClone(subscription), events };
  }

  /** The portal's "cancel at the end of the period" (or its undoing). */
  setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean): ProviderEvent[] {
    const held = this.subscription(subscriptionId);
    if (held.status === 'canceled' || held.cancelAtPeriodEnd === cancel) return [];
    held.cancelAtPeriodEnd = cancel;
    return [this.emit('customer.subscription.updated', held.id)];
  }

  /** The next charge of the subscription is declined. */
  failNextPayment(subscriptionId: string): void {
    this.subscription(subscriptionId);
    this.declining.add(subscriptionId);
  }

  /** The period ends now: canceled when asked or when its last payment failed, otherwise renewed and invoiced. */
  endPeriod(subscriptionId: string): ProviderEvent[] {
    const held = this.subscription(subscriptionId);
    if (held.status === 'canceled') return [];
    const boundary = Math.min(held.currentPeriodEnd / 1000, this.seconds());
    if (held.cancelAtPeriodEnd || held.status === 'past_due' || held.status === 'unpaid') {
      Object.assign(held, { status: 'canceled', currentPeriodEnd: boundary * 1000 });
      return [this.emit('customer.subscription.deleted', held.id)];
    }
    this.periodStarts.set(held.id, boundary);
    held.currentPeriodEnd = periodEnd(boundary) * 1000;
    const invoice = this.invoice(held, this.price(held.priceId) * held.quantity);
    if (invoice.status !== 'paid') {
      held.status = 'past_due';
      return [this.emit('invoice.payment_failed', held.id), this.emit('customer.subscription.updated', held.id)];
    }
    return [this.emit('customer.subscription.updated', held.id), this.emit('invoice.paid', held.id)];
  }

  /** Ended now, its unused time credited on a final invoice (`prorate`, `invoice_now`). */
  cancel(held: ProviderSubscription): void {
    const now = this.seconds();
    const start = this.periodStarts.get(held.id) ?? now;
    const end = held.currentPeriodEnd / 1000;
    const credit =
      end > now && end > start
        ? this.invoice(held, -Math.round((this.price(held.priceId) * held.quantity * (end - now)) / (end - start)))
        : null;
    held.status = 'canceled';
    this.emit('customer.subscription.deleted', held.id);
    if (credit) this.emit('invoice.paid', held.id);
  }

  private invoice(subscription: ProviderSubscription, total: number): ProviderInvoice {
    const declined = total > 0 && this.declining.delete(subscription.id);
    const id = ids.invoice();
    const sequence = this.invoices.filter((invoice) => invoice.customerId === subscription.customerId).length + 1;
    const invoice = {
      id,
      number: `FAKE-${String(sequence).padStart(4, '0')}`,
      status: declined ? 'open' : 'paid',
      total,
      currency: 'usd',
      createdAt: this.seconds() * 1000,
      hostedInvoiceUrl: `https://billing.fake.invalid/invoices/${id}`,
      invoicePdf: `https://billing.fake.invalid/invoices/${id}/pdf`,
    };
    this.invoices.push({ ...invoice, customerId: subscription.customerId });
    return invoice;
  }
}
