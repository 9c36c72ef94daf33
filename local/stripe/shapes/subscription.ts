import { planObject, priceObject, type List, type PriceConfig, type Subscription, type SubscriptionItem } from '../objects.ts';

export interface SubscriptionFields {
  id: string;
  /** Unix seconds: created, started and anchored now. */
  created: number;
  customer: string;
  currency: string;
  items: List<SubscriptionItem>;
  metadata: Record<string, string>;
}

/**
 * A subscription as a paid subscription-mode checkout creates it: active, charged
 * automatically, in flexible billing mode (the default at the pinned API version), with no
 * trial, discount, tax, schedule, pause or Connect destination; each of those fields present
 * as Stripe shows it unused.
 */
export function subscriptionObject(fields: SubscriptionFields): Subscription {
  return {
    id: fields.id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: fields.created,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: { proration_discounts: 'included' }, type: 'flexible' },
    billing_schedules: [],
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
    collection_method: 'charge_automatically',
    created: fields.created,
    currency: fields.currency,
    customer: fields.customer,
    customer_account: null,
    days_until_due: null,
    default_payment_method: null,
    default_source: null,
    description: null,
    discounts: [],
    ended_at: null,
    invoice_settings: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: { type: 'self' } },
    items: fields.items,
    latest_invoice: null,
    livemode: false,
    managed_payments: null,
    metadata: fields.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: fields.created,
    status: 'active',
    test_clock: null,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { billing_cycle_anchor: null, missing_payment_method: 'create_invoice' } },
    trial_start: null,
  };
}

export interface SubscriptionItemFields {
  id: string;
  subscription: string;
  price: PriceConfig;
  quantity: number;
  /** The current period, unix seconds; the item is created at its start. */
  start: number;
  end: number;
}

/** One item of a subscription: a quantity of a price, with its own current period (since API version 2025-03-31). */
export function subscriptionItemObject(fields: SubscriptionItemFields): SubscriptionItem {
  return {
    id: fields.id,
    object: 'subscription_item',
    billing_thresholds: null,
    created: fields.start,
    current_period_end: fields.end,
    current_period_start: fields.start,
    current_trial: null,
    discounts: [],
    metadata: {},
    plan: planObject(fields.price, fields.start),
    price: priceObject(fields.price, fields.start),
    quantity: fields.quantity,
    subscription: fields.subscription,
    tax_rates: [],
  };
}
