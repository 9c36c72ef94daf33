import Stripe from 'stripe';
import type { Clock } from '../clock.ts';
import { Deadline } from '../deadline.ts';
import type { Unavailable } from '../domain/refusals.ts';
import type { ProviderEvent, ProviderSubscription, SubscriptionStatus } from '../domain/billing/model.ts';
import {
  InvalidSignature,
  PortalUnconfigured,
  UnknownCursor,
  type CheckoutRequest,
  type PaymentProvider,
  type ProviderInvoice,
} from '../domain/billing/ports.ts';
import { callSettings, providerNoAnswer, providerUnavailable, stripeTiming } from './stripeDeadline.ts';

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
    // Without a deadline, one call gives up within about 6.5 s (two tries of 3 s and the SDK's
    // back-off), inside the billing function's 10 s. Within a request each call's settings come
    // from its deadline instead (`callSettings`, ADR 0169): the request's calls share the
    // function's 10 s less 1.5 s to answer, so several slow calls in a row (a first checkout: the
    // customer, then the session) are a 503 the function still sends, not its timeout.
    maxNetworkRetries: 1,
    timeout: stripeTiming.tryTimeoutMs,
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

/** The payment provider through Stripe's SDK; each call's timeout and retries from `deadline` (none: the client's own). */
export class StripeProvider implements PaymentProvider {
  constructor(
    private readonly stripe: Stripe,
    private readonly webhookSecret: string,
    private readonly clock: Clock,
    private readonly deadline: Deadline = Deadline.none,
  ) {}

  /** The same client, its calls bounded by a request's deadline. */
  within(deadline: Deadline): StripeProvider {
    return new StripeProvider(this.stripe, this.webhookSecret, this.clock, deadline);
  }

  /**
   * The request options of the call about to be made: its timeout and retries from the time left,
   * with `options` (an idempotency key). Too little left: no call, `Unavailable` at once.
   */
  private options(options: Stripe.RequestOptions = {}): Stripe.RequestOptions {
    const settings = callSettings(this.deadline.remaining());
    if (!settings) throw providerUnavailable();
    return { ...options, ...settings };
  }

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
    const customer = await this.stripe.customers.create({ email, metadata: { user_id: userId } }, this.options({ idempotencyKey }));
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
      this.options({ idempotencyKey: request.idempotencyKey }),
    );
    if (!session.url) throw new Error('the provider answered a checkout session without a URL');
    return { id: session.id, url: session.url };
  }

  async createPortalSession(customerId: string, returnUrl: string): Promise<{ url: string }> {
    const options = this.options();
    let session: Stripe.BillingPortal.Session;
    try {
      session = await this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }, options);
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
    const options = this.options();
    let page: Stripe.ApiList<Stripe.Invoice>;
    try {
      page = await this.stripe.invoices.list(
        { customer: customerId, limit, ...(startingAfter ? { starting_after: startingAfter } : {}) },
        options,
      );
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
    const options = this.options();
    try {
      const invoice = await this.stripe.invoices.retrieve(id, {}, options);
      return typeof invoice.customer === 'string' ? invoice.customer : (invoice.customer?.id ?? null);
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
  }

  async retrieveSubscription(id: string): Promise<ProviderSubscription | null> {
    const options = this.options();
    try {
      return toProviderSubscription(await this.stripe.subscriptions.retrieve(id, {}, options));
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
      this.options({ idempotencyKey }),
    );
    return toProviderSubscription(subscription);
  }

  async cancelSubscription(id: string): Promise<ProviderSubscription | null> {
    const options = this.options();
    try {
      // `prorate` credits the unused time, `invoice_now` puts that credit on a final invoice at
      // once: the customer's balance, used by their next invoice (Stripe refunds no card itself).
      return toProviderSubscription(await this.stripe.subscriptions.cancel(id, { prorate: true, invoice_now: true }, options));
    } catch (error) {
      // Stripe answers a subscription canceled already as one it does not have.
      if (!missing(error)) throw error;
      return this.retrieveSubscription(id);
    }
  }

  async openCheckouts(customerId: string): Promise<Array<{ id: string; metadata: Record<string, string> }>> {
    const page = await this.stripe.checkout.sessions.list({ customer: customerId, status: 'open', limit: 100 }, this.options());
    return page.data.map((session) => ({ id: session.id, metadata: { ...(session.metadata ?? {}) } }));
  }

  async expireCheckout(id: string): Promise<boolean> {
    const options = this.options();
    try {
      await this.stripe.checkout.sessions.expire(id, {}, options);
      return true;
    } catch (error) {
      // Paid or expired meanwhile: nothing left to close.
      if (error instanceof Stripe.errors.StripeInvalidRequestError) return false;
      throw error;
    }
  }
}

/**
 * Stripe's outage as the domain's `Unavailable` (503, retry-after), once the SDK's retries are
 * spent: its 429 or 5xx (`providerUnavailable`), or no answer at all, the SDK's timeout or a broken
 * connection (`providerNoAnswer`: the call may have been done at Stripe all the same).
 * Null for anything else: a refusal of ours to send, or a fault.
 */
export function providerOutage(error: unknown): Unavailable | null {
  if (error instanceof Stripe.errors.StripeConnectionError) return providerNoAnswer();
  const refused =
    error instanceof Stripe.errors.StripeRateLimitError || (error instanceof Stripe.errors.StripeError && (error.statusCode ?? 0) >= 500);
  return refused ? providerUnavailable() : null;
}

const missing = (error: unknown): boolean => error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing';
