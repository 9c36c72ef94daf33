/**
 * The billing pages' API calls (interface §4.6), on `api.ts`'s `call` (same origin, the
 * session's access token): checkout, the subscription, invoices, the provider's portal, a Team
 * workspace's seats, and the Enterprise enquiry (the one call without a session). Checkout and
 * the portal answer a page of the payment provider, which the page then opens (`openProviderPage`).
 */
import type * as z from 'zod/mini';
import type { billingReplies, billingRequests } from '../../shared/api/billing.ts';
import { call, pageQuery } from './api.ts';
import { locale, t } from './i18n.ts';

type Reply<K extends keyof typeof billingReplies> = z.output<(typeof billingReplies)[K]>;

/** `GET /v1/billing/subscription`: the account's own plan, the tier it uses, its Pro subscription, this month's usage. */
export type BillingSubscription = Reply<'BillingSubscription'>;
export type Plan = BillingSubscription['plan'];
/** `total` is in the currency's smallest unit (cents). */
export type Invoice = Reply<'InvoiceList'>['items'][number];
export type CheckoutBody = z.input<typeof billingRequests.CheckoutRequest>;
export type EnterpriseInquiry = z.input<typeof billingRequests.EnterpriseInquiryRequest>;

/** The provider's status of a subscription (Stripe's words), as the page names them; the API says a string. */
export type SubscriptionStatus =
  | 'active'
  | 'trialing'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'incomplete'
  | 'incomplete_expired'
  | 'paused';

export const billingApi = {
  checkout: (token: string, body: CheckoutBody) => call<Reply<'CheckoutCreated'>>('POST', '/v1/billing/checkout', { json: body, token }),
  subscription: (token: string) => call<BillingSubscription>('GET', '/v1/billing/subscription', { token }),
  /** 404 for an account that never started a checkout: it has no invoices (yet). */
  invoices: (token: string, limit: number, cursor: string | null) =>
    call<Reply<'InvoiceList'>>('GET', `/v1/billing/invoices?${pageQuery(limit, cursor)}`, { token }),
  /** 404 without a customer at the provider. */
  portal: (token: string, returnPath: string) =>
    call<Reply<'PortalCreated'>>('POST', '/v1/billing/portal', { json: { return_path: returnPath }, token }),
  changeSeats: (token: string, workspaceId: string, seats: number) =>
    call<Reply<'SeatsChanged'>>('PATCH', '/v1/billing/seats', { json: { workspace_id: workspaceId, seats }, token }),
  /** Public: no session is sent, so a signed-out visitor can ask too. */
  enterpriseInquiry: (body: EnterpriseInquiry) =>
    call<Reply<'EnterpriseInquiryAccepted'>>('POST', '/v1/billing/enterprise-inquiry', { json: body }),
};

/**
 * Opens a page of the payment provider (checkout, the portal). Only a web address is followed:
 * the URL comes from the API, and `javascript:` or any other scheme would run here instead.
 */
export function openProviderPage(url: string): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return false;
  location.assign(target.href);
  return true;
}

/** An invoice's own pages at the provider, when they are web addresses (anything else is not linked). */
export const webAddress = (url: string | null): string | null => {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
};

/** A subscription's status as the page names it; a status the page does not know is shown as the API says it. */
export function statusLabel(status: string): string {
  const labels: Record<SubscriptionStatus, string> = {
    active: t('billing.status.active'),
    trialing: t('billing.status.trialing'),
    past_due: t('billing.status.pastDue'),
    canceled: t('billing.status.canceled'),
    unpaid: t('billing.status.unpaid'),
    incomplete: t('billing.status.incomplete'),
    incomplete_expired: t('billing.status.incompleteExpired'),
    paused: t('billing.status.paused'),
  };
  return labels[status as SubscriptionStatus] ?? status;
}

/** An invoice's status as the page names it (the provider's word when the page does not know it). */
export function invoiceStatusLabel(status: string): string {
  const labels: Record<string, string> = {
    draft: t('billing.invoice.status.draft'),
    open: t('billing.invoice.status.open'),
    paid: t('billing.invoice.status.paid'),
    uncollectible: t('billing.invoice.status.uncollectible'),
    void: t('billing.invoice.status.void'),
  };
  return labels[status] ?? status;
}

/**
 * "$12.00", "€8.00", "¥1,200": an amount in the currency's smallest unit, in the currency's own
 * decimals (zero-decimal currencies such as JPY are whole units already).
 */
export function money(amount: number, currency: string): string {
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() });
  } catch {
    // A currency code Intl does not know: the amount in the locale's digits, and the code as it came.
    const number = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount / 100);
    return `${number} ${currency.toUpperCase()}`;
  }
  const decimals = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** decimals);
}
