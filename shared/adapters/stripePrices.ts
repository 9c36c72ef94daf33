/**
 * The provider's prices through the Stripe SDK (`GET /v1/prices/{id}`), for the Plans page. A
 * client of its own, made at the first call from the same settings as the provider's (its
 * secrets read then), so the payment port keeps only what checkout and billing need.
 */
import Stripe from 'stripe';
import type { Deadline, WithinDeadline } from '../deadline.ts';
import { Unavailable } from '../domain/refusals.ts';
import type { PriceCatalog, ProviderPrice } from '../domain/billing/prices.ts';
import { providerOutage, stripeClient, type StripeSettings } from './stripe.ts';
import { byDeadline, callSettings, providerUnavailable } from './stripeDeadline.ts';

type Interval = NonNullable<ProviderPrice['interval']>;
const intervals: ReadonlySet<string> = new Set<Interval>(['day', 'week', 'month', 'year']);

export class LazyStripePrices implements WithinDeadline<PriceCatalog> {
  private client: Promise<Stripe> | null = null;

  constructor(private readonly settings: () => Promise<StripeSettings>) {}

  private get(): Promise<Stripe> {
    this.client ??= this.settings()
      .then((settings) => stripeClient(settings))
      .catch((error: unknown) => {
        this.client = null;
        // Settings that cannot be read are this deployment's, not the visitor's: the prices are unavailable.
        throw error instanceof Unavailable
          ? error
          : new Unavailable('The payment provider’s settings cannot be read; prices cannot be shown.', 60, {
              code: 'provider_unavailable',
            });
      });
    return this.client;
  }

  within(deadline: Deadline): PriceCatalog {
    return { retrievePrice: (id) => this.retrieve(id, deadline) };
  }

  private async retrieve(id: string, deadline: Deadline): Promise<ProviderPrice> {
    const stripe = await this.get();
    const settings = callSettings(deadline.remaining());
    if (!settings) throw providerUnavailable();
    try {
      const price = await byDeadline(stripe.prices.retrieve(id, {}, settings), deadline);
      const interval = price.recurring?.interval ?? null;
      return {
        id: price.id,
        unitAmount: price.unit_amount,
        currency: price.currency,
        interval: interval && intervals.has(interval) ? (interval as Interval) : null,
      };
    } catch (error) {
      const outage = providerOutage(error);
      if (outage) throw outage;
      // A price id the provider does not have is this deployment's settings, not the caller's doing.
      if (error instanceof Stripe.errors.StripeError) {
        throw new Unavailable('The payment provider has no price by this service’s settings; prices cannot be shown.', 60, {
          code: 'provider_unavailable',
        });
      }
      throw error;
    }
  }
}
