import type { Plan } from '../../shared/domain/accounts/model.ts';
import type { PlanFacts, TierSource } from '../../shared/domain/billing/tier.ts';
import { defaultPlan } from '../../shared/domain/plans.ts';

/** Where a plan comes from: the payment provider's events (`plan`) and sales' contracts (`contractPlan`); the domain decides which counts. */
export interface PlanHolder {
  plan?: Plan;
  contractPlan?: Plan;
}

/**
 * What a tier is read from, synchronously: the account's own plan (null: no such account) and
 * the plans of the workspaces the person is a member of now, each a plan or both as held. By
 * default the source's own seeded maps; pass others to read the account and workspace fakes a
 * use case writes through.
 */
export interface TierFacts {
  userPlan(userId: string): Plan | PlanFacts | null;
  workspacePlans(userId: string): Array<Plan | PlanFacts>;
}

const factsOf = (holder: PlanHolder): PlanFacts => ({
  plan: holder.plan ?? defaultPlan,
  ...(holder.contractPlan === undefined ? {} : { contractPlan: holder.contractPlan }),
});
const held = (value: Plan | PlanFacts): PlanFacts => (typeof value === 'string' ? { plan: value } : factsOf(value));

/**
 * TierSource in memory (DynamoTierSource reads the account item and the member and workspace
 * items other stores write), answering each plan as held: the provider's and a contract's.
 * Seeded with `setUser`, `setWorkspace`, `join`, `leave`, or reading `facts` given. A workspace
 * counts while the person is a member; no account, no plans.
 */
export class MemoryTierSource implements TierSource {
  private readonly users = new Map<string, PlanFacts>();
  private readonly workspaces = new Map<string, { plan: PlanFacts; members: Set<string> }>();

  constructor(
    private readonly facts: TierFacts = {
      userPlan: (userId) => this.users.get(userId) ?? null,
      workspacePlans: (userId) =>
        [...this.workspaces.values()].filter((workspace) => workspace.members.has(userId)).map((workspace) => workspace.plan),
    },
  ) {}

  /** The account exists, with these plans. */
  setUser(userId: string, holder: PlanHolder = {}): this {
    this.users.set(userId, factsOf(holder));
    return this;
  }

  setWorkspace(workspaceId: string, holder: PlanHolder = {}): this {
    this.workspaces.set(workspaceId, { plan: factsOf(holder), members: this.workspaces.get(workspaceId)?.members ?? new Set() });
    return this;
  }

  join(workspaceId: string, userId: string): this {
    if (!this.workspaces.has(workspaceId)) this.setWorkspace(workspaceId);
    this.workspaces.get(workspaceId)!.members.add(userId);
    return this;
  }

  leave(workspaceId: string, userId: string): this {
    this.workspaces.get(workspaceId)?.members.delete(userId);
    return this;
  }

  async plansOf(userId: string): Promise<PlanFacts[]> {
    const own = this.facts.userPlan(userId);
    return own === null ? [] : [held(own), ...this.facts.workspacePlans(userId).map(held)];
  }
}
