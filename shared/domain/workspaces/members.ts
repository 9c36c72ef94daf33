import { newInvitationId, newInvitationToken, sha256Base64Url } from '../../ids.ts';
import type { Language } from '../../languages.ts';
import { workspaceLimits } from '../../limits.ts';
import { normalizeEmail } from '../accounts/model.ts';
import { noticeMailLanguage, renderMail } from '../mailText.ts';
import { Conflict, Forbidden, Gone, Invalid, NotFound, Unauthenticated } from '../refusals.ts';
import { actorFor, authorize, auditRow, isInvitationId, isUserId, isWorkspaceId, noSuchWorkspace, systemAuditRow } from './access.ts';
import type { Invitation, Member, Role } from './model.ts';
import type { WorkspacePorts } from './ports.ts';

const tokenHashOf = (token: string) => sha256Base64Url(`invitation:${token}`);
const isPending = (invitation: Invitation, now: number) => invitation.expiresAt > now;

/** Members (oldest first) and the invitations still pending. Any member may read them; others get 404. */
export async function listMembers(
  workspaceId: string,
  userId: string,
  ports: WorkspacePorts,
): Promise<{ members: Member[]; invitations: Invitation[] }> {
  await authorize(workspaceId, userId, 'listMembers', ports);
  const roll = await ports.workspaces.roll(workspaceId);
  const now = ports.clock.now();
  return {
    members: roll.members.sort((a, b) => a.joinedAt - b.joinedAt || a.userId.localeCompare(b.userId)),
    invitations: roll.invitations.filter((invitation) => isPending(invitation, now)).sort((a, b) => a.createdAt - b.createdAt),
  };
}

/** Who is invited, and to which role. */
export interface NewInvitation {
  email: string;
  role: Invitation['role'];
}

/**
 * Invites an address, taking a seat for it until it is accepted, revoked or expires: forbidden
 * when members and pending invitations already fill the seats (expired invitations' seats are
 * taken back first). The token goes out in the mail only; the invitation keeps its hash. The mail
 * is in the language saved on the address's account, else the inviter's request's (`asked`),
 * else English.
 */
export async function invite(
  workspaceId: string,
  userId: string,
  request: NewInvitation,
  ports: WorkspacePorts,
  asked?: Language,
): Promise<Invitation> {
  const inviter = await authorize(workspaceId, userId, 'invite', ports);
  const workspace = await ports.workspaces.get(workspaceId);
  if (!workspace) throw noSuchWorkspace();
  const email = normalizeEmail(request.email);
  const now = ports.clock.now();
  const roll = await ports.workspaces.roll(workspaceId);
  if (roll.members.some((member) => member.email === email)) {
    throw new Invalid('This address is a member already.', [{ field: 'email', message: 'is a member already' }]);
  }
  if (roll.invitations.some((invitation) => invitation.email === email && isPending(invitation, now))) {
    throw new Invalid('This address has a pending invitation: revoke it to invite again.', [
      { field: 'email', message: 'has a pending invitation' },
    ]);
  }
  const token = newInvitationToken();
  const invitation: Invitation = {
    id: newInvitationId(),
    workspaceId,
    email,
    role: request.role,
    createdAt: now,
    expiresAt: now + workspaceLimits.invitationSeconds * 1000,
    invitedBy: userId,
    tokenHash: tokenHashOf(token),
  };
  const audit = () => auditRow(inviter, workspaceId, 'member.invited', invitation.id, { email, role: request.role }, now);
  let outcome = await ports.memberships.invite(invitation, actorFor(inviter, 'invite'), audit());
  if (outcome === 'no_seat') {
    // Seats held by invitations nobody accepted in time are free again.
    const expired = roll.invitations.filter((held) => !isPending(held, now));
    let reclaimed = 0;
    for (const held of expired) {
      const row = systemAuditRow(workspaceId, 'invitation.expired', held.id, { email: held.email }, now);
      if (await ports.memberships.reclaimExpired(held, now, row)) reclaimed++;
    }
    if (reclaimed > 0) outcome = await ports.memberships.invite(invitation, actorFor(inviter, 'invite'), audit());
  }
  if (outcome === 'no_seat') {
    const roster = await ports.workspaces.roster(workspaceId);
    throw new Forbidden('Every seat is taken by a member or a pending invitation: add seats, or revoke an invitation.', {
      facts: { reason: 'no_free_seat', seats: roster?.seats ?? null },
    });
  }
  if (outcome === 'refused')
    throw new Forbidden('Your role changed meanwhile: you can no longer invite here.', { facts: { reason: 'role' } });
  const language = noticeMailLanguage(await ports.users.findByEmail(email), asked);
  await ports.mailer.send({
    to: email,
    ...renderMail('invitation', language, {
      workspace: workspace.name,
      inviter: inviter.email,
      email,
      role: request.role,
      link: `${ports.config.WEB_ORIGIN}/join#${token}`,
      until: { at: invitation.expiresAt, show: 'instant' },
    }),
  });
  return invitation;
}

/**
 * Turns an invitation's token into a membership for the signed-in address it was sent to: not
 * found for an unknown token, gone for one used, revoked or expired, forbidden for another address.
 */
export async function acceptInvitation(token: string, userId: string, ports: WorkspacePorts): Promise<{ workspaceId: string; role: Role }> {
  const found = await ports.memberships.invitationToken(tokenHashOf(token));
  if (!found) throw new NotFound('No such invitation: check that the whole link was copied.');
  const now = ports.clock.now();
  if (found.state !== 'pending' || found.expiresAt <= now) {
    const reason = found.state === 'pending' ? 'expired' : found.state;
    throw new Gone(`This invitation was ${reason === 'used' ? 'used already' : reason}.`, { facts: { reason } });
  }
  const user = await ports.users.get(userId);
  if (!user) throw new Unauthenticated('Sign in first.');
  const email = normalizeEmail(user.email);
  if (email !== found.email) {
    throw new Forbidden('This invitation was sent to another address: sign in with that one.', { facts: { reason: 'wrong_address' } });
  }
  const member: Member = { workspaceId: found.workspaceId, userId, email, role: found.role, joinedAt: now, source: 'invitation' };
  const audit = auditRow(member, found.workspaceId, 'member.joined', userId, { role: found.role, invitation_id: found.invitationId }, now);
  const outcome = await ports.memberships.accept(found, member, now, audit);
  if (outcome === 'gone') throw new Gone('This invitation was used already.', { facts: { reason: 'used' } });
  if (outcome === 'no_seat') {
    throw new Forbidden('The workspace has no free seat for you now: ask its owner to add seats, then accept again.', {
      facts: { reason: 'no_free_seat' },
    });
  }
  if (outcome === 'already_member') {
    const existing = await ports.workspaces.member(found.workspaceId, userId);
    return { workspaceId: found.workspaceId, role: existing?.role ?? found.role };
  }
  return { workspaceId: found.workspaceId, role: found.role };
}

/**
 * Removes a member (their secrets are untouched: a workspace never held them) and frees the
 * seat; or, given an invitation's id, revokes the invitation. Anyone may leave; admins remove
 * admins and members, owners anyone; never the last owner (a conflict). The member's mail is in
 * their account's saved language, else the request's (`asked`), else English.
 */
export async function removeMember(
  workspaceId: string,
  userId: string,
  targetId: string,
  ports: WorkspacePorts,
  asked?: Language,
): Promise<void> {
  const caller = isWorkspaceId(workspaceId) ? await ports.workspaces.member(workspaceId, userId) : null;
  if (!caller) throw noSuchWorkspace();
  const now = ports.clock.now();
  if (targetId.startsWith('inv_')) return revokeInvitation(workspaceId, userId, targetId, ports);
  if (!isUserId(targetId)) throw new NotFound('No such member.');
  const leaving = targetId === userId;
  if (!leaving) await authorize(workspaceId, userId, 'removeMember', ports);
  const target = leaving ? caller : await ports.workspaces.member(workspaceId, targetId);
  if (!target) throw new NotFound('No such member.');
  if (!leaving && target.role === 'owner' && caller.role !== 'owner') {
    throw new Forbidden('Only an owner can remove an owner.', { facts: { reason: 'role', role: caller.role } });
  }
  const audit = auditRow(
    caller,
    workspaceId,
    leaving ? 'member.left' : 'member.removed',
    target.userId,
    { email: target.email, role: target.role },
    now,
  );
  const outcome = await ports.memberships.removeMember(target, leaving ? null : actorFor(caller, 'removeMember'), audit);
  if (outcome === 'last_owner')
    throw new Conflict('The last owner cannot be removed: make another member owner first.', { facts: { reason: 'last_owner' } });
  if (outcome === 'changed')
    throw new Conflict('This member’s role, or yours, changed meanwhile: reload and try again.', { facts: { reason: 'changed' } });
  const [workspace, account] = await Promise.all([ports.workspaces.get(workspaceId), ports.users.get(target.userId)]);
  // A workspace gone meanwhile is named by its id.
  const name = workspace?.name ?? workspaceId;
  const language = noticeMailLanguage(account, asked);
  await ports.mailer.send({
    to: target.email,
    ...(leaving
      ? renderMail('memberLeft', language, { workspace: name })
      : renderMail('memberRemoved', language, { workspace: name, remover: caller.email })),
  });
}

async function revokeInvitation(workspaceId: string, userId: string, invitationId: string, ports: WorkspacePorts): Promise<void> {
  const caller = await authorize(workspaceId, userId, 'invite', ports);
  if (!isInvitationId(invitationId)) throw new NotFound('No such invitation.');
  const roll = await ports.workspaces.roll(workspaceId);
  const invitation = roll.invitations.find((pending) => pending.id === invitationId);
  if (!invitation) throw new NotFound('No such invitation.');
  const now = ports.clock.now();
  const audit = auditRow(caller, workspaceId, 'invitation.revoked', invitation.id, { email: invitation.email }, now);
  const outcome = await ports.memberships.revokeInvitation(invitation, actorFor(caller, 'invite'), audit);
  if (outcome === 'gone') throw new NotFound('No such invitation: it was accepted or revoked meanwhile.');
  if (outcome === 'refused') throw new Forbidden('Your role changed meanwhile.', { facts: { reason: 'role' } });
}

/** Owners alone change roles (rule 11 of §5); never the last owner's (a conflict). */
export async function changeRole(
  workspaceId: string,
  userId: string,
  targetId: string,
  role: Role,
  ports: WorkspacePorts,
): Promise<Member> {
  const caller = await authorize(workspaceId, userId, 'changeRole', ports);
  const target = targetId === userId ? caller : isUserId(targetId) ? await ports.workspaces.member(workspaceId, targetId) : null;
  if (!target) throw new NotFound('No such member.');
  if (target.role === role) return target;
  const now = ports.clock.now();
  const audit = auditRow(
    caller,
    workspaceId,
    'member.role_changed',
    target.userId,
    { email: target.email, from: target.role, to: role },
    now,
  );
  const outcome = await ports.memberships.changeRole(target, role, actorFor(caller, 'changeRole'), audit);
  if (outcome === 'last_owner')
    throw new Conflict('The last owner cannot be demoted: make another member owner first.', { facts: { reason: 'last_owner' } });
  if (outcome === 'conflict') {
    // Lost to another change: say why, as a fresh read sees it.
    const now = await ports.workspaces.member(workspaceId, userId);
    if (now?.role !== 'owner') throw new Forbidden('You are no longer an owner of this workspace.', { facts: { reason: 'role' } });
    throw new Conflict('This member’s role changed meanwhile: reload and try again.', { facts: { reason: 'changed' } });
  }
  return { ...target, role };
}

/**
 * Hands the workspace over: the member named becomes owner, the caller an admin (rule 10 of
 * §3). Owners only; not found when the target is not a member. `targetId` is named `user_id` by clients.
 * Each of the two mails is in its reader's saved language, else the request's (`asked`), else English.
 */
export async function transferWorkspace(
  workspaceId: string,
  userId: string,
  targetId: string,
  ports: WorkspacePorts,
  asked?: Language,
): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const caller = await authorize(workspaceId, userId, 'transfer', ports);
    if (targetId === userId) {
      throw new Invalid('You own this workspace already: name another member.', [{ field: 'user_id', message: 'is you' }]);
    }
    const target = isUserId(targetId) ? await ports.workspaces.member(workspaceId, targetId) : null;
    if (!target) throw new NotFound('No such member: invite them first.');
    const now = ports.clock.now();
    const audit = auditRow(
      caller,
      workspaceId,
      'workspace.transferred',
      target.userId,
      { to_email: target.email, previous_owner: caller.userId },
      now,
    );
    if ((await ports.memberships.transfer(caller, target, audit)) === 'conflict') continue;
    const [workspace, newOwner, previousOwner] = await Promise.all([
      ports.workspaces.get(workspaceId),
      ports.users.get(target.userId),
      ports.users.get(caller.userId),
    ]);
    // A workspace gone meanwhile is named by its id.
    const name = workspace?.name ?? workspaceId;
    await ports.mailer.send({
      to: target.email,
      ...renderMail('ownershipReceived', noticeMailLanguage(newOwner, asked), { workspace: name, previousOwner: caller.email }),
    });
    await ports.mailer.send({
      to: caller.email,
      ...renderMail('ownershipHandedOver', noticeMailLanguage(previousOwner, asked), { workspace: name, newOwner: target.email }),
    });
    return;
  }
  throw new Forbidden('The workspace’s roles kept changing meanwhile: reload and try again.', { facts: { reason: 'changed' } });
}
