import type { Clock } from '../../shared/clock.ts';
import { invalidRequest, missingParam, noSuch, portalNotConfigured } from './errors.ts';
import {
  ids,
  paged,
  type CheckoutSession,
  type Customer,
  type Invoice,
  type List,
  type PageParams,
  type PortalSession,
  type PriceConfig,
  type StripeEvent,
} from './objects.ts';
import { checkoutCustomerDetails, openCheckoutSession } from './shapes/checkout.ts';
import { customerObject } from './shapes/customer.ts';
import { portalSessionObject } from './shapes/portal.ts';
import type { SessionRecord, StripeStore } from './store.ts';
import { Subscriptions } from './subscriptions.ts';
import type { Webhooks } from './webhooks.ts';

/** How long a checkout session stays open (Stripe's default, 24 hours). */
const checkoutLifetimeSeconds = 24 * 3600;

export interface CustomerParams {
  email?: string;
  name?: string;
  description?: string;
  phone?: string;
  metadata?: Record<string, string>;
}

export interface CheckoutParams {
  mode?: string;
  customer?: string;
  customer_email?: string;
  client_reference_id?: string;
  line_items?: Array<{ price?: string; quantity?: number }>;
  success_url?: string;
  cancel_url?: string;
  metadata?: Record<string, string>;
  subscription_data?: { metadata?: Record<string, string> };
}

export interface CheckoutListParams extends PageParams {
  customer?: string;
  status?: string;
  subscription?: string;
}

export interface InvoiceListParams extends PageParams {
  customer?: string;
  subscription?: string;
  status?: string;
}

const isUrl = (value: string) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);

/**
 * The emulator's Stripe account: customers, checkout and portal sessions, subscriptions and
 * invoices, changed as Stripe changes them. Operations that make events return them; the
 * caller sends them (the API after answering, the pages and controls before answering).
 */
export class StripeBilling {
  readonly subscriptions: Subscriptions;
  private readonly prices: Map<string, PriceConfig>;

  constructor(
    private readonly store: StripeStore,
    private readonly webhooks: Webhooks,
    private readonly options: { clock: Clock; baseUrl: string; prices: readonly PriceConfig[] },
  ) {
    this.prices = new Map(options.prices.map((price) => [price.id, price]));
    this.subscriptions = new Subscriptions(store, webhooks, {
      now: () => this.now(),
      baseUrl: options.baseUrl,
      price: (id, param) => this.price(id, param),
    });
  }

  now(): number {
    return Math.floor(this.options.clock.now() / 1000);
  }

  price(id: string, param: string): PriceConfig {
    const price = this.prices.get(id);
    if (!price) throw noSuch('price', id, param);
    return price;
  }

  createCustomer(params: CustomerParams): Customer {
    const customer = customerObject({
      id: ids.customer(),
      created: this.now(),
      email: params.email ?? null,
      name: params.name ?? null,
      description: params.description ?? null,
      phone: params.phone ?? null,
      metadata: Object.fromEntries(Object.entries(params.metadata ?? {}).filter(([, value]) => value !== '')),
      invoicePrefix: ids.invoicePrefix(),
    });
    this.store.data.customers[customer.id] = customer;
    this.store.save();
    return customer;
  }

  customer(id: string, param = 'id'): Customer {
    const customer = this.store.data.customers[id];
    if (!customer) throw noSuch('customer', id, param);
    return customer;
  }

  createCheckoutSession(params: CheckoutParams): CheckoutSession {
    if (params.mode === undefined) throw missingParam('mode');
    if (params.mode !== 'subscription')
      throw invalidRequest(`The local payment emulator supports mode=subscription only, not ${params.mode}.`, { param: 'mode' });
    if (params.customer !== undefined) this.customer(params.customer, 'customer');
    if (params.customer !== undefined && params.customer_email !== undefined) {
      throw invalidRequest('You may only specify one of these parameters: customer, customer_email.', {
        code: 'parameters_exclusive',
        param: 'customer',
      });
    }
    if (!params.line_items?.length) throw missingParam('line_items');
    const lineItems = params.line_items.map((item, index) => {
      if (item.price === undefined) throw missingParam(`line_items[${index}][price]`);
      const price = this.price(item.price, `line_items[${index}][price]`);
      const quantity = item.quantity ?? 1;
      if (quantity < 1) throw invalidRequest('Quantity must be greater than 0.', { param: `line_items[${index}][quantity]` });
      return { price, quantity };
    });
    if (new Set(lineItems.map((item) => item.price.currency)).size > 1)
      throw invalidRequest('All prices must be in the same currency.', { param: 'line_items' });
    if (params.success_url === undefined) throw missingParam('success_url');
    for (const field of ['success_url', 'cancel_url'] as const) {
      const value = params[field];
      if (value !== undefined && !isUrl(value)) throw invalidRequest('Not a valid URL', { code: 'url_invalid', param: field });
    }
    const id = ids.checkoutSession();
    const now = this.now();
    const session = openCheckoutSession({
      id,
      created: now,
      expiresAt: now + checkoutLifetimeSeconds,
      url: `${this.options.baseUrl}/checkout/${id}`,
      amount: lineItems.reduce((sum, item) => sum + item.price.unit_amount * item.quantity, 0),
      currency: lineItems[0]!.price.currency,
      customer: params.customer ?? null,
      customerEmail: params.customer_email ?? null,
      clientReferenceId: params.client_reference_id ?? null,
      metadata: params.metadata ?? {},
      successUrl: params.success_url,
      cancelUrl: params.cancel_url ?? null,
    });
    this.store.data.checkoutSessions[id] = {
      session,
      lineItems: lineItems.map((item) => ({ price: item.price.id, quantity: item.quantity })),
      subscriptionMetadata: params.subscription_data?.metadata ?? {},
    };
    this.store.save();
    return session;
  }

  /** The session, `expired` once past `expires_at` (Stripe expires open sessions on time). */
  checkoutSession(id: string, param = 'id'): SessionRecord {
    const record = this.store.data.checkoutSessions[id];
    if (!record) throw noSuch('checkout.session', id, param);
    if (record.session.status === 'open' && record.session.expires_at <= this.now()) {
      record.session.status = 'expired';
      record.session.url = null;
      this.store.save();
    }
    return record;
  }

  /** Newest first, filtered by customer, status and subscription, paged by `starting_after` and `limit` (1–100, 10 by default). */
  listCheckoutSessions(params: CheckoutListParams): List<CheckoutSession> {
    if (params.status !== undefined && !['open', 'complete', 'expired'].includes(params.status))
      throw invalidRequest('Invalid status: must be one of complete, expired, or open', { param: 'status' });
    const matching = Object.keys(this.store.data.checkoutSessions)
      .reverse()
      .map((id) => this.checkoutSession(id).session)
      .filter(
        (session) =>
          (params.customer === undefined || session.customer === params.customer) &&
          (params.status === undefined || session.status === params.status),
      )
      .filter((session) => params.subscription === undefined || session.subscription === params.subscription);
    return paged(matching, params, 'checkout.session', '/v1/checkout/sessions');
  }

  /** `POST /v1/checkout/sessions/{id}/expire`: an open session can no longer be paid (Stripe's 400 for any other). */
  expireCheckoutSession(id: string): CheckoutSession {
    const { session } = this.checkoutSession(id);
    if (session.status !== 'open')
      throw invalidRequest(
        `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
      );
    Object.assign(session, { status: 'expired', url: null } satisfies Partial<CheckoutSession>);
    this.store.save();
    return session;
  }

  /**
   * Pay: what Stripe does when the payer completes the checkout page. The customer is created
   * if the session named none, then the subscription and its first invoice (paid); the events
   * come in the order Stripe sends them for a subscription checkout.
   */
  completeCheckout(id: string, options: { email?: string } = {}): { session: CheckoutSession; events: StripeEvent[] } {
    const record = this.checkoutSession(id);
    const { session } = record;
    if (session.status !== 'open')
      throw invalidRequest(`This Checkout Session is ${session.status}; only an open session can be paid.`, { status: 400 });
    const email = session.customer_email ?? options.email ?? 'customer@example.com';
    const customer = session.customer ? this.customer(session.customer as string, 'customer') : this.createCustomer({ email });
    const { subscription, invoice } = this.subscriptions.create(customer, record.lineItems, { ...record.subscriptionMetadata });
    Object.assign(session, {
      customer: customer.id,
      customer_details: checkoutCustomerDetails(customer, email),
      invoice: invoice.id,
      payment_status: 'paid',
      status: 'complete',
      subscription: subscription.id,
      url: null,
    } satisfies Partial<CheckoutSession>);
    this.store.save();
    const events = [
      this.webhooks.create('customer.subscription.created', subscription),
      this.webhooks.create('checkout.session.completed', session),
      this.webhooks.create('invoice.paid', invoice),
    ];
    return { session, events };
  }

  /** Where the payer is sent after paying: `{CHECKOUT_SESSION_ID}` in the URL replaced, as Stripe does. */
  successUrl(session: CheckoutSession): string {
    return (session.success_url ?? '').replaceAll('{CHECKOUT_SESSION_ID}', session.id);
  }

  /**
   * Whether the account's customer portal settings were saved. Stripe refuses every portal
   * session until they are (a new account, in test mode and again in live mode); the emulator
   * starts saved so `npm start` shows the portal, and a test can unsave them.
   */
  portalConfigured = true;

  createPortalSession(params: { customer?: string; return_url?: string }): PortalSession {
    if (!this.portalConfigured) throw portalNotConfigured();
    if (params.customer === undefined) throw missingParam('customer');
    this.customer(params.customer, 'customer');
    if (params.return_url !== undefined && !isUrl(params.return_url))
      throw invalidRequest('Not a valid URL', { code: 'url_invalid', param: 'return_url' });
    const id = ids.portalSession();
    const session = portalSessionObject({
      id,
      created: this.now(),
      customer: params.customer,
      configuration: 'bpc_1LocalDefaultConfiguration',
      returnUrl: params.return_url ?? null,
      url: `${this.options.baseUrl}/portal/${id}`,
    });
    this.store.data.portalSessions[id] = session;
    this.store.save();
    return session;
  }

  portalSession(id: string): PortalSession {
    const session = this.store.data.portalSessions[id];
    if (!session) throw noSuch('billing_portal.session', id, 'id');
    return session;
  }

  invoice(id: string): Invoice {
    const invoice = this.store.invoice(id);
    if (!invoice) throw noSuch('invoice', id, 'id');
    return invoice;
  }

  /** Newest first, paged by `starting_after` / `ending_before` (an invoice id) and `limit` (1–100, 10 by default). */
  listInvoices(params: InvoiceListParams): List<Invoice> {
    if (params.customer !== undefined) this.customer(params.customer, 'customer');
    if (params.subscription !== undefined) this.subscriptions.get(params.subscription, 'subscription');
    const matching = [...this.store.data.invoices]
      .reverse()
      .filter(
        (invoice) =>
          (params.customer === undefined || invoice.customer === params.customer) &&
          (params.status === undefined || invoice.status === params.status),
      )
      .filter((invoice) => params.subscription === undefined || invoice.parent?.subscription_details?.subscription === params.subscription);
    return paged(matching, params, 'invoice', '/v1/invoices');
  }
}
