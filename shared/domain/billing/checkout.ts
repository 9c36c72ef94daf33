import { randomUUID } from 'node:crypto';
import { HttpError } from '../../http/errors.ts';
import { givesPlan } from './model.ts';
import type { BillingPorts, BillingStore, PaymentProvider } from './ports.ts';
import type { Role, Roster } from '../workspaces/model.ts';

export interface CheckoutBody {
  plan: 'pro' | 'team';
  workspace_id?: string | undefined;
  seats?: number | undefined;
  success_path?: string | undefined;
  cancel_path?: string | undefined;
}

/** What a Team checkout needs to know of the workspace: the caller's role in it, its roster, and whether an Enterprise contract sets its seats. */
export interface CheckoutWorkspaces {
  seatOf(workspaceId: string, userId: string): Promise<{ role: Role; roster: Roster; underContract: boolean } | null>;
}

/** 409 for a workspace whose seats an Enterprise contract sets: sales change them, not a subscription. */
export const underContract = () =>
  new HttpError(409, 'conflict', 'This workspace is on an Enterprise contract: its seats are changed through sales.', { members: { reason: 'contract_plan' } });

export interface CheckoutPorts {
  provider: Pick<PaymentProvider, 'createCustomer' | 'createCheckoutSession'>;
  billing: Pick<BillingStore, 'customerOf' | 'keepCustomer' | 'subscriptionOf'>;
  users: BillingPorts['users'];
  config: BillingPorts['config'];
  checkoutWorkspaces: CheckoutWorkspaces;
}

/** A page of the web client to come back to: a path on its own origin, never another site. */
function backTo(path: string | undefined, fallback: string, field: string, origin: string): string {
  const chosen = path ?? fallback;
  if (!chosen.startsWith('/') || chosen.startsWith('//') || chosen.includes('\\')) {
    throw new HttpError(400, 'invalid_request', 'A return path is a path of this site.', { errors: [{ path: `body.${field}`, message: 'must be a path starting with a single /' }] });
  }
  return `${origin}${chosen}`;
}

const alreadyPaying = (byCaller = true) =>
  new HttpError(
    409,
    'conflict',
    byCaller
      ? 'This already has an active subscription: change its seats, or manage it in the billing portal.'
      : 'This workspace’s Team plan is paid by the account that bought it (its owner before a transfer): once they have cancelled it and it has ended, buy Team here.',
    { members: { reason: 'active_subscription' } },
  );

/**
 * A checkout at the provider for Pro (the caller's account) or Team (a workspace the caller
 * owns, for at least its members' seats). The account's customer is made once and reused; the
 * session carries who pays and for what (`client_reference_id`, metadata), which the webhook
 * reads back from the subscription it makes. 409 when the target already has an active one.
 */
export async function startCheckout(body: CheckoutBody, userId: string, ports: CheckoutPorts): Promise<{ id: string; url: string }> {
  const origin = ports.config.WEB_ORIGIN;
  const successUrl = backTo(body.success_path, '/billing?checkout=success', 'success_path', origin);
  const cancelUrl = backTo(body.cancel_path, '/billing?checkout=cancelled', 'cancel_path', origin);
  let metadata: Record<string, string>;
  let quantity = 1;
  if (body.plan === 'pro') {
    if (body.workspace_id !== undefined || body.seats !== undefined) {
      throw new HttpError(400, 'invalid_request', 'Pro is bought for your account: no workspace or seats.', { errors: [{ path: 'body.plan', message: 'pro takes no workspace_id or seats' }] });
    }
    const current = await ports.billing.subscriptionOf({ kind: 'user', userId });
    if (current && givesPlan(current.status)) throw alreadyPaying();
    metadata = { target: 'user', user_id: userId };
  } else {
    if (body.workspace_id === undefined) throw new HttpError(400, 'invalid_request', 'Team is bought for a workspace.', { errors: [{ path: 'body.workspace_id', message: 'is required for team' }] });
    const seat = await ports.checkoutWorkspaces.seatOf(body.workspace_id, userId);
    if (!seat || seat.role !== 'owner') {
      throw new HttpError(403, 'forbidden', 'Only the workspace’s owner buys its Team plan.', { members: { reason: 'not_owner' } });
    }
    if (seat.underContract) throw underContract();
    // Room for everyone in it now: the members and the invitations they sent out.
    quantity = body.seats ?? Math.max(seat.roster.used, seat.roster.members);
    if (quantity < seat.roster.members) {
      throw new HttpError(400, 'invalid_request', `At least ${seat.roster.members} seats: one for each member.`, { errors: [{ path: 'body.seats', message: `must be at least the member count, ${seat.roster.members}` }] });
    }
    const current = await ports.billing.subscriptionOf({ kind: 'workspace', workspaceId: body.workspace_id });
    if (current && givesPlan(current.status)) throw alreadyPaying((await ports.billing.customerOf(userId)) === current.customerId);
    metadata = { target: 'workspace', workspace_id: body.workspace_id, user_id: userId };
  }
  const customerId = (await ports.billing.customerOf(userId)) ?? (await newCustomer(userId, ports));
  return ports.provider.createCheckoutSession({
    customerId,
    priceId: body.plan === 'pro' ? ports.config.PRICE_PRO : ports.config.PRICE_TEAM_SEAT,
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
  if (!user) throw new HttpError(401, 'unauthorized', 'Sign in first.');
  // One key per account: two checkouts at once, or a retry, make one customer at the provider.
  const made = await ports.provider.createCustomer(user.email, userId, `customer-${userId}`);
  return ports.billing.keepCustomer(userId, made);
}
