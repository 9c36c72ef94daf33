import type { Plan } from '../accounts/model.ts';
import { defaultPlan } from '../plans.ts';
import { effectiveTier, planInUse, type TierPorts } from './tier.ts';
import type { BillingStore } from './ports.ts';
import type { SubscriptionRecord } from './model.ts';
import type { UserStore } from '../accounts/ports.ts';
import { readUsage, type UsageReadPorts } from '../usage/read.ts';

export interface SubscriptionView {
  /** The account's own plan (what it pays for); `tier` adds its workspaces'. */
  plan: Plan;
  tier: Plan;
  subscription: SubscriptionRecord | null;
  usage: { live_secrets: number; bytes_stored: number; calls_this_month: number };
}

/** The caller's subscription (an account's Pro), tier and this period's usage; a free account gets `free` and its usage. */
export async function readSubscription(
  userId: string,
  ports: TierPorts & UsageReadPorts & { billing: Pick<BillingStore, 'subscriptionOf'>; users: Pick<UserStore, 'get'> },
): Promise<SubscriptionView> {
  const [user, tier, subscription, usage] = await Promise.all([
    ports.users.get(userId),
    effectiveTier(userId, ports),
    ports.billing.subscriptionOf({ kind: 'user', userId }),
    readUsage(userId, ports),
  ]);
  return {
    plan: user ? planInUse(user) : defaultPlan,
    tier,
    subscription,
    usage: { live_secrets: usage.live_secrets, bytes_stored: usage.bytes_stored, calls_this_month: usage.calls_this_month },
  };
}
