import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeEmulator, type LocalStripe } from '../../local/stripe/emulator.ts';
import { readSdkTypes, type SdkTypes } from '../support/stripeSdkTypes.ts';

/**
 * Every object the local payment emulator answers (local/stripe/) has every field the `stripe`
 * package's types declare non-optional at its pinned API version, and no field they do not
 * declare, each of the declared type (issue 28). The list of fields is not written here: it is
 * read from the SDK's `.d.ts` files by the TypeScript compiler (./stripe-sdk-types.ts), so a
 * new SDK version that adds a required field fails this test until the emulator sends it. The
 * objects are the ones the official SDK gets from the emulator, driven through a customer, a
 * checkout (open, paid, expired, expanded), a subscription's changes, a declined renewal and its
 * cancellation, the invoices, a portal session, the events delivered to a webhook receiver, and
 * the account's settings `npm run doctor` reads (prices by id, the portal's configuration, the
 * webhook endpoints: local/stripe/account.ts).
 */

const typeNames = {
  customer: 'Stripe.Customer',
  session: 'Stripe.Checkout.Session',
  sessions: 'Stripe.ApiList<Stripe.Checkout.Session>',
  portal: 'Stripe.BillingPortal.Session',
  subscription: 'Stripe.Subscription',
  item: 'Stripe.SubscriptionItem',
  price: 'Stripe.Price',
  invoice: 'Stripe.Invoice',
  invoices: 'Stripe.ApiList<Stripe.Invoice>',
  line: 'Stripe.InvoiceLineItem',
  event: 'Stripe.Event',
  webhookEndpoint: 'Stripe.WebhookEndpoint',
  webhookEndpoints: 'Stripe.ApiList<Stripe.WebhookEndpoint>',
  deletedWebhookEndpoint: 'Stripe.DeletedWebhookEndpoint',
  configuration: 'Stripe.BillingPortal.Configuration',
  configurations: 'Stripe.ApiList<Stripe.BillingPortal.Configuration>',
} as const;
type Kind = keyof typeof typeNames;

let types: SdkTypes;
let emulator: LocalStripe;
let stripe: Stripe;
let receiver: Server;
/** Each event delivery's body and signature, as the receiver got them. */
const delivered: Array<{ body: string; signature: string }> = [];

beforeAll(async () => {
  types = readSdkTypes(Object.values(typeNames));
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk));
    request.on('end', () => {
      delivered.push({ body, signature: String(request.headers['stripe-signature']) });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  emulator = await startStripeEmulator({ webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events` });
  stripe = new Stripe(emulator.apiKey, {
    host: emulator.host,
    port: emulator.port,
    protocol: 'http',
    apiVersion: Stripe.API_VERSION,
    maxNetworkRetries: 0,
  });
});
afterAll(async () => {
  types?.close();
  await emulator?.stop();
  receiver?.close();
});

/** The object as the SDK gave it, without the SDK's own `lastResponse`. */
const plain = (value: object) => JSON.parse(JSON.stringify({ ...value, lastResponse: undefined })) as Record<string, unknown>;

describe('the SDK types read', () => {
  it('list the non-optional fields of each resource, and report a missing, a surplus and a mistyped field', () => {
    // A floor, not the SDK's exact counts: the reading itself works (a type that did not resolve has none).
    expect(types.required(typeNames.session).length).toBeGreaterThan(50);
    expect(types.required(typeNames.invoice).length).toBeGreaterThan(60);
    expect(types.required(typeNames.subscription)).toEqual(expect.arrayContaining(['automatic_tax', 'invoice_settings', 'items']));
    expect(types.required(typeNames.line)).toContain('pricing');
    expect(types.problems({ id: 'x', object: 'billing_portal.session' }, typeNames.portal)).toContain('missing configuration');
    expect(types.problems({ object: 'customer', surplus: 1, livemode: 'no' }, typeNames.customer)).toEqual(
      expect.arrayContaining(['unexpected surplus', 'livemode: "no" is not boolean', 'missing id']),
    );
  });
});

/** Each object the SDK got, under the type it should be, with what it was. */
const samples: Array<{ kind: Kind; object: string; label: string; value: object }> = [];
const sample = <T extends object>(kind: Kind, object: string, label: string, value: T): T => (
  samples.push({ kind, object, label, value }), value
);

/** The emulator driven as the service and its tests drive it, keeping every object the SDK got. */
async function drive(): Promise<void> {
  const customer = sample(
    'customer',
    'customer',
    'created',
    await stripe.customers.create({ email: 'shapes@example.com', name: 'Shapes' }),
  );
  sample('customer', 'customer', 'retrieved', await stripe.customers.retrieve(customer.id));
  const create = () =>
    stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      client_reference_id: 'usr_shapes',
      line_items: [{ price: 'price_team_seat_monthly', quantity: 3 }],
      success_url: 'http://localhost:3000/billing?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:3000/plans',
      metadata: { plan: 'team' },
      subscription_data: { metadata: { plan: 'team' } },
    });
  const open = sample('session', 'checkout.session', 'open', await create());
  await emulator.completeCheckout(open.id);
  const paid = sample('session', 'checkout.session', 'complete', await stripe.checkout.sessions.retrieve(open.id));
  sample('sessions', 'list', 'listed', await stripe.checkout.sessions.list({ customer: customer.id }));
  const expand = ['customer', 'subscription', 'invoice'];
  sample('session', 'checkout.session', 'expanded', await stripe.checkout.sessions.retrieve(open.id, { expand }));
  sample('session', 'checkout.session', 'expired', await stripe.checkout.sessions.expire((await create()).id));

  const id = paid.subscription as string;
  const subscription = sample('subscription', 'subscription', 'active', await stripe.subscriptions.retrieve(id));
  const item = subscription.items.data[0]!;
  sample('item', 'subscription_item', 'of the subscription', item);
  sample('price', 'price', 'of the item', item.price);
  const billed = { items: [{ id: item.id, quantity: 5 }], proration_behavior: 'always_invoice' as const, expand: ['latest_invoice'] };
  sample('subscription', 'subscription', 'prorated and invoiced', await stripe.subscriptions.update(id, billed));
  const pending = { items: [{ id: item.id, quantity: 4 }], cancel_at_period_end: true };
  sample('subscription', 'subscription', 'to cancel at period end', await stripe.subscriptions.update(id, pending));
  await stripe.subscriptions.update(id, { cancel_at_period_end: false });
  emulator.failNextPayment(id);
  await emulator.endPeriod(id);
  sample('subscription', 'subscription', 'past due', await stripe.subscriptions.retrieve(id));
  const cancel = { prorate: true, invoice_now: true, cancellation_details: { comment: 'done', feedback: 'unused' as const } };
  sample('subscription', 'subscription', 'canceled', await stripe.subscriptions.cancel(id, cancel));

  const invoices = sample('invoices', 'list', 'listed', await stripe.invoices.list({ customer: customer.id, limit: 100 }));
  for (const invoice of invoices.data) {
    sample('invoice', 'invoice', `${invoice.billing_reason}, ${invoice.status}`, await stripe.invoices.retrieve(invoice.id!));
    for (const line of invoice.lines.data) sample('line', 'line_item', line.description ?? '', line);
  }
  const portal = { customer: customer.id, return_url: 'http://localhost:3000/billing' };
  sample('portal', 'billing_portal.session', 'created', await stripe.billingPortal.sessions.create(portal));
  await driveAccount();

  await emulator.settled();
  for (const { body, signature } of delivered) {
    const event = await stripe.webhooks.constructEventAsync(body, signature, emulator.signingSecret);
    sample('event', 'event', event.type, event);
  }
}

/** The account's settings as `npm run doctor` reads them, and as an operator changes them in the Dashboard. */
async function driveAccount(): Promise<void> {
  for (const price of ['price_pro_monthly', 'price_team_seat_monthly'])
    sample('price', 'price', `retrieved ${price}`, await stripe.prices.retrieve(price));

  // The account's own endpoint (the emulator's delivery URL), then one made beside it: the list holds both.
  sample('webhookEndpoints', 'list', 'the emulator’s own', await stripe.webhookEndpoints.list());
  const made = sample(
    'webhookEndpoint',
    'webhook_endpoint',
    'created',
    await stripe.webhookEndpoints.create({
      url: 'https://hooks.example.com/stripe',
      enabled_events: ['invoice.paid', 'customer.subscription.deleted'],
      description: 'Shapes',
      metadata: { team: 'billing' },
      api_version: Stripe.API_VERSION,
    }),
  );
  sample('webhookEndpoint', 'webhook_endpoint', 'retrieved', await stripe.webhookEndpoints.retrieve(made.id));
  const change = { url: 'https://hooks.example.com/v2', enabled_events: ['*' as const], disabled: true, metadata: { team: '' } };
  sample('webhookEndpoint', 'webhook_endpoint', 'updated, disabled', await stripe.webhookEndpoints.update(made.id, change));
  sample('webhookEndpoints', 'list', 'with one made', await stripe.webhookEndpoints.list({ limit: 10 }));
  sample('deletedWebhookEndpoint', 'webhook_endpoint', 'deleted', await stripe.webhookEndpoints.del(made.id));

  const configurations = await stripe.billingPortal.configurations.list({ is_default: true });
  sample('configurations', 'list', 'the default', configurations);
  const configuration = configurations.data[0]!.id;
  sample('configuration', 'billing_portal.configuration', 'retrieved', await stripe.billingPortal.configurations.retrieve(configuration));
  const features = {
    customer_update: { enabled: true, allowed_updates: ['email' as const, 'name' as const] },
    subscription_cancel: { mode: 'immediately' as const, proration_behavior: 'create_prorations' as const },
    subscription_update: { products: [{ product: 'prod_team_seat_monthly', prices: ['price_team_seat_monthly'] }] },
  };
  const update = { features, default_return_url: 'http://localhost:3000/billing', metadata: { saved_by: 'shapes' } };
  sample(
    'configuration',
    'billing_portal.configuration',
    'updated',
    await stripe.billingPortal.configurations.update(configuration, update),
  );
}

describe('the emulator’s objects, as the SDK receives them', () => {
  beforeAll(drive);

  it('went through every state and event the service meets', () => {
    const labels = (kind: Kind) => new Set(samples.filter((entry) => entry.kind === kind).map((entry) => entry.label));
    expect(labels('session')).toEqual(new Set(['open', 'complete', 'expanded', 'expired']));
    // Expanded objects are checked as their own types, nested.
    const expanded = samples.find((entry) => entry.label === 'expanded')!.value as Stripe.Checkout.Session;
    expect([typeof expanded.customer, typeof expanded.subscription, typeof expanded.invoice]).toEqual(['object', 'object', 'object']);
    const invoiced = samples.find((entry) => entry.label === 'prorated and invoiced')!.value as Stripe.Subscription;
    expect(typeof invoiced.latest_invoice).toBe('object');
    // The last `subscription_update` is the cancellation's final invoice: a credit, so nothing to charge.
    expect(labels('invoice')).toEqual(new Set(['subscription_create, paid', 'subscription_update, paid', 'subscription_cycle, open']));
    expect(labels('event')).toEqual(
      new Set([
        'customer.subscription.created',
        'checkout.session.completed',
        'invoice.paid',
        'customer.subscription.updated',
        'invoice.payment_failed',
        'customer.subscription.deleted',
      ]),
    );
    expect(labels('webhookEndpoint')).toEqual(new Set(['created', 'retrieved', 'updated, disabled']));
    const listed = samples
      .filter((entry) => entry.kind === 'webhookEndpoints')
      .map((entry) => (entry.value as Stripe.ApiList<object>).data);
    expect(listed.map((data) => data.length)).toEqual([1, 2]);
    expect(labels('configuration')).toEqual(new Set(['retrieved', 'updated']));
    const updated = samples.find((entry) => entry.kind === 'configuration' && entry.label === 'updated')!.value;
    expect((updated as Stripe.BillingPortal.Configuration).features.subscription_update.products).toHaveLength(1);
    expect(labels('price')).toEqual(new Set(['of the item', 'retrieved price_pro_monthly', 'retrieved price_team_seat_monthly']));
  });

  it.each(Object.keys(typeNames) as Kind[])('%s: every required field, each of its declared type', (kind) => {
    const ofKind = samples.filter((entry) => entry.kind === kind);
    expect(ofKind.length).toBeGreaterThan(0);
    const found = ofKind.map(({ label, value }) => ({ label, problems: types.problems(plain(value), typeNames[kind]) }));
    expect(found).toEqual(ofKind.map(({ label }) => ({ label, problems: [] })));
    for (const entry of ofKind) expect(plain(entry.value).object).toBe(entry.object);
  });
});
