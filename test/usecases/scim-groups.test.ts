import { describe, expect, it } from 'vitest';
import { Conflict, Forbidden, Invalid } from '../../shared/domain/refusals.ts';
import { groupSchema } from '../../shared/domain/scim/groupModel.ts';
import { listScimGroups } from '../../shared/domain/scim/groupListing.ts';
import { createScimGroup, deleteScimGroup, patchScimGroup, readScimGroup } from '../../shared/domain/scim/groups.ts';
import { createScimUser, deleteScimUser, patchScimUser } from '../../shared/domain/scim/users.ts';
import { setPolicy } from '../../shared/domain/workspaces/settings.ts';
import { MemoryScimGroupStore } from '../fakes/scimGroupStore.ts';
import { directory, oktaUser, patch } from './scim-world.ts';

// The Groups use cases on the fakes (issue 30): members are the workspace's Users, all
// operations or none, displayName and externalId unique, the admin Group's roles (joining,
// leaving, deletion, naming it, a User's own deactivation), conflicts retried, and pages that
// read only what they hold.

async function groupsWorld(seats = 20) {
  const d = await directory(seats);
  const scimGroups = new MemoryScimGroupStore(d.w.data);
  const ports = { ...d.w.ports, scimGroups };
  const workspacePorts = { ...d.w.ports, scimAdminRoles: { scimGroups, scimUsers: d.w.ports.scimUsers } };
  const user = async (local: string) => {
    const made = await createScimUser(d.id, oktaUser(`${local}@acme.example`), ports);
    return made;
  };
  const role = (userId: string) => d.w.roleOf(d.id, userId);
  const name = (policyGroup: string | null) => setPolicy(d.id, d.owner.id, { scimAdminGroup: policyGroup }, workspacePorts);
  return { ...d, scimGroups, ports, workspacePorts, user, role, name };
}

describe('Groups on the fakes', () => {
  it('refuses a member that is no User of the workspace, applying nothing', async () => {
    const g = await groupsWorld();
    const ana = await g.user('ana');
    const group = await createScimGroup(g.id, { schemas: [groupSchema], displayName: 'Eng' }, g.ports);
    await expect(
      patchScimGroup(
        g.id,
        group.id,
        patch({ op: 'add', path: 'members', value: [{ value: ana.id }] }, { op: 'add', path: 'members', value: [{ value: 'scu_x' }] }),
        g.ports,
      ),
    ).rejects.toBeInstanceOf(Invalid);
    expect((await readScimGroup(g.id, group.id, g.ports)).members).toEqual([]);
  });

  it('keeps displayName (any case) and externalId unique', async () => {
    const g = await groupsWorld();
    await createScimGroup(g.id, { displayName: 'Eng', externalId: 'e1' }, g.ports);
    await expect(createScimGroup(g.id, { displayName: 'ENG' }, g.ports)).rejects.toBeInstanceOf(Conflict);
    await expect(createScimGroup(g.id, { displayName: 'Other', externalId: 'e1' }, g.ports)).rejects.toBeInstanceOf(Conflict);
  });

  it('pages read only the Groups they hold once the page before was read', async () => {
    const g = await groupsWorld();
    for (let i = 0; i < 30; i++) await createScimGroup(g.id, { displayName: `G${i}` }, g.ports);
    const seen: string[] = [];
    for (let start = 1; start <= 30; start += 10) {
      const page = await listScimGroups(g.id, `startIndex=${start}&count=10`, g.ports);
      expect(page.totalResults).toBe(30);
      seen.push(...page.groups.map((group) => group.id));
    }
    expect(new Set(seen).size).toBe(30);
    expect(g.scimGroups.groupsRead).toBe(30);
  });

  it('retries conflicts of the Group’s transaction and ends as without them', async () => {
    const g = await groupsWorld();
    const ana = await g.user('ana');
    const group = await createScimGroup(g.id, { displayName: 'Admins' }, g.ports);
    await g.name(group.id);
    g.scimGroups.conflicts = 5;
    await patchScimGroup(g.id, group.id, patch({ op: 'add', path: 'members', value: [{ value: ana.id }] }), g.ports);
    expect(g.scimGroups.conflicts).toBe(0);
    expect(g.role(ana.userId)).toBe('admin');
    g.scimGroups.conflicts = 100;
    await expect(deleteScimGroup(g.id, group.id, g.ports)).rejects.toBeInstanceOf(Conflict);
    g.scimGroups.conflicts = 0;
    expect(g.role(ana.userId)).toBe('admin');
  });
});

describe('roles from the admin Group', () => {
  it('follow joining, leaving, deletion and naming, never an owner, never a seat', async () => {
    const g = await groupsWorld();
    const [ana, bo] = [await g.user('ana'), await g.user('bo')];
    const seats = g.w.roster(g.id);
    const group = await createScimGroup(g.id, { displayName: 'Admins', members: [{ value: ana.id }] }, g.ports);
    expect(g.role(ana.userId)).toBe('member');
    await g.name(group.id);
    expect(g.role(ana.userId)).toBe('admin');
    await patchScimGroup(g.id, group.id, patch({ op: 'add', path: 'members', value: [{ value: bo.id }] }), g.ports);
    expect(g.role(bo.userId)).toBe('admin');
    await patchScimGroup(g.id, group.id, patch({ op: 'remove', path: `members[value eq "${ana.id}"]` }), g.ports);
    expect(g.role(ana.userId)).toBe('member');
    // Naming another Group: this one's admins are members again.
    const other = await createScimGroup(g.id, { displayName: 'Others' }, g.ports);
    await g.name(other.id);
    expect(g.role(bo.userId)).toBe('member');
    await g.name(group.id);
    expect(g.role(bo.userId)).toBe('admin');
    await deleteScimGroup(g.id, group.id, g.ports);
    expect(g.role(bo.userId)).toBe('member');
    expect(g.role(g.owner.id)).toBe('owner');
    expect(g.w.roster(g.id)).toEqual(seats);
    const rows = (await g.w.ports.workspaces.auditPage(g.id, 1000, null)).items.filter((row) => row.action === 'member.role_changed');
    expect(rows).toHaveLength(6);
    for (const row of rows) expect(row.actor.via).toBe('scim');
  });

  it('is named by owners alone', async () => {
    const g = await groupsWorld();
    const admin = await g.w.join(g.id, g.owner, 'admin');
    const group = await createScimGroup(g.id, { displayName: 'Admins' }, g.ports);
    await expect(setPolicy(g.id, admin.id, { scimAdminGroup: group.id }, g.workspacePorts)).rejects.toBeInstanceOf(Forbidden);
    await expect(g.name('scg_nonenonenonenonenonen')).rejects.toBeInstanceOf(Invalid);
    await g.name(group.id);
    // An admin's policy without the field keeps it.
    expect((await setPolicy(g.id, admin.id, { maxViews: 3 }, g.workspacePorts)).scimAdminGroup).toBe(group.id);
  });

  it('a User deactivated leaves the admin role first, gets it back when reactivated; deleted, it leaves its Groups', async () => {
    const g = await groupsWorld();
    const ana = await g.user('ana');
    const group = await createScimGroup(g.id, { displayName: 'Admins', members: [{ value: ana.id }] }, g.ports);
    await g.name(group.id);
    await patchScimUser(g.id, ana.id, patch({ op: 'replace', path: 'active', value: false }), g.ports);
    expect(g.role(ana.userId)).toBeNull();
    await patchScimUser(g.id, ana.id, patch({ op: 'replace', path: 'active', value: true }), g.ports);
    expect(g.role(ana.userId)).toBe('admin');
    await deleteScimUser(g.id, ana.id, g.ports);
    expect((await readScimGroup(g.id, group.id, g.ports)).members).toEqual([]);
  });

  it('an owner switching the admin Group while a PATCH removes an admin from the old one leaves roles as the final membership', async () => {
    for (const when of ['before the save', 'after the save', 'deleted before the save', 'deleted after the save'] as const) {
      const g = await groupsWorld();
      const [ana, bo] = [await g.user('ana'), await g.user('bo')];
      const first = await createScimGroup(g.id, { displayName: 'First', members: [{ value: ana.id }, { value: bo.id }] }, g.ports);
      const second = await createScimGroup(g.id, { displayName: 'Second', members: [{ value: bo.id }] }, g.ports);
      await g.name(first.id);
      expect([g.role(ana.userId), g.role(bo.userId)]).toEqual(['admin', 'admin']);
      // The PATCH (or the deletion) lands once, between the owner's read of the old Group and the save, or just after the save.
      const workspaces = g.workspacePorts.workspaces;
      const save = workspaces.setPolicy.bind(workspaces);
      let raced = false;
      const race = async () => {
        if (raced) return;
        raced = true;
        if (when.startsWith('deleted')) await deleteScimGroup(g.id, first.id, g.ports);
        else await patchScimGroup(g.id, first.id, patch({ op: 'remove', path: `members[value eq "${ana.id}"]` }), g.ports);
      };
      const racing = {
        ...g.workspacePorts,
        workspaces: Object.assign(Object.create(workspaces), {
          setPolicy: async (...args: Parameters<typeof save>) => {
            const after = when.endsWith('after the save');
            if (!after) await race();
            const saved = await save(...args);
            if (after) await race();
            return saved;
          },
        }),
      };
      await setPolicy(g.id, g.owner.id, { scimAdminGroup: second.id }, racing);
      expect(raced).toBe(true);
      expect([g.role(ana.userId), g.role(bo.userId)], when).toEqual(['member', 'admin']);
    }
  });

  it('settles the admin Group’s roles again on every save of the policy naming it, and says so when it cannot', async () => {
    const g = await groupsWorld();
    const ana = await g.user('ana');
    const group = await createScimGroup(g.id, { displayName: 'Admins', members: [{ value: ana.id }] }, g.ports);
    await g.name(group.id);
    // A settlement cut short (the role left as it was): the same policy saved again finishes it.
    const key = [...g.w.data.members.keys()].find((each) => g.w.data.members.get(each)!.userId === ana.userId)!;
    g.w.data.members.set(key, { ...g.w.data.members.get(key)!, role: 'member' });
    const rows = async () =>
      (await g.w.ports.workspaces.auditPage(g.id, 1000, null)).items.filter((row) => row.action === 'member.role_changed').length;
    const before = await rows();
    await setPolicy(g.id, g.owner.id, { maxViews: 3 }, g.workspacePorts);
    expect(g.role(ana.userId)).toBe('admin');
    expect(await rows()).toBe(before + 1);
    // Nothing moved: nothing written.
    await setPolicy(g.id, g.owner.id, { maxViews: 4 }, g.workspacePorts);
    expect(await rows()).toBe(before + 1);
    // Never settling: a 409 (the policy is saved; a save again settles it), not a silent 200.
    g.w.data.members.set(key, { ...g.w.data.members.get(key)!, role: 'member' });
    g.scimGroups.conflicts = 1000;
    await expect(setPolicy(g.id, g.owner.id, { maxViews: 5 }, g.workspacePorts)).rejects.toBeInstanceOf(Conflict);
    g.scimGroups.conflicts = 0;
    await setPolicy(g.id, g.owner.id, { maxViews: 5 }, g.workspacePorts);
    expect(g.role(ana.userId)).toBe('admin');
  });

  it('a reactivation that never settles the admin role is refused loudly', async () => {
    const g = await groupsWorld();
    const ana = await g.user('ana');
    const group = await createScimGroup(g.id, { displayName: 'Admins', members: [{ value: ana.id }] }, g.ports);
    await g.name(group.id);
    await patchScimUser(g.id, ana.id, patch({ op: 'replace', path: 'active', value: false }), g.ports);
    g.scimGroups.conflicts = 1000;
    await expect(patchScimUser(g.id, ana.id, patch({ op: 'replace', path: 'active', value: true }), g.ports)).rejects.toBeInstanceOf(
      Conflict,
    );
    g.scimGroups.conflicts = 0;
  });

  it('deletes the admin Group whatever its size, its admins members again, and the policy names none', async () => {
    const g = await groupsWorld(120);
    const users = [];
    for (let i = 0; i < 100; i++) users.push(await g.user(`u${i}`));
    const group = await createScimGroup(g.id, { displayName: 'Everyone', members: users.map((user) => ({ value: user.id })) }, g.ports);
    // Named while it has 100 members: all admins, in chunks.
    await g.name(group.id);
    expect(users.every((user) => g.role(user.userId) === 'admin')).toBe(true);
    await deleteScimGroup(g.id, group.id, g.ports);
    expect(users.every((user) => g.role(user.userId) === 'member')).toBe(true);
    expect((await g.w.ports.workspaces.get(g.id))!.policy.scimAdminGroup).toBeUndefined();
    // A later policy save without the field keeps none, and names no Group that is gone.
    expect((await setPolicy(g.id, g.owner.id, { maxViews: 3 }, g.workspacePorts)).scimAdminGroup).toBeUndefined();
  });

  it('refuses more role changes than one transaction holds, changing nothing', async () => {
    const g = await groupsWorld(60);
    const group = await createScimGroup(g.id, { displayName: 'Admins' }, g.ports);
    await g.name(group.id);
    const users = [];
    for (let i = 0; i < 41; i++) users.push(await g.user(`u${i}`));
    const all = users.map((user) => ({ value: user.id }));
    await expect(patchScimGroup(g.id, group.id, patch({ op: 'add', path: 'members', value: all }), g.ports)).rejects.toBeInstanceOf(
      Invalid,
    );
    await patchScimGroup(g.id, group.id, patch({ op: 'add', path: 'members', value: all.slice(0, 40) }), g.ports);
    expect(users.slice(0, 40).every((user) => g.role(user.userId) === 'admin')).toBe(true);
  });
});
