import type { Customer } from '../objects.ts';

export interface CustomerFields {
  id: string;
  /** Unix seconds. */
  created: number;
  email: string | null;
  name: string | null;
  description: string | null;
  phone: string | null;
  metadata: Record<string, string>;
  /** The prefix of the customer's invoice numbers (`<prefix>-0001`). */
  invoicePrefix: string;
}

/** A new customer as Stripe answers its creation: no balance, address, payment method, discount or tax exemption. */
export function customerObject(fields: CustomerFields): Customer {
  return {
    id: fields.id,
    object: 'customer',
    address: null,
    balance: 0,
    created: fields.created,
    currency: null,
    default_source: null,
    delinquent: false,
    description: fields.description,
    discount: null,
    email: fields.email,
    invoice_prefix: fields.invoicePrefix,
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: fields.metadata,
    name: fields.name,
    next_invoice_sequence: 1,
    phone: fields.phone,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}
