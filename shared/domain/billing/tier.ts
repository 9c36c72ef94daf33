import type { Plan } from '../accounts/model.ts';
import { defaultPlan } from '../plans.ts';

/**
 * A person's effective tier (issue 16, DESIGN.md §7): the highest of their own plan and the
 * plans of the workspaces they belong to. Pro is bought by an account, Team for a workspace;
 * membership decides what a person may use and who is billed, never who can read a secret.
 */
const rank: Readonly<Record<Plan, number>> = { free: 0, pro: 1, team: 2, enterprise: 3 };

/** The highest of `plans`; a name the plan table does not know (or none at all) counts as the default plan. */
export const highestPlan = (plans: readonly Plan[]): Plan => plans.reduce<Plan>((best, plan) => (Object.hasOwn(rank, plan) && rank[plan] > rank[best] ? plan : best), defaultPlan);

/** Where a person's plans come from. */
export interface TierSource {
  /** The person's own plan and their workspaces' plans (empty when the account does not exist). */
  plansOf(userId: string): Promise<Plan[]>;
}

export interface TierPorts {
  tiers: TierSource;
}

/** The tier a signed-in person uses; an anonymous caller (null) gets the default plan's. */
export async function effectiveTier(userId: string | null, ports: TierPorts): Promise<Plan> {
  return userId === null ? defaultPlan : highestPlan(await ports.tiers.plansOf(userId));
}
