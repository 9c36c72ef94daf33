import type Stripe from 'stripe';
import { ids, list, type Customer, type Invoice, type InvoiceLine, type PriceConfig } from './objects.ts';
import type { SubscriptionRecord } from './store.ts';

/** What a line charges: `quantity` of a price over a period, or the prorated part of it. */
export interface Charge {
  subscription: string;
  subscriptionItem: string;
  price: PriceConfig;
  quantity: number;
  period: { start: number; end: number };
  /** A proration: the share of the period left from `at`, credited (−1) or charged (+1). */
  proration?: { sign: -1 | 1; at: number };
}

const money = (cents: number, currency: string) => `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/**
 * A subscription's invoice line, worded as Stripe words them ("1 × Pro (at 10.00 USD / month)",
 * "Unused time on 3 × Team seat after 2026-05-01"). A proration is the unit amount times the
 * quantity times the share of the period left, by the second, as Stripe prorates.
 */
export function invoiceLine(charge: Charge): InvoiceLine {
  const { price, quantity, period, proration } = charge;
  const full = price.unit_amount * quantity;
  const share = proration ? (period.end - proration.at) / (period.end - period.start) : 1;
  const amount = proration ? proration.sign * Math.round(full * share) : full;
  const description = proration
    ? `${proration.sign < 0 ? 'Unused' : 'Remaining'} time on ${quantity} × ${price.nickname} after ${day(proration.at)}`
    : `${quantity} × ${price.nickname} (at ${money(price.unit_amount, price.currency)} / ${price.interval ?? 'month'})`;
  const lineItemParent: Stripe.InvoiceLineItem.Parent = {
    invoice_item_details: null,
    subscription_item_details: {
      invoice_item: null,
      proration: proration !== undefined,
      proration_details: { credited_items: null },
      subscription: charge.subscription,
      subscription_item: charge.subscriptionItem,
    },
    type: 'subscription_item_details',
  };
  return {
    id: ids.invoiceLine(),
    object: 'line_item',
    amount,
    currency: price.currency,
    description,
    discount_amounts: [],
    discountable: !proration,
    discounts: [],
    invoice: null,
    livemode: false,
    metadata: {},
    parent: lineItemParent,
    period: proration ? { start: proration.at, end: period.end } : period,
    pricing: {
      price_details: { price: price.id, product: `prod_${price.id.replace(/^price_/, '')}` },
      type: 'price_details',
      unit_amount_decimal: String(price.unit_amount),
    },
    quantity,
    subscription: charge.subscription,
    subtotal: amount,
    taxes: [],
  };
}

export interface IssueOptions {
  now: number;
  baseUrl: string;
  customer: Customer;
  reason: 'subscription_create' | 'subscription_cycle' | 'subscription_update';
}

/**
 * A finalized invoice for the lines, charged at once (collection `charge_automatically`): paid,
 * or open with a failed attempt when the subscription's next payment is to be declined. A
 * customer's credit (a negative balance, left by a decrease billed at once) is used first and a
 * negative total becomes credit, as Stripe does. Numbered `<customer prefix>-<0001…>`.
 */
export function issueInvoice(record: SubscriptionRecord, lines: InvoiceLine[], options: IssueOptions): Invoice {
  const { now, customer, baseUrl } = options;
  const subscription = record.subscription;
  const id = ids.invoice();
  const total = lines.reduce((sum, line) => sum + line.amount, 0);
  const afterBalance = total + customer.balance;
  const amountDue = Math.max(afterBalance, 0);
  const declined = record.declineNextPayment && amountDue > 0;
  if (amountDue > 0) record.declineNextPayment = false;
  const startingBalance = customer.balance;
  customer.balance = Math.min(afterBalance, 0);
  const sequence = customer.next_invoice_sequence ?? 1;
  customer.next_invoice_sequence = sequence + 1;
  const periods = lines.map((line) => line.period);
  return {
    id,
    object: 'invoice',
    account_country: 'US',
    account_name: 'Hushlink (local payment emulator)',
    amount_due: amountDue,
    amount_overpaid: 0,
    amount_paid: declined ? 0 : amountDue,
    amount_remaining: declined ? amountDue : 0,
    amount_shipping: 0,
    attempt_count: amountDue > 0 ? 1 : 0,
    attempted: amountDue > 0,
    billing_reason: options.reason,
    collection_method: 'charge_automatically',
    created: now,
    currency: subscription.currency,
    customer: customer.id,
    customer_email: customer.email,
    customer_name: customer.name ?? null,
    default_payment_method: null,
    description: null,
    discounts: [],
    due_date: null,
    effective_at: now,
    ending_balance: customer.balance,
    hosted_invoice_url: `${baseUrl}/invoices/${id}`,
    invoice_pdf: `${baseUrl}/invoices/${id}/pdf`,
    lines: list(
      lines.map((line) => ({ ...line, invoice: id })),
      `/v1/invoices/${id}/lines`,
    ),
    livemode: false,
    metadata: {},
    // Stripe retries a declined charge; here a test decides what happens next.
    next_payment_attempt: declined ? now + 3 * 86_400 : null,
    number: `${customer.invoice_prefix ?? 'LOCAL'}-${String(sequence).padStart(4, '0')}`,
    parent: {
      quote_details: null,
      subscription_details: { metadata: { ...subscription.metadata }, subscription: subscription.id },
      type: 'subscription_details',
    },
    period_end: Math.max(...periods.map((period) => period.end)),
    period_start: Math.min(...periods.map((period) => period.start)),
    receipt_number: null,
    starting_balance: startingBalance,
    status: declined ? 'open' : 'paid',
    status_transitions: { finalized_at: now, marked_uncollectible_at: null, paid_at: declined ? null : now, voided_at: null },
    subtotal: total,
    subtotal_excluding_tax: total,
    total,
    total_excluding_tax: total,
  };
}
