import type { CheckoutSession, Customer } from '../objects.ts';

/** What a session is created with that shows on the object. */
export interface CheckoutFields {
  id: string;
  /** Unix seconds. */
  created: number;
  expiresAt: number;
  /** The hosted page's address. */
  url: string;
  /** The line items' total, in the currency's smallest unit (no discount, shipping or tax). */
  amount: number;
  currency: string;
  customer: string | null;
  customerEmail: string | null;
  clientReferenceId: string | null;
  metadata: Record<string, string>;
  successUrl: string;
  cancelUrl: string | null;
}

/**
 * A hosted Checkout Session in subscription mode, open, as Stripe answers its creation: every
 * field the SDK declares always present. What the service never turns on (tax, discounts,
 * consent, custom fields, shipping, adaptive pricing, phone or tax id collection, a payment
 * method configuration) is there as Stripe shows it off: null, false, or an empty list.
 */
export function openCheckoutSession(fields: CheckoutFields): CheckoutSession {
  return {
    id: fields.id,
    object: 'checkout.session',
    // Adaptive pricing (local currencies) is for one-time payments; a subscription session has none.
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: fields.amount,
    amount_total: fields.amount,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: fields.cancelUrl,
    client_reference_id: fields.clientReferenceId,
    // Only embedded and custom sessions have a client secret; this one is hosted.
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: fields.created,
    currency: fields.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: fields.customer,
    customer_account: null,
    // In subscription mode Stripe always creates the customer when none is given: the field says so only in payment mode.
    customer_creation: null,
    customer_details: null,
    customer_email: fields.customerEmail,
    discounts: [],
    expires_at: fields.expiresAt,
    integration_identifier: null,
    invoice: null,
    // Invoice creation is a payment-mode option; a subscription makes its own invoices.
    invoice_creation: null,
    livemode: false,
    locale: null,
    managed_payments: null,
    metadata: fields.metadata,
    mode: 'subscription',
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: 'always',
    payment_method_configuration_details: null,
    payment_method_options: { card: { request_three_d_secure: 'automatic' } },
    payment_method_types: ['card'],
    payment_status: 'unpaid',
    permissions: null,
    recovered_from: null,
    // A session for a known customer offers the cards saved for redisplay; one without a customer has none to offer.
    saved_payment_method_options: fields.customer
      ? { allow_redisplay_filters: ['always'], payment_method_remove: null, payment_method_save: null }
      : null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    success_url: fields.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted_page',
    url: fields.url,
    wallet_options: null,
  };
}

/** The payer's details as Checkout collected them (`customer_details` of a paid session). */
export function checkoutCustomerDetails(customer: Customer, email: string): NonNullable<CheckoutSession['customer_details']> {
  return {
    address: customer.address ?? null,
    business_name: null,
    email: customer.email ?? email,
    individual_name: null,
    name: customer.name ?? null,
    phone: customer.phone ?? null,
    tax_exempt: customer.tax_exempt ?? 'none',
    tax_ids: [],
  };
}
