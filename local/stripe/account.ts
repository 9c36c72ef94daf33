import { expandable, id, route, type AccountRoute } from './accountRoute.ts';
import { priceObject, type PriceObject } from './objects.ts';
import { portalConfigurationRoutes } from './portalConfigurations.ts';
import { webhookEndpointRoutes } from './webhookEndpoints.ts';

/**
 * The account's settings an operator makes in Stripe's Dashboard, as the API reads and changes
 * them (issue 28: `npm run doctor` checks a deployment's Stripe account through these): a price
 * retrieved by id, the customer portal's configuration (portalConfigurations.ts), and the
 * webhook endpoints (webhookEndpoints.ts). Registered beside the service's own calls in api.ts
 * (`accountRoutes`), so they share its key check, idempotency, recording and error shapes.
 */

/** Stripe's API for the account's settings: prices by id, portal configurations, webhook endpoints. */
export const accountRoutes: readonly AccountRoute[] = [
  route({
    method: 'GET',
    path: new RegExp(`^/v1/prices/${id}$`),
    params: expandable,
    handle: ({ billing }, _, price): { body: PriceObject } => ({ body: priceObject(billing.price(price, 'id'), 0) }),
  }),
  ...portalConfigurationRoutes,
  ...webhookEndpointRoutes,
];
