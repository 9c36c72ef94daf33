import { randomUUID } from 'node:crypto';
import { givesPlan } from './model.ts';
import type { BillingPorts, BillingStore, CheckoutWorkspaces, PaymentProvider } from './ports.ts';
import { Conflict, Forbidden, Invalid, Unauthenticated } from '../refusals.ts';

export type { CheckoutWorkspaces } from './ports.ts';

/** A checkout asked for: Pro for the caller's account, or Team for a workspace (seats: its members' and invitations' by default). */
export interface NewCheckout {
  plan: 'pro' | 'team';
  workspaceId?: string | undefined;
  seats?: number | undefined;
  /** Pages of the web client to come back to (paths of this site). */
  successPath?: string | undefined;
  cancelPath?: string | undefined;
}

/** Each field of a checkout as the client sends it, so a refused field is named as it was sent. */
const sent = {
  plan: 'plan',
  workspaceId: 'workspace_id',
  seats: 'seats',
  successPath: 'success_path',
  cancelPath: 'cancel_path',
} as const satisfies Record<keyof NewCheckout, string>;

/** A conflict with a workspace whose seats an Enterprise contract sets: sales change them, not a subscription. */
export const underContract = () =>
  new Conflict('This workspace is on an Enterprise contract: its seats are changed through sales.', { facts: { reason: 'contract_plan' } });

export interface CheckoutPorts {
  provider: Pick<PaymentProvider, 'createCustomer' | 'createCheckoutSession'>;
  billing: Pick<BillingStore, 'customerOf' | 'keepCustomer' | 'subscriptionOf'>;
  users: BillingPorts['users'];
  config: BillingPorts['config'];
  checkoutWorkspaces: CheckoutWorkspaces;
}

/** A page of the web client to come back to: a path on its own origin, never another site; `field` names it as the client sent it. */
function backTo(path: string | undefined, fallback: string, field: (typeof sent)['successPath' | 'cancelPath'], origin: string): string {
  const chosen = path ?? fallback;
  if (!chosen.startsWith('/') || chosen.startsWith('//') || chosen.includes('\\')) {
    throw new Invalid('A return path is a path of this site.', [{ field, message: 'must be a path starting with a single /' }]);
  }
  return `${origin}${chosen}`;
}

const alreadyPaying = (byCaller = true) =>
  new Conflict(
    byCaller
      ? 'This already has an active subscription: change its seats, or manage it in the billing portal.'
      : 'This workspace’s Team plan is paid by the account that bought it (its owner before a transfer): once they have cancelled it and it has ended, buy Team here.',
    { facts: { reason: 'active_subscription' } },
  );

/**
 * A checkout at the provider for Pro (the caller's account) or Team (a workspace the caller
 * owns, for at least its members' seats). The account's customer is made once and reused; the
 * session carries who pays and for what (`client_reference_id`, metadata), which the webhook
 * reads back from the subscription it makes. 409 when the target already has an active one.
 */
export async function startCheckout(checkout: NewCheckout, userId: string, ports: CheckoutPorts): Promise<{ id: string; url: string }> {
  const origin = ports.config.WEB_ORIGIN;
  const successUrl = backTo(checkout.successPath, '/billing?checkout=success', sent.successPath, origin);
  const cancelUrl = backTo(checkout.cancelPath, '/billing?checkout=cancelled', sent.cancelPath, origin);
  let metadata: Record<string, string>;
  let quantity = 1;
  if (checkout.plan === 'pro') {
    if (checkout.workspaceId !== undefined || checkout.seats !== undefined) {
      throw new Invalid('Pro is bought for your account: no workspace or seats.', [
        { field: sent.plan, message: 'pro takes no workspace_id or seats' },
      ]);
    }
    const current = await ports.billing.subscriptionOf({ kind: 'user', userId });
    if (current && givesPlan(current.status)) throw alreadyPaying();
    metadata = { target: 'user', user_id: userId };
  } else {
    const { workspaceId } = checkout;
    if (workspaceId === undefined)
      throw new Invalid('Team is bought for a workspace.', [{ field: sent.workspaceId, message: 'is required for team' }]);
    const seat = await ports.checkoutWorkspaces.seatOf(workspaceId, userId);
    if (seat?.role !== 'owner') throw new Forbidden('Only the workspace’s owner buys its Team plan.', { facts: { reason: 'not_owner' } });
    if (seat.underContract) throw underContract();
    // Room for everyone in it now: the members and the invitations they sent out.
    quantity = checkout.seats ?? Math.max(seat.roster.used, seat.roster.members);
    if (quantity < seat.roster.members) {
      throw new Invalid(`At least ${seat.roster.members} seats: one for each member.`, [
        { field: sent.seats, message: `must be at least the member count, ${seat.roster.members}` },
      ]);
    }
    const current = await ports.billing.subscriptionOf({ kind: 'workspace', workspaceId });
    if (current && givesPlan(current.status)) throw alreadyPaying((await ports.billing.customerOf(userId)) === current.customerId);
    metadata = { target: 'workspace', workspace_id: workspaceId, user_id: userId };
  }
  const customerId = (await ports.billing.customerOf(userId)) ?? (await newCustomer(userId, ports));
  return ports.provider.createCheckoutSession({
    customerId,
    priceId: checkout.plan === 'pro' ? ports.config.PRICE_PRO : ports.config.PRICE_TEAM_SEAT,
    quantity,
    successUrl,
    cancelUrl,
    metadata,
    clientReferenceId: userId,
    idempotencyKey: `checkout-${userId}-${randomUUID()}`,
  });
}

async function newCustomer(userId: string, ports: CheckoutPorts): Promise<string> {
  const user = await ports.users.get(userId);
  if (!user) throw new Unauthenticated('Sign in first.');
  // A key of this attempt's own: Stripe replays a key's saved answer for 24 hours, a 500 included,
  // so a key per account would fail the account's checkouts for a day after one provider error.
  // Two first checkouts at once may each make a customer; the account keeps the first one stored.
  const made = await ports.provider.createCustomer(user.email, userId, `customer-${userId}-${randomUUID()}`);
  return ports.billing.keepCustomer(userId, made);
}
