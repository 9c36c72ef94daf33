import type { PortalSession } from '../objects.ts';

export interface PortalFields {
  id: string;
  created: number;
  customer: string;
  configuration: string;
  returnUrl: string | null;
  url: string;
}

/** A customer portal session for the account's default configuration, opening on the portal's home page (no flow). */
export function portalSessionObject(fields: PortalFields): PortalSession {
  return {
    id: fields.id,
    object: 'billing_portal.session',
    configuration: fields.configuration,
    created: fields.created,
    customer: fields.customer,
    customer_account: null,
    flow: null,
    livemode: false,
    locale: null,
    on_behalf_of: null,
    return_url: fields.returnUrl,
    url: fields.url,
  };
}
