import type { Plan } from '../domain/accounts/model.ts';
import { highestPlan } from '../domain/billing/tier.ts';

/**
 * An account's (`USER#<id>`/`PROFILE`) and a workspace's (`WORKSPACE#<id>`/`WORKSPACE`) plan is
 * held in two attributes: `plan`, which the payment provider's events write, and `contract_plan`,
 * which only sales' admin command writes (scripts/set-plan.ts). Each writer owns its own, so a
 * subscription ending (`plan = free`) never takes away what a contract gives; whoever reads a
 * plan reads both, through here, and the higher counts (the domain's `highestPlan`, which takes a
 * name it does not know, or none, for the default plan).
 */
export const planOfItem = (item: Record<string, unknown>): Plan => highestPlan([item.plan as Plan, item.contract_plan as Plan]);

/** A projection of both (`plan` is a reserved word), to merge into a read's own names. */
export const planProjection = { expression: '#plan, contract_plan', names: { '#plan': 'plan' } } as const;
