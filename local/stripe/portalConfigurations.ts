import type Stripe from 'stripe';
import { accountCreated, expandable, id, isUrl, pageParams, route, type AccountContext, type AccountRoute } from './accountRoute.ts';
import { invalidRequest, missingParam, noSuch } from './errors.ts';
import { mergeMetadata, type ReadAll, type Specs } from './form.ts';
import { paged, type Wire } from './objects.ts';
import type { StripeStore } from './store.ts';

/**
 * The customer portal's configuration, as Stripe's API lists and changes it (`npm run doctor`
 * checks that the portal's settings were saved). Whether they are saved is the billing's
 * (`POST /_emulator/portal/configuration`), since portal sessions are refused until then; an
 * unsaved portal lists no configuration, as a new Stripe account does. What an update changes
 * is kept in memory only.
 */

export type PortalConfiguration = Wire<Stripe.BillingPortal.Configuration>;
type Features = PortalConfiguration['features'];

/** The default configuration's id: the one every portal session names (billing.ts). */
const defaultConfigurationId = 'bpc_1LocalDefaultConfiguration';

interface PortalState {
  features: Features;
  defaultReturnUrl: string | null;
  metadata: Record<string, string>;
  created: number;
  updated: number;
}

const states = new WeakMap<StripeStore, PortalState>();

function state(context: AccountContext): PortalState {
  let found = states.get(context.store);
  if (!found) {
    const created = accountCreated(context);
    found = {
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
      created,
      updated: created,
    };
    states.set(context.store, found);
  }
  return found;
}

/** The default configuration, when the portal's settings are saved (billing.portalConfigured). */
function configurations(context: AccountContext): PortalConfiguration[] {
  if (!context.billing.portalConfigured) return [];
  const portal = state(context);
  return [
    {
      id: defaultConfigurationId,
      object: 'billing_portal.configuration',
      active: true,
      application: null,
      business_profile: { headline: null, privacy_policy_url: null, terms_of_service_url: null },
      created: portal.created,
      default_return_url: portal.defaultReturnUrl,
      features: structuredClone(portal.features),
      is_default: true,
      livemode: false,
      login_page: { enabled: false, url: null },
      metadata: { ...portal.metadata },
      name: null,
      updated: portal.updated,
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

export const portalConfigurationRoutes: readonly AccountRoute[] = [
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
      const portal = state(context);
      if (params.default_return_url !== undefined && !isUrl(params.default_return_url))
        throw invalidRequest('Not a valid URL', { code: 'url_invalid', param: 'default_return_url' });
      if (params.features) updateFeatures(portal.features, params.features);
      if (params.default_return_url !== undefined) portal.defaultReturnUrl = params.default_return_url;
      portal.metadata = mergeMetadata(portal.metadata, params.metadata);
      portal.updated = context.billing.now();
      return { body: configuration(context, configurationId) };
    },
  }),
];
