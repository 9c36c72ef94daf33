/**
 * The billing page's invoices (`GET /v1/billing/invoices`), newest first, a page at a time with
 * "More" (`pagedList.ts`): each one's number, status, date and total in its currency, and its
 * pages at the provider. An account that never started a checkout is answered 404: it has no
 * invoices yet, which is said as such, not as an error.
 */
import { ApiError } from './api.ts';
import { fact } from './accountPage.ts';
import { billingApi, invoiceStatusLabel, money, webAddress, type Invoice } from './billingApi.ts';
import { byId, element, timeElement } from './dom.ts';
import { t } from './i18n.ts';
import { pagedList } from './pagedList.ts';
import { withAccess } from './session.ts';

const pageSize = 10;

/** `number`: the invoice's number (or id), which ends the link's accessible name. */
function invoiceLink(url: string | null, label: string, number: string, role: string): HTMLAnchorElement | null {
  const href = webAddress(url);
  if (!href) return null;
  const link = element('a', '', label);
  link.href = href;
  link.rel = 'noopener noreferrer';
  link.dataset.role = role;
  link.append(element('span', 'visually-hidden', ` ${t('billing.invoice.linkObject', { number })}`));
  return link;
}

function invoiceItem(invoice: Invoice): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset.id = invoice.id;
  item.dataset.status = invoice.status ?? '';
  const number = invoice.number ?? invoice.id;
  const head = element('div', 'item-head');
  const title = element('h3', 'item-title', t('billing.invoice.title', { number }));
  title.tabIndex = -1;
  head.append(title);
  if (invoice.status) {
    const badge = element(
      'span',
      invoice.status === 'paid' ? 'badge badge-active' : invoice.status === 'open' ? 'badge badge-pending' : 'badge',
      invoiceStatusLabel(invoice.status),
    );
    badge.dataset.role = 'invoice-status';
    head.append(badge);
  }
  const facts = element('dl', 'facts');
  const total = fact(t('billing.invoice.total'), money(invoice.total, invoice.currency));
  total.dataset.role = 'total';
  facts.append(fact(t('billing.invoice.date'), timeElement(invoice.created_at)), total);
  item.append(head, facts);
  const links = [
    invoiceLink(invoice.hosted_invoice_url, t('billing.invoice.view'), number, 'hosted'),
    invoiceLink(invoice.invoice_pdf, t('billing.invoice.pdf'), number, 'pdf'),
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
    words: {
      retryObject: t('billing.invoices.retryObject'),
      loading: t('billing.invoices.loading'),
      moreListed: (count) => t('billing.invoices.moreListed', { count }),
      noMore: t('billing.invoices.noMore'),
    },
    listFailure: t('billing.invoices.listFailed'),
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
