import { beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../shared/domain/accounts/model.ts';
import { planInUse, type PlanFacts, type TierSource } from '../../shared/domain/billing/tier.ts';
import { newUserId, newWorkspaceId } from '../../shared/ids.ts';

/** Where a plan comes from: the provider's (`plan`) and a contract's (`contractPlan`). */
export interface PlanHolder {
  plan?: Plan;
  contractPlan?: Plan;
}

/** How a contract puts what a TierSource reads (in DynamoDB, other stores' items). */
export interface TierSeed {
  user(userId: string, holder?: PlanHolder): Promise<void>;
  workspace(workspaceId: string, holder?: PlanHolder): Promise<void>;
  join(workspaceId: string, userId: string): Promise<void>;
  leave(workspaceId: string, userId: string): Promise<void>;
}

export interface TierStores {
  tiers: TierSource;
  seed: TierSeed;
}

/** Plans as a TierSource answers them, in a stable order for comparing. */
const sorted = (plans: PlanFacts[]) =>
  [...plans].sort((a, b) => `${a.plan}/${a.contractPlan}`.localeCompare(`${b.plan}/${b.contractPlan}`));

/**
 * The TierSource port's contract: a person's own plan and their workspaces' plans, each as held
 * (the provider's, and a contract's when there is one); the domain's planInUse takes the higher.
 */
export function describeTierSourceContract(name: string, make: () => TierStores | Promise<TierStores>): void {
  describe(`TierSource contract: ${name}`, () => {
    let tiers: TierSource;
    let seed: TierSeed;
    let userId: string;
    beforeEach(async () => {
      ({ tiers, seed } = await make());
      userId = newUserId();
    });

    it('answers no plans for an account that does not exist, whatever workspaces name it', async () => {
      const workspace = newWorkspaceId();
      await seed.workspace(workspace, { plan: 'team' });
      await seed.join(workspace, userId);
      expect(await tiers.plansOf(userId)).toEqual([]);
    });

    it('answers the account’s own plans as held (the provider’s, a contract’s), which the domain reads as the higher', async () => {
      await seed.user(userId);
      expect(await tiers.plansOf(userId)).toEqual([{ plan: 'free' }]);
      const other = newUserId();
      await seed.user(other, { plan: 'free', contractPlan: 'enterprise' });
      expect(await tiers.plansOf(other)).toEqual([{ plan: 'free', contractPlan: 'enterprise' }]);
      expect((await tiers.plansOf(other)).map(planInUse)).toEqual(['enterprise']);
      const pro = newUserId();
      await seed.user(pro, { plan: 'pro', contractPlan: 'free' });
      expect((await tiers.plansOf(pro)).map(planInUse)).toEqual(['pro']);
    });

    it('adds the plan of each workspace the person is a member of, while they are', async () => {
      const [team, enterprise, elsewhere] = [newWorkspaceId(), newWorkspaceId(), newWorkspaceId()];
      await seed.user(userId, { plan: 'pro' });
      await seed.workspace(team, { plan: 'team' });
      await seed.workspace(enterprise, { plan: 'free', contractPlan: 'enterprise' });
      await seed.workspace(elsewhere, { plan: 'team' });
      await seed.join(team, userId);
      await seed.join(enterprise, userId);
      expect(sorted(await tiers.plansOf(userId))).toEqual([
        { plan: 'free', contractPlan: 'enterprise' },
        { plan: 'pro' },
        { plan: 'team' },
      ]);
      await seed.leave(team, userId);
      expect(sorted(await tiers.plansOf(userId))).toEqual([{ plan: 'free', contractPlan: 'enterprise' }, { plan: 'pro' }]);
    });
  });
}
