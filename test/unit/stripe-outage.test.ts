import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { providerOutage, stripeClient } from '../../shared/adapters/stripe.ts';
import { Unavailable } from '../../shared/domain/refusals.ts';
import { fromRefusal } from '../../shared/http/refusals.ts';

const raw = (statusCode: number, type: string) => ({ message: 'x', type, statusCode, headers: {}, requestId: 'req_1' }) as never;

describe('a Stripe outage', () => {
  it('is Unavailable (503 provider_unavailable, retry-after 60) for no answer, a 429 or a 5xx; anything else is not an outage', () => {
    for (const error of [
      new Stripe.errors.StripeConnectionError(raw(0, 'StripeConnectionError')),
      new Stripe.errors.StripeRateLimitError(raw(429, 'rate_limit_error')),
      new Stripe.errors.StripeAPIError(raw(500, 'api_error')),
      new Stripe.errors.StripeAPIError(raw(503, 'api_error')),
    ]) {
      const outage = providerOutage(error);
      expect(outage).toBeInstanceOf(Unavailable);
      const http = fromRefusal(outage!);
      expect([http.status, http.code, http.extras.headers?.['retry-after']]).toEqual([503, 'provider_unavailable', '60']);
    }
    expect(providerOutage(new Stripe.errors.StripeInvalidRequestError(raw(400, 'invalid_request_error')))).toBeNull();
    expect(providerOutage(new Stripe.errors.StripeAuthenticationError(raw(401, 'authentication_error')))).toBeNull();
    expect(providerOutage(new Error('ours'))).toBeNull();
  });

  it('is given up on within the function’s 10 s: two tries of 3 s at most', () => {
    const client = stripeClient({ secretKey: 'sk_test_x' });
    expect(client.getMaxNetworkRetries()).toBe(1);
    expect((client as unknown as { getApiField(name: string): unknown }).getApiField('timeout')).toBe(3000);
  });
});
