import { describe, expect, it } from 'vitest';
import { newInvitationId, newWorkspaceId, sha256Base64Url } from '../../shared/ids.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { Forbidden, Gone, NotFound, Unauthenticated } from '../../shared/domain/refusals.ts';
import { acceptInvitation, invite, listMembers, removeMember } from '../../shared/domain/workspaces/members.ts';
import { pair } from '../fakes/workspaceData.ts';
import { world } from './workspaces-world.ts';

// Invitations (rule 10 of §3): a seat held from the invitation to its acceptance, revocation or
// expiry; a one-time token mailed, only its hash kept; accepted by the address it was sent to.

const week = workspaceLimits.invitationSeconds;

describe('invite', () => {
  it('mails a one-time /join link, holds a seat, keeps only the token’s hash, and lists the invitation as pending', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 3, name: 'Acme' });
    const email = 'Invitee@Example.COM';
    const invitation = await invite(id, owner.id, { email, role: 'admin' }, w.ports);
    expect(invitation).toMatchObject({
      id: expect.stringMatching(/^inv_/),
      workspaceId: id,
      email: 'invitee@example.com',
      role: 'admin',
      invitedBy: owner.id,
      expiresAt: w.clock.now() + week * 1000,
    });
    const [mail] = w.mailer.to('invitee@example.com');
    expect(mail!.subject).toBe('You are invited to Acme on Hushlink');
    expect(mail!.text).toContain(`${owner.email} invites you to join the workspace "Acme" on Hushlink as an admin.`);
    const token = w.tokenMailedTo('invitee@example.com');
    expect(mail!.text).toContain(`https://eu.hushlink.example/join#${token}`);
    expect(invitation.tokenHash).toBe(sha256Base64Url(`invitation:${token}`));
    expect(JSON.stringify([...w.data.invitations.values(), ...w.data.tokens.values()])).not.toContain(token);
    expect(w.roster(id)).toMatchObject({ seats: 3, used: 2, members: 1 });
    expect((await listMembers(id, owner.id, w.ports)).invitations).toEqual([invitation]);
    expect(await w.rowOf(id, 'member.invited')).toMatchObject({
      target: invitation.id,
      details: { email: 'invitee@example.com', role: 'admin' },
    });
  });

  it('refuses an address already a member, or already invited (invalid at email); a member and an outsider are refused', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 4 });
    const member = await w.join(id, owner, 'member');
    await expect(invite(id, owner.id, { email: member.email.toUpperCase(), role: 'member' }, w.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'email', message: 'is a member already' }],
    });
    await invite(id, owner.id, { email: 'pending@example.com', role: 'member' }, w.ports);
    await expect(invite(id, owner.id, { email: 'pending@example.com', role: 'admin' }, w.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'email', message: 'has a pending invitation' }],
    });
    await expect(invite(id, member.id, { email: 'by-member@example.com', role: 'member' }, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role', role: 'member' },
    });
    await expect(invite(id, w.person('outsider').id, { email: 'x@example.com', role: 'member' }, w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(invite(newWorkspaceId(), owner.id, { email: 'x@example.com', role: 'member' }, w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(invite('wks_unknown', owner.id, { email: 'x@example.com', role: 'member' }, w.ports)).rejects.toBeInstanceOf(NotFound);
  });

  it('is forbidden (no_free_seat, naming the seats) when members and pending invitations fill them; nothing is mailed', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 2 });
    await invite(id, owner.id, { email: 'first@example.com', role: 'member' }, w.ports);
    const full = invite(id, owner.id, { email: 'second@example.com', role: 'member' }, w.ports);
    await expect(full).rejects.toBeInstanceOf(Forbidden);
    await expect(invite(id, owner.id, { email: 'second@example.com', role: 'member' }, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      code: 'forbidden',
      facts: { reason: 'no_free_seat', seats: 2 },
    });
    expect(w.mailer.to('second@example.com')).toEqual([]);
    expect(w.roster(id)).toMatchObject({ seats: 2, used: 2 });
  });

  it('takes back the seats of invitations that expired, recording each, before refusing for want of one', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 2 });
    await invite(id, owner.id, { email: 'late@example.com', role: 'member' }, w.ports);
    w.clock.advance(week + 1);
    expect((await listMembers(id, owner.id, w.ports)).invitations).toEqual([]);
    await invite(id, owner.id, { email: 'next@example.com', role: 'member' }, w.ports);
    expect(w.roster(id)).toEqual({ seats: 2, used: 2, owners: 1, members: 1 });
    expect(await w.rowOf(id, 'invitation.expired')).toMatchObject({
      actor: { userId: null, email: null, via: 'system' },
      details: { email: 'late@example.com' },
    });
    // The expired token is refused as expired.
    await expect(acceptInvitation(w.tokenMailedTo('late@example.com'), w.person('late', 'x.example').id, w.ports)).rejects.toMatchObject({
      kind: 'gone',
      facts: { reason: 'expired' },
    });
  });

  it('is refused when the inviter’s role was taken away meanwhile (the transaction checks it)', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 3 });
    const admin = await w.join(id, owner, 'admin');
    // Demoted between the read and the write: the store's actor condition refuses.
    const memberships = Object.create(w.ports.memberships) as typeof w.ports.memberships;
    memberships.invite = async (...args) => {
      w.data.members.get(pair(id, admin.id))!.role = 'member';
      return w.ports.memberships.invite(...args);
    };
    const ports = { ...w.ports, memberships };
    await expect(invite(id, admin.id, { email: 'x@example.com', role: 'member' }, ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role' },
    });
    expect(w.mailer.to('x@example.com')).toEqual([]);
  });
});

describe('acceptInvitation', () => {
  it('makes the invited address a member with the role and source invitation, the seat the invitation held', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 3 });
    const ana = w.person('ana');
    const invitation = await invite(id, owner.id, { email: ana.email, role: 'admin' }, w.ports);
    w.clock.advance(1);
    expect(await acceptInvitation(w.tokenMailedTo(ana.email), ana.id, w.ports)).toEqual({ workspaceId: id, role: 'admin' });
    const roll = await listMembers(id, ana.id, w.ports);
    expect(roll.invitations).toEqual([]);
    expect(roll.members.map((member) => [member.email, member.role, member.source])).toEqual([
      [owner.email, 'owner', 'owner'],
      [ana.email, 'admin', 'invitation'],
    ]);
    expect(w.roster(id)).toEqual({ seats: 3, used: 2, owners: 1, members: 2 });
    expect(await w.rowOf(id, 'member.joined')).toMatchObject({ target: ana.id, details: { role: 'admin', invitation_id: invitation.id } });
  });

  it('refuses an unknown token (not found), another address (forbidden, wrong_address), and a token used already (gone, used)', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 3 });
    const ana = w.person('ana');
    await invite(id, owner.id, { email: ana.email, role: 'member' }, w.ports);
    const token = w.tokenMailedTo(ana.email);
    await expect(acceptInvitation('hli_nope', ana.id, w.ports)).rejects.toBeInstanceOf(NotFound);
    const stranger = w.person('stranger');
    await expect(acceptInvitation(token, stranger.id, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'wrong_address' },
    });
    await acceptInvitation(token, ana.id, w.ports);
    const reused = acceptInvitation(token, ana.id, w.ports);
    await expect(reused).rejects.toBeInstanceOf(Gone);
    await expect(acceptInvitation(token, ana.id, w.ports)).rejects.toMatchObject({ kind: 'gone', code: 'gone', facts: { reason: 'used' } });
    expect(w.roleOf(id, stranger.id)).toBeNull();
  });

  it('is gone (expired) once 7 days have passed, the clock moved', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 3 });
    const ana = w.person('ana');
    await invite(id, owner.id, { email: ana.email, role: 'member' }, w.ports);
    w.clock.advance(week - 1);
    const token = w.tokenMailedTo(ana.email);
    w.clock.advance(1);
    await expect(acceptInvitation(token, ana.id, w.ports)).rejects.toMatchObject({ kind: 'gone', facts: { reason: 'expired' } });
    expect(w.roleOf(id, ana.id)).toBeNull();
  });

  it('is forbidden (no_free_seat) when the seats were lowered below the members since; accepted again once there is room', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 3 });
    const ana = w.person('ana');
    await invite(id, owner.id, { email: ana.email, role: 'member' }, w.ports);
    w.setWorkspace(id, { seats: 1 });
    const token = w.tokenMailedTo(ana.email);
    await expect(acceptInvitation(token, ana.id, w.ports)).rejects.toMatchObject({ kind: 'forbidden', facts: { reason: 'no_free_seat' } });
    w.setWorkspace(id, { seats: 2 });
    expect(await acceptInvitation(token, ana.id, w.ports)).toEqual({ workspaceId: id, role: 'member' });
  });

  it('answers the role held already for a member who joined another way meanwhile, and gives the invitation’s seat back', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 4 });
    const ana = w.person('ana');
    await invite(id, owner.id, { email: ana.email, role: 'member' }, w.ports);
    const token = w.tokenMailedTo(ana.email);
    w.data.members.set(pair(id, ana.id), {
      workspaceId: id,
      userId: ana.id,
      email: ana.email,
      role: 'admin',
      joinedAt: w.clock.now(),
      source: 'scim',
    });
    w.data.rosters.get(id)!.members += 1;
    w.data.rosters.get(id)!.used += 1;
    expect(await acceptInvitation(token, ana.id, w.ports)).toEqual({ workspaceId: id, role: 'admin' });
    expect(w.roster(id)).toMatchObject({ used: 2, members: 2 });
  });

  it('refuses an account that is gone: unauthenticated', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 3 });
    await invite(id, owner.id, { email: 'ghost@example.com', role: 'member' }, w.ports);
    await expect(acceptInvitation(w.tokenMailedTo('ghost@example.com'), 'usr_gone', w.ports)).rejects.toBeInstanceOf(Unauthenticated);
  });
});

describe('revoking an invitation (removeMember with its id)', () => {
  it('ends it: its token is gone (revoked), its seat is free, and it is recorded', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 2 });
    const ana = w.person('ana');
    const invitation = await invite(id, owner.id, { email: ana.email, role: 'member' }, w.ports);
    await removeMember(id, owner.id, invitation.id, w.ports);
    expect(w.roster(id)).toMatchObject({ used: 1 });
    await expect(acceptInvitation(w.tokenMailedTo(ana.email), ana.id, w.ports)).rejects.toMatchObject({
      kind: 'gone',
      facts: { reason: 'revoked' },
    });
    expect(await w.rowOf(id, 'invitation.revoked')).toMatchObject({ target: invitation.id, details: { email: ana.email } });
    // Revoked already, or never: not found.
    await expect(removeMember(id, owner.id, invitation.id, w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(removeMember(id, owner.id, newInvitationId(), w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(removeMember(id, owner.id, 'inv_malformed', w.ports)).rejects.toBeInstanceOf(NotFound);
  });

  it('is for owners and admins: a member is forbidden', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 3 });
    const member = await w.join(id, owner, 'member');
    const invitation = await invite(id, owner.id, { email: 'x@example.com', role: 'member' }, w.ports);
    await expect(removeMember(id, member.id, invitation.id, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role' },
    });
    expect(w.roster(id)).toMatchObject({ used: 3 });
  });
});

describe('listMembers', () => {
  it('lists members oldest first and pending invitations to any member; an outsider gets not found', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 4 });
    w.clock.advance(1);
    const member = await w.join(id, owner, 'member');
    await invite(id, owner.id, { email: 'pending@example.com', role: 'member' }, w.ports);
    const roll = await listMembers(id, member.id, w.ports);
    expect(roll.members.map((entry) => entry.userId)).toEqual([owner.id, member.id]);
    expect(roll.invitations.map((entry) => entry.email)).toEqual(['pending@example.com']);
    await expect(listMembers(id, w.person('outsider').id, w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(listMembers('not-an-id', owner.id, w.ports)).rejects.toBeInstanceOf(NotFound);
  });

  it('shows no invitation once expired', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 3 });
    await invite(id, owner.id, { email: 'late@example.com', role: 'member' }, w.ports);
    w.clock.advance(week);
    expect((await listMembers(id, owner.id, w.ports)).invitations).toEqual([]);
  });
});
