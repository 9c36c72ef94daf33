import { beforeEach, describe, expect, it } from 'vitest';
import { newUserId } from '../../shared/ids.ts';
import {
  actorOf,
  admins,
  aMember,
  anInvitation,
  audit,
  day,
  join,
  makeWorkspace,
  minute,
  setSeats,
  t0,
  type MadeWorkspace,
} from './workspaceFixtures.ts';
import type { MakeWorkspaceWorld, WorkspaceWorld } from './workspaceWorld.ts';

/**
 * The MembershipChanges port's contract (shared/store/workspaceMembershipChanges.ts): seats ≥
 * used, members ≤ seats on joining, the last owner kept, each invitation token used once, every
 * change refused when the actor's role went meanwhile, and the outcomes the domain branches on.
 */
export function describeMembershipChangesContract(name: string, make: MakeWorkspaceWorld): void {
  describe(`MembershipChanges contract: ${name}`, () => {
    let world: WorkspaceWorld;
    let made: MadeWorkspace;
    let ws: string;
    beforeEach(async () => {
      world = await make();
      made = await makeWorkspace(world, { seats: 3 });
      ws = made.workspace.id;
    });
    const roster = () => world.workspaces.roster(ws);
    const invite = async (role: 'member' | 'admin' = 'member', overrides = {}) => {
      const { invitation } = anInvitation(ws, role, overrides);
      return { invitation, outcome: await world.memberships.invite(invitation, made.ownerActs, audit(ws, 'member.invited')) };
    };

    describe('invitations', () => {
      it('takes a seat for an invitation, with its token pending', async () => {
        const { invitation, outcome } = await invite('admin');
        expect(outcome).toBe('invited');
        expect(await roster()).toEqual({ seats: 3, used: 2, owners: 1, members: 1 });
        expect(await world.memberships.invitationToken(invitation.tokenHash)).toEqual({
          tokenHash: invitation.tokenHash,
          workspaceId: ws,
          invitationId: invitation.id,
          email: invitation.email,
          role: 'admin',
          expiresAt: invitation.expiresAt,
          state: 'pending',
        });
        expect((await world.workspaces.roll(ws)).invitations).toEqual([invitation]);
        expect(await world.memberships.invitationToken('no-such-hash')).toBeNull();
      });

      it('refuses an invitation when members and invitations fill the seats, writing nothing', async () => {
        await invite();
        await invite();
        const { invitation, outcome } = await invite();
        expect(outcome).toBe('no_seat');
        expect(await roster()).toEqual({ seats: 3, used: 3, owners: 1, members: 1 });
        expect(await world.memberships.invitationToken(invitation.tokenHash)).toBeNull();
      });

      it('gives the last seat to one of two invitations made at once', async () => {
        await invite();
        const outcomes = await Promise.all([invite(), invite()]);
        expect(outcomes.map((one) => one.outcome).sort()).toEqual(['invited', 'no_seat']);
        expect((await roster())!.used).toBe(3);
      });

      it('refuses an actor whose role is not asked for (or who is no member)', async () => {
        const member = await join(world, made);
        for (const actor of [actorOf(member, admins), { userId: newUserId(), roles: admins }]) {
          const { invitation } = anInvitation(ws);
          expect(await world.memberships.invite(invitation, actor, audit(ws))).toBe('refused');
          expect(await world.memberships.invitationToken(invitation.tokenHash)).toBeNull();
        }
        expect((await roster())!.used).toBe(2);
      });

      it('revokes a pending invitation once, giving its seat back; the token says so', async () => {
        const { invitation } = await invite();
        expect(await world.memberships.revokeInvitation(invitation, made.ownerActs, audit(ws))).toBe('revoked');
        expect((await world.memberships.invitationToken(invitation.tokenHash))!.state).toBe('revoked');
        expect((await roster())!.used).toBe(1);
        expect((await world.workspaces.roll(ws)).invitations).toEqual([]);
        expect(await world.memberships.revokeInvitation(invitation, made.ownerActs, audit(ws))).toBe('gone');
        expect((await roster())!.used).toBe(1);
      });

      it('refuses a revocation to an actor without the role, before anything else', async () => {
        const member = await join(world, made);
        const { invitation } = await invite();
        expect(await world.memberships.revokeInvitation(invitation, actorOf(member, admins), audit(ws))).toBe('refused');
        expect((await world.memberships.invitationToken(invitation.tokenHash))!.state).toBe('pending');
      });

      it('reclaims an expired invitation’s seat once, and never a live one’s', async () => {
        const { invitation } = await invite('member', { expiresAt: t0 + day });
        expect(await world.memberships.reclaimExpired(invitation, t0 + day - 1, audit(ws))).toBe(false);
        expect(await world.memberships.reclaimExpired(invitation, t0 + day, audit(ws))).toBe(true);
        expect((await roster())!.used).toBe(1);
        // Its token stays pending; accepting it is refused by its expiry.
        expect((await world.memberships.invitationToken(invitation.tokenHash))!.state).toBe('pending');
        expect(await world.memberships.reclaimExpired(invitation, t0 + 2 * day, audit(ws))).toBe(false);
        expect((await roster())!.used).toBe(1);
      });

      it('reclaims nothing of an invitation revoked meanwhile', async () => {
        const { invitation } = await invite('member', { expiresAt: t0 + minute });
        await world.memberships.revokeInvitation(invitation, made.ownerActs, audit(ws));
        expect(await world.memberships.reclaimExpired(invitation, t0 + day, audit(ws))).toBe(false);
        expect((await roster())!.used).toBe(1);
      });
    });

    describe('accepting', () => {
      it('turns the invitation’s seat into a membership and uses the token', async () => {
        const { invitation } = await invite('admin');
        const token = (await world.memberships.invitationToken(invitation.tokenHash))!;
        const member = aMember(ws, 'admin', { email: invitation.email, joinedAt: t0 + minute });
        expect(await world.memberships.accept(token, member, t0 + minute, audit(ws, 'member.joined'))).toBe('joined');
        expect(await world.workspaces.member(ws, member.userId)).toEqual(member);
        expect(await roster()).toEqual({ seats: 3, used: 2, owners: 1, members: 2 });
        expect((await world.memberships.invitationToken(invitation.tokenHash))!.state).toBe('used');
        expect((await world.workspaces.roll(ws)).invitations).toEqual([]);
      });

      it('uses a token once, however many accept it at once', async () => {
        const { invitation } = await invite();
        const token = (await world.memberships.invitationToken(invitation.tokenHash))!;
        const outcomes = await Promise.all(
          [aMember(ws), aMember(ws)].map((member) => world.memberships.accept(token, member, t0, audit(ws))),
        );
        expect(outcomes.sort()).toEqual(['gone', 'joined']);
        expect(await roster()).toEqual({ seats: 3, used: 2, owners: 1, members: 2 });
        expect(await world.memberships.accept(token, aMember(ws), t0, audit(ws))).toBe('gone');
      });

      it('refuses an expired token, and one revoked meanwhile', async () => {
        const expiring = await invite('member', { expiresAt: t0 + day });
        const token = (await world.memberships.invitationToken(expiring.invitation.tokenHash))!;
        expect(await world.memberships.accept(token, aMember(ws), t0 + day, audit(ws))).toBe('gone');
        const revoked = await invite();
        const revokedToken = (await world.memberships.invitationToken(revoked.invitation.tokenHash))!;
        await world.memberships.revokeInvitation(revoked.invitation, made.ownerActs, audit(ws));
        expect(await world.memberships.accept(revokedToken, aMember(ws), t0, audit(ws))).toBe('gone');
        expect((await roster())!.members).toBe(1);
      });

      it('settles the token of someone who joined another way: used, its seat given back', async () => {
        const member = await join(world, made);
        const { invitation } = await invite('member', { email: member.email });
        const token = (await world.memberships.invitationToken(invitation.tokenHash))!;
        expect(await world.memberships.accept(token, { ...member, joinedAt: t0 + minute }, t0, audit(ws))).toBe('already_member');
        expect((await world.memberships.invitationToken(invitation.tokenHash))!.state).toBe('used');
        expect(await roster()).toEqual({ seats: 3, used: 2, owners: 1, members: 2 });
        expect((await world.workspaces.member(ws, member.userId))!.joinedAt).toBe(t0);
      });

      it('refuses to join into seats lowered below the invitation since; the token stays pending', async () => {
        const { invitation } = await invite();
        await setSeats(world, ws, 1);
        const token = (await world.memberships.invitationToken(invitation.tokenHash))!;
        expect(await world.memberships.accept(token, aMember(ws), t0, audit(ws))).toBe('no_seat');
        expect((await world.memberships.invitationToken(invitation.tokenHash))!.state).toBe('pending');
        expect(await roster()).toEqual({ seats: 1, used: 2, owners: 1, members: 1 });
      });

      it('lets a seat be lowered or joined into, never both, when they race', async () => {
        const { invitation } = await invite();
        const token = (await world.memberships.invitationToken(invitation.tokenHash))!;
        const [joined, lowered] = await Promise.all([
          world.memberships.accept(token, aMember(ws), t0, audit(ws)),
          world.billing.lowerSeats(ws, 1),
        ]);
        expect([joined === 'joined', lowered.lowered].filter(Boolean)).toHaveLength(1);
        const after = (await roster())!;
        expect(after.members).toBeLessThanOrEqual(after.seats);
      });
    });

    describe('members and roles', () => {
      it('removes a member with its seat; again, it has changed', async () => {
        const member = await join(world, made);
        expect(await world.memberships.removeMember(member, made.ownerActs, audit(ws))).toBe('removed');
        expect(await world.workspaces.member(ws, member.userId)).toBeNull();
        expect(await roster()).toEqual({ seats: 3, used: 1, owners: 1, members: 1 });
        expect(await world.memberships.removeMember(member, made.ownerActs, audit(ws))).toBe('changed');
      });

      it('never removes the last owner; a member read with another role has changed', async () => {
        expect(await world.memberships.removeMember(made.owner, null, audit(ws))).toBe('last_owner');
        const admin = await join(world, made, 'admin');
        expect(await world.memberships.removeMember({ ...admin, role: 'member' }, made.ownerActs, audit(ws))).toBe('changed');
        expect(await roster()).toEqual({ seats: 3, used: 2, owners: 1, members: 2 });
      });

      it('refuses a removal whose actor lost the role; one leaving needs none', async () => {
        const member = await join(world, made);
        const other = await join(world, made);
        expect(await world.memberships.removeMember(other, actorOf(member, admins), audit(ws))).toBe('changed');
        expect(await world.memberships.removeMember(member, actorOf(member, admins), audit(ws))).toBe('removed');
        expect((await roster())!.members).toBe(2);
      });

      it('changes a role, counting owners', async () => {
        const member = await join(world, made);
        expect(await world.memberships.changeRole(member, 'owner', made.ownerActs, audit(ws))).toBe('changed');
        expect((await world.workspaces.member(ws, member.userId))!.role).toBe('owner');
        expect((await roster())!.owners).toBe(2);
        expect(await world.memberships.changeRole(member, 'admin', made.ownerActs, audit(ws))).toBe('conflict');
        expect(await world.memberships.changeRole({ ...member, role: 'owner' }, 'admin', made.ownerActs, audit(ws))).toBe('changed');
        expect((await roster())!.owners).toBe(1);
      });

      it('never demotes the last owner, even two owners demoting each other at once', async () => {
        expect(await world.memberships.changeRole(made.owner, 'admin', made.ownerActs, audit(ws))).toBe('last_owner');
        const second = await join(world, made, 'admin');
        await world.memberships.changeRole(second, 'owner', made.ownerActs, audit(ws));
        const both = [made.owner, { ...second, role: 'owner' as const }];
        const outcomes = await Promise.all(
          both.map((owner, i) => world.memberships.changeRole(owner, 'admin', actorOf(both[1 - i]!, ['owner']), audit(ws))),
        );
        expect(outcomes).toContain('changed');
        expect(outcomes).not.toEqual(['changed', 'changed']);
        expect((await roster())!.owners).toBe(1);
      });

      it('refuses a role change whose actor lost the role', async () => {
        const member = await join(world, made);
        const other = await join(world, made);
        expect(await world.memberships.changeRole(other, 'admin', actorOf(member, admins), audit(ws))).toBe('conflict');
        expect((await world.workspaces.member(ws, other.userId))!.role).toBe('member');
      });

      it('hands the workspace over: the target owner, the owner an admin, one owner still', async () => {
        const member = await join(world, made);
        expect(await world.memberships.transfer(made.owner, member, audit(ws))).toBe('transferred');
        expect((await world.workspaces.member(ws, member.userId))!.role).toBe('owner');
        expect((await world.workspaces.member(ws, made.owner.userId))!.role).toBe('admin');
        expect((await roster())!.owners).toBe(1);
        expect(await world.memberships.transfer(made.owner, member, audit(ws))).toBe('conflict');
      });

      it('hands over to another owner: one owner fewer', async () => {
        const second = await join(world, made, 'admin');
        await world.memberships.changeRole(second, 'owner', made.ownerActs, audit(ws));
        expect(await world.memberships.transfer(made.owner, { ...second, role: 'owner' }, audit(ws))).toBe('transferred');
        expect((await roster())!.owners).toBe(1);
      });
    });
  });
}
