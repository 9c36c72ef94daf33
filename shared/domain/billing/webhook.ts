import type { AppLogger } from '../../logger.ts';
import { applyLive, expireOtherCheckouts, recordOf } from './live.ts';
import { givesPlan, type ProviderEvent } from './model.ts';
import { isNoticed, queueBillingNotice } from './notices.ts';
import type { Queue } from '../queue.ts';
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
 * the end of the subscription the plan follows are queued as notices the delivery worker mails
 * to whoever bought it (notices.ts).
 */
/** What the payment webhook uses: the provider (to verify and read), the billing store, the work queue for the buyer's notices. */
export type ProviderEventPorts = Pick<BillingPorts, 'provider' | 'billing' | 'clock' | 'config'> & { queue: Queue; logger: AppLogger };

export async function receiveProviderEvent(
  rawBody: Buffer,
  signature: string | null,
  ports: ProviderEventPorts,
): Promise<'applied' | 'duplicate' | 'ignored'> {
  let event: ProviderEvent;
  try {
    event = await ports.provider.verifyEvent(rawBody, signature);
  } catch (error) {
    if (!(error instanceof InvalidSignature)) throw error;
    throw new Invalid('The payment provider’s signature does not verify.', [
      { field: 'stripe-signature', message: error.message, in: 'header' },
    ]);
  }
  const now = ports.clock.now();
  if (!handledEvents.has(event.type) || event.subscriptionId === null) {
    return (await ports.billing.recordEvent(event.id, now)) ? 'ignored' : 'duplicate';
  }
  const subscription = await ports.provider.retrieveSubscription(event.subscriptionId);
  const record = subscription && recordOf(subscription, ports, ports.clock.now());
  if (!record) {
    // Signed by the provider, yet about a subscription it does not have or this deployment does not sell.
    ports.logger.warn('an event about no subscription of this service', {
      event_id: event.id,
      subscription_id: event.subscriptionId,
      price_id: subscription?.priceId ?? null,
    });
    return (await ports.billing.recordEvent(event.id, now)) ? 'ignored' : 'duplicate';
  }
  const outcome = await applyLive(record, event.id, ports);
  // Only news of the subscription the plan follows is the buyer's to hear: a second one cancelled
  // here, or its end, changed nothing they have. A duplicate of such an event queues its notice
  // again (the worker mails it once): it is the provider's retry after this answered an error
  // once the event was applied, when queueing the notice failed.
  if (
    isNoticed(event.type) &&
    (outcome === 'applied' || (outcome === 'duplicate' && (await ports.billing.linkedSubscription(record.target)) === record.id))
  ) {
    await queueBillingNotice(event.id, event.type, record.id, ports);
  }
  if (outcome === 'duplicate') return 'duplicate';
  if (outcome === 'applied' && event.type === 'checkout.session.completed' && givesPlan(record.status))
    await expireOtherCheckouts(record, ports);
  return 'applied';
}
