/**
 * The Plans page's prices, as the payment provider has them (`GET /v1/billing/prices`, public):
 * written with Intl.NumberFormat in the visitor's locale, from the currency's smallest unit.
 * Until they come, each paid plan says they are loading; when they cannot be read, the plans
 * stay without them and one line says so, with a button to try again.
 */
import type * as z from 'zod/mini';
import type { billingReplies } from '../../shared/api/billing.ts';
import { call } from './api.ts';
import { element, setVisible } from './dom.ts';
import { locale, t } from './i18n.ts';

export type PlanPrice = z.output<(typeof billingReplies)['PlanPrices']>['prices'][number];

/** "$12.00 a month, for your account": the amount in the currency's own decimals (none for yen). */
export function priceSentence(price: PlanPrice): string {
  const currency = price.currency.toUpperCase();
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const decimals = format.resolvedOptions().maximumFractionDigits ?? 2;
  return t('plans.price.sentence', {
    amount: format.format(price.unit_amount / 10 ** decimals),
    interval: price.interval,
    per: price.per,
  });
}

/**
 * Reads the prices and writes each into `cells` (its plan's price cell); `notice` says when they
 * could not be read. Resolves once the answer (or the failure) is shown.
 */
export async function showPrices(cells: Map<string, HTMLElement>, notice: HTMLElement, fallback: (plan: string) => string): Promise<void> {
  setVisible(notice, false);
  for (const cell of cells.values()) {
    cell.textContent = t('plans.price.loading');
    cell.setAttribute('aria-busy', 'true');
  }
  let prices: PlanPrice[] | null = null;
  try {
    prices = (await call<{ prices: PlanPrice[] }>('GET', '/v1/billing/prices')).prices;
  } catch {
    prices = null;
  }
  for (const [plan, cell] of cells) {
    const price = prices?.find((entry) => entry.plan === plan);
    cell.textContent = price ? priceSentence(price) : fallback(plan);
    cell.dataset.amount = price ? String(price.unit_amount) : '';
    cell.removeAttribute('aria-busy');
  }
  if (prices) return;
  notice.replaceChildren(t('plans.price.failed'), ' ');
  const retry = element('button', '', t('plans.price.retry'));
  retry.type = 'button';
  retry.dataset.action = 'retry-prices';
  retry.addEventListener('click', () => void showPrices(cells, notice, fallback));
  notice.append(retry);
  setVisible(notice, true);
}
