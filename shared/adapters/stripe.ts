import Stripe from 'stripe';
import type { Clock } from '../clock.ts';
import { Unavailable } from '../domain/refusals.ts';
import type { ProviderEvent, ProviderSubscription, SubscriptionStatus } from '../domain/billing/model.ts';
import {
  InvalidSignature,
  PortalUnconfigured,
  UnknownCursor,
  type CheckoutRequest,
  type PaymentProvider,
  type ProviderInvoice,
} from '../domain/billing/ports.ts';

/** How far a webhook's signed timestamp may be from now (issue 16; Stripe's own default). */
export const signatureToleranceSeconds = 300;

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** The local emulator (`npm start`, tests); unset in AWS, where the SDK calls api.stripe.com. */
  apiUrl?: string | undefined;
}

/** The official SDK, pointed at the emulator when an API URL is given (its host, port and protocol). */
export function stripeClient(settings: Pick<StripeSettings, 'secretKey' | 'apiUrl'>): Stripe {
  const url = settings.apiUrl ? new URL(settings.apiUrl) : null;
  return new Stripe(settings.secretKey, {
    // One call gives up within about 7 s (two tries of 3 s and the SDK's back-off), inside the
    // billing function's 10 s; past that the caller gets a 503. A request that makes two calls in
    // a row (a first checkout: the customer, then the session) can still meet the function's
    // timeout when both are slow: a deadline per request is not built yet (issue 28).
    maxNetworkRetries: 1,
    timeout: 3_000,
    ...(url
      ? {
          host: url.hostname,
          port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
          protocol: url.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
}

/** The subscription an event is about: its own id, a completed checkout's, or an invoice's. */
function subscriptionIdOf(event: Stripe.Event): string | null {
  const object = event.data.object as unknown as Record<string, unknown>;
  const id = (value: unknown) =>
    typeof value === 'string'
      ? value
      : value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string'
        ? (value as { id: string }).id
        : null;
  if (event.type.startsWith('customer.subscription.')) return id(object);
  if (event.type === 'checkout.session.completed') return id(object.subscription);
  if (event.type.startsWith('invoice.')) {
    // Since API version 2025-03-31 an invoice names its subscription under parent.subscription_details.
    const parent = object.parent as { subscription_details?: { subscription?: unknown } } | null | undefined;
    return id(parent?.subscription_details?.subscription) ?? id(object.subscription);
  }
  return null;
}

function toProviderSubscription(subscription: Stripe.Subscription): ProviderSubscription {
  const item = subscription.items.data[0];
  // The period's end is the item's since API version 2025-03-31; older versions put it on the subscription.
  const periodEnd = item?.current_period_end ?? (subscription as unknown as { current_period_end?: number }).current_period_end ?? 0;
  return {
    id: subscription.id,
    customerId: typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id,
    status: subscription.status as SubscriptionStatus,
    priceId: item?.price.id ?? '',
    quantity: item?.quantity ?? 1,
    itemId: item?.id ?? '',
    currentPeriodEnd: periodEnd * 1000,
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    metadata: { ...subscription.metadata },
  };
}

/** The payment provider through Stripe's SDK. */
export class StripeProvider implements PaymentProvider {
  constructor(
    private readonly stripe: Stripe,
    private readonly webhookSecret: string,
    private readonly clock: Clock,
  ) {}

  /**
   * Stripe's check on the raw bytes, at the service's clock (the SDK's `receivedAt`), refusing a
   * timestamp more than the tolerance in the past; and, which the SDK does not, in the future.
   * The header's elements are read as the SDK reads them (split on `,` then `=`); a header with
   * more than one `t` is refused, as the SDK would sign-check the last while a reader of the
   * first would check another time (`t=<now>,t=<future>,v1=<signature over the future>`).
   */
  async verifyEvent(rawBody: Buffer, signature: string | null): Promise<ProviderEvent> {
    if (!signature) throw new InvalidSignature('no Stripe-Signature header');
    const timestamps = signature.split(',').filter((element) => element.split('=')[0] === 't');
    if (timestamps.length > 1) throw new InvalidSignature('more than one timestamp (t) in the header');
    const now = this.clock.now();
    let event: Stripe.Event;
    try {
      event = await this.stripe.webhooks.constructEventAsync(
        rawBody,
        signature,
        this.webhookSecret,
        signatureToleranceSeconds,
        undefined,
        now,
      );
    } catch (error) {
      throw new InvalidSignature((error as Error).message);
    }
    // The one timestamp, parsed as the SDK parsed the one it checked the signature over.
    const signedAt = parseInt(timestamps[0]!.split('=')[1]!, 10);
    if (signedAt * 1000 > now + signatureToleranceSeconds * 1000)
      throw new InvalidSignature('Timestamp outside the tolerance zone (in the future)');
    return { id: event.id, type: event.type, subscriptionId: subscriptionIdOf(event) };
  }

  async createCustomer(email: string, userId: string, idempotencyKey: string): Promise<string> {
    const customer = await this.stripe.customers.create({ email, metadata: { user_id: userId } }, { idempotencyKey });
    return customer.id;
  }

  async createCheckoutSession(request: CheckoutRequest): Promise<{ id: string; url: string }> {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'subscription',
        customer: request.customerId,
        client_reference_id: request.clientReferenceId,
        line_items: [{ price: request.priceId, quantity: request.quantity }],
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        metadata: request.metadata,
        subscription_data: { metadata: request.metadata },
      },
      { idempotencyKey: request.idempotencyKey },
    );
    if (!session.url) throw new Error('the provider answered a checkout session without a URL');
    return { id: session.id, url: session.url };
  }

  async createPortalSession(customerId: string, returnUrl: string): Promise<{ url: string }> {
    let session: Stripe.BillingPortal.Session;
    try {
      session = await this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
    } catch (error) {
      // Stripe's 400 until the portal's settings are saved: no code, only its message says so.
      if (error instanceof Stripe.errors.StripeInvalidRequestError && /save your customer portal settings/i.test(error.message))
        throw new PortalUnconfigured(error.message);
      throw error;
    }
    return { url: session.url };
  }

  async listInvoices(
    customerId: string,
    limit: number,
    startingAfter: string | null,
  ): Promise<{ items: ProviderInvoice[]; hasMore: boolean }> {
    let page: Stripe.ApiList<Stripe.Invoice>;
    try {
      page = await this.stripe.invoices.list({ customer: customerId, limit, ...(startingAfter ? { starting_after: startingAfter } : {}) });
    } catch (error) {
      // Stripe's 400 for a cursor of no invoice: `resource_missing` on `starting_after`.
      if (startingAfter && missing(error) && (error as Stripe.errors.StripeInvalidRequestError).param === 'starting_after')
        throw new UnknownCursor(`no invoice ${startingAfter}`);
      throw error;
    }
    return {
      items: page.data.map((invoice) => ({
        id: invoice.id!,
        number: invoice.number ?? null,
        status: invoice.status ?? null,
        total: invoice.total,
        currency: invoice.currency,
        createdAt: invoice.created * 1000,
        hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
        invoicePdf: invoice.invoice_pdf ?? null,
      })),
      hasMore: page.has_more,
    };
  }

  async invoiceCustomer(id: string): Promise<string | null> {
    try {
      const invoice = await this.stripe.invoices.retrieve(id);
      return typeof invoice.customer === 'string' ? invoice.customer : (invoice.customer?.id ?? null);
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
  }

  async retrieveSubscription(id: string): Promise<ProviderSubscription | null> {
    try {
      return toProviderSubscription(await this.stripe.subscriptions.retrieve(id));
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
  }

  async changeQuantity(subscriptionId: string, itemId: string, quantity: number, idempotencyKey: string): Promise<ProviderSubscription> {
    // Prorated onto the next invoice (Stripe's default, said outright): seats added and removed within a period cost only the time they were held.
    const subscription = await this.stripe.subscriptions.update(
      subscriptionId,
      { items: [{ id: itemId, quantity }], proration_behavior: 'create_prorations' },
      { idempotencyKey },
    );
    return toProviderSubscription(subscription);
  }

  async cancelSubscription(id: string): Promise<ProviderSubscription | null> {
    try {
      // `prorate` credits the unused time, `invoice_now` puts that credit on a final invoice at
      // once: the customer's balance, used by their next invoice (Stripe refunds no card itself).
      return toProviderSubscription(await this.stripe.subscriptions.cancel(id, { prorate: true, invoice_now: true }));
    } catch (error) {
      // Stripe answers a subscription canceled already as one it does not have.
      if (!missing(error)) throw error;
      return this.retrieveSubscription(id);
    }
  }

  async openCheckouts(customerId: string): Promise<Array<{ id: string; metadata: Record<string, string> }>> {
    const page = await this.stripe.checkout.sessions.list({ customer: customerId, status: 'open', limit: 100 });
    return page.data.map((session) => ({ id: session.id, metadata: { ...(session.metadata ?? {}) } }));
  }

  async expireCheckout(id: string): Promise<boolean> {
    try {
      await this.stripe.checkout.sessions.expire(id);
      return true;
    } catch (error) {
      // Paid or expired meanwhile: nothing left to close.
      if (error instanceof Stripe.errors.StripeInvalidRequestError) return false;
      throw error;
    }
  }
}

/**
 * Stripe's outage as the domain's `Unavailable` (503, retry-after): its 5xx, its 429, or no
 * answer at all (the SDK's timeout or a broken connection), once the SDK's retries are spent.
 * Null for anything else: a refusal of ours to send, or a fault.
 */
export function providerOutage(error: unknown): Unavailable | null {
  const outage =
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    (error instanceof Stripe.errors.StripeError && (error.statusCode ?? 0) >= 500);
  return outage
    ? new Unavailable('The payment provider is not answering right now; nothing was changed. Try again in a minute.', 60, {
        code: 'provider_unavailable',
      })
    : null;
}

const missing = (error: unknown): boolean => error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing';
