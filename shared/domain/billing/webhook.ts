import type { AppLogger } from '../../logger.ts';
import { applyLive, expireOtherCheckouts, recordOf } from './live.ts';
import { givesPlan, type SubscriptionRecord } from './model.ts';
import { InvalidSignature, type BillingPorts } from './ports.ts';
import { Invalid } from '../refusals.ts';

export { planGiven, recordOf, targetOf } from './live.ts';

/** The events that can change what a subscription gives (issue 16); any other is answered 200 and recorded. */
export const handledEvents = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
]);

/**
 * A provider's webhook delivery (`POST /v1/billing/webhook`): the signature is checked on the
 * raw body first (400 when it is missing, wrong or stale). An event about a subscription is
 * applied by reading the subscription from the provider and writing its state now, so the order
 * events arrive in does not matter; each event is applied once (its id is written with the
 * change), and a target's plan follows its one live subscription (live.ts). A failed payment and
 * the end of the subscription the plan follows are mailed to whoever bought it.
 */
export async function receiveProviderEvent(rawBody: Buffer, signature: string | null, ports: BillingPorts & { logger: AppLogger }): Promise<'applied' | 'duplicate' | 'ignored'> {
  let event;
  try {
    event = await ports.provider.verifyEvent(rawBody, signature);
  } catch (error) {
    if (!(error instanceof InvalidSignature)) throw error;
    throw new Invalid('The payment provider’s signature does not verify.', [{ field: 'stripe-signature', message: error.message, in: 'header' }]);
  }
  const now = ports.clock.now();
  if (!handledEvents.has(event.type) || event.subscriptionId === null) {
    return (await ports.billing.recordEvent(event.id, now)) ? 'ignored' : 'duplicate';
  }
  const subscription = await ports.provider.retrieveSubscription(event.subscriptionId);
  const record = subscription && recordOf(subscription, ports, ports.clock.now());
  if (!record) {
    // Signed by the provider, yet about a subscription it does not have or this deployment does not sell.
    ports.logger.warn('an event about no subscription of this service', { event_id: event.id, subscription_id: event.subscriptionId, price_id: subscription?.priceId ?? null });
    return (await ports.billing.recordEvent(event.id, now)) ? 'ignored' : 'duplicate';
  }
  const outcome = await applyLive(record, event.id, ports);
  if (outcome === 'duplicate') return 'duplicate';
  // Only news of the subscription the plan follows is the buyer's to hear: a second one cancelled
  // here, or its end, changed nothing they have.
  if (outcome === 'applied' && (event.type === 'invoice.payment_failed' || event.type === 'customer.subscription.deleted')) await mailBuyer(event.type, record, ports);
  if (outcome === 'applied' && event.type === 'checkout.session.completed' && givesPlan(record.status)) await expireOtherCheckouts(record, ports);
  return 'applied';
}

async function mailBuyer(type: string, record: SubscriptionRecord, ports: BillingPorts): Promise<void> {
  const buyer = await ports.users.get(record.target.kind === 'user' ? record.target.userId : record.target.ownerId);
  if (!buyer) return;
  const what = record.plan === 'team' ? 'your workspace’s Team plan' : 'your Pro plan';
  const until = new Date(record.currentPeriodEnd).toISOString().slice(0, 10);
  await ports.mailer.send(
    type === 'invoice.payment_failed'
      ? {
          to: buyer.email,
          subject: 'Hushlink: a payment failed',
          text: `The payment for ${what} failed. Nothing changes until ${until}; if the payment still fails then, the plan falls back to Free. Update the card in the billing portal: ${ports.config.WEB_ORIGIN}/billing`,
        }
      : {
          to: buyer.email,
          subject: 'Hushlink: your subscription ended',
          text: `${what[0]!.toUpperCase()}${what.slice(1)} has ended, and falls back to Free. Secrets already sent are untouched. You can subscribe again at ${ports.config.WEB_ORIGIN}/billing`,
        },
  );
}
