import { beforeEach, describe, expect, it } from 'vitest';
import { planInUse } from '../../shared/domain/billing/tier.ts';
import { newUserId, newWorkspaceId } from '../../shared/ids.ts';
import { audit, join, makeWorkspace, onTeam, t0 } from './workspaceFixtures.ts';
import type { MakeWorkspaceWorld, WorkspaceWorld } from './workspaceWorld.ts';

/**
 * The reads other groups make of workspaces (shared/store/workspaceMembership.ts): sending's
 * WorkspaceMembership and billing's CheckoutWorkspaces, each seeing what the workspace, billing
 * and contract ports wrote.
 */
export function describeWorkspaceMembershipContract(name: string, make: MakeWorkspaceWorld): void {
  describe(`WorkspaceMembership contract: ${name}`, () => {
    let world: WorkspaceWorld;
    beforeEach(async () => {
      world = await make();
    });

    it('gives a member their role with the workspace’s plan and policy; null for anyone else', async () => {
      const made = await makeWorkspace(world, { seats: 2 });
      const policy = { maxViews: 2, allowFiles: false };
      await world.workspaces.setPolicy(made.workspace.id, policy, made.ownerActs, audit(made.workspace.id));
      const member = await join(world, made);
      expect(await world.membership.policyFor(made.workspace.id, member.userId)).toEqual({ role: 'member', plan: 'free', policy });
      expect(await world.membership.policyFor(made.workspace.id, newUserId())).toBeNull();
      expect(await world.membership.policyFor(newWorkspaceId(), made.owner.userId)).toBeNull();
      await world.memberships.removeMember(member, null, audit(made.workspace.id));
      expect(await world.membership.policyFor(made.workspace.id, member.userId)).toBeNull();
    });

    it('reads the plan a subscription gave and, beside it, a contract’s (the domain takes the higher)', async () => {
      const made = await makeWorkspace(world);
      await onTeam(world, made);
      expect(await world.membership.policyFor(made.workspace.id, made.owner.userId)).toMatchObject({ role: 'owner', plan: 'team' });
      expect(await world.membership.policyFor(made.workspace.id, made.owner.userId)).not.toHaveProperty('contractPlan');
      expect(await world.membership.brandingOf(made.workspace.id)).toEqual({ plan: 'team', branding: null });
      await world.contracts.setWorkspacePlan(
        made.workspace.id,
        'enterprise',
        5,
        { at: t0, by: 'sales', note: 'deal' },
        audit(made.workspace.id),
      );
      expect(await world.membership.policyFor(made.workspace.id, made.owner.userId)).toMatchObject({
        plan: 'team',
        contractPlan: 'enterprise',
      });
      expect(await world.membership.brandingOf(made.workspace.id)).toEqual({ plan: 'team', contractPlan: 'enterprise', branding: null });
      expect(await world.workspaces.get(made.workspace.id)).toMatchObject({ plan: 'team', contractPlan: 'enterprise' });
      expect(planInUse((await world.membership.policyFor(made.workspace.id, made.owner.userId))!)).toBe('enterprise');
    });

    it('gives the branding with the plan; null for a workspace that does not exist', async () => {
      const made = await makeWorkspace(world);
      expect(await world.membership.brandingOf(made.workspace.id)).toEqual({ plan: 'free', branding: null });
      const branding = { displayName: 'Acme', logo: null, accent: null };
      await world.workspaces.setBranding(made.workspace.id, branding, made.ownerActs, audit(made.workspace.id));
      expect(await world.membership.brandingOf(made.workspace.id)).toEqual({ plan: 'free', branding });
      expect(await world.membership.brandingOf(newWorkspaceId())).toBeNull();
    });

    it('gives a checkout the caller’s role, the roster and whether a contract sets the seats', async () => {
      const made = await makeWorkspace(world, { seats: 4 });
      const admin = await join(world, made, 'admin');
      expect(await world.checkout.seatOf(made.workspace.id, admin.userId)).toEqual({
        role: 'admin',
        roster: { seats: 4, used: 2, owners: 1, members: 2 },
        underContract: false,
      });
      await world.contracts.setWorkspacePlan(
        made.workspace.id,
        'enterprise',
        6,
        { at: t0, by: 'sales', note: 'deal' },
        audit(made.workspace.id),
      );
      expect(await world.checkout.seatOf(made.workspace.id, made.owner.userId)).toEqual({
        role: 'owner',
        roster: { seats: 6, used: 2, owners: 1, members: 2 },
        underContract: true,
      });
      await world.contracts.setWorkspacePlan(made.workspace.id, null, 6, { at: t0, by: 'sales', note: 'ended' }, audit(made.workspace.id));
      expect((await world.checkout.seatOf(made.workspace.id, made.owner.userId))!.underContract).toBe(false);
    });

    it('gives a checkout nothing for a non-member or a malformed id', async () => {
      const made = await makeWorkspace(world);
      expect(await world.checkout.seatOf(made.workspace.id, newUserId())).toBeNull();
      expect(await world.checkout.seatOf('not-a-workspace', made.owner.userId)).toBeNull();
    });
  });
}
