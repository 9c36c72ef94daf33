import type Stripe from 'stripe';
import type { Customer, Invoice, InvoiceLine, List, PriceConfig } from '../objects.ts';

export interface InvoiceLineFields {
  id: string;
  /** In the currency's smallest unit; negative for a credit. */
  amount: number;
  description: string;
  price: PriceConfig;
  quantity: number;
  period: { start: number; end: number };
  subscription: string;
  subscriptionItem: string;
  proration: boolean;
}

/** A subscription item's line on an invoice (not yet on one: `invoice` is set when it is issued), untaxed and undiscounted. */
export function invoiceLineObject(fields: InvoiceLineFields): InvoiceLine {
  const parent: Stripe.InvoiceLineItem.Parent = {
    invoice_item_details: null,
    subscription_item_details: {
      invoice_item: null,
      proration: fields.proration,
      proration_details: { credited_items: null },
      subscription: fields.subscription,
      subscription_item: fields.subscriptionItem,
    },
    type: 'subscription_item_details',
  };
  return {
    id: fields.id,
    object: 'line_item',
    amount: fields.amount,
    currency: fields.price.currency,
    description: fields.description,
    discount_amounts: [],
    // Stripe applies no discount to a proration's credit or charge.
    discountable: !fields.proration,
    discounts: [],
    invoice: null,
    livemode: false,
    metadata: {},
    parent,
    period: fields.period,
    pretax_credit_amounts: [],
    pricing: {
      price_details: { price: fields.price.id, product: `prod_${fields.price.id.replace(/^price_/, '')}` },
      type: 'price_details',
      unit_amount_decimal: String(fields.price.unit_amount),
    },
    quantity: fields.quantity,
    quantity_decimal: String(fields.quantity),
    subscription: fields.subscription,
    subtotal: fields.amount,
    taxes: [],
  };
}

/** What an issued invoice's amounts, status and dates are; the rest follows from the customer and subscription. */
export interface InvoiceFields {
  id: string;
  /** Unix seconds: created, finalized and (when paid) paid now. */
  now: number;
  baseUrl: string;
  customer: Customer;
  subscription: { id: string; currency: string; metadata: Record<string, string> };
  reason: 'subscription_create' | 'subscription_cycle' | 'subscription_update';
  lines: List<InvoiceLine>;
  number: string;
  total: number;
  amountDue: number;
  declined: boolean;
  startingBalance: number;
  endingBalance: number;
  period: { start: number; end: number };
}

/**
 * A finalized subscription invoice, charged automatically: paid, or open after a declined
 * attempt. The account is its issuer; no tax, discount, credit note, shipping or custom field
 * applies, and each such field is there as Stripe shows it unused.
 */
export function invoiceObject(fields: InvoiceFields): Invoice {
  const { id, now, customer, declined, amountDue, total } = fields;
  return {
    id,
    object: 'invoice',
    account_country: 'US',
    account_name: 'Hushlink (local payment emulator)',
    account_tax_ids: null,
    amount_due: amountDue,
    amount_overpaid: 0,
    amount_paid: declined ? 0 : amountDue,
    amount_remaining: declined ? amountDue : 0,
    amount_shipping: 0,
    application: null,
    attempt_count: amountDue > 0 ? 1 : 0,
    attempted: amountDue > 0,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    // Finalized at once: no draft waits to be finalized.
    automatically_finalizes_at: null,
    billing_reason: fields.reason,
    collection_method: 'charge_automatically',
    created: now,
    currency: fields.subscription.currency,
    custom_fields: null,
    customer: customer.id,
    customer_account: null,
    customer_address: customer.address ?? null,
    customer_email: customer.email,
    customer_name: customer.name ?? null,
    customer_phone: customer.phone ?? null,
    customer_shipping: customer.shipping,
    customer_tax_exempt: customer.tax_exempt ?? 'none',
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    due_date: null,
    effective_at: now,
    ending_balance: fields.endingBalance,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: `${fields.baseUrl}/invoices/${id}`,
    invoice_pdf: `${fields.baseUrl}/invoices/${id}/pdf`,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: fields.lines,
    livemode: false,
    metadata: {},
    // Stripe retries a declined charge; here a test decides what happens next.
    next_payment_attempt: declined ? now + 3 * 86_400 : null,
    number: fields.number,
    on_behalf_of: null,
    parent: {
      quote_details: null,
      subscription_details: { metadata: { ...fields.subscription.metadata }, subscription: fields.subscription.id },
      type: 'subscription_details',
    },
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
    period_end: fields.period.end,
    period_start: fields.period.start,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: fields.startingBalance,
    statement_descriptor: null,
    status: declined ? 'open' : 'paid',
    status_transitions: { finalized_at: now, marked_uncollectible_at: null, paid_at: declined ? null : now, voided_at: null },
    subtotal: total,
    subtotal_excluding_tax: total,
    test_clock: null,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    // Sent as it is issued: the emulator delivers its events at once.
    webhooks_delivered_at: now,
  };
}
