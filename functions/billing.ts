import { SESClient } from '@aws-sdk/client-ses';
import { SesMailer } from '../shared/adapters/ses.ts';
import { LazyStripePrices } from '../shared/adapters/stripePrices.ts';
import { LazyStripeProvider, stripeSettings } from '../shared/adapters/stripeSecrets.ts';
import { billingRequests } from '../shared/api/billing.ts';
import { toIso } from '../shared/clock.ts';
import type { Deadline, WithinDeadline } from '../shared/deadline.ts';
import { startCheckout, type CheckoutPorts } from '../shared/domain/billing/checkout.ts';
import type { PaymentProvider } from '../shared/domain/billing/ports.ts';
import { listInvoices, openPortal, type CustomerPorts } from '../shared/domain/billing/customer.ts';
import { sendEnterpriseInquiry, type EnterpriseInquiryPorts } from '../shared/domain/billing/enterprise.ts';
import { listPlanPrices, PriceCache, type PriceCatalog, type PricePorts } from '../shared/domain/billing/prices.ts';
import { changeSeats, type SeatsPorts } from '../shared/domain/billing/seats.ts';
import { readSubscription } from '../shared/domain/billing/subscription.ts';
import type { TierPorts } from '../shared/domain/billing/tier.ts';
import type { UsageReadPorts } from '../shared/domain/usage/read.ts';
import { apiDeps, type ApiDeps } from './shared/apiDeps.ts';
import { requireSession } from '../shared/http/auth.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { requestLanguage } from '../shared/http/language.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { billingRoutes } from '../shared/routes.ts';
import { DynamoBillingStore } from '../shared/store/billing.ts';
import { DynamoRateCounter } from '../shared/store/rateLimits.ts';
import { DynamoTierSource } from '../shared/store/tiers.ts';
import { DynamoUsageReports } from '../shared/store/usageReports.ts';
import { DynamoUserStore } from '../shared/store/users.ts';
import { DynamoCheckoutWorkspaces } from '../shared/store/workspaceMembership.ts';

/** The billing group (interface §4.6): checkout, the portal, invoices, the caller's subscription, a Team's seats, Enterprise enquiries, and the plans' prices. */
export const operations: Operations<'billing', BillingDeps> = {
  async startCheckout(request, deps) {
    const { plan, workspace_id: workspaceId, seats, success_path: successPath, cancel_path: cancelPath } = request.body;
    const session = await startCheckout(
      { plan, workspaceId, seats, successPath, cancelPath },
      requireSession(request.principal).userId,
      withinRequest(request, deps),
    );
    return { status: 201, body: { id: session.id, url: session.url } };
  },

  async listInvoices(request, deps) {
    const { limit, cursor } = request.query;
    const page = await listInvoices(requireSession(request.principal).userId, limit, cursor ?? null, withinRequest(request, deps));
    return {
      status: 200,
      body: {
        items: page.items.map((invoice) => ({
          id: invoice.id,
          number: invoice.number,
          status: invoice.status,
          total: invoice.total,
          currency: invoice.currency,
          created_at: toIso(invoice.createdAt),
          hosted_invoice_url: invoice.hostedInvoiceUrl,
          invoice_pdf: invoice.invoicePdf,
        })),
        next_cursor: page.nextCursor,
      },
    };
  },

  async openPortal(request, deps) {
    return {
      status: 201,
      body: await openPortal(requireSession(request.principal).userId, request.body.return_path, withinRequest(request, deps)),
    };
  },

  async readSubscription(request, deps) {
    const view = await readSubscription(requireSession(request.principal).userId, deps);
    const record = view.subscription;
    return {
      status: 200,
      body: {
        plan: view.plan,
        tier: view.tier,
        status: record?.status ?? null,
        seats: record?.seats ?? null,
        current_period_end: record ? toIso(record.currentPeriodEnd) : null,
        cancel_at_period_end: record?.cancelAtPeriodEnd ?? false,
        usage: view.usage,
      },
    };
  },

  async changeSeats(request, deps) {
    const { workspace_id: workspaceId, seats } = request.body;
    const changed = await changeSeats(workspaceId, seats, requireSession(request.principal).userId, withinRequest(request, deps));
    return { status: 200, body: { workspace_id: workspaceId, seats: changed.seats } };
  },

  async listPlanPrices(request, deps) {
    return { status: 200, body: { prices: await listPlanPrices({ ...deps, prices: deps.prices.within(request.deadline) }) } };
  },

  async sendEnterpriseInquiry(request, deps) {
    await sendEnterpriseInquiry(request.body, deps, requestLanguage(request));
    return { status: 202, body: { accepted: true } };
  },
};

/**
 * The billing group's wiring: the provider (its secrets read at the first request; each request
 * asks it within its deadline), billing, a workspace's owner and roster, tiers, usage, and the
 * mailer (enquiries to sales), and the provider's prices with the instance's copy of them.
 */
export type BillingDeps = Omit<
  ApiDeps & CheckoutPorts & CustomerPorts & SeatsPorts & TierPorts & UsageReadPorts & EnterpriseInquiryPorts & PricePorts,
  'provider' | 'prices'
> & { provider: WithinDeadline<PaymentProvider>; prices: WithinDeadline<PriceCatalog> };

/** The ports one request's use case gets: the provider's calls bounded by the request's deadline (ADR 0169). */
const withinRequest = (request: { deadline: Deadline }, deps: BillingDeps) => ({
  ...deps,
  provider: deps.provider.within(request.deadline),
});

export function compose(platform: Platform, adapters: Pick<Adapters, 'paymentProvider' | 'mailer'>): BillingDeps {
  const { db, config } = platform;
  return {
    ...apiDeps(platform),
    provider: adapters.paymentProvider,
    mailer: adapters.mailer,
    billing: new DynamoBillingStore(db, config.TABLE_NAME),
    users: new DynamoUserStore(db, config.TABLE_NAME),
    // The enquiry acknowledgements' per-address window.
    rateCounter: new DynamoRateCounter(db, config.TABLE_NAME),
    checkoutWorkspaces: new DynamoCheckoutWorkspaces(db, config.TABLE_NAME),
    tiers: new DynamoTierSource(db, config.TABLE_NAME),
    usageReports: new DynamoUsageReports(db, config.TABLE_NAME),
    // Its own client on the provider's settings (read at its first call, as the provider's are).
    prices: new LazyStripePrices(() => stripeSettings(config)),
    priceCache: new PriceCache(),
  };
}

export const createHandler = (deps: BillingDeps) => groupHandler(billingRoutes, operations, billingRequests, deps);
export const handler = lambdaEntry((platform) =>
  createHandler(
    compose(platform, {
      paymentProvider: new LazyStripeProvider(() => stripeSettings(platform.config), platform.clock),
      mailer: new SesMailer(new SESClient({ region: platform.config.REGION }), platform.config.MAIL_FROM),
    }),
  ),
);
