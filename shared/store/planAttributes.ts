import type { Plan } from '../domain/accounts/model.ts';
import type { PlanFacts } from '../domain/billing/tier.ts';
import type { ContractRecord } from '../domain/contractPlans.ts';

/**
 * An account's (`USER#<id>`/`PROFILE`) and a workspace's (`WORKSPACE#<id>`/`WORKSPACE`) plan is
 * held in two attributes: `plan`, which the payment provider's events write (billing), and
 * `contract_plan`, which only sales' admin command writes (scripts/set-plan.ts). Each writer owns
 * its own, so a subscription ending (`plan = free`) never takes away what a contract gives. The
 * users' and the workspaces' stores write them (these are their expressions) and every reader
 * hands both over as written (`PlanFacts`): which counts is the domain's (`planInUse`).
 */
export const planFactsOf = (item: Record<string, unknown>): PlanFacts => ({
  plan: item.plan as Plan,
  ...(typeof item.contract_plan === 'string' ? { contractPlan: item.contract_plan as Plan } : {}),
});

/** A projection of both (`plan` is a reserved word), to merge into a read's own names. */
export const planProjection = { expression: '#plan, contract_plan', names: { '#plan': 'plan' } } as const;

/** The provider's plan, on an item that exists (a target deleted meanwhile gets none). */
export const providerPlanUpdate = (plan: Plan) => ({
  UpdateExpression: 'SET #plan = :plan',
  ConditionExpression: 'attribute_exists(pk)',
  ExpressionAttributeNames: { '#plan': 'plan' },
  ExpressionAttributeValues: { ':plan': plan },
});

/** The contract's plan and its record: set with a plan, removed (the record kept) without. */
export function contractPlanUpdate(plan: Plan | null, record: ContractRecord) {
  const recorded = 'contract_plan_changed_at = :at, contract_plan_changed_by = :by, contract_plan_note = :note';
  return {
    UpdateExpression: plan === null ? `SET ${recorded} REMOVE contract_plan` : `SET contract_plan = :plan, ${recorded}`,
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':at': record.at, ':by': record.by, ':note': record.note, ...(plan === null ? {} : { ':plan': plan }) },
  };
}
