/**
 * The prices the Plans page shows: read from the payment provider by the ids this deployment
 * sells (`PRICE_PRO`, `PRICE_TEAM_SEAT`), never written down here, and kept a few minutes so a
 * page view is not a call to the provider each time.
 */
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Plan } from '../accounts/model.ts';

/** A price as the provider has it. */
export interface ProviderPrice {
  id: string;
  /** In the currency's smallest unit (cents); null for a price with no single amount (tiered, customer-chosen). */
  unitAmount: number | null;
  /** Lower case, as the provider writes it (`usd`). */
  currency: string;
  /** How often it is charged; null for a one-off price. */
  interval: 'day' | 'week' | 'month' | 'year' | null;
}

/** The provider's prices by id (shared/adapters/stripePrices.ts); its outages are `Unavailable`. */
export interface PriceCatalog {
  retrievePrice(id: string): Promise<ProviderPrice>;
}

export interface PlanPrice {
  plan: Extract<Plan, 'pro' | 'team'>;
  interval: NonNullable<ProviderPrice['interval']>;
  unit_amount: number;
  currency: string;
  /** What one unit buys: Pro is for the account, Team a seat of a workspace. */
  per: 'seat' | 'workspace' | 'account';
}

/** How long prices read from the provider are shown before they are read again. */
export const priceCacheMs = 5 * 60_000;

/** How long a provider's refusal is answered again without asking it (its `retry-after`). */
export const priceFailureMs = 60_000;

/**
 * The last prices read, in the function's memory (one per warm instance), and the last refusal
 * for a minute: a public page must not turn a burst of visits (or an outage) into as many calls
 * to the provider, whose rate limit checkout and billing share.
 */
export class PriceCache {
  private kept: { prices: PlanPrice[]; at: number } | null = null;
  private failed: { error: unknown; at: number } | null = null;

  read(now: number): PlanPrice[] | null {
    if (this.failed && now - this.failed.at < priceFailureMs) throw this.failed.error;
    return this.kept && now - this.kept.at < priceCacheMs ? this.kept.prices : null;
  }

  keep(prices: PlanPrice[], now: number): void {
    this.kept = { prices, at: now };
    this.failed = null;
  }

  refused(error: unknown, now: number): void {
    this.failed = { error, at: now };
  }
}

export interface PricePorts {
  prices: PriceCatalog;
  priceCache: PriceCache;
  clock: Clock;
  config: Pick<Config, 'PRICE_PRO' | 'PRICE_TEAM_SEAT'>;
}

/**
 * The self-serve plans' prices. A price without a single recurring amount is left out (the
 * checkout page still shows it); a provider that does not answer throws, and its refusal is
 * answered again for a minute.
 */
export async function listPlanPrices(ports: PricePorts): Promise<PlanPrice[]> {
  const cached = ports.priceCache.read(ports.clock.now());
  if (cached) return cached;
  const sold = [
    { plan: 'pro', id: ports.config.PRICE_PRO, per: 'account' },
    { plan: 'team', id: ports.config.PRICE_TEAM_SEAT, per: 'seat' },
  ] as const;
  let read: ProviderPrice[];
  try {
    read = await Promise.all(sold.map((entry) => ports.prices.retrievePrice(entry.id)));
  } catch (error) {
    ports.priceCache.refused(error, ports.clock.now());
    throw error;
  }
  const prices: PlanPrice[] = [];
  sold.forEach((entry, index) => {
    const price = read[index]!;
    if (price.unitAmount === null || price.interval === null) return;
    prices.push({ plan: entry.plan, interval: price.interval, unit_amount: price.unitAmount, currency: price.currency, per: entry.per });
  });
  ports.priceCache.keep(prices, ports.clock.now());
  return prices;
}
