import type { AppLogger } from '../../logger.ts';
import { givesPlan, type BillingTarget, type ProviderSubscription, type SubscriptionRecord } from './model.ts';
import type { BillingPorts, Grant, LinkWrite } from './ports.ts';

/**
 * One live subscription per target (issue 26): a target's plan (and a workspace's seats) follows
 * the one subscription its billing links. A subscription that gives a plan takes the link when
 * there is none, when it has it, or when the one linked gives no plan at the provider any more
 * (a new subscription after an ended one). Any other subscription that gives a plan for a target
 * already paid for (a second checkout paid, two paid at once) is ended at the provider at once,
 * its unused time credited, and never changes the plan; neither does any news of a subscription
 * that is not the linked one. The link moves only by a write conditional on the id it was
 * decided on, so events applied at once, in any order and more than once, end the same way.
 */

/** Who the subscription pays for, from the metadata the checkout gave it; null when it names nothing this service made. */
export function targetOf(subscription: ProviderSubscription): BillingTarget | null {
  const { target, user_id: userId, workspace_id: workspaceId } = subscription.metadata;
  if (target === 'user' && userId) return { kind: 'user', userId };
  if (target === 'workspace' && workspaceId && userId) return { kind: 'workspace', workspaceId, ownerId: userId };
  return null;
}

/** The service's copy of the provider's subscription, or null for a price this deployment does not sell. */
export function recordOf(
  subscription: ProviderSubscription,
  ports: Pick<BillingPorts, 'config'>,
  syncedAt: number,
): SubscriptionRecord | null {
  const target = targetOf(subscription);
  const plan =
    subscription.priceId === ports.config.PRICE_PRO ? 'pro' : subscription.priceId === ports.config.PRICE_TEAM_SEAT ? 'team' : null;
  if (!target || !plan || (plan === 'team') !== (target.kind === 'workspace')) return null;
  return {
    id: subscription.id,
    customerId: subscription.customerId,
    target,
    plan,
    status: subscription.status,
    seats: plan === 'team' ? subscription.quantity : 1,
    currentPeriodEnd: subscription.currentPeriodEnd,
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    syncedAt,
  };
}

/** The plan a subscription gives while it runs (a failed payment keeps it until the provider ends it); free once it has ended. */
export const planGiven = (record: SubscriptionRecord) => (givesPlan(record.status) ? record.plan : 'free');

/**
 * What following `record` gives its target: its plan, and a workspace's seats. A Team pays for
 * its seats, never fewer than its members (rule 10): with more members than seats paid, the
 * members; a Team that ended keeps its members and takes no one new. A contract's seats (set by
 * sales, scripts/set-plan.ts) are the contract's: whatever is paid, they stay as they are.
 */
export function grantOf(record: SubscriptionRecord): Grant {
  const plan = planGiven(record);
  if (record.target.kind === 'user') return { plan, seats: ['unchanged'] };
  return { plan, seats: plan === 'team' ? [record.seats, 'members', 'unchanged'] : ['members', 'unchanged'] };
}

/** Makes `record` the subscription its target's plan follows, giving what it gives, while the target still links `linked`. */
export const followWrite = (record: SubscriptionRecord, linked: string | null): LinkWrite => ({
  mode: 'follow',
  linked,
  grant: grantOf(record),
});

export type LiveOutcome = 'applied' | 'recorded' | 'cancelled' | 'duplicate' | 'stale';

type LivePorts = Pick<BillingPorts, 'provider' | 'billing' | 'clock' | 'config'> & { logger: AppLogger };

/**
 * Writes what the provider says of a subscription (`record`, read for event `eventId`):
 * `applied` when the target's plan follows it, `recorded` when it is kept only, `cancelled` when
 * it was a second live subscription for its target and was ended at the provider.
 */
export async function applyLive(first: SubscriptionRecord, eventId: string, ports: LivePorts): Promise<LiveOutcome> {
  let record = first;
  let cancelled = false;
  // Each pass reads the link; a pass whose write finds it moved meanwhile decides again.
  for (let pass = 0; pass < 4; pass++) {
    const linked = await ports.billing.linkedSubscription(record.target);
    let mode: 'follow' | 'record' = 'follow';
    if (linked !== null && linked !== record.id) {
      if (!givesPlan(record.status)) mode = 'record';
      else if (await givesPlanNow(linked, ports)) {
        record = await cancelSecond(record, linked, ports);
        cancelled = true;
        mode = 'record';
      }
    }
    const write: LinkWrite = mode === 'follow' ? followWrite(record, linked) : { mode, linked };
    const outcome = await ports.billing.applySubscription(record, eventId, ports.clock.now(), write);
    if (outcome === 'contested') continue;
    if (outcome === 'applied' && mode === 'record') return 'recorded';
    return cancelled && (outcome === 'recorded' || outcome === 'applied') ? 'cancelled' : (outcome as LiveOutcome);
  }
  throw new Error(
    `the subscription linked to ${record.target.kind === 'user' ? record.target.userId : record.target.workspaceId} kept changing while ${record.id} was applied`,
  );
}

/** The provider's word, not the copy's: the copy of an ended subscription may still wait for its events. */
async function givesPlanNow(subscriptionId: string, ports: LivePorts): Promise<boolean> {
  const live = await ports.provider.retrieveSubscription(subscriptionId);
  return live !== null && givesPlan(live.status);
}

/**
 * Ends a second live subscription for a target at once, before its event is marked applied (a
 * failure here is the provider's retry's to finish), and answers its state afterwards.
 */
async function cancelSecond(record: SubscriptionRecord, linked: string, ports: LivePorts): Promise<SubscriptionRecord> {
  const ended = await ports.provider.cancelSubscription(record.id);
  ports.logger.warn('a second live subscription for a target already paid for was cancelled and its unused time credited', {
    subscription_id: record.id,
    live_subscription_id: linked,
    target_kind: record.target.kind,
  });
  const endedRecord = ended && recordOf(ended, ports, ports.clock.now());
  return endedRecord ?? { ...record, status: 'canceled', cancelAtPeriodEnd: false, syncedAt: ports.clock.now() };
}

/**
 * Once a checkout is paid, its target's other checkouts still open are closed, so no second
 * subscription is made from them (a paid one that slips through is cancelled by `applyLive`).
 * Best effort: a failure is logged, never the event's.
 */
export async function expireOtherCheckouts(record: SubscriptionRecord, ports: LivePorts): Promise<number> {
  const { target } = record;
  const forTarget = (metadata: Record<string, string>) =>
    target.kind === 'user'
      ? metadata.target === 'user' && metadata.user_id === target.userId
      : metadata.target === 'workspace' && metadata.workspace_id === target.workspaceId;
  try {
    const open = (await ports.provider.openCheckouts(record.customerId)).filter((session) => forTarget(session.metadata));
    let expired = 0;
    for (const session of open) if (await ports.provider.expireCheckout(session.id)) expired++;
    return expired;
  } catch (error) {
    ports.logger.warn('the target’s other open checkouts could not be expired', {
      subscription_id: record.id,
      error: (error as Error).message,
    });
    return 0;
  }
}
