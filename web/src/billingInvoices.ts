/**
 * The billing page's invoices (`GET /v1/billing/invoices`), newest first, a page at a time with
 * "More" (`pagedList.ts`): each one's number, status, date and total in its currency, and its
 * pages at the provider. An account that never started a checkout is answered 404: it has no
 * invoices yet, which is said as such, not as an error.
 */
import { ApiError } from './api.ts';
import { fact } from './accountPage.ts';
import { billingApi, invoiceStatusLabels, money, webAddress, type Invoice } from './billingApi.ts';
import { byId, element, timeElement } from './dom.ts';
import { pagedList } from './pagedList.ts';
import { withAccess } from './session.ts';

const pageSize = 10;

function invoiceLink(url: string | null, label: string, name: string, role: string): HTMLAnchorElement | null {
  const href = webAddress(url);
  if (!href) return null;
  const link = element('a', '', label);
  link.href = href;
  link.rel = 'noopener noreferrer';
  link.dataset.role = role;
  link.append(element('span', 'visually-hidden', ` of ${name}`));
  return link;
}

function invoiceItem(invoice: Invoice): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset.id = invoice.id;
  item.dataset.status = invoice.status ?? '';
  const name = `invoice ${invoice.number ?? invoice.id}`;
  const head = element('div', 'item-head');
  const title = element('h3', 'item-title', `Invoice ${invoice.number ?? invoice.id}`);
  title.tabIndex = -1;
  head.append(title);
  if (invoice.status) {
    const badge = element(
      'span',
      invoice.status === 'paid' ? 'badge badge-active' : invoice.status === 'open' ? 'badge badge-pending' : 'badge',
      invoiceStatusLabels[invoice.status] ?? invoice.status,
    );
    badge.dataset.role = 'invoice-status';
    head.append(badge);
  }
  const facts = element('dl', 'facts');
  const total = fact('Total', money(invoice.total, invoice.currency));
  total.dataset.role = 'total';
  facts.append(fact('Date', timeElement(invoice.created_at)), total);
  item.append(head, facts);
  const links = [
    invoiceLink(invoice.hosted_invoice_url, 'View invoice', name, 'hosted'),
    invoiceLink(invoice.invoice_pdf, 'Download PDF', name, 'pdf'),
  ].filter((link) => link !== null);
  if (links.length > 0) {
    const actions = element('div', 'actions');
    actions.append(...links);
    item.append(actions);
  }
  return item;
}

/**
 * The list, wired to the page's elements; `customer` hears whether the account has billing at
 * the provider at all (a 404 on the first page says it has not).
 */
export function invoiceList(customer: (exists: boolean) => void) {
  return pagedList<Invoice>({
    list: byId<HTMLUListElement>('invoices'),
    empty: byId('invoices-empty'),
    loadMore: byId<HTMLButtonElement>('invoices-more'),
    error: byId('invoices-error'),
    noun: ['invoice', 'invoices'],
    listFailure: 'Your invoices could not be listed: ',
    async fetchPage(cursor) {
      try {
        const page = await withAccess((token) => billingApi.invoices(token, pageSize, cursor));
        customer(true);
        return { items: page.items, nextCursor: page.next_cursor, draw: invoiceItem };
      } catch (error) {
        if (!(cursor === null && error instanceof ApiError && error.status === 404)) throw error;
        customer(false);
        return { items: [], nextCursor: null, draw: invoiceItem };
      }
    },
  });
}
