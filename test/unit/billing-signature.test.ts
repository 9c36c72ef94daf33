import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { StripeProvider } from '../../shared/adapters/stripe.ts';
import { InvalidSignature } from '../../shared/domain/billing/ports.ts';

// The Stripe-Signature check (shared/adapters/stripe.ts) at a fixed time, without a network:
// the SDK's own verification, the tolerance both ways, and (issue 26) one timestamp only, as the
// SDK's parser keeps the last `t` while a reader of the first would check another time.

const secret = 'whsec_unit_test_secret';
const nowMs = Date.parse('2031-03-01T10:00:00Z');
const now = nowMs / 1000;
const stripe = new Stripe('sk_test_unit', { maxNetworkRetries: 0 });
const provider = new StripeProvider(stripe, secret, { now: () => nowMs });
const payload = JSON.stringify({
  id: 'evt_unit',
  object: 'event',
  type: 'customer.created',
  data: { object: { id: 'cus_unit', object: 'customer' } },
});
const signed = (timestamp: number) => stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
const verify = (header: string) => provider.verifyEvent(Buffer.from(payload), header);

describe('StripeProvider.verifyEvent', () => {
  it('takes a header signed now, or within the tolerance either way', async () => {
    for (const timestamp of [now, now - 299, now + 299])
      expect(await verify(signed(timestamp))).toEqual({ id: 'evt_unit', type: 'customer.created', subscriptionId: null });
  });

  it('refuses a timestamp past the tolerance, in the past or the future', async () => {
    await expect(verify(signed(now - 301))).rejects.toBeInstanceOf(InvalidSignature);
    await expect(verify(signed(now + 301))).rejects.toThrow(/in the future/);
  });

  it('refuses a header with more than one timestamp, whichever the signature is over', async () => {
    const later = signed(now + 3600);
    const v1 = later.split(',v1=')[1]!;
    for (const header of [
      `t=${now},${later}`,
      `t=${now},t=${now + 3600},v1=${v1}`,
      `t=${now + 3600},t=${now},v1=${v1}`,
      `${signed(now)},t=${now}`,
    ]) {
      await expect(verify(header), header).rejects.toThrow(new InvalidSignature('more than one timestamp (t) in the header'));
    }
    // The SDK itself, at the same time, takes the first forgery: it checks the last timestamp only, and nothing in the future.
    expect(() => stripe.webhooks.constructEvent(payload, `t=${now},${later}`, secret, 300, undefined, nowMs)).not.toThrow();
  });
});
