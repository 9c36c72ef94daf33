import { ids, list, type Customer, type Invoice, type InvoiceLine, type PriceConfig } from './objects.ts';
import { invoiceLineObject, invoiceObject } from './shapes/invoice.ts';
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
  return invoiceLineObject({
    id: ids.invoiceLine(),
    amount,
    description,
    price,
    quantity,
    period: proration ? { start: proration.at, end: period.end } : period,
    subscription: charge.subscription,
    subscriptionItem: charge.subscriptionItem,
    proration: proration !== undefined,
  });
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
  return invoiceObject({
    id,
    now,
    baseUrl,
    customer,
    subscription,
    reason: options.reason,
    lines: list(
      lines.map((line) => ({ ...line, invoice: id })),
      `/v1/invoices/${id}/lines`,
    ),
    number: `${customer.invoice_prefix ?? 'LOCAL'}-${String(sequence).padStart(4, '0')}`,
    total,
    amountDue,
    declined,
    startingBalance,
    endingBalance: customer.balance,
    period: {
      start: Math.min(...periods.map((period) => period.start)),
      end: Math.max(...periods.map((period) => period.end)),
    },
  });
}
