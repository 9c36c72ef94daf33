import { beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../shared/domain/workspaces/model.ts';
import { newUserId, newWorkspaceId } from '../../shared/ids.ts';
import { actorOf, admins, aMember, anInvitation, anyone, audit, join, makeWorkspace, minute, owners, t0 } from './workspaceFixtures.ts';
import type { MakeWorkspaceWorld, WorkspaceWorld } from './workspaceWorld.ts';

/** The WorkspaceStore port's contract (shared/store/workspaces.ts), on the fake and on DynamoDB Local. */
export function describeWorkspaceStoreContract(name: string, make: MakeWorkspaceWorld): void {
  describe(`WorkspaceStore contract: ${name}`, () => {
    let world: WorkspaceWorld;
    beforeEach(async () => {
      world = await make();
    });

    const aWorkspace = (slug: string): Workspace => ({
      id: newWorkspaceId(),
      name: 'Acme',
      slug,
      region: 'eu-west-1',
      plan: 'free',
      createdAt: t0,
      policy: {},
    });
    const roster = { seats: 1, used: 1, owners: 1, members: 1 };

    it('makes a workspace with its roster, its owner and the audit row, read back as given', async () => {
      const workspace = aWorkspace(`acme-${newUserId().slice(4).toLowerCase()}`);
      const owner = aMember(workspace.id, 'owner');
      const row = audit(workspace.id, 'workspace.created');
      expect(await world.workspaces.create(workspace, roster, owner, row)).toBe('created');
      expect(await world.workspaces.get(workspace.id)).toEqual(workspace);
      expect(await world.workspaces.roster(workspace.id)).toEqual(roster);
      expect(await world.workspaces.member(workspace.id, owner.userId)).toEqual(owner);
      expect((await world.workspaces.auditPage(workspace.id, 10, null)).items).toEqual([row]);
    });

    it('answers null for what it does not hold', async () => {
      expect(await world.workspaces.get(newWorkspaceId())).toBeNull();
      expect(await world.workspaces.roster(newWorkspaceId())).toBeNull();
      expect(await world.workspaces.member(newWorkspaceId(), newUserId())).toBeNull();
      expect(await world.workspaces.membershipsOf(newUserId())).toEqual([]);
      expect(await world.workspaces.roll(newWorkspaceId())).toEqual({ members: [], invitations: [] });
    });

    it('refuses a taken slug and writes nothing of the second workspace', async () => {
      const slug = `taken-${newUserId().slice(4).toLowerCase()}`;
      const first = aWorkspace(slug);
      await world.workspaces.create(first, roster, aMember(first.id, 'owner'), audit(first.id));
      const second = aWorkspace(slug);
      const owner = aMember(second.id, 'owner');
      expect(await world.workspaces.create(second, roster, owner, audit(second.id))).toBe('slug_taken');
      expect(await world.workspaces.get(second.id)).toBeNull();
      expect(await world.workspaces.roster(second.id)).toBeNull();
      expect(await world.workspaces.member(second.id, owner.userId)).toBeNull();
      expect((await world.workspaces.auditPage(second.id, 10, null)).items).toEqual([]);
    });

    it('gives a slug to one of two workspaces made at once', async () => {
      const slug = `race-${newUserId().slice(4).toLowerCase()}`;
      const [a, b] = [aWorkspace(slug), aWorkspace(slug)];
      const outcomes = await Promise.all(
        [a, b].map((workspace) => world.workspaces.create(workspace, roster, aMember(workspace.id, 'owner'), audit(workspace.id))),
      );
      expect(outcomes.sort()).toEqual(['created', 'slug_taken']);
    });

    it('hands out copies: changing what was given or read changes nothing stored', async () => {
      const made = await makeWorkspace(world);
      made.workspace.policy.maxViews = 3;
      const read = (await world.workspaces.get(made.workspace.id))!;
      read.policy.maxViews = 9;
      read.name = 'changed';
      (await world.workspaces.roster(made.workspace.id))!.seats = 99;
      expect(await world.workspaces.get(made.workspace.id)).toMatchObject({ name: 'Acme', policy: {} });
      expect((await world.workspaces.roster(made.workspace.id))!.seats).toBe(1);
    });

    it('lists a person’s workspaces by id with the roster, the role and the branding; a removed membership goes', async () => {
      const a = await makeWorkspace(world, { seats: 3 });
      const b = await makeWorkspace(world, { seats: 3 });
      const person = await join(world, a, 'admin');
      await join(world, b, 'member', person);
      const branding = { displayName: 'Acme B', logo: null, accent: '#112233' };
      expect(await world.workspaces.setBranding(b.workspace.id, branding, b.ownerActs, audit(b.workspace.id))).toBe(true);
      const listed = await world.workspaces.membershipsOf(person.userId);
      const expected = [
        { workspace: a.workspace, roster: { seats: 3, used: 2, owners: 1, members: 2 }, role: 'admin', branding: null },
        { workspace: b.workspace, roster: { seats: 3, used: 2, owners: 1, members: 2 }, role: 'member', branding },
      ].sort((x, y) => (x.workspace.id < y.workspace.id ? -1 : 1));
      expect(listed).toEqual(expected);
      await world.memberships.removeMember({ ...person, workspaceId: a.workspace.id, role: 'admin' }, null, audit(a.workspace.id));
      expect((await world.workspaces.membershipsOf(person.userId)).map((one) => one.workspace.id)).toEqual([b.workspace.id]);
    });

    it('rolls members by user id and pending invitations by id, expired ones included', async () => {
      const made = await makeWorkspace(world, { seats: 5 });
      const members = [made.owner, await join(world, made), await join(world, made, 'admin')];
      const invitations = [
        anInvitation(made.workspace.id).invitation,
        anInvitation(made.workspace.id, 'admin', { expiresAt: t0 - minute }).invitation,
      ];
      for (const invitation of invitations)
        expect(await world.memberships.invite(invitation, made.ownerActs, audit(made.workspace.id))).toBe('invited');
      const roll = await world.workspaces.roll(made.workspace.id);
      expect(roll.members).toEqual([...members].sort((a, b) => (a.userId < b.userId ? -1 : 1)));
      expect(roll.invitations).toEqual([...invitations].sort((a, b) => (a.id < b.id ? -1 : 1)));
    });

    describe('settings', () => {
      it('sets the policy for an actor holding a role, with its audit row', async () => {
        const made = await makeWorkspace(world);
        const policy = { maxViews: 3, requirePassphrase: true, allowedRecipientDomains: ['example.com'] };
        const row = audit(made.workspace.id, 'policy.updated', t0 + minute);
        expect(await world.workspaces.setPolicy(made.workspace.id, policy, actorOf(made.owner, admins), row)).toBe(true);
        expect((await world.workspaces.get(made.workspace.id))!.policy).toEqual(policy);
        expect((await world.workspaces.auditPage(made.workspace.id, 1, null)).items).toEqual([row]);
      });

      it('refuses the policy and the branding to an actor whose role is not asked for, or who is no member, writing nothing', async () => {
        const made = await makeWorkspace(world, { seats: 2 });
        const member = await join(world, made);
        const before = await world.workspaces.auditPage(made.workspace.id, 10, null);
        for (const actor of [actorOf(member, admins), actorOf(made.owner, ['admin']), { userId: newUserId(), roles: anyone }]) {
          expect(await world.workspaces.setPolicy(made.workspace.id, { maxViews: 1 }, actor, audit(made.workspace.id))).toBe(false);
          expect(
            await world.workspaces.setBranding(
              made.workspace.id,
              { displayName: 'x', logo: null, accent: null },
              actor,
              audit(made.workspace.id),
            ),
          ).toBe(false);
        }
        expect((await world.workspaces.get(made.workspace.id))!.policy).toEqual({});
        expect(await world.membership.brandingOf(made.workspace.id)).toEqual({ plan: 'free', branding: null });
        expect(await world.workspaces.auditPage(made.workspace.id, 10, null)).toEqual(before);
      });

      it('saves the policy only while its SCIM admin Group is still the one it was decided from', async () => {
        const made = await makeWorkspace(world);
        const id = made.workspace.id;
        const owner = actorOf(made.owner, admins);
        // None yet: a save expecting one is refused; expecting none, saved.
        expect(await world.workspaces.setPolicy(id, { scimAdminGroup: 'g1' }, owner, audit(id), { was: 'g0' })).toBe(false);
        expect(await world.workspaces.setPolicy(id, { scimAdminGroup: 'g1' }, owner, audit(id), { was: null })).toBe(true);
        // Another owner named g1 meanwhile: a save decided from none is refused, and g1 stays.
        expect(await world.workspaces.setPolicy(id, { scimAdminGroup: 'g2' }, owner, audit(id), { was: null })).toBe(false);
        expect((await world.workspaces.get(id))!.policy).toEqual({ scimAdminGroup: 'g1' });
        expect(await world.workspaces.setPolicy(id, {}, owner, audit(id), { was: 'g1' })).toBe(true);
        expect(await world.workspaces.setPolicy(id, { maxViews: 2 }, owner, audit(id), { was: null })).toBe(true);
      });

      it('refuses the policy of a workspace that does not exist', async () => {
        const ghost = newWorkspaceId();
        expect(await world.workspaces.setPolicy(ghost, { maxViews: 1 }, { userId: newUserId(), roles: owners }, audit(ghost))).toBe(false);
      });

      it('sets the branding, read by memberships and by sending', async () => {
        const made = await makeWorkspace(world);
        const branding = { displayName: 'Acme Inc.', logo: 'data:image/png;base64,AAAA', accent: '#0055ff' };
        expect(await world.workspaces.setBranding(made.workspace.id, branding, made.ownerActs, audit(made.workspace.id))).toBe(true);
        expect((await world.workspaces.membershipsOf(made.owner.userId))[0]!.branding).toEqual(branding);
        expect(await world.membership.brandingOf(made.workspace.id)).toEqual({ plan: 'free', branding });
      });
    });

    describe('audit trail', () => {
      it('pages newest first; a full last page has no next cursor', async () => {
        const made = await makeWorkspace(world);
        const rows = [1, 2, 3, 4].map((n) => audit(made.workspace.id, `step.${n}`, t0 + n * minute));
        for (const row of rows) await world.workspaces.setPolicy(made.workspace.id, {}, made.ownerActs, row);
        const first = await world.workspaces.auditPage(made.workspace.id, 2, null);
        expect(first.items.map((row) => row.action)).toEqual(['step.4', 'step.3']);
        const second = await world.workspaces.auditPage(made.workspace.id, 3, first.nextCursor);
        expect(second.items.map((row) => row.action)).toEqual(['step.2', 'step.1', 'workspace.created']);
        expect(second.nextCursor).toBeNull();
        expect(second.items[0]).toEqual(rows[1]);
      });

      it('refuses a cursor changed by the caller or from another workspace', async () => {
        const a = await makeWorkspace(world);
        const b = await makeWorkspace(world);
        for (const made of [a, b])
          await world.workspaces.setPolicy(made.workspace.id, {}, made.ownerActs, audit(made.workspace.id, 'again', t0 + minute));
        const { nextCursor } = await world.workspaces.auditPage(a.workspace.id, 1, null);
        expect(nextCursor).not.toBeNull();
        await expect(world.workspaces.auditPage(b.workspace.id, 1, nextCursor)).rejects.toMatchObject({ name: 'InvalidCursor' });
        await expect(world.workspaces.auditPage(a.workspace.id, 1, `${nextCursor}x*`)).rejects.toMatchObject({ name: 'InvalidCursor' });
        await expect(world.workspaces.auditPage(a.workspace.id, 1, Buffer.from('{"pk":1}').toString('base64url'))).rejects.toMatchObject({
          name: 'InvalidCursor',
        });
      });
    });
  });
}
