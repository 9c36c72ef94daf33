import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../shared/clock.ts';
import { startStripeEmulator, type LocalStripe } from '../../local/stripe/emulator.ts';
import { startTestRuntime } from '../support/runtime.ts';

/**
 * The local payment provider (local/stripe/, issue 16), driven by the official `stripe` SDK as
 * the service drives it (`host`, `port`, `protocol: 'http'`, the SDK's pinned API version), its
 * pages by plain HTTP as a browser would, and its events received by a small HTTP receiver and
 * verified with the SDK's own `constructEventAsync`. Time is an injected clock standing at the
 * end of a January, so periods, prorations and timestamps are exact.
 */

/** Time stands still unless a test moves it, so every timestamp can be asserted exactly. */
let nowMs = Date.parse('2031-01-31T12:00:00Z');
const clock: Clock & { advance(seconds: number): void } = {
  now: () => nowMs,
  advance: (seconds: number) => void (nowMs += seconds * 1000),
};
const nowSeconds = () => Math.floor(clock.now() / 1000);

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
/** What the receiver got, and the status it answers with next. */
const received: Received[] = [];
let receiverStatus = 200;
let receiver: Server;
let emulator: LocalStripe;
let stripe: Stripe;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(receiverStatus).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  emulator = await startStripeEmulator({ clock, webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/stripe-events` });
  stripe = sdk(emulator.apiKey);
});
afterAll(async () => {
  await emulator?.stop();
  receiver?.close();
});
beforeEach(() => {
  received.length = 0;
  receiverStatus = 200;
});

function sdk(apiKey: string): Stripe {
  return new Stripe(apiKey, {
    host: emulator.host,
    port: emulator.port,
    protocol: 'http',
    apiVersion: Stripe.API_VERSION,
    maxNetworkRetries: 0,
  });
}

/** Every event the receiver got, each verified as the service verifies it (at the clock's time). */
async function receivedEvents(): Promise<Stripe.Event[]> {
  await emulator.settled();
  return Promise.all(
    received.map(({ headers, body }) =>
      stripe.webhooks.constructEventAsync(body, headers['stripe-signature'] as string, emulator.signingSecret, 300, undefined, clock.now()),
    ),
  );
}

/** A form POST or a GET to one of the emulator's pages, without following redirects. */
function page(path: string, form?: Record<string, string>) {
  return fetch(`${emulator.url}${path}`, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    ...(form ? { body: new URLSearchParams(form) } : {}),
  });
}

/** A raw request (for what the SDK would never send), with the headers given. */
function raw(method: string, path: string, headers: Record<string, string>, body = ''): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${emulator.url}${path}`,
      { method, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: text && /json/.test(response.headers['content-type'] ?? '') ? JSON.parse(text) : text,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const teamCheckout = (customer: string, seats = 3) =>
  stripe.checkout.sessions.create({
    mode: 'subscription',
    customer,
    client_reference_id: 'usr_owner',
    line_items: [{ price: 'price_team_seat_monthly', quantity: seats }],
    success_url: 'http://localhost:3000/billing?session={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://localhost:3000/plans',
    metadata: { plan: 'team', workspace_id: 'wks_1' },
    subscription_data: { metadata: { plan: 'team', workspace_id: 'wks_1' } },
  });

/** A paid Team subscription of `seats`, and the events its checkout made forgotten. */
async function teamSubscription(seats = 3): Promise<Stripe.Subscription> {
  const customer = await stripe.customers.create({ email: 'owner@example.com' });
  const session = await emulator.completeCheckout((await teamCheckout(customer.id, seats)).id);
  received.length = 0;
  return stripe.subscriptions.retrieve(session.subscription as string);
}

describe('the emulator’s server', () => {
  it('answers only loopback host names (a rebound DNS name gets 404), and the SDK’s own', async () => {
    const statusFor = (host: string) =>
      new Promise<number>((resolve, reject) =>
        httpRequest(
          {
            host: '127.0.0.1',
            port: emulator.port,
            method: 'POST',
            path: '/v1/customers',
            headers: { host, authorization: `Bearer ${emulator.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode!);
          },
        )
          .on('error', reject)
          .end(),
      );
    expect(await statusFor(`rebind.attacker.example:${emulator.port}`)).toBe(404);
    expect(await statusFor(`127.0.0.1:${emulator.port}`)).toBe(200);
  });
});

describe('customers and checkout sessions', () => {
  it('creates and retrieves a customer, and records the exact request', async () => {
    emulator.clearRequests();
    const customer = await stripe.customers.create(
      { email: 'ana@example.com', name: 'Ana', metadata: { user_id: 'usr_1' } },
      { idempotencyKey: 'customer-usr_1' },
    );
    expect(customer).toMatchObject({
      object: 'customer',
      email: 'ana@example.com',
      name: 'Ana',
      metadata: { user_id: 'usr_1' },
      livemode: false,
      created: nowSeconds(),
    });
    expect(customer.id).toMatch(/^cus_[A-Za-z0-9]{14}$/);
    expect(await stripe.customers.retrieve(customer.id)).toEqual({ ...customer });

    expect(emulator.requests()).toEqual([
      {
        method: 'POST',
        path: '/v1/customers',
        query: {},
        form: { email: 'ana@example.com', name: 'Ana', metadata: { user_id: 'usr_1' } },
        idempotency_key: 'customer-usr_1',
        stripe_version: Stripe.API_VERSION,
        status: 200,
        request_id: expect.stringMatching(/^req_/),
      },
      {
        method: 'GET',
        path: `/v1/customers/${customer.id}`,
        query: {},
        form: {},
        idempotency_key: null,
        stripe_version: Stripe.API_VERSION,
        status: 200,
        request_id: expect.stringMatching(/^req_/),
      },
    ]);
  });

  it('creates a subscription-mode session whose url is the checkout page, with nested parameters parsed', async () => {
    const customer = await stripe.customers.create({ email: 'owner@example.com' });
    const session = await teamCheckout(customer.id, 4);
    expect(session.id).toMatch(/^cs_test_/);
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      payment_status: 'unpaid',
      customer: customer.id,
      client_reference_id: 'usr_owner',
      metadata: { plan: 'team', workspace_id: 'wks_1' },
      amount_total: 4 * 800,
      currency: 'usd',
      subscription: null,
      url: `${emulator.url}/checkout/${session.id}`,
    });
    expect(await stripe.checkout.sessions.retrieve(session.id)).toEqual({ ...session });
    expect(emulator.requests().find((request) => request.path === '/v1/checkout/sessions')?.form).toEqual({
      mode: 'subscription',
      customer: customer.id,
      client_reference_id: 'usr_owner',
      line_items: [{ price: 'price_team_seat_monthly', quantity: '4' }],
      success_url: 'http://localhost:3000/billing?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:3000/plans',
      metadata: { plan: 'team', workspace_id: 'wks_1' },
      subscription_data: { metadata: { plan: 'team', workspace_id: 'wks_1' } },
    });
  });

  it('pays through the checkout page: subscription, invoice, signed events in order, then the success URL', async () => {
    const customer = await stripe.customers.create({ email: 'owner@example.com' });
    const session = await teamCheckout(customer.id, 3);
    const checkoutPage = await page(`/checkout/${session.id}`);
    expect(checkoutPage.status).toBe(200);
    const html = await checkoutPage.text();
    expect(html).toContain(`action="/checkout/${session.id}/pay"`);
    expect(html).toContain(`action="/checkout/${session.id}/cancel"`);

    const paid = await page(`/checkout/${session.id}/pay`, {});
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`http://localhost:3000/billing?session=${session.id}`);

    const events = await receivedEvents();
    expect(events.map((event) => event.type)).toEqual(['customer.subscription.created', 'checkout.session.completed', 'invoice.paid']);
    for (const event of events) {
      expect(event).toMatchObject({
        object: 'event',
        api_version: Stripe.API_VERSION,
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
      });
      expect(event.id).toMatch(/^evt_/);
    }
    const [signature] = received.map((delivery) => delivery.headers['stripe-signature'] as string);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // Signed at the injected clock's time (years ahead of the machine's), not the machine's.
    expect(Math.abs(Number(/t=(\d+)/.exec(signature!)![1]) - nowSeconds())).toBeLessThan(5);
    expect(received[0]!.headers['content-type']).toBe('application/json; charset=utf-8');

    const completed = await stripe.checkout.sessions.retrieve(session.id);
    expect(completed).toMatchObject({ status: 'complete', payment_status: 'paid', customer: customer.id });
    const subscription = await stripe.subscriptions.retrieve(completed.subscription as string);
    const [item] = subscription.items.data;
    expect(subscription).toMatchObject({
      object: 'subscription',
      status: 'active',
      customer: customer.id,
      cancel_at_period_end: false,
      metadata: { plan: 'team', workspace_id: 'wks_1' },
    });
    expect(subscription.id).toMatch(/^sub_/);
    expect(item!.id).toMatch(/^si_/);
    expect(item).toMatchObject({
      quantity: 3,
      price: { id: 'price_team_seat_monthly', unit_amount: 800, recurring: { interval: 'month' } },
    });
    // Paid on January 31: the period ends on the last day of February, at the same time.
    expect(item!.current_period_end - item!.current_period_start).toBe(28 * 86_400);
    expect(events[0]!.data.object).toMatchObject({ id: subscription.id, status: 'active' });
    expect(events[1]!.data.object).toMatchObject({ id: session.id, status: 'complete', subscription: subscription.id });

    const { data: invoices } = await stripe.invoices.list({ customer: customer.id });
    expect(invoices).toHaveLength(1);
    const [invoice] = invoices;
    expect(invoice).toMatchObject({
      object: 'invoice',
      status: 'paid',
      total: 2400,
      amount_paid: 2400,
      currency: 'usd',
      billing_reason: 'subscription_create',
      customer: customer.id,
    });
    expect(invoice!.parent?.subscription_details?.subscription).toBe(subscription.id);
    expect(invoice!.number).toMatch(/^[A-Z0-9]{8}-0001$/);
    expect(events[2]!.data.object).toMatchObject({ id: invoice!.id, status: 'paid' });
    expect(subscription.latest_invoice).toBe(invoice!.id);
    const hosted = await fetch(invoice!.hosted_invoice_url!);
    expect(hosted.status).toBe(200);
    expect(await hosted.text()).toContain(invoice!.number);
    const pdf = await fetch(invoice!.invoice_pdf!);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    expect((await page(`/checkout/${session.id}/pay`, {})).status).toBe(400);
    expect(received).toHaveLength(3);
  });

  it('cancels back to cancel_url; completing by the control creates the customer from customer_email', async () => {
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer_email: 'new@example.com',
      line_items: [{ price: 'price_pro_monthly', quantity: 1 }],
      success_url: 'http://localhost:3000/ok',
      cancel_url: 'http://localhost:3000/no',
    });
    const cancelled = await page(`/checkout/${session.id}/cancel`, {});
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get('location')).toBe('http://localhost:3000/no');

    const completion = await fetch(`${emulator.url}/_emulator/checkout/sessions/${session.id}/complete`, { method: 'POST' });
    expect(completion.status).toBe(200);
    const completed = (await completion.json()) as Stripe.Checkout.Session;
    expect(completed).toMatchObject({ status: 'complete', customer_details: { email: 'new@example.com' } });
    const customer = await stripe.customers.retrieve(completed.customer as string);
    expect(customer).toMatchObject({ email: 'new@example.com' });
    expect((await receivedEvents()).map((event) => event.type)).toEqual([
      'customer.subscription.created',
      'checkout.session.completed',
      'invoice.paid',
    ]);
  });

  it('redirects to a success URL as the URL parser reads it (tabs and newlines dropped), never a broken header', async () => {
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: 'price_pro_monthly' }],
      success_url: 'http://localhost:3000/ok\n?s={CHECKOUT_SESSION_ID}',
      customer_email: 'nl@example.com',
    });
    const paid = await page(`/checkout/${session.id}/pay`, {});
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`http://localhost:3000/ok?s=${session.id}`);
  });
});

describe('subscriptions', () => {
  it('changes the quantity with an invoice at once: updated (with previous attributes) then invoice.paid, prorated by the second', async () => {
    const subscription = await teamSubscription(3);
    const item = subscription.items.data[0]!;
    clock.advance(7 * 86_400);
    const updated = await stripe.subscriptions.update(
      subscription.id,
      { items: [{ id: item.id, quantity: 5 }], proration_behavior: 'always_invoice' },
      { idempotencyKey: 'seats-5' },
    );
    expect(updated.items.data[0]!.quantity).toBe(5);

    const events = await receivedEvents();
    expect(events.map((event) => event.type)).toEqual(['customer.subscription.updated', 'invoice.paid']);
    const changed = events[0]!;
    expect(changed.request).toEqual({ id: expect.stringMatching(/^req_/), idempotency_key: 'seats-5' });
    expect((changed.data.previous_attributes as Stripe.Subscription).items.data[0]!.quantity).toBe(3);
    const invoice = events[1]!.data.object as Stripe.Invoice;
    expect(invoice.billing_reason).toBe('subscription_update');
    const [credit, charge] = invoice.lines.data;
    const share = (item.current_period_end - charge!.period.start) / (item.current_period_end - item.current_period_start);
    expect(credit).toMatchObject({
      amount: -Math.round(3 * 800 * share),
      quantity: 3,
      parent: { subscription_item_details: { proration: true } },
    });
    expect(charge).toMatchObject({ amount: Math.round(5 * 800 * share), quantity: 5 });
    expect(invoice.total).toBe(credit!.amount + charge!.amount);
    expect(invoice.status).toBe('paid');
  });

  it('keeps create_prorations for the renewal, which the clock passing the period end brings (tick)', async () => {
    const subscription = await teamSubscription(2);
    const item = subscription.items.data[0]!;
    await stripe.subscriptions.update(subscription.id, { items: [{ id: item.id, quantity: 4 }] });
    expect((await receivedEvents()).map((event) => event.type)).toEqual(['customer.subscription.updated']);
    received.length = 0;

    clock.advance(item.current_period_end - nowSeconds() + 1);
    const tick = await fetch(`${emulator.url}/_emulator/tick`, { method: 'POST' });
    expect(tick.status).toBe(200);
    const mine = (await receivedEvents()).filter(
      (event) =>
        [subscription.id, subscription.latest_invoice].includes((event.data.object as { id: string }).id) ||
        (event.data.object as Stripe.Invoice).parent?.subscription_details?.subscription === subscription.id,
    );
    expect(mine.map((event) => event.type)).toEqual(['customer.subscription.updated', 'invoice.paid']);
    const renewed = mine[0]!.data.object as Stripe.Subscription;
    expect(renewed.items.data[0]!.current_period_start).toBe(item.current_period_end);
    const invoice = mine[1]!.data.object as Stripe.Invoice;
    expect(invoice.billing_reason).toBe('subscription_cycle');
    expect(invoice.lines.data.map((line) => line.parent?.subscription_item_details?.proration)).toEqual([false, true, true]);
    expect(invoice.lines.data[0]).toMatchObject({ amount: 4 * 800, quantity: 4 });
  });

  it('cancels at period end: updated now, canceled and deleted when the period ends', async () => {
    const subscription = await teamSubscription(2);
    const cancelling = await stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true });
    expect(cancelling).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: subscription.items.data[0]!.current_period_end,
      canceled_at: nowSeconds(),
    });
    const [updated] = await receivedEvents();
    expect(updated).toMatchObject({
      type: 'customer.subscription.updated',
      data: { previous_attributes: { cancel_at_period_end: false, cancel_at: null } },
    });
    received.length = 0;

    const ended = await fetch(`${emulator.url}/_emulator/subscriptions/${subscription.id}/period_end`, { method: 'POST' });
    expect(ended.status).toBe(200);
    const [deleted] = await receivedEvents();
    expect(deleted).toMatchObject({
      type: 'customer.subscription.deleted',
      data: { object: { id: subscription.id, status: 'canceled', cancellation_details: { reason: 'cancellation_requested' } } },
    });
    expect(await stripe.subscriptions.retrieve(subscription.id)).toMatchObject({ status: 'canceled', ended_at: nowSeconds() });
    await expect(stripe.subscriptions.update(subscription.id, { cancel_at_period_end: false })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
    });
  });

  it('a declined renewal: invoice.payment_failed, then past_due; the next period end cancels it', async () => {
    const subscription = await teamSubscription(1);
    await fetch(`${emulator.url}/_emulator/subscriptions/${subscription.id}/fail_next_payment`, { method: 'POST' });
    await emulator.endPeriod(subscription.id);
    const [failed, updated] = await receivedEvents();
    expect(failed).toMatchObject({
      type: 'invoice.payment_failed',
      data: { object: { status: 'open', attempted: true, attempt_count: 1, amount_paid: 0, amount_remaining: 800 } },
    });
    expect(updated).toMatchObject({
      type: 'customer.subscription.updated',
      data: { object: { status: 'past_due' }, previous_attributes: { status: 'active' } },
    });
    expect((await stripe.invoices.list({ customer: subscription.customer as string, status: 'open' })).data).toHaveLength(1);
    received.length = 0;

    await emulator.endPeriod(subscription.id);
    const [deleted] = await receivedEvents();
    expect(deleted).toMatchObject({
      type: 'customer.subscription.deleted',
      data: { object: { status: 'canceled', cancellation_details: { reason: 'payment_failed' } } },
    });
  });

  it('the portal page changes seats (billed at once) and cancels at period end; Back is return_url', async () => {
    const subscription = await teamSubscription(2);
    const portal = await stripe.billingPortal.sessions.create({
      customer: subscription.customer as string,
      return_url: 'http://localhost:3000/billing',
    });
    expect(portal).toMatchObject({
      object: 'billing_portal.session',
      customer: subscription.customer,
      url: `${emulator.url}/portal/${portal.id}`,
    });
    expect(portal.id).toMatch(/^bps_/);
    const html = await (await page(`/portal/${portal.id}`)).text();
    expect(html).toContain(`action="/portal/${portal.id}/subscriptions/${subscription.id}/quantity"`);
    expect(html).toContain('href="http://localhost:3000/billing"');

    const seats = await page(`/portal/${portal.id}/subscriptions/${subscription.id}/quantity`, { quantity: '6' });
    expect(seats.status).toBe(303);
    expect(seats.headers.get('location')).toBe(`/portal/${portal.id}`);
    expect((await receivedEvents()).map((event) => event.type)).toEqual(['customer.subscription.updated', 'invoice.paid']);
    expect((await page(`/portal/${portal.id}/subscriptions/${subscription.id}/quantity`, { quantity: '0' })).status).toBe(400);
    received.length = 0;

    expect((await page(`/portal/${portal.id}/subscriptions/${subscription.id}/cancel`, {})).status).toBe(303);
    const [cancelled] = await receivedEvents();
    expect(cancelled).toMatchObject({
      type: 'customer.subscription.updated',
      data: { object: { cancel_at_period_end: true, items: { data: [{ quantity: 6 }] } } },
    });
  });
});

describe('cancelling now, and expiring checkouts (issue 26)', () => {
  it('cancels now with prorate and invoice_now: deleted, then a final invoice crediting the unused time to the customer’s balance; again is 404', async () => {
    const subscription = await teamSubscription(3);
    const item = subscription.items.data[0]!;
    clock.advance(10 * 86_400);
    emulator.clearRequests();
    const canceled = await stripe.subscriptions.cancel(subscription.id, { prorate: true, invoice_now: true });
    expect(canceled).toMatchObject({
      status: 'canceled',
      canceled_at: nowSeconds(),
      ended_at: nowSeconds(),
      cancellation_details: { reason: 'cancellation_requested' },
    });
    expect(emulator.requests()).toMatchObject([
      {
        method: 'DELETE',
        path: `/v1/subscriptions/${subscription.id}`,
        query: { prorate: 'true', invoice_now: 'true' },
        form: {},
        status: 200,
      },
    ]);
    const events = await receivedEvents();
    expect(events.map((event) => event.type)).toEqual(['customer.subscription.deleted', 'invoice.paid']);
    const invoice = events[1]!.data.object as Stripe.Invoice;
    const share = (item.current_period_end - nowSeconds()) / (item.current_period_end - item.current_period_start);
    expect(invoice.lines.data).toMatchObject([
      { amount: -Math.round(3 * 800 * share), quantity: 3, parent: { subscription_item_details: { proration: true } } },
    ]);
    expect(invoice).toMatchObject({
      total: -Math.round(3 * 800 * share),
      amount_due: 0,
      amount_paid: 0,
      status: 'paid',
      ending_balance: -Math.round(3 * 800 * share),
    });
    expect(canceled.latest_invoice).toBe(invoice.id);
    expect(((await stripe.customers.retrieve(subscription.customer as string)) as Stripe.Customer).balance).toBe(
      -Math.round(3 * 800 * share),
    );
    // Canceled already: Stripe answers as of a subscription it does not have; it can still be read.
    await expect(stripe.subscriptions.cancel(subscription.id, { prorate: true, invoice_now: true })).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
      param: 'id',
    });
    expect(await stripe.subscriptions.retrieve(subscription.id)).toMatchObject({ status: 'canceled' });
  });

  it('cancels now without prorate: no credit and no invoice; a bad feedback is 400', async () => {
    const subscription = await teamSubscription(1);
    await expect(
      stripe.subscriptions.cancel(subscription.id, { cancellation_details: { feedback: 'bored' as never } }),
    ).rejects.toMatchObject({ statusCode: 400, param: 'cancellation_details[feedback]' });
    const canceled = await stripe.subscriptions.cancel(subscription.id, {
      cancellation_details: { feedback: 'unused', comment: 'bought twice' },
    });
    expect(canceled).toMatchObject({
      status: 'canceled',
      latest_invoice: subscription.latest_invoice,
      cancellation_details: { feedback: 'unused', comment: 'bought twice', reason: 'cancellation_requested' },
    });
    expect((await receivedEvents()).map((event) => event.type)).toEqual(['customer.subscription.deleted']);
    expect(((await stripe.customers.retrieve(subscription.customer as string)) as Stripe.Customer).balance).toBe(0);
  });

  it('lists a customer’s checkout sessions by status, newest first; an open one expires and can no longer be paid', async () => {
    const customer = await stripe.customers.create({ email: 'checkouts@example.com' });
    const [first, second, third] = [
      await teamCheckout(customer.id, 1),
      await teamCheckout(customer.id, 2),
      await teamCheckout(customer.id, 3),
    ];
    await emulator.completeCheckout(second!.id);
    const open = await stripe.checkout.sessions.list({ customer: customer.id, status: 'open', limit: 100 });
    expect(open).toMatchObject({ object: 'list', url: '/v1/checkout/sessions', has_more: false });
    expect(open.data.map((session) => session.id)).toEqual([third!.id, first!.id]);
    expect(emulator.requests().at(-1)).toMatchObject({
      method: 'GET',
      path: '/v1/checkout/sessions',
      query: { customer: customer.id, status: 'open', limit: '100' },
    });

    const expired = await stripe.checkout.sessions.expire(first!.id);
    expect(expired).toMatchObject({ id: first!.id, status: 'expired', url: null });
    await expect(stripe.checkout.sessions.expire(first!.id)).rejects.toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError' });
    await expect(stripe.checkout.sessions.expire(second!.id)).rejects.toMatchObject({ statusCode: 400 });
    await expect(stripe.checkout.sessions.expire('cs_missing')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect(await (await page(`/checkout/${first!.id}`)).text()).toContain('This checkout session is expired.');
    expect((await page(`/checkout/${first!.id}/pay`, {})).status).toBe(400);
    expect((await stripe.checkout.sessions.list({ customer: customer.id, status: 'expired' })).data.map((session) => session.id)).toEqual([
      first!.id,
    ]);
    expect(
      (await stripe.checkout.sessions.list({ customer: customer.id, limit: 1, starting_after: third!.id })).data.map(
        (session) => session.id,
      ),
    ).toEqual([second!.id]);
    await expect(stripe.checkout.sessions.list({ customer: customer.id, starting_after: 'cs_unknown' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'starting_after',
    });
    await expect(stripe.checkout.sessions.list({ customer: customer.id, status: 'paid' as never })).rejects.toMatchObject({
      statusCode: 400,
      param: 'status',
    });
  });
});

describe('expand', () => {
  it('replaces an id by its object on request, in lists too, and refuses a field that names none', async () => {
    const subscription = await teamSubscription(2);
    const expanded = await stripe.subscriptions.retrieve(subscription.id, { expand: ['latest_invoice', 'customer'] });
    expect(expanded.latest_invoice).toMatchObject({ object: 'invoice', id: subscription.latest_invoice });
    expect(expanded.customer).toMatchObject({ object: 'customer', id: subscription.customer });
    const { data } = await stripe.invoices.list({
      customer: subscription.customer as string,
      expand: ['data.parent.subscription_details.subscription'],
    });
    expect(data[0]!.parent?.subscription_details?.subscription).toMatchObject({ object: 'subscription', id: subscription.id });
    expect(await stripe.subscriptions.retrieve(subscription.id)).toMatchObject({ latest_invoice: subscription.latest_invoice });
    await expect(stripe.subscriptions.retrieve(subscription.id, { expand: ['status'] })).rejects.toMatchObject({
      statusCode: 400,
      param: 'expand',
      message: 'This property cannot be expanded (status).',
    });
  });
});

describe('invoices', () => {
  it('lists newest first, paged by starting_after and ending_before, with has_more', async () => {
    const subscription = await teamSubscription(1);
    const itemId = subscription.items.data[0]!.id;
    for (const quantity of [2, 3, 4])
      await stripe.subscriptions.update(subscription.id, { items: [{ id: itemId, quantity }], proration_behavior: 'always_invoice' });
    const customer = subscription.customer as string;
    const all = await stripe.invoices.list({ customer, limit: 10 });
    expect(all.has_more).toBe(false);
    expect(all.data.map((invoice) => invoice.number!.slice(-4))).toEqual(['0004', '0003', '0002', '0001']);

    const first = await stripe.invoices.list({ customer, limit: 2 });
    expect(first).toMatchObject({ object: 'list', url: '/v1/invoices', has_more: true });
    const second = await stripe.invoices.list({ customer, limit: 2, starting_after: first.data[1]!.id });
    expect([...first.data, ...second.data].map((invoice) => invoice.id)).toEqual(all.data.map((invoice) => invoice.id));
    expect(second.has_more).toBe(false);
    expect((await stripe.invoices.list({ customer, limit: 1, ending_before: all.data[2]!.id })).data.map((invoice) => invoice.id)).toEqual([
      all.data[1]!.id,
    ]);
    expect((await stripe.invoices.list({ customer, limit: 1 }).autoPagingToArray({ limit: 10 })).map((invoice) => invoice.id)).toEqual(
      all.data.map((invoice) => invoice.id),
    );
    expect(emulator.requests().at(-1)).toMatchObject({
      method: 'GET',
      path: '/v1/invoices',
      query: { customer, limit: '1', starting_after: all.data[2]!.id },
    });

    await expect(stripe.invoices.list({ customer, starting_after: 'in_unknown' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'starting_after',
    });
    await expect(stripe.invoices.list({ customer, limit: 101 })).rejects.toMatchObject({ statusCode: 400, param: 'limit' });
  });
});

describe('idempotency keys', () => {
  it('replays the first answer to a retry, and refuses the key with other parameters or on another endpoint', async () => {
    const first = await stripe.customers.create(
      { email: 'retry@example.com', metadata: { a: '1', b: '2' } },
      { idempotencyKey: 'create-retry' },
    );
    const retry = await stripe.customers.create(
      { metadata: { b: '2', a: '1' }, email: 'retry@example.com' },
      { idempotencyKey: 'create-retry' },
    );
    expect(retry).toEqual({ ...first });
    expect(retry.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(retry.lastResponse.headers['original-request']).toBe(first.lastResponse.requestId);

    await expect(stripe.customers.create({ email: 'other@example.com' }, { idempotencyKey: 'create-retry' })).rejects.toMatchObject({
      type: 'StripeIdempotencyError',
      rawType: 'idempotency_error',
      statusCode: 400,
      message: expect.stringContaining('same parameters'),
    });
    await expect(stripe.billingPortal.sessions.create({ customer: first.id }, { idempotencyKey: 'create-retry' })).rejects.toMatchObject({
      type: 'StripeIdempotencyError',
      message: expect.stringContaining('same endpoint'),
    });
  });

  it('saves nothing for a refused request: its key is free for the corrected one', async () => {
    await expect(
      stripe.checkout.sessions.create(
        { mode: 'subscription', line_items: [{ price: 'price_none', quantity: 1 }], success_url: 'http://localhost/ok' },
        { idempotencyKey: 'fix-me' },
      ),
    ).rejects.toMatchObject({ statusCode: 400 });
    const session = await stripe.checkout.sessions.create(
      { mode: 'subscription', line_items: [{ price: 'price_pro_monthly', quantity: 1 }], success_url: 'http://localhost/ok' },
      { idempotencyKey: 'fix-me' },
    );
    expect(session.status).toBe('open');
  });

  it('forgets a key after 24 hours, as Stripe prunes them', async () => {
    await stripe.customers.create({ email: 'day@example.com' }, { idempotencyKey: 'a-day' });
    clock.advance(24 * 3600 + 1);
    expect(await stripe.customers.create({ email: 'next-day@example.com' }, { idempotencyKey: 'a-day' })).toMatchObject({
      email: 'next-day@example.com',
    });
  });
});

describe("errors in Stripe's shape", () => {
  it('answers the SDK with the error classes Stripe causes', async () => {
    await expect(sdk('sk_test_wrong_key_0000').customers.create({})).rejects.toMatchObject({
      type: 'StripeAuthenticationError',
      statusCode: 401,
      message: 'Invalid API Key provided: sk_test_**********0000',
    });
    await expect(stripe.customers.retrieve('cus_missing')).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
      param: 'id',
      message: "No such customer: 'cus_missing'",
    });
    await expect(
      stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: 'price_nope', quantity: 1 }],
        success_url: 'http://localhost/ok',
      }),
    ).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'line_items[0][price]',
      message: "No such price: 'price_nope'",
    });
    await expect(
      stripe.checkout.sessions.create({ mode: 'subscription', line_items: [{ price: 'price_pro_monthly', quantity: 1 }] }),
    ).rejects.toMatchObject({ code: 'parameter_missing', param: 'success_url' });
    await expect(
      stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: 'price_pro_monthly', colour: 'red' } as never],
        success_url: 'http://localhost/ok',
      }),
    ).rejects.toMatchObject({
      code: 'parameter_unknown',
      param: 'line_items[0][colour]',
    });
    await expect(
      stripe.checkout.sessions.create({ mode: 'subscription', line_items: [{ price: 'price_pro_monthly' }], success_url: 'not a url' }),
    ).rejects.toMatchObject({ code: 'url_invalid', param: 'success_url' });
    await expect(stripe.subscriptions.update('sub_missing', { cancel_at_period_end: true })).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    });
  });

  it('answers raw requests as Stripe does: the body, a missing key, an unknown URL, a bad integer', async () => {
    const authorization = `Bearer ${emulator.apiKey}`;
    const missing = await raw('GET', '/v1/customers/cus_missing', { authorization });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: {
        code: 'resource_missing',
        doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
        message: "No such customer: 'cus_missing'",
        param: 'id',
        request_log_url: expect.stringMatching(/^https:\/\/dashboard\.stripe\.com\/test\/logs\/req_/),
        type: 'invalid_request_error',
      },
    });
    expect(await raw('GET', '/v1/invoices', {})).toMatchObject({
      status: 401,
      body: { error: { type: 'invalid_request_error', message: expect.stringContaining('You did not provide an API key') } },
    });
    // The key is checked before anything else, as Stripe does.
    expect((await raw('POST', '/v1/customers', {}, 'metadata=x&metadata[a]=1')).status).toBe(401);
    expect(await raw('GET', '/v1/charges', { authorization })).toMatchObject({
      status: 404,
      body: { error: { message: expect.stringContaining('Unrecognized request URL (GET: /v1/charges)') } },
    });
    expect(await raw('GET', '/v1/invoices?limit=ten', { authorization })).toMatchObject({
      status: 400,
      body: { error: { code: 'parameter_invalid_integer', param: 'limit' } },
    });
    expect(await raw('POST', '/v1/customers', { authorization }, 'metadata=x&metadata[a]=1')).toMatchObject({
      status: 400,
      body: { error: { param: 'metadata' } },
    });
    // Basic auth with the key as user name (curl -u sk_…:) is Stripe's other way in.
    expect(
      (
        await raw(
          'POST',
          '/v1/customers',
          { authorization: `Basic ${Buffer.from(`${emulator.apiKey}:`).toString('base64')}` },
          'email=curl%40example.com',
        )
      ).status,
    ).toBe(200);
  });

  it('answers loopback host names only', async () => {
    expect((await raw('GET', '/_emulator/requests', { host: 'rebound.example' })).status).toBe(404);
    expect((await raw('GET', '/_emulator/requests', { host: `localhost:${emulator.port}` })).status).toBe(200);
  });
});

describe('event delivery controls', () => {
  it('holds events, sends them in a chosen order, resends one, and logs every attempt with its answer', async () => {
    const customer = await stripe.customers.create({ email: 'order@example.com' });
    const session = await teamCheckout(customer.id, 2);
    await fetch(`${emulator.url}/_emulator/webhooks/hold`, { method: 'POST', body: JSON.stringify({ hold: true }) });
    await emulator.completeCheckout(session.id);
    expect(received).toHaveLength(0);
    const made = emulator
      .events()
      .slice(-3)
      .map((record) => record.event);
    expect(made.map((event) => event.type)).toEqual(['customer.subscription.created', 'checkout.session.completed', 'invoice.paid']);

    const reversed = made.map((event) => event.id).reverse();
    const sent = await fetch(`${emulator.url}/_emulator/events/send`, { method: 'POST', body: JSON.stringify({ ids: reversed }) });
    expect(sent.status).toBe(200);
    expect((await receivedEvents()).map((event) => event.id)).toEqual(reversed);
    await emulator.holdEvents(false);
    expect(received).toHaveLength(3);

    receiverStatus = 500;
    const resent = await fetch(`${emulator.url}/_emulator/events/${made[1]!.id}/resend`, { method: 'POST' });
    expect(((await resent.json()) as { deliveries: unknown[] }).deliveries).toEqual([
      { at: expect.any(Number), status: 200 },
      { at: nowSeconds(), status: 500 },
    ]);
    expect((await receivedEvents()).map((event) => event.id)).toEqual([...reversed, made[1]!.id]);
    expect((await fetch(`${emulator.url}/_emulator/events/evt_unknown/resend`, { method: 'POST' })).status).toBe(404);
  });

  it('records a receiver that cannot be reached as a failed attempt', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const unreachable = await startStripeEmulator({ clock, webhookUrl: `http://127.0.0.1:${closedPort}/stripe-events` });
    try {
      const client = new Stripe(unreachable.apiKey, {
        host: unreachable.host,
        port: unreachable.port,
        protocol: 'http',
        maxNetworkRetries: 0,
      });
      const customer = await client.customers.create({ email: 'x@example.com' });
      const session = await client.checkout.sessions.create({
        mode: 'subscription',
        customer: customer.id,
        line_items: [{ price: 'price_pro_monthly' }],
        success_url: 'http://localhost/ok',
      });
      await unreachable.completeCheckout(session.id);
      expect(unreachable.events().map((record) => record.deliveries)).toEqual([
        [{ at: nowSeconds(), error: expect.any(String) }],
        [{ at: nowSeconds(), error: expect.any(String) }],
        [{ at: nowSeconds(), error: expect.any(String) }],
      ]);
    } finally {
      await unreachable.stop();
    }
  });
});

describe('data kept between runs', () => {
  it('finds the customers and subscriptions of an earlier run in its data folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hushlink-stripe-'));
    try {
      const first = await startStripeEmulator({ clock, webhookUrl: 'http://127.0.0.1:9/none', dataDir });
      const client = new Stripe(first.apiKey, { host: first.host, port: first.port, protocol: 'http', maxNetworkRetries: 0 });
      const customer = await client.customers.create({ email: 'kept@example.com' });
      const session = await first.completeCheckout(
        (
          await client.checkout.sessions.create({
            mode: 'subscription',
            customer: customer.id,
            line_items: [{ price: 'price_pro_monthly' }],
            success_url: 'http://localhost/ok',
          })
        ).id,
      );
      await first.stop();

      const second = await startStripeEmulator({ clock, webhookUrl: 'http://127.0.0.1:9/none', dataDir });
      const again = new Stripe(second.apiKey, { host: second.host, port: second.port, protocol: 'http', maxNetworkRetries: 0 });
      expect(await again.customers.retrieve(customer.id)).toMatchObject({ email: 'kept@example.com' });
      expect(await again.subscriptions.retrieve(session.subscription as string)).toMatchObject({ status: 'active' });
      await second.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('in the local runtime', () => {
  it('is started with the runtime, posts to its webhook route, and stops with it', async () => {
    const runtime = await startTestRuntime();
    let stopped = false;
    try {
      expect(runtime.stripe.webhookUrl).toBe(`${runtime.url}/v1/billing/webhook`);
      const client = new Stripe(runtime.stripe.apiKey, {
        host: runtime.stripe.host,
        port: runtime.stripe.port,
        protocol: 'http',
        maxNetworkRetries: 0,
      });
      const customer = await client.customers.create({ email: 'runtime@example.com' });
      const session = await client.checkout.sessions.create({
        mode: 'subscription',
        customer: customer.id,
        line_items: [{ price: 'price_pro_monthly' }],
        success_url: `${runtime.url}/`,
      });
      await runtime.stripe.completeCheckout(session.id);
      // Whatever the service answers, it answered: each event reached the runtime's port.
      expect(runtime.stripe.events().map((record) => record.deliveries.map((delivery) => typeof delivery.status))).toEqual([
        ['number'],
        ['number'],
        ['number'],
      ]);
      await runtime.stop();
      stopped = true;
      await expect(client.customers.create({})).rejects.toMatchObject({ type: 'StripeConnectionError' });
    } finally {
      if (!stopped) await runtime.stop();
    }
  });
});

describe('the customer portal settings', () => {
  it('refuses portal sessions as Stripe does while they are unsaved (400, no code, the Dashboard page named), and makes them once saved', async () => {
    const customer = await stripe.customers.create({ email: 'portal@example.com' });
    const refused = await fetch(`${emulator.url}/_emulator/portal/configuration`, { method: 'POST', body: '{"saved":"no"}' });
    expect(refused.status).toBe(400);
    expect((await fetch(`${emulator.url}/_emulator/portal/configuration`, { method: 'POST', body: '{"saved":false}' })).status).toBe(200);
    try {
      const error = await stripe.billingPortal.sessions.create({ customer: customer.id }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(error).toMatchObject({ statusCode: 400, code: undefined, type: 'StripeInvalidRequestError' });
      expect((error as Error).message).toMatch(
        /save your customer portal settings in test mode at https:\/\/dashboard\.stripe\.com\/test\/settings\/billing\/portal/,
      );
    } finally {
      emulator.configurePortal(true);
    }
    expect((await stripe.billingPortal.sessions.create({ customer: customer.id })).object).toBe('billing_portal.session');
  });
});

describe('Stripe’s 500', () => {
  it('is saved under the request’s idempotency key and replayed to it, as Stripe does; another key is executed', async () => {
    const failing = await fetch(`${emulator.url}/_emulator/failures`, { method: 'POST', body: '{"count":1}' });
    expect(await failing.json()).toEqual({ count: 1 });
    expect((await fetch(`${emulator.url}/_emulator/failures`, { method: 'POST', body: '{"count":-1}' })).status).toBe(400);
    const once = new Stripe(emulator.apiKey, { host: emulator.host, port: emulator.port, protocol: 'http', maxNetworkRetries: 0 });
    const key = `customer-replay-${Date.now()}`;
    const first = await once.customers.create({ email: 'a@example.com' }, { idempotencyKey: key }).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(first).toMatchObject({ statusCode: 500 });
    const replayed = await once.customers.create({ email: 'a@example.com' }, { idempotencyKey: key }).catch((error: unknown) => error);
    expect(replayed).toMatchObject({ statusCode: 500, headers: expect.objectContaining({ 'idempotent-replayed': 'true' }) });
    expect((await once.customers.create({ email: 'a@example.com' }, { idempotencyKey: `${key}-2` })).object).toBe('customer');
  });
});
