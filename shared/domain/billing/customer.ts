import {
  PortalUnconfigured,
  UnknownCursor,
  type BillingPorts,
  type BillingStore,
  type PaymentProvider,
  type ProviderInvoice,
} from './ports.ts';
import { Conflict, Invalid, NotFound } from '../refusals.ts';

export interface CustomerPorts {
  provider: Pick<PaymentProvider, 'createPortalSession' | 'listInvoices' | 'invoiceCustomer'>;
  billing: Pick<BillingStore, 'customerOf'>;
  config: BillingPorts['config'];
}

/** The caller's own customer at the provider; 404 for an account that never started a checkout. */
async function ownCustomer(userId: string, ports: CustomerPorts): Promise<string> {
  const customerId = await ports.billing.customerOf(userId);
  if (!customerId) throw new NotFound('This account has no billing yet: buy a plan first.');
  return customerId;
}

/** The provider's billing portal for the caller's own customer (cards, invoices, cancelling), back to a page of this site. */
export async function openPortal(userId: string, returnPath: string | undefined, ports: CustomerPorts): Promise<{ url: string }> {
  const customerId = await ownCustomer(userId, ports);
  try {
    return await ports.provider.createPortalSession(customerId, `${ports.config.WEB_ORIGIN}${returnPath ?? '/billing'}`);
  } catch (error) {
    if (!(error instanceof PortalUnconfigured)) throw error;
    throw new Conflict(
      'The billing portal is not set up yet: the operator of this deployment must save the customer portal settings in Stripe’s Dashboard (Settings, Billing, Customer portal), in the mode of its key. Until then, write to the operator to change or cancel the plan.',
      { code: 'portal_unconfigured' },
    );
  }
}

const notACursor = () =>
  new Invalid('Not a cursor of this listing.', [{ field: 'cursor', message: 'is not a cursor this listing gave', in: 'query' }]);

/**
 * The caller's invoices, newest first, paged by the last one's id. A cursor is an invoice of the
 * caller's own customer: any other (malformed, of no invoice, of another customer) is a 400.
 */
export async function listInvoices(
  userId: string,
  limit: number,
  cursor: string | null,
  ports: CustomerPorts,
): Promise<{ items: ProviderInvoice[]; nextCursor: string | null }> {
  const customerId = await ownCustomer(userId, ports);
  if (cursor !== null && (!/^in_[A-Za-z0-9]{1,64}$/.test(cursor) || (await ports.provider.invoiceCustomer(cursor)) !== customerId))
    throw notACursor();
  let page: Awaited<ReturnType<PaymentProvider['listInvoices']>>;
  try {
    page = await ports.provider.listInvoices(customerId, limit, cursor);
  } catch (error) {
    if (error instanceof UnknownCursor) throw notACursor();
    throw error;
  }
  return { items: page.items, nextCursor: page.hasMore && page.items.length > 0 ? page.items.at(-1)!.id : null };
}
