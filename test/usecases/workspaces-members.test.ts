import { describe, expect, it } from 'vitest';
import { newUserId } from '../../shared/ids.ts';
import { Conflict, Forbidden, Invalid, NotFound } from '../../shared/domain/refusals.ts';
import { changeRole, listMembers, removeMember, transferWorkspace } from '../../shared/domain/workspaces/members.ts';
import { pair } from '../fakes/workspaceData.ts';
import { world } from './workspaces-world.ts';

// Who is in a workspace, changed (rules 10 of §3, 10-11 of §5): removing and leaving, roles
// (owners only, never the last owner), and handing the workspace over. Each change is mailed and
// recorded; a workspace never held anyone's secrets, so none of these has a port to reach them.

async function team(seats = 5) {
  const w = world();
  const owner = w.person('owner');
  const id = await w.workspace(owner, { seats, name: 'Acme' });
  const admin = await w.join(id, owner, 'admin');
  const member = await w.join(id, owner, 'member');
  return { w, id, owner, admin, member };
}

describe('removeMember', () => {
  it('removes a member, frees the seat, mails them that their account and secrets are untouched, and records it', async () => {
    const { w, id, admin, member } = await team();
    await removeMember(id, admin.id, member.id, w.ports);
    expect(w.roleOf(id, member.id)).toBeNull();
    expect(w.roster(id)).toMatchObject({ used: 2, members: 2 });
    const [mail] = w.mailer.to(member.email).filter((message) => !message.subject.startsWith('You are invited'));
    expect(mail).toMatchObject({ subject: 'You were removed from Acme on Hushlink' });
    expect(mail!.text).toContain(`${admin.email} removed you from the workspace "Acme".`);
    expect(mail!.text).toContain('Your account and your secrets are untouched');
    expect(await w.rowOf(id, 'member.removed')).toMatchObject({
      target: member.id,
      actor: { userId: admin.id },
      details: { email: member.email, role: 'member' },
    });
    // Removed, they are an outsider: the workspace does not exist for them.
    await expect(listMembers(id, member.id, w.ports)).rejects.toBeInstanceOf(NotFound);
  });

  it('lets anyone leave (member.left, mailed), an admin and the owner of several owners too', async () => {
    const { w, id, owner, admin } = await team();
    await removeMember(id, admin.id, admin.id, w.ports);
    expect(w.roleOf(id, admin.id)).toBeNull();
    expect(w.mailer.to(admin.email).at(-1)!.subject).toBe('You left Acme on Hushlink');
    expect(await w.rowOf(id, 'member.left')).toMatchObject({ target: admin.id });
    const second = await w.join(id, owner, 'admin');
    await changeRole(id, owner.id, second.id, 'owner', w.ports);
    await removeMember(id, owner.id, owner.id, w.ports);
    expect(w.roster(id)).toMatchObject({ owners: 1, members: 2 });
  });

  it('never removes the last owner, nor lets them leave: a conflict (last_owner)', async () => {
    const { w, id, owner } = await team();
    const leaving = removeMember(id, owner.id, owner.id, w.ports);
    await expect(leaving).rejects.toBeInstanceOf(Conflict);
    await expect(removeMember(id, owner.id, owner.id, w.ports)).rejects.toMatchObject({
      kind: 'conflict',
      code: 'conflict',
      facts: { reason: 'last_owner' },
    });
    expect(w.roleOf(id, owner.id)).toBe('owner');
  });

  it('lets an admin remove admins and members, never an owner (forbidden, role); a member removes no one', async () => {
    const { w, id, owner, admin, member } = await team();
    await expect(removeMember(id, admin.id, owner.id, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role', role: 'admin' },
    });
    await expect(removeMember(id, member.id, admin.id, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role', role: 'member' },
    });
    const other = await w.join(id, owner, 'admin');
    await removeMember(id, admin.id, other.id, w.ports);
    expect(w.roleOf(id, other.id)).toBeNull();
    expect(w.roster(id)).toMatchObject({ owners: 1, members: 3 });
  });

  it('answers not found for someone not in it, a malformed id, and a caller outside the workspace', async () => {
    const { w, id, owner, admin } = await team();
    await expect(removeMember(id, owner.id, newUserId(), w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(removeMember(id, owner.id, 'usr_nobody', w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(removeMember(id, w.person('outsider').id, admin.id, w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(removeMember('wks_nope', owner.id, admin.id, w.ports)).rejects.toBeInstanceOf(NotFound);
  });

  it('is a conflict (changed) when the target’s role changed between the read and the write', async () => {
    const { w, id, owner, member } = await team();
    const memberships = Object.create(w.ports.memberships) as typeof w.ports.memberships;
    memberships.removeMember = async (...args) => {
      w.data.members.get(pair(id, member.id))!.role = 'admin';
      return w.ports.memberships.removeMember(...args);
    };
    await expect(removeMember(id, owner.id, member.id, { ...w.ports, memberships })).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'changed' },
    });
    expect(w.roleOf(id, member.id)).toBe('admin');
  });
});

describe('changeRole', () => {
  it('is the owners’: promotes and demotes, recorded with from and to', async () => {
    const { w, id, owner, member } = await team();
    expect(await changeRole(id, owner.id, member.id, 'admin', w.ports)).toMatchObject({ userId: member.id, role: 'admin' });
    expect(w.roleOf(id, member.id)).toBe('admin');
    expect(await w.rowOf(id, 'member.role_changed')).toMatchObject({
      target: member.id,
      actor: { userId: owner.id, email: owner.email, via: 'session' },
      details: { email: member.email, from: 'member', to: 'admin' },
    });
    await changeRole(id, owner.id, member.id, 'owner', w.ports);
    expect(w.roster(id)).toMatchObject({ owners: 2 });
  });

  it('answers the member as it is when the role is already theirs, writing nothing', async () => {
    const { w, id, owner, admin } = await team();
    const before = (await w.actions(id)).length;
    expect(await changeRole(id, owner.id, admin.id, 'admin', w.ports)).toMatchObject({ role: 'admin' });
    expect((await w.actions(id)).length).toBe(before);
  });

  it('never demotes the last owner, themself included: a conflict (last_owner)', async () => {
    const { w, id, owner } = await team();
    await expect(changeRole(id, owner.id, owner.id, 'admin', w.ports)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'last_owner' },
    });
    expect(w.roleOf(id, owner.id)).toBe('owner');
  });

  it('is forbidden to an admin and a member, and not found for a non-member target or caller', async () => {
    const { w, id, owner, admin, member } = await team();
    await expect(changeRole(id, admin.id, member.id, 'admin', w.ports)).rejects.toBeInstanceOf(Forbidden);
    await expect(changeRole(id, member.id, member.id, 'admin', w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role', role: 'member' },
    });
    await expect(changeRole(id, owner.id, newUserId(), 'admin', w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(changeRole(id, owner.id, 'usr_nobody', 'admin', w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(changeRole(id, w.person('outsider').id, member.id, 'admin', w.ports)).rejects.toBeInstanceOf(NotFound);
    expect(w.roleOf(id, member.id)).toBe('member');
  });

  it('says why a change lost to another: the caller no longer an owner is forbidden, a target changed is a conflict', async () => {
    const { w, id, owner, member } = await team();
    const second = await w.join(id, owner, 'admin');
    await changeRole(id, owner.id, second.id, 'owner', w.ports);
    const racing = (change: () => void) => {
      const memberships = Object.create(w.ports.memberships) as typeof w.ports.memberships;
      memberships.changeRole = async (...args) => {
        change();
        return w.ports.memberships.changeRole(...args);
      };
      return { ...w.ports, memberships };
    };
    // The other owner demoted the caller first.
    const demoted = racing(() => {
      w.data.members.get(pair(id, owner.id))!.role = 'admin';
      w.data.rosters.get(id)!.owners -= 1;
    });
    await expect(changeRole(id, owner.id, member.id, 'admin', demoted)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role' },
    });
    // The target was changed by someone else first.
    const changed = racing(() => void (w.data.members.get(pair(id, member.id))!.role = 'admin'));
    await expect(changeRole(id, second.id, member.id, 'admin', changed)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'changed' },
    });
  });
});

describe('transferWorkspace', () => {
  it('makes the member named the owner and the caller an admin, mails both, and records it', async () => {
    const { w, id, owner, admin } = await team();
    await transferWorkspace(id, owner.id, admin.id, w.ports);
    expect([w.roleOf(id, admin.id), w.roleOf(id, owner.id)]).toEqual(['owner', 'admin']);
    expect(w.roster(id)).toMatchObject({ owners: 1 });
    expect(w.mailer.to(admin.email).at(-1)).toMatchObject({
      subject: 'You now own Acme on Hushlink',
      text: `${owner.email} handed the workspace "Acme" over to you. You are its owner; they stay on as an admin.`,
    });
    expect(w.mailer.to(owner.email).at(-1)).toMatchObject({
      subject: 'You handed Acme over on Hushlink',
      text: `You handed the workspace "Acme" over to ${admin.email}. You stay on as an admin.`,
    });
    expect(await w.rowOf(id, 'workspace.transferred')).toMatchObject({
      target: admin.id,
      details: { to_email: admin.email, previous_owner: owner.id },
    });
    // No longer the owner: handing it over again is forbidden.
    await expect(transferWorkspace(id, owner.id, admin.id, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role', role: 'admin' },
    });
  });

  it('to oneself is invalid at user_id; to a non-member not found; by a non-owner forbidden', async () => {
    const { w, id, owner, admin } = await team();
    const self = transferWorkspace(id, owner.id, owner.id, w.ports);
    await expect(self).rejects.toBeInstanceOf(Invalid);
    await expect(transferWorkspace(id, owner.id, owner.id, w.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'user_id', message: 'is you' }],
    });
    await expect(transferWorkspace(id, owner.id, 'usr_nobody', w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(transferWorkspace(id, owner.id, w.person('outsider').id, w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(transferWorkspace(id, admin.id, owner.id, w.ports)).rejects.toBeInstanceOf(Forbidden);
    expect(w.roleOf(id, owner.id)).toBe('owner');
    expect(w.mailer.sent.filter((mail) => /own|handed/.test(mail.subject))).toEqual([]);
  });

  it('tries again when the roles changed meanwhile, and gives up (forbidden, changed) when they keep changing', async () => {
    const { w, id, owner, admin } = await team();
    let conflicts = 1;
    const memberships = Object.create(w.ports.memberships) as typeof w.ports.memberships;
    memberships.transfer = async (...args) => (conflicts-- > 0 ? 'conflict' : w.ports.memberships.transfer(...args));
    await transferWorkspace(id, owner.id, admin.id, { ...w.ports, memberships });
    expect(w.roleOf(id, admin.id)).toBe('owner');
    memberships.transfer = async () => 'conflict';
    await expect(transferWorkspace(id, admin.id, owner.id, { ...w.ports, memberships })).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'changed' },
    });
  });
});
