import { readFileSync } from 'node:fs';

/** Price ids of the shape Stripe gives (not the emulator's): a synth requires both (lib/config.ts). */
export const testPrices = { pricePro: 'price_1QTestProMonthly', priceTeamSeat: 'price_1QTestTeamSeat' } as const;

/**
 * The context `cdk synth` runs with: cdk.json's feature flags, so a test sees the template that
 * gets deployed, and the price ids every deploy must name.
 */
export const cdkContext: Record<string, unknown> = {
  ...(JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }).context,
  ...testPrices,
};
