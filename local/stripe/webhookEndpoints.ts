import type Stripe from 'stripe';
import { accountCreated, expandable, id, isUrl, pageParams, route, type AccountContext, type AccountRoute } from './accountRoute.ts';
import { invalidRequest, missingParam, noSuch } from './errors.ts';
import { mergeMetadata } from './form.ts';
import { paged, stripeId, type Wire } from './objects.ts';
import type { StripeStore } from './store.ts';
import type { EventType } from './webhooks.ts';

/**
 * The account's webhook endpoints, as Stripe's API lists and changes them (`npm run doctor`
 * checks that the deployment's receiver is among them). The account starts with one: the URL
 * the emulator delivers its events to (`webhookUrl`), subscribed to every event type it makes.
 * An endpoint added, changed or deleted here changes what the account lists, never where events
 * go: the emulator has one receiver. Kept in memory only, so a restart of `npm start` lists the
 * one endpoint again.
 */

export type WebhookEndpoint = Wire<Stripe.WebhookEndpoint>;

/** The event types the emulator makes (webhooks.ts): what its own endpoint is subscribed to. */
const emulatorEvents = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
] as const satisfies readonly EventType[];

/** Each account's endpoints, in creation order; lists are newest first. */
const endpointsOf = new WeakMap<StripeStore, WebhookEndpoint[]>();

function endpoints(context: AccountContext): WebhookEndpoint[] {
  let found = endpointsOf.get(context.store);
  if (!found) {
    found = [
      {
        id: stripeId('we_1', 23),
        object: 'webhook_endpoint',
        api_version: null,
        application: null,
        created: accountCreated(context),
        description: 'The service’s billing webhook (the emulator’s delivery URL)',
        enabled_events: [...emulatorEvents],
        livemode: false,
        metadata: {},
        status: 'enabled',
        url: context.webhooks.deliveryUrl,
      },
    ];
    endpointsOf.set(context.store, found);
  }
  return found;
}

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
  const found = endpoints(context).find((candidate) => candidate.id === endpointId);
  if (!found) throw noSuch('webhook endpoint', endpointId, 'id');
  return found;
}

export const webhookEndpointRoutes: readonly AccountRoute[] = [
  route({
    method: 'GET',
    path: /^\/v1\/webhook_endpoints$/,
    params: { ...pageParams, ...expandable },
    handle: (context, params) => ({
      body: paged([...endpoints(context)].reverse(), params, 'webhook endpoint', '/v1/webhook_endpoints'),
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
      endpoints(context).push(made);
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
      const list = endpoints(context);
      list.splice(list.indexOf(found), 1);
      return { body: { id: found.id, object: 'webhook_endpoint', deleted: true } };
    },
  }),
];
