import { beforeEach, describe, expect, it } from 'vitest';
import type { RoleStep, ScimGroup, ScimGroupStore } from '../../shared/domain/scim/groupModel.ts';
import { roleAudit } from '../../shared/domain/scim/groupRoles.ts';
import { newScimGroupId, newScimUserId } from '../../shared/ids.ts';
import { audit, join, makeWorkspace, setSeats, t0, type MadeWorkspace } from './workspaceFixtures.ts';
import type { WorkspaceWorld } from './workspaceWorld.ts';

export type MakeGroupWorld = () => Promise<{ world: WorkspaceWorld; groups: ScimGroupStore }>;

/**
 * The ScimGroupStore port's contract (shared/store/scimGroups.ts): displayName (any case) and
 * externalId unique per workspace, writes refused when the Group's version, the policy's admin
 * Group or a moved member's role is not what the change was decided on, roles written with their
 * audit rows, and pages in one order with the count beside them.
 */
export function describeScimGroupStoreContract(name: string, make: MakeGroupWorld): void {
  describe(`ScimGroupStore contract: ${name}`, () => {
    let world: WorkspaceWorld;
    let groups: ScimGroupStore;
    let made: MadeWorkspace;
    let ws: string;
    beforeEach(async () => {
      ({ world, groups } = await make());
      made = await makeWorkspace(world, { seats: 5 });
      ws = made.workspace.id;
    });
    const group = (displayName: string, overrides: Partial<ScimGroup> = {}): ScimGroup => ({
      id: newScimGroupId(),
      workspaceId: ws,
      displayName,
      members: [],
      createdAt: t0,
      lastModified: t0,
      version: 1,
      ...overrides,
    });
    const none = { adminGroupId: null };
    const row = () => audit(ws, 'scim.group_changed');

    it('keeps a Group, found by id, displayName in any case and externalId; both unique', async () => {
      const made1 = group('Engineering', { externalId: 'ext-1', members: [newScimUserId()] });
      expect(await groups.create(made1, none, [], row())).toBe('created');
      expect(await groups.get(ws, made1.id)).toEqual(made1);
      expect(await groups.byDisplayName(ws, 'ENGINEERING')).toEqual(made1);
      expect(await groups.byExternalId(ws, 'ext-1')).toEqual(made1);
      expect(await groups.byExternalId(ws, 'EXT-1')).toBeNull();
      expect(await groups.create(group('engineering'), none, [], row())).toBe('duplicate');
      expect(await groups.create(group('Other', { externalId: 'ext-1' }), none, [], row())).toBe('duplicate');
    });

    it('replaces on the version read only; a rename frees the old name; delete frees both', async () => {
      const first = group('Sales', { externalId: 'e-s' });
      await groups.create(first, none, [], row());
      const renamed = { ...first, displayName: 'Sales EMEA', externalId: undefined, version: 2 };
      expect(await groups.replace(first, renamed, none, [], row())).toBe('replaced');
      expect(await groups.replace(first, { ...renamed, version: 3 }, none, [], row())).toBe('conflict');
      expect(await groups.create(group('Sales', { externalId: 'e-s' }), none, [], row())).toBe('created');
      expect(await groups.replace(renamed, { ...renamed, displayName: 'sales', version: 3 }, none, [], row())).toBe('duplicate');
      expect(await groups.delete({ ...renamed, version: 1 }, none, [], row())).toBe('conflict');
      expect(await groups.delete(renamed, none, [], row())).toBe('deleted');
      expect(await groups.delete(renamed, none, [], row())).toBe('gone');
      expect(await groups.byDisplayName(ws, 'Sales EMEA')).toBeNull();
    });

    it('pages in one order, each Group once, with the count beside', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const each = group(`G${i}`);
        await groups.create(each, none, [], row());
        ids.push(each.id);
      }
      const seen: string[] = [];
      for (const start of [1, 3, 5]) {
        const page = await groups.page(ws, start, 2);
        expect(page.totalResults).toBe(5);
        seen.push(...page.groups.map((each) => each.id));
      }
      expect(seen).toEqual([...ids].sort());
      expect((await groups.page(ws, 2, 2)).groups.map((each) => each.id)).toEqual(seen.slice(1, 3));
      expect(await groups.page(ws, 6, 2)).toEqual({ groups: [], totalResults: 5 });
      const member = newScimUserId();
      const holder = (await groups.get(ws, ids[0]!))!;
      await groups.replace(holder, { ...holder, members: [member], version: 2 }, none, [], row());
      expect((await groups.withMember(ws, member)).map((each) => each.id)).toEqual([holder.id]);
    });

    it('writes only while the policy’s admin Group and each moved member’s role are as read', async () => {
      await setSeats(world, ws, 5);
      const member = await join(world, made, 'member');
      const admins = group('Admins');
      await groups.create(admins, none, [], row());
      expect(await groups.adminGroupOf(ws)).toBeNull();
      // Decided on a policy naming it: refused while it names none.
      const promote: RoleStep = {
        kind: 'set',
        userId: member.userId,
        from: 'member',
        to: 'admin',
        audit: roleAudit(ws, member.userId, 'member', 'admin', admins.id, t0),
      };
      const next = { ...admins, members: [newScimUserId()], version: 2 };
      expect(await groups.replace(admins, next, { adminGroupId: admins.id }, [promote], row())).toBe('conflict');
      expect(await world.workspaces.setPolicy(ws, { scimAdminGroup: admins.id }, made.ownerActs, audit(ws, 'policy.updated'))).toBe(true);
      expect(await groups.adminGroupOf(ws)).toBe(admins.id);
      expect(await groups.replace(admins, next, none, [], row())).toBe('conflict');
      // A role that is not the one read, or a membership said absent: refused.
      expect(await groups.replace(admins, next, { adminGroupId: admins.id }, [{ ...promote, from: 'admin', to: 'member' }], row())).toBe(
        'conflict',
      );
      expect(await groups.replace(admins, next, { adminGroupId: admins.id }, [{ kind: 'absent', userId: member.userId }], row())).toBe(
        'conflict',
      );
      expect(
        await groups.replace(
          admins,
          next,
          { adminGroupId: admins.id },
          [{ kind: 'holds', userId: made.owner.userId, role: 'owner' }, promote],
          row(),
        ),
      ).toBe('replaced');
      expect((await groups.roles(ws, [member.userId, made.owner.userId, 'usr_nobody'])).get(member.userId)).toBe('admin');
      expect((await groups.roles(ws, ['usr_nobody'])).size).toBe(0);
      const trail = (await world.workspaces.auditPage(ws, 100, null)).items.filter((each) => each.action === 'member.role_changed');
      expect(trail).toEqual([expect.objectContaining({ target: member.userId, actor: { userId: null, email: null, via: 'scim' } })]);
      // settleRoles: on the Group's version only.
      const demote: RoleStep = {
        kind: 'set',
        userId: member.userId,
        from: 'admin',
        to: 'member',
        audit: roleAudit(ws, member.userId, 'admin', 'member', admins.id, t0),
      };
      expect(await groups.settleRoles(admins, { adminGroupId: admins.id }, [demote])).toBe('conflict');
      expect(await groups.settleRoles(next, { adminGroupId: admins.id }, [demote])).toBe('settled');
      expect((await groups.roles(ws, [member.userId])).get(member.userId)).toBe('member');
    });

    it('saves a policy moving the admin Group only while the Group it named is at the version read and the one it names is there', async () => {
      const [first, second] = [group('First'), group('Second')];
      await groups.create(first, none, [], row());
      await groups.create(second, none, [], row());
      const save = (scimAdminGroup: string, switched: Parameters<WorkspaceWorld['workspaces']['setPolicy']>[4]) =>
        world.workspaces.setPolicy(ws, { scimAdminGroup }, made.ownerActs, audit(ws, 'policy.updated'), switched);
      // Naming a Group that is not there: refused.
      const ghost = newScimGroupId();
      expect(await save(ghost, { was: null, next: ghost })).toBe(false);
      expect(await save(first.id, { was: null, next: first.id })).toBe(true);
      // The Group named before changed since its version was read: refused; at that version: saved.
      const changed = { ...first, members: [newScimUserId()], version: 2 };
      expect(await groups.replace(first, changed, { adminGroupId: first.id }, [], row())).toBe('replaced');
      expect(await save(second.id, { was: first.id, wasVersion: 1, next: second.id })).toBe(false);
      expect(await save(second.id, { was: first.id, wasVersion: null, next: second.id })).toBe(false);
      expect(await save(second.id, { was: first.id, wasVersion: 2, next: second.id })).toBe(true);
      // The Group named before is gone: the save relies on its absence.
      expect(await groups.delete(changed, { adminGroupId: second.id }, [], row())).toBe('deleted');
      await world.workspaces.setPolicy(ws, { scimAdminGroup: first.id }, made.ownerActs, audit(ws, 'policy.updated'));
      expect(await save(second.id, { was: first.id, wasVersion: 2, next: second.id })).toBe(false);
      expect(await save(second.id, { was: first.id, wasVersion: null, next: second.id })).toBe(true);
      expect(await groups.adminGroupOf(ws)).toBe(second.id);
    });

    it('deletes the admin Group only while no role was settled on it since it was read, clearing the policy', async () => {
      await setSeats(world, ws, 5);
      const member = await join(world, made, 'member');
      const admins = group('Admins');
      await groups.create(admins, none, [], row());
      await world.workspaces.setPolicy(ws, { scimAdminGroup: admins.id }, made.ownerActs, audit(ws, 'policy.updated'));
      const fact = { adminGroupId: admins.id };
      const read = (await groups.get(ws, admins.id))!;
      const promote: RoleStep = {
        kind: 'set',
        userId: member.userId,
        from: 'member',
        to: 'admin',
        audit: roleAudit(ws, member.userId, 'member', 'admin', admins.id, t0),
      };
      expect(await groups.settleRoles(read, fact, [promote])).toBe('settled');
      // A member was made an admin after the deletion read the Group: refused.
      expect(await groups.delete(read, fact, [], row())).toBe('conflict');
      const again = (await groups.get(ws, admins.id))!;
      expect(again.version).toBe(read.version);
      expect(await groups.delete(again, fact, [], row())).toBe('deleted');
      expect(await groups.adminGroupOf(ws)).toBeNull();
      expect((await world.workspaces.get(ws))!.policy.scimAdminGroup).toBeUndefined();
      // With no admin Group, or one that is gone, role steps settle on the policy alone (or the Group's absence).
      const demote: RoleStep = {
        ...promote,
        from: 'admin',
        to: 'member',
        audit: roleAudit(ws, member.userId, 'admin', 'member', admins.id, t0),
      };
      expect(await groups.settleRoles({ workspaceId: ws, id: admins.id, version: 1 }, none, [demote])).toBe('conflict');
      expect(await groups.settleRoles({ workspaceId: ws, id: admins.id, version: null }, none, [demote])).toBe('settled');
      expect(await groups.settleRoles({ workspaceId: ws, id: null, version: null }, none, [promote])).toBe('settled');
      expect((await groups.roles(ws, [member.userId])).get(member.userId)).toBe('admin');
    });
  });
}
