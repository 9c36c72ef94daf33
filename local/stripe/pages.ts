import type { ServerResponse } from 'node:http';
import type { StripeBilling } from './billing.ts';
import { StripeApiError } from './errors.ts';
import type { Invoice, PortalSession, Subscription } from './objects.ts';
import type { Webhooks } from './webhooks.ts';
import { escapeHtml, sendPage } from '../loopbackServer.ts';

/**
 * The pages a payer sees instead of Stripe's: the checkout page (Pay, Cancel), the billing
 * portal (seats, cancel at period end, invoices, Back) and a hosted invoice with its PDF. Plain
 * HTML with POST forms and no script; every POST answers 303 to where Stripe would send the
 * browser, after the events it made have been delivered.
 */
export interface PageContext {
  billing: StripeBilling;
  webhooks: Webhooks;
}

const money = (cents: number, currency: string) =>
  `${cents < 0 ? '−' : ''}${(Math.abs(cents) / 100).toFixed(2)} ${escapeHtml(currency.toUpperCase())}`;
const date = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

function page(response: ServerResponse, status: number, title: string, body: string): void {
  sendPage(response, status, {
    title,
    banner: 'Local payment emulator: no real payment is made.',
    style:
      'table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #ddd}section{border:1px solid #ddd;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}',
    body,
  });
}

const redirect = (response: ServerResponse, location: string) => {
  response.writeHead(303, { location, 'cache-control': 'no-store' });
  response.end();
};

/** Answers a page's request; false when the path is not one of the pages. */
export async function handlePage(
  context: PageContext,
  method: string,
  path: string,
  form: URLSearchParams,
  response: ServerResponse,
): Promise<boolean> {
  const [, kind, id, ...rest] = path.split('/');
  const action = rest.join('/');
  if (!kind || !id || !['checkout', 'portal', 'invoices'].includes(kind)) return false;
  try {
    if (kind === 'checkout') return await checkout(context, method, id, action, form, response);
    if (kind === 'portal') return await portal(context, method, id, action, form, response);
    return invoicePage(context, method, id, action, response);
  } catch (error) {
    if (!(error instanceof StripeApiError)) throw error;
    page(response, error.status, 'Not possible', `<p>${escapeHtml(error.message)}</p>`);
    return true;
  }
}

async function checkout(
  context: PageContext,
  method: string,
  id: string,
  action: string,
  form: URLSearchParams,
  response: ServerResponse,
): Promise<boolean> {
  const { billing } = context;
  const record = billing.checkoutSession(id);
  const { session } = record;
  if (method === 'POST' && action === 'pay') {
    const { session: paid, events } = billing.completeCheckout(id, { ...(form.get('email') ? { email: form.get('email')! } : {}) });
    await context.webhooks.send(events);
    redirect(response, new URL(billing.successUrl(paid)).href);
    return true;
  }
  if (method === 'POST' && action === 'cancel') {
    redirect(response, session.cancel_url ? new URL(session.cancel_url).href : `/checkout/${id}`);
    return true;
  }
  if (method !== 'GET' || action !== '') return false;
  if (session.status !== 'open') {
    page(
      response,
      200,
      'Checkout',
      `<p>This checkout session is ${escapeHtml(session.status ?? 'closed')}.</p>${session.status === 'complete' ? `<p><a href="${escapeHtml(billing.successUrl(session))}">Continue</a></p>` : ''}`,
    );
    return true;
  }
  const rows = record.lineItems
    .map(({ price: priceId, quantity }) => {
      const price = billing.price(priceId, 'price');
      return `<tr><td>${escapeHtml(price.nickname)}</td><td>${quantity}</td><td>${money(price.unit_amount * quantity, price.currency)} / ${price.interval ?? 'month'}</td></tr>`;
    })
    .join('');
  const customerEmail = session.customer ? billing.customer(session.customer as string, 'customer').email : session.customer_email;
  const email = customerEmail
    ? `<p>Paying as ${escapeHtml(customerEmail)}</p>`
    : '<p><label>Email <input type="email" name="email" value="customer@example.com" required></label></p>';
  page(
    response,
    200,
    'Checkout',
    `<table><thead><tr><th>Item</th><th>Quantity</th><th>Price</th></tr></thead><tbody>${rows}</tbody></table>
<p>Total due today: <strong>${money(session.amount_total ?? 0, session.currency ?? 'usd')}</strong></p>
<form method="post" action="/checkout/${escapeHtml(id)}/pay">${email}<button type="submit">Pay</button></form>
${session.cancel_url ? `<form method="post" action="/checkout/${escapeHtml(id)}/cancel"><button type="submit">Cancel</button></form>` : ''}`,
  );
  return true;
}

async function portal(
  context: PageContext,
  method: string,
  id: string,
  action: string,
  form: URLSearchParams,
  response: ServerResponse,
): Promise<boolean> {
  const { billing } = context;
  const session = billing.portalSession(id);
  if (method === 'POST') {
    const [kind, subscriptionId, change] = action.split('/');
    if (kind !== 'subscriptions' || !subscriptionId || !change) return false;
    const subscription = billing.subscriptions.get(subscriptionId).subscription;
    if (subscription.customer !== session.customer) return false;
    const update = portalChange(subscription, change, form);
    if (!update) {
      page(response, 400, 'Billing', '<p>Seats must be a whole number of at least 1.</p>');
      return true;
    }
    const { events } = billing.subscriptions.update(subscription.id, update);
    await context.webhooks.send(events);
    redirect(response, `/portal/${id}`);
    return true;
  }
  if (method !== 'GET' || action !== '') return false;
  const customer = billing.customer(session.customer, 'customer');
  const subscriptions = billing.subscriptions
    .ofCustomer(customer.id)
    .map((subscription) => subscriptionSection(session, subscription))
    .join('');
  const invoices = billing.listInvoices({ customer: customer.id, limit: 100 }).data.map(invoiceRow).join('');
  page(
    response,
    200,
    'Billing',
    `<p>${escapeHtml(customer.email ?? customer.id)}</p>
${subscriptions || '<p>No subscriptions.</p>'}
<h2>Invoices</h2>
${invoices ? `<table><thead><tr><th>Number</th><th>Date</th><th>Total</th><th>Status</th></tr></thead><tbody>${invoices}</tbody></table>` : '<p>No invoices.</p>'}
${session.return_url ? `<p><a href="${escapeHtml(session.return_url)}">Back</a></p>` : ''}`,
  );
  return true;
}

/** A portal form's change, as the portal makes it: seat changes are billed at once. */
function portalChange(subscription: Subscription, change: string, form: URLSearchParams) {
  if (change === 'cancel') return { cancel_at_period_end: true };
  if (change === 'renew') return { cancel_at_period_end: false };
  if (change !== 'quantity') return undefined;
  const quantity = form.get('quantity') ?? '';
  if (!/^[1-9]\d{0,5}$/.test(quantity)) return undefined;
  return { items: [{ id: subscription.items.data[0]!.id, quantity: Number(quantity) }], proration_behavior: 'always_invoice' };
}

function subscriptionSection(session: PortalSession, subscription: Subscription): string {
  const item = subscription.items.data[0]!;
  const base = `/portal/${escapeHtml(session.id)}/subscriptions/${escapeHtml(subscription.id)}`;
  const live = subscription.status !== 'canceled';
  const when = !live
    ? `Ended ${date(subscription.ended_at ?? item.current_period_end)}`
    : subscription.cancel_at_period_end
      ? `Cancels on ${date(item.current_period_end)}`
      : `Renews on ${date(item.current_period_end)}`;
  return `<section><h2>${escapeHtml(item.price.nickname ?? item.price.id)}</h2>
<p>${item.quantity ?? 1} × ${money(item.price.unit_amount ?? 0, item.price.currency)} · ${escapeHtml(subscription.status)} · ${when}</p>
${
  live
    ? `<form method="post" action="${base}/quantity"><label>Seats <input type="number" name="quantity" min="1" value="${item.quantity ?? 1}" required></label> <button type="submit">Update seats</button></form>
${subscription.cancel_at_period_end ? `<form method="post" action="${base}/renew"><button type="submit">Don't cancel</button></form>` : `<form method="post" action="${base}/cancel"><button type="submit">Cancel at period end</button></form>`}`
    : ''
}</section>`;
}

const invoiceRow = (invoice: Invoice) =>
  `<tr><td><a href="${escapeHtml(invoice.hosted_invoice_url ?? '')}">${escapeHtml(invoice.number ?? invoice.id)}</a></td><td>${date(invoice.created)}</td><td>${money(invoice.total, invoice.currency)}</td><td>${escapeHtml(invoice.status ?? '')}</td></tr>`;

function invoicePage(context: PageContext, method: string, id: string, action: string, response: ServerResponse): boolean {
  if (method !== 'GET') return false;
  const invoice = context.billing.invoice(id);
  const lines = invoice.lines.data
    .map((line) => `<tr><td>${escapeHtml(line.description ?? '')}</td><td>${money(line.amount, line.currency)}</td></tr>`)
    .join('');
  if (action === 'pdf') {
    response.writeHead(200, {
      'content-type': 'application/pdf',
      'content-disposition': `inline; filename="Invoice-${invoice.number}.pdf"`,
      'cache-control': 'no-store',
    });
    response.end(
      invoicePdf([
        `Invoice ${invoice.number}`,
        `Date ${date(invoice.created)}`,
        ...invoice.lines.data.map((line) => `${line.description}: ${money(line.amount, line.currency)}`),
        `Total ${money(invoice.total, invoice.currency)} (${invoice.status})`,
      ]),
    );
    return true;
  }
  if (action !== '') return false;
  page(
    response,
    200,
    `Invoice ${invoice.number ?? invoice.id}`,
    `<p>${date(invoice.created)} · ${escapeHtml(invoice.status ?? '')}</p><table><tbody>${lines}</tbody></table><p>Total <strong>${money(invoice.total, invoice.currency)}</strong></p><p><a href="${escapeHtml(invoice.invoice_pdf ?? '')}">Download PDF</a></p>`,
  );
  return true;
}

/** A one-page PDF with these lines of text (Helvetica; ASCII only, as the standard fonts allow). */
function invoicePdf(lines: string[]): Buffer {
  const text = lines
    .map((line, index) => `BT /F1 12 Tf 72 ${740 - index * 18} Td (${line.replace(/[^\x20-\x7e]/g, '-').replace(/[\\()]/g, '\\$&')}) Tj ET`)
    .join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(text)} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const offset = Buffer.byteLength(pdf);
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = Buffer.byteLength(pdf);
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}
