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
    const customer: Customer = {
      id: ids.customer(),
      object: 'customer',
      address: null,
      balance: 0,
      created: this.now(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: params.description ?? null,
      discount: null,
      email: params.email ?? null,
      invoice_prefix: ids.invoicePrefix(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: Object.fromEntries(Object.entries(params.metadata ?? {}).filter(([, value]) => value !== '')),
      name: params.name ?? null,
      next_invoice_sequence: 1,
      phone: params.phone ?? null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: 'none',
      test_clock: null,
    };
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
    const total = lineItems.reduce((sum, item) => sum + item.price.unit_amount * item.quantity, 0);
    const session: CheckoutSession = {
      id,
      object: 'checkout.session',
      allow_promotion_codes: null,
      amount_subtotal: total,
      amount_total: total,
      billing_address_collection: null,
      cancel_url: params.cancel_url ?? null,
      client_reference_id: params.client_reference_id ?? null,
      client_secret: null,
      created: now,
      currency: lineItems[0]!.price.currency,
      customer: params.customer ?? null,
      customer_creation: null,
      customer_details: null,
      customer_email: params.customer_email ?? null,
      expires_at: now + checkoutLifetimeSeconds,
      invoice: null,
      livemode: false,
      locale: null,
      metadata: params.metadata ?? {},
      mode: 'subscription',
      payment_intent: null,
      payment_link: null,
      payment_method_types: ['card'],
      payment_status: 'unpaid',
      status: 'open',
      submit_type: null,
      subscription: null,
      success_url: params.success_url,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      ui_mode: 'hosted_page',
      url: `${this.options.baseUrl}/checkout/${id}`,
    };
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
      customer_details: {
        address: null,
        business_name: null,
        email: customer.email ?? email,
        individual_name: null,
        name: customer.name ?? null,
        phone: null,
        tax_exempt: 'none',
        tax_ids: [],
      },
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
    const session: PortalSession = {
      id,
      object: 'billing_portal.session',
      configuration: 'bpc_1LocalDefaultConfiguration',
      created: this.now(),
      customer: params.customer,
      customer_account: null,
      flow: null,
      livemode: false,
      locale: null,
      on_behalf_of: null,
      return_url: params.return_url ?? null,
      url: `${this.options.baseUrl}/portal/${id}`,
    };
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
