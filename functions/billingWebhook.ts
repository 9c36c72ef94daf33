import { SESClient } from '@aws-sdk/client-ses';
import { SesMailer } from '../shared/adapters/ses.ts';
import { LazyStripeProvider, stripeSettings } from '../shared/adapters/stripeSecrets.ts';
import { billingWebhookRequests } from '../shared/api/billing.ts';
import type { BillingPorts } from '../shared/domain/billing/ports.ts';
import { receiveProviderEvent } from '../shared/domain/billing/webhook.ts';
import { groupHandler, publicRoutesOnly, type GroupDeps, type Operations } from '../shared/http/group.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { billingWebhookRoutes } from '../shared/routes.ts';
import { DynamoBillingStore } from '../shared/store/billing.ts';
import { DynamoUserStore } from '../shared/store/users.ts';

/** The payment provider's deliveries (interface §6.6): verified on the raw body, applied once, in any order. */
export const operations: Operations<'billingWebhook', BillingWebhookDeps> = {
  async receiveProviderEvent(request, deps) {
    await receiveProviderEvent(request.rawBody, request.headers['stripe-signature'] ?? null, deps);
    return { status: 200, body: { received: true } };
  },
};

/** The webhook's wiring: the provider (its secrets read at the first request), the billing store, users (to mail the buyer), the mailer. */
export type BillingWebhookDeps = GroupDeps & BillingPorts;

export function compose(platform: Platform, adapters: Pick<Adapters, 'mailer' | 'paymentProvider'>): BillingWebhookDeps {
  const { db, config } = platform;
  return {
    ...platform,
    guard: publicRoutesOnly,
    provider: adapters.paymentProvider,
    billing: new DynamoBillingStore(db, config.TABLE_NAME),
    users: new DynamoUserStore(db, config.TABLE_NAME),
    mailer: adapters.mailer,
  };
}

export const createHandler = (deps: BillingWebhookDeps) => groupHandler(billingWebhookRoutes, operations, billingWebhookRequests, deps);
export const handler = lambdaEntry((platform) =>
  createHandler(
    compose(platform, {
      mailer: new SesMailer(new SESClient({ region: platform.config.REGION }), platform.config.MAIL_FROM),
      paymentProvider: new LazyStripeProvider(() => stripeSettings(platform.config), platform.clock),
    }),
  ),
);
