import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import { invalidRequest, noSuch } from './errors.ts';

/**
 * Stripe's objects as the emulator answers them: each type is the SDK's own (the `stripe`
 * package's, at its pinned API version), so a field's name and shape cannot drift from what the
 * SDK expects. Decimals travel as strings on the wire (the SDK turns them into its Decimal).
 */
export type Wire<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends Stripe.Decimal
    ? string
    : T extends readonly (infer U)[]
      ? Wire<U>[]
      : T extends object
        ? { [K in keyof T]: Wire<T[K]> }
        : T;

/** The fields of T the SDK declares non-optional: the ones Stripe always sends. */
export type RequiredKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];

/**
 * What the emulator sends of a resource: every field Stripe always sends (issue 28; the builders
 * in ./shapes/ fill them, test/unit/stripe-emulator-shapes.test.ts checks the answers against the
 * SDK's declarations), and the optional ones named in `Also` that it sends too.
 */
export type Sent<T, Also extends keyof T = never> = Wire<Pick<T, RequiredKeys<T> | Also>>;

export type PriceObject = Wire<Stripe.Price>;
export type PlanObject = Wire<Stripe.Plan>;
export type List<T> = { object: 'list'; data: T[]; has_more: boolean; url: string };

export type Customer = Sent<
  Stripe.Customer,
  | 'address'
  | 'currency'
  | 'delinquent'
  | 'discount'
  | 'invoice_prefix'
  | 'name'
  | 'next_invoice_sequence'
  | 'phone'
  | 'preferred_locales'
  | 'tax_exempt'
  | 'test_clock'
>;
export type CheckoutSession = Sent<Stripe.Checkout.Session>;
export type PortalSession = Sent<Stripe.BillingPortal.Session>;
export type SubscriptionItem = Sent<Stripe.SubscriptionItem, 'quantity'>;
export type Subscription = Omit<Sent<Stripe.Subscription>, 'items'> & { items: List<SubscriptionItem> };
export type InvoiceLine = Sent<Stripe.InvoiceLineItem>;
export type Invoice = Omit<Sent<Stripe.Invoice, 'hosted_invoice_url' | 'invoice_pdf'>, 'lines'> & { lines: List<InvoiceLine> };
export type StripeEvent = Omit<Sent<Stripe.EventBase>, 'data'> & {
  data: { object: object; previous_attributes?: Record<string, unknown> };
};

/** A price the emulator sells, by the id the service's settings name (e.g. `price_pro_monthly`). */
export interface PriceConfig {
  id: string;
  /** In the currency's smallest unit (cents). */
  unit_amount: number;
  currency: string;
  /** Shown on the checkout and portal pages. */
  nickname: string;
  interval?: 'month' | 'year';
}

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Ids shaped as Stripe's: a prefix and base-62 characters (`cus_` 14, `sub_1…` 24, `cs_test_a1…` 58). */
export function stripeId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += alphabet[byte % 62];
  return `${prefix}${id}`;
}

export const ids = {
  customer: () => stripeId('cus_', 14),
  checkoutSession: () => stripeId('cs_test_a1', 56),
  portalSession: () => stripeId('bps_1', 23),
  portalConfiguration: () => stripeId('bpc_1', 23),
  subscription: () => stripeId('sub_1', 23),
  subscriptionItem: () => stripeId('si_', 14),
  invoice: () => stripeId('in_1', 23),
  invoiceLine: () => stripeId('il_1', 23),
  event: () => stripeId('evt_1', 23),
  request: () => stripeId('req_', 14),
  invoicePrefix: () => stripeId('', 8).toUpperCase(),
};

export function priceObject(price: PriceConfig, created: number): PriceObject {
  return {
    id: price.id,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created,
    currency: price.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: price.nickname,
    product: productId(price),
    recurring: { interval: price.interval ?? 'month', interval_count: 1, meter: null, trial_period_days: null, usage_type: 'licensed' },
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: 'recurring',
    unit_amount: price.unit_amount,
    unit_amount_decimal: String(price.unit_amount),
  };
}

/** The legacy Plan view of a recurring price, still on every subscription item. */
export function planObject(price: PriceConfig, created: number): PlanObject {
  return {
    id: price.id,
    object: 'plan',
    active: true,
    amount: price.unit_amount,
    amount_decimal: String(price.unit_amount),
    billing_scheme: 'per_unit',
    created,
    currency: price.currency,
    interval: price.interval ?? 'month',
    interval_count: 1,
    livemode: false,
    metadata: {},
    meter: null,
    nickname: price.nickname,
    product: productId(price),
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: 'licensed',
  };
}

const productId = (price: PriceConfig) => `prod_${price.id.replace(/^price_/, '')}`;

/**
 * The end of a billing period that starts at `start` (unix seconds), as Stripe anchors it: the
 * same day and time a month (or year) on, or the month's last day when it has no such day.
 */
export function periodEnd(start: number, interval: 'month' | 'year' = 'month'): number {
  const from = new Date(start * 1000);
  const months = interval === 'year' ? 12 : 1;
  const target = new Date(
    Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + months, 1, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds()),
  );
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(from.getUTCDate(), lastDay));
  return Math.floor(target.getTime() / 1000);
}

export const list = <T>(data: T[], url: string, hasMore = false): List<T> => ({ object: 'list', data, has_more: hasMore, url });

export interface PageParams {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

/**
 * A page of a list Stripe keeps newest first: `limit` (1–100, 10 by default) after
 * `starting_after` or before `ending_before`, an id of the list; an id the list does not hold is
 * Stripe's 400 `resource_missing` on that parameter.
 */
export function paged<T extends { id: string }>(matching: T[], params: PageParams, kind: string, url: string): List<T> {
  const limit = params.limit ?? 10;
  if (limit < 1 || limit > 100)
    throw invalidRequest(`This value must be between 1 and 100 (it currently is '${limit}').`, { param: 'limit' });
  if (params.starting_after !== undefined && params.ending_before !== undefined) {
    throw invalidRequest('You may only specify one of these parameters: ending_before, starting_after.', {
      code: 'parameters_exclusive',
      param: 'starting_after',
    });
  }
  const position = (cursor: string, param: string) => {
    const index = matching.findIndex((item) => item.id === cursor);
    if (index < 0) throw noSuch(kind, cursor, param);
    return index;
  };
  if (params.ending_before !== undefined) {
    const end = position(params.ending_before, 'ending_before');
    const start = Math.max(0, end - limit);
    return list(matching.slice(start, end), url, start > 0);
  }
  const start = params.starting_after === undefined ? 0 : position(params.starting_after, 'starting_after') + 1;
  return list(matching.slice(start, start + limit), url, start + limit < matching.length);
}
