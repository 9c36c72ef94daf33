import { request as httpRequest } from 'node:http';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { callFrom, createKey, mailsTo, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, generousRateLimits, startTestRuntime, toFreshWindow } from '../support/runtime.ts';

// Checkout and the caller's subscription (interface §4.6) against the local Stripe emulator:
// the session is made at the provider with the account's one customer, paid on the emulator,
// and its events (billing-webhook.test.ts) give the plan.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({
    rateLimits: {
      ...generousRateLimits,
      billing_checkout: { perIp: { limit: 1000, windowSeconds: 3600 }, perCredential: { limit: 5, windowSeconds: 3600 } },
      enterprise_inquiry: { perIp: { limit: 3, windowSeconds: 3600 } },
    },
  });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const checkout = (who: SignedIn | Record<string, string>, body: Record<string, unknown>) =>
  api.post('/v1/billing/checkout', body, 'auth' in who ? (who as SignedIn).auth : (who as Record<string, string>));
const subscription = (who: SignedIn) => api.get('/v1/billing/subscription', who.auth);

async function pay(sessionId: string): Promise<void> {
  await runtime.stripe.completeCheckout(sessionId);
  await runtime.stripe.settled();
}

describe('POST /v1/billing/checkout', () => {
  it('answers 201 with the provider’s checkout for Pro; paid, the account is Pro; a second checkout is 409', async () => {
    const buyer = await signIn(runtime, newEmail('checkout'));
    runtime.stripe.clearRequests();
    const started = await checkout(buyer, { plan: 'pro', success_path: '/billing?done=1' });
    expect(started.status).toBe(201);
    expect(started.body).toEqual({ id: expect.stringMatching(/^cs_/), url: expect.stringContaining(runtime.stripe.url) });
    // What the provider was asked: a customer for the account (a key of this attempt), then the session.
    const [customer, session] = runtime.stripe.requests();
    expect(customer).toMatchObject({
      method: 'POST',
      path: '/v1/customers',
      idempotency_key: expect.stringMatching(new RegExp(`^customer-${buyer.user.id}-[0-9a-f-]{36}$`)),
      stripe_version: Stripe.API_VERSION,
    });
    expect(customer!.form).toEqual({ email: buyer.user.email, metadata: { user_id: buyer.user.id } });
    expect(session).toMatchObject({
      method: 'POST',
      path: '/v1/checkout/sessions',
      idempotency_key: expect.stringMatching(new RegExp(`^checkout-${buyer.user.id}-`)),
    });
    expect(session!.form).toMatchObject({
      mode: 'subscription',
      client_reference_id: buyer.user.id,
      line_items: [{ price: runtime.config.PRICE_PRO, quantity: '1' }],
      success_url: `${runtime.config.WEB_ORIGIN}/billing?done=1`,
      cancel_url: `${runtime.config.WEB_ORIGIN}/billing?checkout=cancelled`,
      metadata: { target: 'user', user_id: buyer.user.id },
      subscription_data: { metadata: { target: 'user', user_id: buyer.user.id } },
    });
    await pay(started.body.id);
    const read = await subscription(buyer);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ plan: 'pro', tier: 'pro', status: 'active', seats: 1, cancel_at_period_end: false });
    expect(Date.parse(read.body.current_period_end)).toBeGreaterThan(runtime.clock.now());
    const again = await checkout(buyer, { plan: 'pro' });
    expectProblem(again, 409, 'conflict');
    expect(again.body.reason).toBe('active_subscription');
  });

  it('answers 400 for a bad body and a return path off this site', async () => {
    // Each from a person of their own: the per-person limit counts refused requests too.
    for (const body of [
      {},
      { plan: 'gold' },
      { plan: 'pro', seats: 2 },
      { plan: 'pro', workspace_id: 'wks_x' },
      { plan: 'pro', success_path: '//evil.example/' },
      { plan: 'pro', cancel_path: 'https://evil.example/' },
      { plan: 'pro', extra: 1 },
    ]) {
      expectProblem(await checkout(await signIn(runtime, newEmail('bad')), body), 400, 'invalid_request');
    }
  });

  it('answers 401 without a session, 403 to an API key, and 429 past the per-person limit', async () => {
    const buyer = await signIn(runtime, newEmail('limit'));
    expectProblem(await checkout({}, { plan: 'pro' }), 401, 'unauthorized');
    const key = await createKey(runtime, buyer, ['secrets:write', 'secrets:read', 'receipts:read']);
    expectProblem(await checkout(key.auth, { plan: 'pro' }), 403, 'forbidden');
    let last: Awaited<ReturnType<typeof checkout>> | undefined;
    for (let i = 0; i < 6; i++) last = await checkout(buyer, { plan: 'pro' });
    expectProblem(last!, 429, 'rate_limited');
  });
});

describe('GET /v1/billing/subscription', () => {
  it('answers a free account with its usage; 401 without a session, 403 to an API key', async () => {
    const person = await signIn(runtime, newEmail('free'));
    await api.post(
      '/v1/secrets',
      { kind: 'text', envelope: Buffer.alloc(64).toString('base64'), salt: 'A'.repeat(22), size_bytes: 64 },
      person.auth,
    );
    const read = await subscription(person);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      plan: 'free',
      tier: 'free',
      status: null,
      seats: null,
      current_period_end: null,
      cancel_at_period_end: false,
      usage: { live_secrets: expect.any(Number), bytes_stored: expect.any(Number), calls_this_month: expect.any(Number) },
    });
    expectProblem(await api.get('/v1/billing/subscription'), 401, 'unauthorized');
    const key = await createKey(runtime, person, ['secrets:read']);
    expectProblem(await api.get('/v1/billing/subscription', key.auth), 403, 'forbidden');
  });
});

describe('a provider error during checkout', () => {
  it('does not fail the account’s checkouts for a day: the next attempt makes its customer under a key of its own', async () => {
    const buyer = await signIn(runtime, newEmail('checkout-500'));
    runtime.stripe.clearRequests();
    // Stripe's 500, saved under the request's idempotency key and replayed to it for 24 hours.
    runtime.stripe.failNextRequests(1);
    expectProblem(await checkout(buyer, { plan: 'pro' }), 503, 'provider_unavailable');
    const retried = await checkout(buyer, { plan: 'pro' });
    expect(retried.status).toBe(201);
    const customers = runtime.stripe.requests().filter((request) => request.path === '/v1/customers');
    const keys = [...new Set(customers.map((request) => request.idempotency_key))];
    // The failed attempt (and the SDK's retries of it, replayed) under one key; the next under another, made.
    expect(keys).toHaveLength(2);
    expect(customers.filter((request) => request.idempotency_key === keys[0]).every((request) => request.status === 500)).toBe(true);
    expect(customers.filter((request) => request.idempotency_key === keys[1]).map((request) => request.status)).toEqual([200]);
    await pay(retried.body.id);
    expect((await subscription(buyer)).body).toMatchObject({ plan: 'pro' });
  });
});

describe('the customer’s portal and invoices', () => {
  it('answers 404 before a checkout; then the portal of the caller’s own customer, and its invoices newest first, paged', async () => {
    const buyer = await signIn(runtime, newEmail('invoices'));
    expectProblem(await api.post('/v1/billing/portal', {}, buyer.auth), 404, 'not_found');
    expectProblem(await api.get('/v1/billing/invoices', buyer.auth), 404, 'not_found');
    const started = await checkout(buyer, { plan: 'pro' });
    await pay(started.body.id);
    // A month later the subscription renews: a second invoice.
    const subscriptionId = (await runtime.functions.billing.billing.subscriptionOf({ kind: 'user', userId: buyer.user.id }))!.id;
    await runtime.stripe.endPeriod(subscriptionId);
    await runtime.stripe.settled();
    const all = await api.get('/v1/billing/invoices', buyer.auth);
    expect(all.status).toBe(200);
    expect(all.body.items).toHaveLength(2);
    expect(all.body.items[0]).toEqual({
      id: expect.stringMatching(/^in_/),
      number: expect.any(String),
      status: 'paid',
      total: 1200,
      currency: 'usd',
      created_at: expect.any(String),
      hosted_invoice_url: expect.stringContaining(runtime.stripe.url),
      invoice_pdf: expect.stringContaining(runtime.stripe.url),
    });
    expect(Date.parse(all.body.items[0].created_at)).toBeGreaterThanOrEqual(Date.parse(all.body.items[1].created_at));
    const first = await api.get('/v1/billing/invoices?limit=1', buyer.auth);
    expect(first.body.items).toEqual([all.body.items[0]]);
    const second = await api.get(`/v1/billing/invoices?limit=1&cursor=${first.body.next_cursor}`, buyer.auth);
    expect(second.body).toEqual({ items: [all.body.items[1]], next_cursor: null });
    expectProblem(await api.get('/v1/billing/invoices?cursor=nope', buyer.auth), 400, 'invalid_request');

    runtime.stripe.clearRequests();
    const portal = await api.post('/v1/billing/portal', { return_path: '/billing?from=portal' }, buyer.auth);
    expect(portal.status).toBe(201);
    expect(portal.body).toEqual({ url: expect.stringContaining(`${runtime.stripe.url}/`) });
    expect(runtime.stripe.requests()[0]).toMatchObject({
      method: 'POST',
      path: '/v1/billing_portal/sessions',
      form: { return_url: `${runtime.config.WEB_ORIGIN}/billing?from=portal` },
    });
    expectProblem(await api.post('/v1/billing/portal', { return_path: '//evil.example' }, buyer.auth), 400, 'invalid_request');
  });

  it('answers 409 portal_unconfigured, not a 500, while the portal settings are unsaved in Stripe; 201 once they are', async () => {
    const buyer = await signIn(runtime, newEmail('portal-unsaved'));
    await pay((await checkout(buyer, { plan: 'pro' })).body.id);
    // Stripe's own answer, through the emulator's HTTP control as an operator's script would flip it.
    const unsave = await fetch(`${runtime.stripe.url}/_emulator/portal/configuration`, {
      method: 'POST',
      body: JSON.stringify({ saved: false }),
    });
    expect(await unsave.json()).toEqual({ saved: false });
    try {
      runtime.stripe.clearRequests();
      const refused = await api.post('/v1/billing/portal', {}, buyer.auth);
      expectProblem(refused, 409, 'portal_unconfigured');
      expect(refused.body.detail).toContain('customer portal settings in Stripe’s Dashboard');
      // Stripe answered its documented 400 (no code, the message naming the Dashboard page).
      expect(runtime.stripe.requests()).toEqual([
        expect.objectContaining({ method: 'POST', path: '/v1/billing_portal/sessions', status: 400 }),
      ]);
    } finally {
      runtime.stripe.configurePortal(true);
    }
    expect((await api.post('/v1/billing/portal', {}, buyer.auth)).status).toBe(201);
  });

  it('answers 401 without a session and 403 to an API key', async () => {
    const person = await signIn(runtime, newEmail('portal-key'));
    const key = await createKey(runtime, person, ['secrets:read']);
    expectProblem(await api.post('/v1/billing/portal', {}), 401, 'unauthorized');
    expectProblem(await api.post('/v1/billing/portal', {}, key.auth), 403, 'forbidden');
    expectProblem(await api.get('/v1/billing/invoices'), 401, 'unauthorized');
    expectProblem(await api.get('/v1/billing/invoices', key.auth), 403, 'forbidden');
  });
});

describe('POST /v1/billing/enterprise-inquiry', () => {
  const inquiry = {
    name: 'Ana Lopez',
    email: 'ana@corp.example',
    company: 'Corp Example',
    seats: 250,
    message: 'We need SSO and SCIM for 250 people.\nCan we talk next week?',
  };

  it('answers 202 to anyone, mails sales with the sender as the reply address, and asks the payment provider nothing', async () => {
    runtime.stripe.clearRequests();
    const sent = await callFrom(runtime, '127.0.0.21', 'POST', '/v1/billing/enterprise-inquiry', inquiry);
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ accepted: true });
    expect(runtime.stripe.requests()).toEqual([]);
    const [mail] = mailsTo(runtime, runtime.config.SALES_EMAIL);
    expect(mail).toMatchObject({
      to: runtime.config.SALES_EMAIL,
      replyTo: 'ana@corp.example',
      subject: 'Hushlink Enterprise enquiry: Corp Example',
      text: 'Name: Ana Lopez\nEmail: ana@corp.example\nCompany: Corp Example\nSeats: 250\n\nWe need SSO and SCIM for 250 people.\nCan we talk next week?',
    });
    // Signed in, the same; seats are optional.
    const person = await signIn(runtime, newEmail('enquirer'));
    const { seats: _seats, ...withoutSeats } = inquiry;
    expect(
      (
        await callFrom(
          runtime,
          '127.0.0.22',
          'POST',
          '/v1/billing/enterprise-inquiry',
          { ...withoutSeats, company: 'Other Co' },
          person.auth,
        )
      ).status,
    ).toBe(202);
    expect(mailsTo(runtime, runtime.config.SALES_EMAIL)[0]!.text).toContain('Seats: not said');
  });

  it('answers 400 for a bad body: a field missing or empty, an address that is not one, a line break in a one-line field, too long, extra fields', async () => {
    const before = mailsTo(runtime, runtime.config.SALES_EMAIL).length;
    const bad = [
      {},
      { ...inquiry, name: undefined },
      { ...inquiry, name: '   ' },
      { ...inquiry, email: 'not-an-address' },
      { ...inquiry, company: 'Corp\r\nBcc: everyone@example.com' },
      { ...inquiry, name: 'Ana\u2028Lopez' },
      { ...inquiry, message: 'x'.repeat(5001) },
      { ...inquiry, seats: 0 },
      { ...inquiry, seats: '250' },
      { ...inquiry, plan: 'enterprise' },
    ];
    for (const [index, body] of bad.entries()) {
      expectProblem(
        await callFrom(runtime, `127.0.0.${30 + index}`, 'POST', '/v1/billing/enterprise-inquiry', body),
        400,
        'invalid_request',
      );
    }
    expect(mailsTo(runtime, runtime.config.SALES_EMAIL)).toHaveLength(before);
  });

  it('answers 429 past the per-address limit, and mails nothing more', async () => {
    toFreshWindow(runtime.clock, 3600);
    const replies = [];
    for (let i = 0; i < 4; i++)
      replies.push(await callFrom(runtime, '127.0.0.50', 'POST', '/v1/billing/enterprise-inquiry', { ...inquiry, company: `Limit ${i}` }));
    expect(replies.slice(0, 3).map((reply) => reply.status)).toEqual([202, 202, 202]);
    expectProblem(replies[3]!, 429, 'rate_limited');
    expect(mailsTo(runtime, runtime.config.SALES_EMAIL).map((mail) => mail.subject)).not.toContain('Hushlink Enterprise enquiry: Limit 3');
  });
});

describe('POST /_dev/billing/checkout/{id}/complete (local only)', () => {
  /** A POST to the runtime with chosen headers, `Host` among them (fetch cannot set it). */
  const rawPost = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port: runtime.port, method: 'POST', path, headers, setHost: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      request.on('error', reject);
      request.end();
    });

  it('pays a checkout as the emulator’s Pay button does, for scripts: the events are delivered before it answers', async () => {
    const buyer = await signIn(runtime, newEmail('dev-complete'));
    const started = await checkout(buyer, { plan: 'pro' });
    const path = `/_dev/billing/checkout/${started.body.id}/complete`;
    // Not from a page of another site, and not under another name for this machine.
    expect((await rawPost(path, { host: `localhost:${runtime.port}`, origin: 'https://attacker.example' })).status).toBe(403);
    expect((await rawPost(path, { host: `rebind.attacker.example:${runtime.port}` })).status).toBe(404);
    expect((await subscription(buyer)).body.plan).toBe('free');

    const completed = await fetch(`${runtime.url}${path}`, { method: 'POST' });
    expect(completed.status).toBe(200);
    expect(await completed.json()).toEqual({
      id: started.body.id,
      status: 'complete',
      payment_status: 'paid',
      customer: expect.stringMatching(/^cus_/),
      subscription: expect.stringMatching(/^sub_/),
    });
    expect((await subscription(buyer)).body).toMatchObject({ plan: 'pro', status: 'active' });
    // Once only; an unknown session is the emulator's 404.
    expect((await fetch(`${runtime.url}${path}`, { method: 'POST' })).status).toBe(400);
    expect((await fetch(`${runtime.url}/_dev/billing/checkout/cs_nothing/complete`, { method: 'POST' })).status).toBe(404);
  });
});
