import { beforeEach, describe, expect, it } from 'vitest';
import { newUserId, newWorkspaceId } from '../../shared/ids.ts';
import { audit, follow, join, makeWorkspace, newAddress, onTeam, t0 } from './workspaceFixtures.ts';
import type { MakeWorkspaceWorld, WorkspaceWorld } from './workspaceWorld.ts';

const record = { at: t0, by: 'sales@hushlink', note: 'contract 42' };

/**
 * The ContractPlanStore port's contract (shared/store/contractPlans.ts): a contract plan beside
 * the provider's (readers take the higher), and a workspace's seats with it, only while its
 * members fit in them, with the audit row.
 */
export function describeContractPlanStoreContract(name: string, make: MakeWorkspaceWorld): void {
  describe(`ContractPlanStore contract: ${name}`, () => {
    let world: WorkspaceWorld;
    beforeEach(async () => {
      world = await make();
    });

    it('reads an account by address with both plans; null for an unknown address', async () => {
      const id = newUserId();
      const email = newAddress('buyer');
      await world.addAccount({ id, email, plan: 'pro', createdAt: t0 });
      expect(await world.contracts.account(email)).toEqual({ userId: id, email, providerPlan: 'pro', contractPlan: null });
      expect(await world.contracts.account(newAddress('nobody'))).toBeNull();
    });

    it('sets and takes away an account’s contract plan, which the account’s plan follows', async () => {
      const id = newUserId();
      const email = newAddress('buyer');
      await world.addAccount({ id, email, plan: 'pro', createdAt: t0 });
      expect(await world.contracts.setAccountPlan(id, 'enterprise', record)).toBe(true);
      expect((await world.contracts.account(email))!.contractPlan).toBe('enterprise');
      expect(await world.accountPlan(id)).toBe('enterprise');
      expect(await world.contracts.setAccountPlan(id, null, record)).toBe(true);
      expect(await world.contracts.account(email)).toEqual({ userId: id, email, providerPlan: 'pro', contractPlan: null });
      expect(await world.accountPlan(id)).toBe('pro');
      expect(await world.contracts.setAccountPlan(newUserId(), 'enterprise', record)).toBe(false);
    });

    it('reads a workspace’s plans, seats and members; null for one that does not exist', async () => {
      const made = await makeWorkspace(world, { seats: 3, name: 'Initech' });
      await join(world, made);
      expect(await world.contracts.workspace(made.workspace.id)).toEqual({
        workspaceId: made.workspace.id,
        name: 'Initech',
        providerPlan: 'free',
        contractPlan: null,
        seats: 3,
        members: 2,
      });
      expect(await world.contracts.workspace(newWorkspaceId())).toBeNull();
    });

    it('sets a workspace’s contract with its seats and audit row; the seats are then the contract’s', async () => {
      const made = await makeWorkspace(world);
      await onTeam(world, made, 3);
      const row = audit(made.workspace.id, 'plan.contract_set', t0 + 1);
      expect(await world.contracts.setWorkspacePlan(made.workspace.id, 'enterprise', 20, record, row)).toBe('set');
      expect(await world.contracts.workspace(made.workspace.id)).toMatchObject({
        providerPlan: 'team',
        contractPlan: 'enterprise',
        seats: 20,
      });
      expect(await world.workspaces.get(made.workspace.id)).toMatchObject({ plan: 'team', contractPlan: 'enterprise' });
      expect((await world.checkout.seatOf(made.workspace.id, made.owner.userId))!.underContract).toBe(true);
      expect((await world.workspaces.auditPage(made.workspace.id, 1, null)).items).toEqual([row]);
    });

    it('takes a contract away with the seats given; the provider’s events set seats again', async () => {
      const made = await makeWorkspace(world);
      const team = await onTeam(world, made, 3);
      await world.contracts.setWorkspacePlan(made.workspace.id, 'enterprise', 20, record, audit(made.workspace.id));
      expect(await world.contracts.setWorkspacePlan(made.workspace.id, null, 3, record, audit(made.workspace.id))).toBe('set');
      expect(await world.contracts.workspace(made.workspace.id)).toMatchObject({ contractPlan: null, seats: 3 });
      expect((await world.workspaces.get(made.workspace.id))!.plan).toBe('team');
      expect((await world.workspaces.get(made.workspace.id))!.contractPlan).toBeUndefined();
      const renewed = { ...team, seats: 6, syncedAt: t0 + 1 };
      await world.billing.applySubscription(renewed, `evt_${newUserId().slice(4)}`, t0, follow(renewed, team.id));
      expect((await world.workspaces.roster(made.workspace.id))!.seats).toBe(6);
    });

    it('refuses seats below the members and an unknown workspace, writing nothing', async () => {
      const made = await makeWorkspace(world, { seats: 3 });
      await join(world, made);
      await join(world, made);
      const before = await world.workspaces.auditPage(made.workspace.id, 10, null);
      expect(await world.contracts.setWorkspacePlan(made.workspace.id, 'enterprise', 2, record, audit(made.workspace.id))).toBe(
        'below_members',
      );
      expect(await world.contracts.workspace(made.workspace.id)).toMatchObject({ contractPlan: null, seats: 3 });
      expect(await world.workspaces.auditPage(made.workspace.id, 10, null)).toEqual(before);
      expect(await world.contracts.setWorkspacePlan(newWorkspaceId(), 'enterprise', 5, record, audit(made.workspace.id))).toBe('not_found');
    });
  });
}
