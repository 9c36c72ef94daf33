import Stripe from 'stripe';
import type { Clock } from '../clock.ts';
import type { ProviderEvent, ProviderSubscription, SubscriptionStatus } from '../domain/billing/model.ts';
import { InvalidSignature, type CheckoutRequest, type PaymentProvider, type ProviderInvoice } from '../domain/billing/ports.ts';

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
    maxNetworkRetries: 2,
    timeout: 10_000,
    ...(url ? { host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)), protocol: url.protocol === 'https:' ? 'https' : 'http' } : {}),
  });
}

/** The subscription an event is about: its own id, a completed checkout's, or an invoice's. */
function subscriptionIdOf(event: Stripe.Event): string | null {
  const object = event.data.object as unknown as Record<string, unknown>;
  const id = (value: unknown) => (typeof value === 'string' ? value : value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : null);
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
   */
  async verifyEvent(rawBody: Buffer, signature: string | null): Promise<ProviderEvent> {
    if (!signature) throw new InvalidSignature('no Stripe-Signature header');
    const now = this.clock.now();
    let event: Stripe.Event;
    try {
      event = await this.stripe.webhooks.constructEventAsync(rawBody, signature, this.webhookSecret, signatureToleranceSeconds, undefined, now);
    } catch (error) {
      throw new InvalidSignature((error as Error).message);
    }
    const signedAt = Number(/(?:^|,)t=(\d+)/.exec(signature)?.[1]);
    if (signedAt * 1000 > now + signatureToleranceSeconds * 1000) throw new InvalidSignature('Timestamp outside the tolerance zone (in the future)');
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
    const session = await this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
    return { url: session.url };
  }

  async listInvoices(customerId: string, limit: number, startingAfter: string | null): Promise<{ items: ProviderInvoice[]; hasMore: boolean }> {
    const page = await this.stripe.invoices.list({ customer: customerId, limit, ...(startingAfter ? { starting_after: startingAfter } : {}) });
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

  async retrieveSubscription(id: string): Promise<ProviderSubscription | null> {
    try {
      return toProviderSubscription(await this.stripe.subscriptions.retrieve(id));
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing') return null;
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
}
