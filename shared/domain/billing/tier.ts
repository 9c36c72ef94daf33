import type { Plan } from '../accounts/model.ts';
import { defaultPlan } from '../plans.ts';

/**
 * A person's effective tier (issue 16, DESIGN.md §7): the highest of their own plan and the
 * plans of the workspaces they belong to. Pro is bought by an account, Team for a workspace;
 * membership decides what a person may use and who is billed, never who can read a secret.
 */
const rank: Readonly<Record<Plan, number>> = { free: 0, pro: 1, team: 2, enterprise: 3 };

/** The highest of `plans`; a name the plan table does not know (or none at all) counts as the default plan. */
export const highestPlan = (plans: readonly Plan[]): Plan =>
  plans.reduce<Plan>((best, plan) => (Object.hasOwn(rank, plan) && rank[plan] > rank[best] ? plan : best), defaultPlan);

/**
 * An account's or a workspace's plan as it is held: the payment provider's (`plan`, which
 * billing writes as the provider's events say) and a contract's (`contractPlan`, which only
 * sales' command writes; absent: none). Each writer owns its own, so a subscription ending never
 * takes away what a contract gives. The stores hand both over as written; `planInUse` decides.
 */
export interface PlanFacts {
  plan: Plan;
  contractPlan?: Plan;
}

/** The plan an account or a workspace is on: the higher of the provider's and a contract's. */
export const planInUse = (facts: PlanFacts): Plan =>
  highestPlan(facts.contractPlan === undefined ? [facts.plan] : [facts.plan, facts.contractPlan]);

/** Where a person's plans come from. */
export interface TierSource {
  /** The person's own plan and those of the workspaces they are a member of now, as held (empty when the account does not exist). */
  plansOf(userId: string): Promise<PlanFacts[]>;
}

export interface TierPorts {
  tiers: TierSource;
}

/** The tier a signed-in person uses; an anonymous caller (null) gets the default plan's. */
export async function effectiveTier(userId: string | null, ports: TierPorts): Promise<Plan> {
  return userId === null ? defaultPlan : highestPlan((await ports.tiers.plansOf(userId)).map(planInUse));
}
