import { sqsQueue } from '../shared/adapters/sqs.ts';
import { LazyStripeProvider, stripeSettings } from '../shared/adapters/stripeSecrets.ts';
import { billingWebhookRequests } from '../shared/api/billing.ts';
import type { WithinDeadline } from '../shared/deadline.ts';
import type { PaymentProvider } from '../shared/domain/billing/ports.ts';
import { receiveProviderEvent, type ProviderEventPorts } from '../shared/domain/billing/webhook.ts';
import { groupHandler, publicRoutesOnly, type GroupDeps, type Operations } from '../shared/http/group.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { billingWebhookRoutes } from '../shared/routes.ts';
import { DynamoBillingStore } from '../shared/store/billing.ts';

/** The payment provider's deliveries (interface §6.6): verified on the raw body, applied once, in any order. */
export const operations: Operations<'billingWebhook', BillingWebhookDeps> = {
  async receiveProviderEvent(request, deps) {
    // The provider's calls bounded by the request's deadline (ADR 0169): too slow a Stripe is a 503, which it delivers again.
    const ports = { ...deps, provider: deps.provider.within(request.deadline) };
    await receiveProviderEvent(request.rawBody, request.headers['stripe-signature'] ?? null, ports);
    return { status: 200, body: { received: true } };
  },
};

/** The webhook's wiring: the provider (its secrets read at the first request), the billing store, the work queue (the buyer's notices). */
export type BillingWebhookDeps = GroupDeps & Omit<ProviderEventPorts, 'provider'> & { provider: WithinDeadline<PaymentProvider> };

export function compose(platform: Platform, adapters: Pick<Adapters, 'queue' | 'paymentProvider'>): BillingWebhookDeps {
  const { db, config } = platform;
  return {
    ...platform,
    guard: publicRoutesOnly,
    provider: adapters.paymentProvider,
    billing: new DynamoBillingStore(db, config.TABLE_NAME),
    queue: adapters.queue,
  };
}

export const createHandler = (deps: BillingWebhookDeps) => groupHandler(billingWebhookRoutes, operations, billingWebhookRequests, deps);
export const handler = lambdaEntry((platform) =>
  createHandler(
    compose(platform, {
      queue: sqsQueue(platform.config),
      paymentProvider: new LazyStripeProvider(() => stripeSettings(platform.config), platform.clock),
    }),
  ),
);
