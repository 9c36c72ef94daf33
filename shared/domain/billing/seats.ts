import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { givesPlan, type ProviderSubscription } from './model.ts';
import type { BillingStore, PaymentProvider } from './ports.ts';
import type { CheckoutPorts } from './checkout.ts';
import { followWrite, recordOf } from './live.ts';
import { Forbidden, Invalid, NotFound } from '../refusals.ts';

export interface SeatsPorts {
  provider: Pick<PaymentProvider, 'changeQuantity' | 'retrieveSubscription'>;
  billing: Pick<BillingStore, 'subscriptionOf' | 'customerOf' | 'lowerSeats' | 'restoreSeats' | 'applySubscription'>;
  checkoutWorkspaces: CheckoutPorts['checkoutWorkspaces'];
  config: CheckoutPorts['config'];
  clock: Clock;
}

const belowMembers = (members: number) =>
  new Invalid(`At least ${members} seats: one for each member. Remove members first to go lower.`, [
    { field: 'seats', message: `must be at least the member count, ${members}` },
  ]);

/** The owner after a transfer: the subscription stays billed to the customer of whoever bought it. */
export const notPayer = () =>
  new Forbidden(
    'This workspace’s Team plan is paid by the account that bought it (its owner before a transfer): only they change its seats, or cancel it in their billing portal. Once it has ended, buy Team for the workspace to pay for it yourself.',
    { facts: { reason: 'not_payer' } },
  );

/**
 * A Team workspace's seats, changed by whoever pays for its subscription (issue 26): its owner,
 * who bought it, and after a transfer still the previous owner, whose customer the provider
 * bills; the new owner is refused (403 `not_payer`) and takes billing over by buying Team once
 * the payer's subscription has ended. Prorated by the provider. Fewer seats are taken from the
 * roster first, in the same condition joins are checked against, so a join racing the change
 * either lands first (and the change is refused, 400) or finds no seat; more seats are given
 * once the provider has them. The provider's answer is applied at once (its event, later, finds
 * it applied or newer).
 */
export async function changeSeats(workspaceId: string, seats: number, userId: string, ports: SeatsPorts): Promise<{ seats: number }> {
  const seat = await ports.checkoutWorkspaces.seatOf(workspaceId, userId);
  const subscription = seat ? await ports.billing.subscriptionOf({ kind: 'workspace', workspaceId }) : null;
  const current = subscription && subscription.plan === 'team' && givesPlan(subscription.status) ? subscription : null;
  const payer = current !== null && (await ports.billing.customerOf(userId)) === current.customerId;
  if (!seat || (seat.role !== 'owner' && !payer))
    throw new Forbidden('Only the workspace’s owner changes its seats.', { facts: { reason: 'not_owner' } });
  // Its seats are the contract's (scripts/set-plan.ts), whatever a subscription pays for.
  if (seat.underContract)
    throw new Forbidden('This workspace is on an Enterprise contract: its seats are changed through sales.', {
      facts: { reason: 'contract_plan' },
    });
  if (!current) {
    throw new NotFound('This workspace has no Team subscription: buy Team for it first.', { facts: { reason: 'no_subscription' } });
  }
  if (!payer) throw notPayer();
  if (seats < seat.roster.members) throw belowMembers(seat.roster.members);
  if (seats === current.seats && seats === seat.roster.seats) return { seats };

  let lowered: number | null = null;
  if (seats < seat.roster.seats) {
    const held = await ports.billing.lowerSeats(workspaceId, seats);
    if (!held.lowered) throw belowMembers(held.members);
    lowered = held.previous;
  }
  const idempotencyKey = `seats-${workspaceId}-${randomUUID()}`;
  let changed: ProviderSubscription;
  try {
    // The provider's own item (and its word that the subscription still runs).
    const live = await ports.provider.retrieveSubscription(current.id);
    if (!live || !givesPlan(live.status))
      throw new NotFound('This workspace’s Team subscription has ended.', { facts: { reason: 'no_subscription' } });
    changed = await ports.provider.changeQuantity(current.id, live.itemId, seats, idempotencyKey);
  } catch (error) {
    if (lowered !== null) await ports.billing.restoreSeats(workspaceId, seats, lowered);
    throw error;
  }
  const record = recordOf(changed, ports, ports.clock.now());
  // As the subscription the plan follows: should the link have moved meanwhile, nothing is written and its events settle it.
  if (record) await ports.billing.applySubscription(record, idempotencyKey, ports.clock.now(), followWrite(record, current.id));
  return { seats: changed.quantity };
}
