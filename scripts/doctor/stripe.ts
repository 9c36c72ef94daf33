import Stripe from 'stripe';
import { handledEvents } from '../../shared/domain/billing/webhook.ts';
import { errorText, fail, ok, warn, type Check } from './report.ts';

/** What the Stripe checks compare the account with: the deployment's settings. */
export interface StripeTarget {
  /** `pricePro` and `priceTeamSeat` (lib/config.ts). */
  prices: { pro: string; teamSeat: string };
  /** Where the deployment answers `POST /v1/billing/webhook`: on webOrigin, and on the distribution's own URL when it differs. */
  webhookUrls: readonly string[];
  stage: string;
  /** The key's mode (`sk_live_…` or `sk_test_…`): Stripe keeps prices, portal settings and endpoints per mode. */
  mode: 'live' | 'test';
}

const refusedKey = 'Stripe refused the secret key in PaymentProviderSecretsArn (401): revoked, rolled or mistyped';

/**
 * A key as Stripe's messages quote it, masked (`'rk_live_***abcd'`, in a restricted key's 403) or
 * whole, with its quotes: the report's own redaction (`renderReport`) knows only the whole
 * secret, so a masked key's prefix and last characters would be printed.
 */
const keyFragment = /['"]?(sk|rk|pk)_(live|test)_\S*/g;

/** What Stripe said, every key-looking fragment in it replaced: its 401 and 403 messages quote part of the key. */
function stripeMessage(message: string): string {
  return message.replace(keyFragment, '(key not shown)');
}

/** A Stripe error in words, never quoting any part of the key. */
function stripeErrorText(error: unknown): string {
  if (error instanceof Stripe.errors.StripeAuthenticationError) return refusedKey;
  if (error instanceof Stripe.errors.StripeError)
    return `${error.type}${error.statusCode ? ` ${error.statusCode}` : ''}: ${stripeMessage(error.message)}`;
  return stripeMessage(errorText(error));
}

/** One Stripe check; what it could not ask is a fail saying why. */
async function asking(name: string, fix: string, check: () => Promise<Check>): Promise<Check> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof Stripe.errors.StripePermissionError)
      return fail(
        name,
        `the key may not read this: ${stripeMessage(error.message)}`,
        'give the restricted key read access to Prices, Customer portal and Webhook endpoints',
      );
    return fail(name, `could not check: ${stripeErrorText(error)}`, fix);
  }
}

const dashboard = (mode: 'live' | 'test', path: string) => `https://dashboard.stripe.com/${mode === 'test' ? 'test/' : ''}${path}`;

function money(amount: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() });
    return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${amount} ${currency}`;
  }
}

/**
 * `prices.retrieve`: the price exists in the key's mode, is active, and is a licensed recurring
 * price (checkout sells subscriptions, a Team seat by quantity); not a month is a warning.
 */
async function checkPrice(stripe: Stripe, setting: 'pricePro' | 'priceTeamSeat', id: string, mode: 'live' | 'test'): Promise<Check> {
  const name = setting === 'pricePro' ? 'stripe price pro' : 'stripe price team seat';
  const redeploy = `name an existing price: deploy with -c ${setting}=price_… and give the doctor the same value`;
  return asking(name, redeploy, async () => {
    let price: Stripe.Price;
    try {
      price = await stripe.prices.retrieve(id);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && (error.code === 'resource_missing' || error.statusCode === 404))
        return fail(
          name,
          `${setting} ${id}: no such price in ${mode} mode (${stripeMessage(error.message)}); every checkout of it fails`,
          `create it (${dashboard(mode, 'products')}), or ${redeploy}`,
        );
      throw error;
    }
    const what = `${setting} ${id}`;
    if (!price.active)
      return fail(
        name,
        `${what} is archived: Stripe refuses checkouts of it`,
        `unarchive it (${dashboard(mode, `prices/${id}`)}), or ${redeploy}`,
      );
    if (price.type !== 'recurring' || !price.recurring)
      return fail(
        name,
        `${what} is a one-time price: checkouts are subscriptions, which need a recurring price`,
        `create a recurring monthly price, then ${redeploy}`,
      );
    if (price.recurring.usage_type === 'metered')
      return fail(
        name,
        `${what} is metered: checkouts sell it by quantity (seats) and need a licensed price`,
        `create a licensed monthly price, then ${redeploy}`,
      );
    const amount = price.unit_amount === null ? 'tiered' : money(price.unit_amount, price.currency);
    const every =
      price.recurring.interval_count === 1
        ? `a ${price.recurring.interval}`
        : `every ${price.recurring.interval_count} ${price.recurring.interval}s`;
    const detail = `${what}: ${amount} ${every}${price.nickname ? ` (${price.nickname})` : ''}`;
    if (price.recurring.interval !== 'month' || price.recurring.interval_count !== 1)
      return warn(
        name,
        `${detail}; the plans are sold by the month`,
        `if this is meant, nothing; else create a monthly price and ${redeploy}`,
      );
    return ok(name, detail);
  });
}

/**
 * `billingPortal.configurations.list`: the default configuration exists (Stripe makes it when
 * the Dashboard's portal settings are first saved; until then every portal session is refused and
 * `POST /v1/billing/portal` answers 409 portal_unconfigured), and offers what docs/deploy.md asks.
 */
async function checkPortal(stripe: Stripe, target: StripeTarget): Promise<Check> {
  const name = 'stripe portal';
  const page = dashboard(target.mode, 'settings/billing/portal');
  const save = `open ${page}: let customers update payment methods, see invoices and cancel (and, for seat changes there, add the Team seat price to its products), then Save`;
  return asking(name, save, async () => {
    const configurations = (await stripe.billingPortal.configurations.list({ limit: 100 })).data;
    const standard = configurations.find((configuration) => configuration.is_default);
    if (!standard?.active)
      return fail(
        name,
        `the customer portal settings are not saved in ${target.mode} mode: Stripe refuses every portal session, and POST /v1/billing/portal answers 409 portal_unconfigured`,
        save,
      );
    const { features } = standard;
    const missing = [
      features.payment_method_update.enabled ? null : 'update payment methods',
      features.invoice_history.enabled ? null : 'invoice history',
      features.subscription_cancel.enabled ? null : 'cancel',
    ].filter((feature): feature is string => feature !== null);
    const seats =
      features.subscription_update.enabled &&
      (features.subscription_update.products ?? []).some((product) => product.prices.includes(target.prices.teamSeat))
        ? 'Team seats changeable there too'
        : 'Team seats changed through Hushlink only';
    if (missing.length > 0)
      return warn(name, `saved (${standard.id}) without ${missing.join(', ')}: customers cannot do that themselves`, save);
    return ok(name, `saved (${standard.id}): payment methods, invoices, cancel; ${seats}`);
  });
}

/**
 * `webhookEndpoints.list`: an enabled endpoint at the deployment's `/v1/billing/webhook`,
 * subscribed to every event the service handles (shared/domain/billing/webhook.ts), and only
 * one (only one endpoint's signing secret can be stored). The signing secret itself cannot be
 * compared: Stripe shows it only when the endpoint is made.
 */
async function checkWebhook(stripe: Stripe, target: StripeTarget): Promise<Check> {
  const name = 'stripe webhook';
  const events = [...handledEvents];
  const url = target.webhookUrls[0]!;
  const add = `add an endpoint at ${url} for ${events.join(', ')} (${dashboard(target.mode, 'webhooks')}), then put its signing secret in PaymentProviderSecretsArn as webhook_secret`;
  return asking(name, add, async () => {
    const endpoints = await stripe.webhookEndpoints.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 });
    const normal = (value: string) => value.replace(/\/+$/, '');
    const atUrl = endpoints.filter((endpoint) => target.webhookUrls.some((candidate) => normal(candidate) === normal(endpoint.url)));
    if (atUrl.length === 0) {
      const elsewhere =
        endpoints.length > 0 ? `; ${endpoints.length} elsewhere (${endpoints.map((endpoint) => endpoint.url).join(', ')})` : '';
      return fail(name, `no ${target.mode}-mode endpoint at ${url}${elsewhere}: payments would give no plan`, add);
    }
    const enabled = atUrl.filter((endpoint) => endpoint.status === 'enabled');
    if (enabled.length === 0)
      return fail(
        name,
        `${atUrl.map((endpoint) => endpoint.id).join(', ')} at ${atUrl[0]!.url} ${atUrl.length === 1 ? 'is' : 'are'} disabled: no event reaches the service`,
        `enable it (${dashboard(target.mode, 'webhooks')})`,
      );
    const lacking = enabled
      .map((endpoint) => ({
        endpoint,
        missing: endpoint.enabled_events.includes('*') ? [] : events.filter((event) => !endpoint.enabled_events.includes(event)),
      }))
      .filter(({ missing }) => missing.length > 0);
    if (lacking.length > 0) {
      const { endpoint, missing } = lacking[0]!;
      return fail(
        name,
        `${endpoint.id} at ${endpoint.url} is not sent ${missing.join(', ')}: the plan would not follow ${missing.length === 1 ? 'that event' : 'those events'}`,
        `add ${missing.join(', ')} to ${endpoint.id}'s events (${dashboard(target.mode, `webhooks/${endpoint.id}`)})`,
      );
    }
    if (enabled.length > 1)
      return warn(
        name,
        `${enabled.length} enabled endpoints at ${normal(enabled[0]!.url)} (${enabled.map((endpoint) => endpoint.id).join(', ')}): every event comes ${enabled.length} times, and only one signing secret can be stored, so the others' deliveries are refused and retried for days`,
        'delete the endpoints whose signing secret is not in PaymentProviderSecretsArn',
      );
    const only = enabled[0]!;
    return ok(
      name,
      `${only.id} at ${only.url}: enabled, sent ${only.enabled_events.includes('*') ? 'every event' : `the ${events.length} events the service handles`} (its signing secret cannot be read back to compare)`,
    );
  });
}

/**
 * The Stripe account the key opens: the key itself, both prices, the customer portal, the
 * webhook endpoint. A refused key is one fail, and nothing else is asked.
 */
export async function checkStripe(stripe: Stripe, target: StripeTarget): Promise<Check[]> {
  const putKey = 'put the current secret key (Dashboard → Developers → API keys) in PaymentProviderSecretsArn as secret_key';
  try {
    // Any answer but a 401 shows the key is accepted; a price is what the next check reads anyway.
    await stripe.prices.retrieve(target.prices.pro);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeAuthenticationError) return [fail('stripe key', refusedKey, putKey)];
    // A refusal of the request (a missing price: 404, a restricted key's 403) still shows the key was accepted.
    const status = (error as { statusCode?: number }).statusCode ?? 0;
    if (!(error instanceof Stripe.errors.StripeError) || status < 400 || status >= 500 || status === 429)
      return [
        fail(
          'stripe key',
          `could not ask Stripe: ${stripeErrorText(error)}`,
          'run the doctor again (from a machine that reaches api.stripe.com)',
        ),
      ];
  }
  const key =
    target.stage === 'prod' && target.mode === 'test'
      ? warn(
          'stripe key',
          'accepted, in test mode on stage prod: no real payment is taken',
          "put the live secret key (sk_live_…) in PaymentProviderSecretsArn, with the live webhook endpoint's signing secret",
        )
      : ok('stripe key', `accepted, ${target.mode} mode`);
  const [pro, seat, portal, webhook] = await Promise.all([
    checkPrice(stripe, 'pricePro', target.prices.pro, target.mode),
    checkPrice(stripe, 'priceTeamSeat', target.prices.teamSeat, target.mode),
    checkPortal(stripe, target),
    checkWebhook(stripe, target),
  ]);
  return [key, pro, seat, portal, webhook];
}
