import { invalidRequest, missingParam, noSuch } from './errors.ts';
import { mergeMetadata } from './form.ts';
import { invoiceLine, issueInvoice, type Charge } from './invoices.ts';
import {
  ids,
  list,
  periodEnd,
  planObject,
  priceObject,
  type Customer,
  type Invoice,
  type InvoiceLine,
  type PriceConfig,
  type StripeEvent,
  type Subscription,
  type SubscriptionItem,
} from './objects.ts';
import { subscriptionItemObject, subscriptionObject } from './shapes/subscription.ts';
import type { StripeStore, SubscriptionRecord } from './store.ts';
import { previousAttributes, type Cause, type Webhooks } from './webhooks.ts';

export interface SubscriptionUpdate {
  items?: Array<{ id?: string; quantity?: number; price?: string }>;
  proration_behavior?: string;
  cancel_at_period_end?: boolean;
  metadata?: Record<string, string>;
}

const cancellationFeedback = [
  'customer_service',
  'low_quality',
  'missing_features',
  'other',
  'switched_service',
  'too_complex',
  'too_expensive',
  'unused',
] as const;

export interface SubscriptionCancel {
  prorate?: boolean;
  invoice_now?: boolean;
  cancellation_details?: { comment?: string; feedback?: string };
}

const prorationBehaviors = ['create_prorations', 'none', 'always_invoice'] as const;

/**
 * What Stripe does to subscriptions: creating one when a checkout is paid, changing items and
 * cancellation (prorated as asked), and the end of a period (renewed and invoiced, or canceled
 * when cancellation was asked or the last payment failed). Each change returns the events
 * Stripe would make, in its order, for the caller to send.
 */
export class Subscriptions {
  constructor(
    private readonly store: StripeStore,
    private readonly webhooks: Webhooks,
    private readonly context: { now(): number; baseUrl: string; price(id: string, param: string): PriceConfig },
  ) {}

  get(id: string, param = 'id'): SubscriptionRecord {
    const record = this.store.data.subscriptions[id];
    if (!record) throw noSuch('subscription', id, param);
    return record;
  }

  /** A new active subscription of these items, its first period starting now, and its first invoice, paid. */
  create(
    customer: Customer,
    items: Array<{ price: string; quantity: number }>,
    metadata: Record<string, string>,
  ): { subscription: Subscription; invoice: Invoice } {
    const now = this.context.now();
    const id = ids.subscription();
    const prices = items.map((item) => this.context.price(item.price, 'price'));
    const end = periodEnd(now, prices[0]!.interval);
    const subscription = subscriptionObject({
      id,
      created: now,
      customer: customer.id,
      currency: prices[0]!.currency,
      items: list(
        items.map((item, index) => this.item(id, prices[index]!, item.quantity, now, end)),
        `/v1/subscription_items?subscription=${id}`,
      ),
      metadata,
    });
    const record: SubscriptionRecord = { subscription, declineNextPayment: false, pendingProrations: [] };
    this.store.data.subscriptions[id] = record;
    const invoice = this.invoice(record, this.fullLines(subscription), 'subscription_create');
    return { subscription, invoice };
  }

  /** `POST /v1/subscriptions/{id}` (and the portal's changes, which have no `cause`). */
  update(id: string, update: SubscriptionUpdate, cause?: Cause): { subscription: Subscription; events: StripeEvent[] } {
    const record = this.get(id);
    const subscription = record.subscription;
    const onlyMetadata = update.items === undefined && update.cancel_at_period_end === undefined;
    if (subscription.status === 'canceled' && !onlyMetadata)
      throw invalidRequest('A canceled subscription can only update its cancellation_details and metadata.');
    const behavior = update.proration_behavior ?? 'create_prorations';
    if (!(prorationBehaviors as readonly string[]).includes(behavior)) {
      throw invalidRequest(`Invalid proration_behavior: must be one of ${prorationBehaviors.join(', ')}`, { param: 'proration_behavior' });
    }
    // Every change is checked before any is made: a refused update changes nothing.
    const changes = (update.items ?? []).map((change, index) => {
      if (change.id === undefined) throw missingParam(`items[${index}][id]`);
      const item = subscription.items.data.find((candidate) => candidate.id === change.id);
      if (!item) throw noSuch('subscription_item', change.id, `items[${index}][id]`);
      if (change.quantity !== undefined && change.quantity < 0)
        throw invalidRequest(`Invalid non-negative integer: ${change.quantity}`, { param: `items[${index}][quantity]` });
      const oldPrice = this.context.price(item.price.id, `items[${index}][price]`);
      const newPrice = change.price === undefined ? oldPrice : this.context.price(change.price, `items[${index}][price]`);
      return { item, oldPrice, newPrice, oldQuantity: item.quantity ?? 1, newQuantity: change.quantity ?? item.quantity ?? 1 };
    });
    const before = structuredClone(subscription);
    const now = this.context.now();
    const prorations: InvoiceLine[] = [];
    for (const { item, oldPrice, newPrice, oldQuantity, newQuantity } of changes) {
      if (newPrice.id === oldPrice.id && newQuantity === oldQuantity) continue;
      const charge = {
        subscription: id,
        subscriptionItem: item.id,
        period: { start: item.current_period_start, end: item.current_period_end },
      };
      prorations.push(
        invoiceLine({ ...charge, price: oldPrice, quantity: oldQuantity, proration: { sign: -1, at: now } }),
        invoiceLine({ ...charge, price: newPrice, quantity: newQuantity, proration: { sign: 1, at: now } }),
      );
      Object.assign(item, {
        price: priceObject(newPrice, item.price.created),
        plan: planObject(newPrice, item.plan.created),
        quantity: newQuantity,
      });
    }
    if (update.cancel_at_period_end !== undefined) this.setCancelAtPeriodEnd(subscription, update.cancel_at_period_end, now);
    if (update.metadata) subscription.metadata = mergeMetadata(subscription.metadata, update.metadata);

    let invoice: Invoice | undefined;
    if (behavior === 'always_invoice' && prorations.length > 0) {
      invoice = this.invoice(record, [...record.pendingProrations.splice(0), ...prorations], 'subscription_update');
    } else if (behavior === 'create_prorations') {
      record.pendingProrations.push(...prorations);
    }
    this.store.save();
    const events: StripeEvent[] = [];
    const changed = previousAttributes(before, subscription);
    if (Object.keys(changed).length > 0) events.push(this.webhooks.create('customer.subscription.updated', subscription, cause, changed));
    if (invoice) events.push(this.webhooks.create(invoice.status === 'paid' ? 'invoice.paid' : 'invoice.payment_failed', invoice, cause));
    return { subscription, events };
  }

  /**
   * `DELETE /v1/subscriptions/{id}`: ended now. `prorate` credits each item's unused time (a
   * proration, as a decrease makes); `invoice_now` bills what is pending on a final invoice at
   * once, a negative total becoming the customer's credit. Stripe answers the cancellation of a
   * subscription canceled already as of one it does not have.
   */
  cancel(id: string, params: SubscriptionCancel, cause?: Cause): { subscription: Subscription; events: StripeEvent[] } {
    const record = this.store.data.subscriptions[id];
    if (!record || record.subscription.status === 'canceled') throw noSuch('subscription', id, 'id');
    const feedback = params.cancellation_details?.feedback;
    if (feedback && !(cancellationFeedback as readonly string[]).includes(feedback)) {
      throw invalidRequest(`Invalid cancellation_details[feedback]: must be one of ${cancellationFeedback.join(', ')}`, {
        param: 'cancellation_details[feedback]',
      });
    }
    const subscription = record.subscription;
    const now = this.context.now();
    for (const item of params.prorate ? subscription.items.data : []) {
      if (item.current_period_end <= now) continue;
      const period = { start: item.current_period_start, end: item.current_period_end };
      record.pendingProrations.push(
        invoiceLine({
          subscription: id,
          subscriptionItem: item.id,
          price: this.context.price(item.price.id, 'price'),
          quantity: item.quantity ?? 1,
          period,
          proration: { sign: -1, at: now },
        }),
      );
    }
    // Stripe does not document a final invoice's reason; the service reads none.
    const invoice =
      params.invoice_now && record.pendingProrations.length > 0
        ? this.invoice(record, record.pendingProrations.splice(0), 'subscription_update')
        : undefined;
    Object.assign(subscription, {
      status: 'canceled',
      canceled_at: now,
      ended_at: now,
      cancellation_details: {
        comment: params.cancellation_details?.comment || null,
        feedback: feedback || null,
        feedback_option: null,
        reason: 'cancellation_requested',
      },
    } satisfies Partial<Subscription>);
    this.store.save();
    const events = [this.webhooks.create('customer.subscription.deleted', subscription, cause)];
    if (invoice) events.push(this.webhooks.create(invoice.status === 'paid' ? 'invoice.paid' : 'invoice.payment_failed', invoice, cause));
    return { subscription, events };
  }

  /** The test control: the next charge of this subscription is declined. */
  declineNextPayment(id: string): Subscription {
    const record = this.get(id);
    record.declineNextPayment = true;
    this.store.save();
    return record.subscription;
  }

  /**
   * The end of the current period, now (a test's "the month is over"): a subscription set to
   * cancel at period end, or whose last payment failed, is canceled; any other is renewed for
   * another period and invoiced. The period ends at its end or now, whichever is earlier.
   */
  endPeriod(id: string): StripeEvent[] {
    const record = this.get(id);
    const subscription = record.subscription;
    if (subscription.status === 'canceled') return [];
    const before = structuredClone(subscription);
    const boundary = Math.min(this.periodEndOf(subscription), this.context.now());
    if (subscription.cancel_at_period_end || subscription.status === 'past_due' || subscription.status === 'unpaid') {
      subscription.status = 'canceled';
      subscription.ended_at = boundary;
      subscription.canceled_at ??= boundary;
      subscription.cancel_at ??= boundary;
      if (!subscription.cancel_at_period_end)
        subscription.cancellation_details = { comment: null, feedback: null, feedback_option: null, reason: 'payment_failed' };
      for (const item of subscription.items.data) item.current_period_end = boundary;
      this.store.save();
      return [this.webhooks.create('customer.subscription.deleted', subscription)];
    }
    for (const item of subscription.items.data) {
      item.current_period_start = boundary;
      item.current_period_end = periodEnd(boundary, this.context.price(item.price.id, 'price').interval);
    }
    const invoice = this.invoice(record, [...this.fullLines(subscription), ...record.pendingProrations.splice(0)], 'subscription_cycle');
    this.store.save();
    const updated = () =>
      this.webhooks.create('customer.subscription.updated', subscription, undefined, previousAttributes(before, subscription));
    // A declined renewal: the failure first, then the subscription, now past_due.
    if (invoice.status !== 'paid') return [this.webhooks.create('invoice.payment_failed', invoice), updated()];
    return [updated(), this.webhooks.create('invoice.paid', invoice)];
  }

  /** Every subscription whose period has ended by the clock, each period in turn (Stripe's clock moving on). */
  due(): StripeEvent[] {
    const events: StripeEvent[] = [];
    for (const { subscription } of Object.values(this.store.data.subscriptions)) {
      while (subscription.status !== 'canceled' && this.periodEndOf(subscription) <= this.context.now())
        events.push(...this.endPeriod(subscription.id));
    }
    return events;
  }

  /** The customer's subscriptions, newest first. */
  ofCustomer(customer: string): Subscription[] {
    return Object.values(this.store.data.subscriptions)
      .map((record) => record.subscription)
      .filter((subscription) => subscription.customer === customer)
      .reverse();
  }

  private setCancelAtPeriodEnd(subscription: Subscription, cancel: boolean, now: number): void {
    if (subscription.cancel_at_period_end === cancel) return;
    subscription.cancel_at_period_end = cancel;
    subscription.cancel_at = cancel ? this.periodEndOf(subscription) : null;
    // Stripe sets canceled_at when the cancellation is asked for, not when it happens.
    subscription.canceled_at = cancel ? now : null;
    subscription.cancellation_details = {
      comment: null,
      feedback: null,
      feedback_option: null,
      reason: cancel ? 'cancellation_requested' : null,
    };
  }

  private periodEndOf(subscription: Subscription): number {
    return Math.min(...subscription.items.data.map((item) => item.current_period_end));
  }

  private item(subscription: string, price: PriceConfig, quantity: number, start: number, end: number): SubscriptionItem {
    return subscriptionItemObject({ id: ids.subscriptionItem(), subscription, price, quantity, start, end });
  }

  private fullLines(subscription: Subscription): InvoiceLine[] {
    return subscription.items.data.map((item) =>
      invoiceLine({
        subscription: subscription.id,
        subscriptionItem: item.id,
        price: this.context.price(item.price.id, 'price'),
        quantity: item.quantity ?? 1,
        period: { start: item.current_period_start, end: item.current_period_end },
      } satisfies Charge),
    );
  }

  private invoice(
    record: SubscriptionRecord,
    lines: InvoiceLine[],
    reason: 'subscription_create' | 'subscription_cycle' | 'subscription_update',
  ): Invoice {
    const customer = this.store.data.customers[record.subscription.customer as string]!;
    const invoice = issueInvoice(record, lines, { now: this.context.now(), baseUrl: this.context.baseUrl, customer, reason });
    this.store.data.invoices.push(invoice);
    record.subscription.latest_invoice = invoice.id;
    if (invoice.status !== 'paid') record.subscription.status = 'past_due';
    return invoice;
  }
}
