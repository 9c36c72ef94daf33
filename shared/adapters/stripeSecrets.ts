import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod/mini';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Deadline, WithinDeadline } from '../deadline.ts';
import type { ProviderEvent, ProviderSubscription } from '../domain/billing/model.ts';
import type { CheckoutRequest, PaymentProvider, ProviderInvoice } from '../domain/billing/ports.ts';
import { providerOutage, StripeProvider, stripeClient, type StripeSettings } from './stripe.ts';
import { byDeadline } from './stripeDeadline.ts';

const storedSecrets = z.object({
  secret_key: z.string().check(z.regex(/^(sk|rk)_/)),
  webhook_secret: z.string().check(z.regex(/^whsec_/)),
});

/**
 * The provider's secret key and webhook signing secret: from Secrets Manager in AWS (read once,
 * at the first request of a cold start), given directly in local runs. Never logged.
 */
export async function stripeSettings(
  config: Pick<Config, 'REGION' | 'STRIPE_SECRETS_ARN' | 'STRIPE_SECRET_KEY' | 'STRIPE_WEBHOOK_SECRET' | 'STRIPE_API_URL'>,
): Promise<StripeSettings> {
  if (config.STRIPE_SECRETS_ARN) {
    const client = new SecretsManagerClient({ region: config.REGION });
    try {
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: config.STRIPE_SECRETS_ARN }));
      // JSON.parse's own message quotes the text it failed on: a secret pasted bare would reach the logs.
      const parsed = storedSecrets.safeParse(parseQuietly(SecretString));
      if (!parsed.success) throw new Error('the payment provider secret is not {secret_key, webhook_secret}');
      return { secretKey: parsed.data.secret_key, webhookSecret: parsed.data.webhook_secret, apiUrl: config.STRIPE_API_URL };
    } finally {
      client.destroy();
    }
  }
  if (!config.STRIPE_SECRET_KEY || !config.STRIPE_WEBHOOK_SECRET)
    throw new Error('the payment provider is not configured (STRIPE_SECRETS_ARN, or STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET)');
  return { secretKey: config.STRIPE_SECRET_KEY, webhookSecret: config.STRIPE_WEBHOOK_SECRET, apiUrl: config.STRIPE_API_URL };
}

/**
 * The Stripe provider, made when first used (its secrets are read then); a failed read is tried
 * again next time. Each request asks it through its own view, bounded by the request's deadline.
 */
export class LazyStripeProvider implements WithinDeadline<PaymentProvider> {
  private provider: Promise<StripeProvider> | null = null;

  constructor(
    private readonly settings: () => Promise<StripeSettings>,
    private readonly clock: Clock,
  ) {}

  private get(): Promise<StripeProvider> {
    this.provider ??= this.settings()
      .then((settings) => new StripeProvider(stripeClient(settings), settings.webhookSecret, this.clock))
      .catch((error: unknown) => {
        this.provider = null;
        throw error;
      });
    return this.provider;
  }

  /** The provider as one request uses it: every call's timeout and retries from what is left before `deadline` (ADR 0169). */
  within(deadline: Deadline): PaymentProvider {
    return new StripeCalls(() => this.get(), deadline);
  }
}

/** One request's calls to Stripe: its outages said as such, none of them past the request's deadline. */
class StripeCalls implements PaymentProvider {
  constructor(
    private readonly provider: () => Promise<StripeProvider>,
    private readonly deadline: Deadline,
  ) {}

  /**
   * One call to the provider, its outages said as such: Stripe's 5xx, 429 or no answer in time
   * (the SDK's own retries spent, or the deadline reached) is `Unavailable`, a 503 with
   * retry-after, not a fault of ours; so is a call the deadline leaves no time to make. A call
   * sent and not answered says it may have been applied (`providerNoAnswer`); the others, that
   * nothing was changed.
   */
  private async ask<T>(call: (provider: StripeProvider) => Promise<T>): Promise<T> {
    const provider = (await this.provider()).within(this.deadline);
    try {
      return await byDeadline(call(provider), this.deadline);
    } catch (error) {
      throw providerOutage(error) ?? error;
    }
  }

  /** Checked here, on the raw bytes: no call to Stripe, so no deadline to meet. */
  async verifyEvent(rawBody: Buffer, signature: string | null): Promise<ProviderEvent> {
    return (await this.provider()).verifyEvent(rawBody, signature);
  }

  async createCustomer(email: string, userId: string, idempotencyKey: string): Promise<string> {
    return this.ask((provider) => provider.createCustomer(email, userId, idempotencyKey));
  }

  async createCheckoutSession(request: CheckoutRequest): Promise<{ id: string; url: string }> {
    return this.ask((provider) => provider.createCheckoutSession(request));
  }

  async createPortalSession(customerId: string, returnUrl: string): Promise<{ url: string }> {
    return this.ask((provider) => provider.createPortalSession(customerId, returnUrl));
  }

  async listInvoices(
    customerId: string,
    limit: number,
    startingAfter: string | null,
  ): Promise<{ items: ProviderInvoice[]; hasMore: boolean }> {
    return this.ask((provider) => provider.listInvoices(customerId, limit, startingAfter));
  }

  async retrieveSubscription(id: string): Promise<ProviderSubscription | null> {
    return this.ask((provider) => provider.retrieveSubscription(id));
  }

  async changeQuantity(subscriptionId: string, itemId: string, quantity: number, idempotencyKey: string): Promise<ProviderSubscription> {
    return this.ask((provider) => provider.changeQuantity(subscriptionId, itemId, quantity, idempotencyKey));
  }

  async cancelSubscription(id: string): Promise<ProviderSubscription | null> {
    return this.ask((provider) => provider.cancelSubscription(id));
  }

  async openCheckouts(customerId: string): Promise<Array<{ id: string; metadata: Record<string, string> }>> {
    return this.ask((provider) => provider.openCheckouts(customerId));
  }

  async expireCheckout(id: string): Promise<boolean> {
    return this.ask((provider) => provider.expireCheckout(id));
  }

  async invoiceCustomer(id: string): Promise<string | null> {
    return this.ask((provider) => provider.invoiceCustomer(id));
  }
}

/** The stored secret as JSON, or null: never an error that quotes it. */
function parseQuietly(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? 'null');
  } catch {
    return null;
  }
}
