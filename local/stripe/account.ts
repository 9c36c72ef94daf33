import type Stripe from 'stripe';
import type { StripeBilling } from './billing.ts';
import { invalidRequest, missingParam, noSuch } from './errors.ts';
import { mergeMetadata, type ReadAll, type Specs } from './form.ts';
import { paged, priceObject, stripeId, type PriceObject, type Wire } from './objects.ts';
import type { StripeStore } from './store.ts';
import type { EventType, Webhooks } from './webhooks.ts';

/**
 * The account's settings an operator makes in Stripe's Dashboard, as the API reads and changes
 * them (issue 28: `npm run doctor` checks a deployment's Stripe account through these): a price
 * retrieved by id, the customer portal's configuration, and the webhook endpoints. Registered
 * beside the service's own calls in api.ts (`accountRoutes`), so they share its key check,
 * idempotency, recording and error shapes.
 *
 * The account starts with one webhook endpoint: the URL the emulator delivers its events to
 * (`webhookUrl`), subscribed to every event type it makes, signed with its signing secret. An
 * endpoint added, changed or deleted through the API changes what the account lists, never
 * where events go: the emulator has one receiver. These settings are kept in memory only (a
 * restart of `npm start` lists the one endpoint again); the portal's "saved" state is the
 * billing's (`POST /_emulator/portal/configuration`), and an unsaved portal lists no
 * configuration, as a new Stripe account does.
 */

export type WebhookEndpoint = Wire<Stripe.WebhookEndpoint>;
export type PortalConfiguration = Wire<Stripe.BillingPortal.Configuration>;
type Features = PortalConfiguration['features'];

/** What a route handler of this file sees of the API's context. */
export interface AccountContext {
  billing: StripeBilling;
  webhooks: Webhooks;
  store: StripeStore;
}

interface AccountRoute<H extends Specs = Specs> {
  method: 'GET' | 'POST' | 'DELETE';
  path: RegExp;
  params: H;
  handle(context: AccountContext, params: ReadAll<H>, id: string): { status?: number; body: object };
}

/** The event types the emulator makes (webhooks.ts): what its own endpoint is subscribed to. */
const emulatorEvents = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
] as const satisfies readonly EventType[];

/** The default configuration's id: the one every portal session names (billing.ts). */
const defaultConfigurationId = 'bpc_1LocalDefaultConfiguration';

interface AccountState {
  /** In creation order; lists are newest first. */
  endpoints: WebhookEndpoint[];
  features: Features;
  defaultReturnUrl: string | null;
  metadata: Record<string, string>;
  created: number;
  updated: number;
}

const states = new WeakMap<StripeStore, AccountState>();

function state({ store, webhooks, billing }: AccountContext): AccountState {
  let found = states.get(store);
  if (!found) {
    const now = billing.now();
    found = {
      endpoints: [
        {
          id: stripeId('we_1', 23),
          object: 'webhook_endpoint',
          api_version: null,
          application: null,
          created: now,
          description: 'The service’s billing webhook (the emulator’s delivery URL)',
          enabled_events: [...emulatorEvents],
          livemode: false,
          metadata: {},
          status: 'enabled',
          url: webhooks.deliveryUrl,
        },
      ],
      // What Stripe's Dashboard offers switched on when the settings are first saved, plus seat
      // changes, which the emulator's portal page offers for every subscription.
      features: {
        customer_update: { allowed_updates: ['email', 'address'], enabled: true },
        invoice_history: { enabled: true },
        payment_method_update: { enabled: true, payment_method_configuration: null },
        subscription_cancel: {
          cancellation_reason: { enabled: false, feedback_options: null, options: [] },
          enabled: true,
          mode: 'at_period_end',
          proration_behavior: 'none',
        },
        subscription_pause: { duration: { interval_options: [], type: 'indefinite' }, enabled: false },
        subscription_update: {
          billing_cycle_anchor: null,
          default_allowed_updates: ['quantity'],
          enabled: true,
          products: [],
          proration_behavior: 'create_prorations',
          schedule_at_period_end: { conditions: [] },
          trial_update_behavior: 'end_trial',
        },
      },
      defaultReturnUrl: null,
      metadata: {},
      created: now,
      updated: now,
    };
    states.set(store, found);
  }
  return found;
}

const route = <H extends Specs>(definition: AccountRoute<H>): AccountRoute => definition as unknown as AccountRoute;
const expandable = { expand: 'strings' } as const;
const pageParams = { limit: 'integer', starting_after: 'string', ending_before: 'string' } as const;
const id = '([A-Za-z0-9_]+)';

const isUrl = (value: string) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
/** An event type as Stripe names them (`invoice.paid`), or `*` for all of them. */
const isEventType = (value: string) => value === '*' || /^[a-z_]+(\.[a-z_]+)+$/.test(value);

function eventsParam(events: string[] | undefined, required: boolean): string[] | undefined {
  if (events === undefined) {
    if (required) throw missingParam('enabled_events');
    return undefined;
  }
  if (events.length === 0) throw invalidRequest('Invalid array: enabled_events must not be empty', { param: 'enabled_events' });
  events.forEach((event, index) => {
    if (!isEventType(event))
      throw invalidRequest(`Invalid enabled_events[${index}]: must be a valid event type, or '*'`, { param: `enabled_events[${index}]` });
  });
  return [...new Set(events)];
}

function urlParam(url: string | undefined, required: boolean): string | undefined {
  if (url === undefined) {
    if (required) throw missingParam('url');
    return undefined;
  }
  if (!isUrl(url)) throw invalidRequest('Invalid URL: URLs must be http(s) URLs', { code: 'url_invalid', param: 'url' });
  return url;
}

function endpoint(context: AccountContext, endpointId: string): WebhookEndpoint {
  const found = state(context).endpoints.find((candidate) => candidate.id === endpointId);
  if (!found) throw noSuch('webhook endpoint', endpointId, 'id');
  return found;
}

/** The default configuration, when the portal's settings are saved (billing.portalConfigured). */
function configurations(context: AccountContext): PortalConfiguration[] {
  if (!context.billing.portalConfigured) return [];
  const account = state(context);
  return [
    {
      id: defaultConfigurationId,
      object: 'billing_portal.configuration',
      active: true,
      application: null,
      business_profile: { headline: null, privacy_policy_url: null, terms_of_service_url: null },
      created: account.created,
      default_return_url: account.defaultReturnUrl,
      features: structuredClone(account.features),
      is_default: true,
      livemode: false,
      login_page: { enabled: false, url: null },
      metadata: { ...account.metadata },
      name: null,
      updated: account.updated,
    },
  ];
}

function configuration(context: AccountContext, configurationId: string): PortalConfiguration {
  const found = configurations(context).find((candidate) => candidate.id === configurationId);
  if (!found) throw noSuch('configuration', configurationId, 'id');
  return found;
}

const featureSpecs = {
  customer_update: { hash: { enabled: 'boolean', allowed_updates: 'strings' } },
  invoice_history: { hash: { enabled: 'boolean' } },
  payment_method_update: { hash: { enabled: 'boolean' } },
  subscription_cancel: { hash: { enabled: 'boolean', mode: 'string', proration_behavior: 'string' } },
  subscription_update: {
    hash: {
      enabled: 'boolean',
      default_allowed_updates: 'strings',
      proration_behavior: 'string',
      products: { list: { product: 'string', prices: 'strings' } },
    },
  },
} as const satisfies Specs;

/** `features` of an update laid over the configuration's, field by field, as Stripe applies it. */
function updateFeatures(features: Features, update: ReadAll<typeof featureSpecs>): void {
  const { customer_update, invoice_history, payment_method_update, subscription_cancel, subscription_update } = update;
  if (customer_update?.enabled !== undefined) features.customer_update.enabled = customer_update.enabled;
  if (customer_update?.allowed_updates !== undefined) features.customer_update.allowed_updates = customer_update.allowed_updates;
  if (invoice_history?.enabled !== undefined) features.invoice_history.enabled = invoice_history.enabled;
  if (payment_method_update?.enabled !== undefined) features.payment_method_update.enabled = payment_method_update.enabled;
  if (subscription_cancel?.enabled !== undefined) features.subscription_cancel.enabled = subscription_cancel.enabled;
  if (subscription_cancel?.mode !== undefined) features.subscription_cancel.mode = subscription_cancel.mode;
  if (subscription_cancel?.proration_behavior !== undefined)
    features.subscription_cancel.proration_behavior = subscription_cancel.proration_behavior;
  if (subscription_update?.enabled !== undefined) features.subscription_update.enabled = subscription_update.enabled;
  if (subscription_update?.default_allowed_updates !== undefined)
    features.subscription_update.default_allowed_updates = subscription_update.default_allowed_updates;
  if (subscription_update?.proration_behavior !== undefined)
    features.subscription_update.proration_behavior = subscription_update.proration_behavior;
  if (subscription_update?.products !== undefined) {
    features.subscription_update.products = subscription_update.products.map((product, index) => {
      if (product.product === undefined) throw missingParam(`features[subscription_update][products][${index}][product]`);
      if (product.prices === undefined || product.prices.length === 0)
        throw missingParam(`features[subscription_update][products][${index}][prices]`);
      return { adjustable_quantity: { enabled: false, maximum: null, minimum: 1 }, prices: product.prices, product: product.product };
    });
  }
}

/** Stripe's API for the account's settings: prices by id, portal configurations, webhook endpoints. */
export const accountRoutes: readonly AccountRoute[] = [
  route({
    method: 'GET',
    path: new RegExp(`^/v1/prices/${id}$`),
    params: expandable,
    handle: ({ billing }, _, price): { body: PriceObject } => ({ body: priceObject(billing.price(price, 'id'), 0) }),
  }),
  route({
    method: 'GET',
    path: /^\/v1\/billing_portal\/configurations$/,
    params: { active: 'boolean', is_default: 'boolean', ...pageParams, ...expandable },
    handle: (context, params) => {
      const matching = configurations(context).filter(
        (candidate) =>
          (params.active === undefined || candidate.active === params.active) &&
          (params.is_default === undefined || candidate.is_default === params.is_default),
      );
      return { body: paged(matching, params, 'configuration', '/v1/billing_portal/configurations') };
    },
  }),
  route({
    method: 'GET',
    path: new RegExp(`^/v1/billing_portal/configurations/${id}$`),
    params: expandable,
    handle: (context, _, configurationId) => ({ body: configuration(context, configurationId) }),
  }),
  route({
    method: 'POST',
    path: new RegExp(`^/v1/billing_portal/configurations/${id}$`),
    params: { features: { hash: featureSpecs }, default_return_url: 'string', metadata: 'metadata', ...expandable },
    handle: (context, params, configurationId) => {
      configuration(context, configurationId);
      const account = state(context);
      if (params.default_return_url !== undefined && !isUrl(params.default_return_url))
        throw invalidRequest('Not a valid URL', { code: 'url_invalid', param: 'default_return_url' });
      if (params.features) updateFeatures(account.features, params.features);
      if (params.default_return_url !== undefined) account.defaultReturnUrl = params.default_return_url;
      account.metadata = mergeMetadata(account.metadata, params.metadata);
      account.updated = context.billing.now();
      return { body: configuration(context, configurationId) };
    },
  }),
  route({
    method: 'GET',
    path: /^\/v1\/webhook_endpoints$/,
    params: { ...pageParams, ...expandable },
    handle: (context, params) => ({
      body: paged([...state(context).endpoints].reverse(), params, 'webhook endpoint', '/v1/webhook_endpoints'),
    }),
  }),
  route({
    method: 'POST',
    path: /^\/v1\/webhook_endpoints$/,
    params: {
      url: 'string',
      enabled_events: 'strings',
      description: 'string',
      metadata: 'metadata',
      api_version: 'string',
      connect: 'boolean',
      ...expandable,
    },
    handle: (context, params) => {
      const url = urlParam(params.url, true)!;
      const events = eventsParam(params.enabled_events, true)!;
      if (params.api_version !== undefined && !/^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/.test(params.api_version))
        throw invalidRequest(`Invalid Stripe API version: ${params.api_version}`, { param: 'api_version' });
      const made: WebhookEndpoint = {
        id: stripeId('we_1', 23),
        object: 'webhook_endpoint',
        api_version: params.api_version ?? null,
        application: null,
        created: context.billing.now(),
        description: params.description ?? null,
        enabled_events: events,
        livemode: false,
        metadata: mergeMetadata({}, params.metadata),
        status: 'enabled',
        url,
      };
      state(context).endpoints.push(made);
      // The signing secret is shown once, in the answer that made the endpoint, as Stripe does.
      return { body: { ...made, secret: stripeId('whsec_', 32) } };
    },
  }),
  route({
    method: 'GET',
    path: new RegExp(`^/v1/webhook_endpoints/${id}$`),
    params: expandable,
    handle: (context, _, endpointId) => ({ body: endpoint(context, endpointId) }),
  }),
  route({
    method: 'POST',
    path: new RegExp(`^/v1/webhook_endpoints/${id}$`),
    params: { url: 'string', enabled_events: 'strings', description: 'string', metadata: 'metadata', disabled: 'boolean', ...expandable },
    handle: (context, params, endpointId) => {
      const found = endpoint(context, endpointId);
      const url = urlParam(params.url, false);
      const events = eventsParam(params.enabled_events, false);
      if (url !== undefined) found.url = url;
      if (events !== undefined) found.enabled_events = events;
      if (params.description !== undefined) found.description = params.description;
      if (params.disabled !== undefined) found.status = params.disabled ? 'disabled' : 'enabled';
      found.metadata = mergeMetadata(found.metadata, params.metadata);
      return { body: found };
    },
  }),
  route({
    method: 'DELETE',
    path: new RegExp(`^/v1/webhook_endpoints/${id}$`),
    params: {},
    handle: (context, _, endpointId) => {
      const found = endpoint(context, endpointId);
      const account = state(context);
      account.endpoints = account.endpoints.filter((candidate) => candidate !== found);
      return { body: { id: found.id, object: 'webhook_endpoint', deleted: true } };
    },
  }),
];
