import type { AuditRow, Invitation, Member, Role } from '../../shared/domain/workspaces/model.ts';
import type { Actor, InvitationToken, MembershipChanges } from '../../shared/domain/workspaces/ports.ts';
import { pair, stored, WorkspaceData } from './workspaceData.ts';

/**
 * MembershipChanges in memory (shared/store/workspaceMembershipChanges.ts). Each method checks
 * every condition of the store's transaction before it writes anything, and answers the same
 * outcome the store derives from the cancellation reasons (the first condition in the
 * transaction's order wins): seats ≥ used, members ≤ seats on joining, owners ≥ 1, tokens used once.
 */
export class MemoryMembershipChanges implements MembershipChanges {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async invite(invitation: Invitation, actor: Actor, audit: AuditRow): Promise<'invited' | 'no_seat' | 'refused'> {
    const { data } = this;
    const roster = data.rosters.get(invitation.workspaceId);
    if (!roster || roster.used >= roster.seats) return 'no_seat';
    if (
      data.invitations.has(pair(invitation.workspaceId, invitation.id)) ||
      data.tokens.has(invitation.tokenHash) ||
      !data.actorHolds(invitation.workspaceId, actor)
    )
      return 'refused';
    roster.used += 1;
    data.invitations.set(pair(invitation.workspaceId, invitation.id), stored(invitation));
    data.tokens.set(invitation.tokenHash, {
      tokenHash: invitation.tokenHash,
      workspaceId: invitation.workspaceId,
      invitationId: invitation.id,
      email: invitation.email,
      role: invitation.role,
      expiresAt: invitation.expiresAt,
      state: 'pending',
    });
    data.writeAudit(audit);
    return 'invited';
  }

  /** The invitation still on the roll (expired by `now` when asked) with its token still pending. */
  private pending(invitation: Invitation, expiredBy: number | null): boolean {
    const held = this.data.invitations.get(pair(invitation.workspaceId, invitation.id));
    const token = this.data.tokens.get(invitation.tokenHash);
    return held !== undefined && (expiredBy === null || held.expiresAt <= expiredBy) && token?.state === 'pending';
  }

  private endInvitation(invitation: Invitation, state: 'revoked' | 'pending', audit: AuditRow): void {
    const { data } = this;
    data.invitations.delete(pair(invitation.workspaceId, invitation.id));
    data.tokens.get(invitation.tokenHash)!.state = state;
    data.rosters.get(invitation.workspaceId)!.used -= 1;
    data.writeAudit(audit);
  }

  async reclaimExpired(invitation: Invitation, now: number, audit: AuditRow): Promise<boolean> {
    if (!this.pending(invitation, now)) return false;
    // The token stays `pending`: accepting it is refused by its expiry.
    this.endInvitation(invitation, 'pending', audit);
    return true;
  }

  async revokeInvitation(invitation: Invitation, actor: Actor, audit: AuditRow): Promise<'revoked' | 'gone' | 'refused'> {
    if (!this.data.actorHolds(invitation.workspaceId, actor)) return 'refused';
    if (!this.pending(invitation, null)) return 'gone';
    this.endInvitation(invitation, 'revoked', audit);
    return 'revoked';
  }

  async invitationToken(tokenHash: string): Promise<InvitationToken | null> {
    const token = this.data.tokens.get(tokenHash);
    return token ? stored(token) : null;
  }

  async accept(
    token: InvitationToken,
    member: Member,
    now: number,
    audit: AuditRow,
  ): Promise<'joined' | 'gone' | 'already_member' | 'no_seat'> {
    const { data } = this;
    const held = data.tokens.get(token.tokenHash);
    const invitationKey = pair(token.workspaceId, token.invitationId);
    if (held?.state !== 'pending' || held.expiresAt <= now || !data.invitations.has(invitationKey)) return 'gone';
    const roster = data.rosters.get(token.workspaceId);
    if (data.members.has(pair(member.workspaceId, member.userId))) {
      // Joined another way meanwhile: the token is used and its seat given back.
      held.state = 'used';
      data.invitations.delete(invitationKey);
      roster!.used -= 1;
      data.writeAudit({ ...audit, details: { ...audit.details, already_member: true } });
      return 'already_member';
    }
    // The invitation held the seat; seats lowered below it since leave it unable to join.
    if (!roster || roster.members >= roster.seats) return 'no_seat';
    held.state = 'used';
    data.invitations.delete(invitationKey);
    data.members.set(pair(member.workspaceId, member.userId), stored(member));
    roster.members += 1;
    data.writeAudit(audit);
    return 'joined';
  }

  /** The member's item still has the role it was read with. */
  private still(member: Member): Member | null {
    const held = this.data.members.get(pair(member.workspaceId, member.userId));
    return held && held.role === member.role ? held : null;
  }

  async removeMember(member: Member, actor: Actor | null, audit: AuditRow): Promise<'removed' | 'last_owner' | 'changed'> {
    const { data } = this;
    if (!this.still(member)) return 'changed';
    const roster = data.rosters.get(member.workspaceId)!;
    const owner = member.role === 'owner';
    if (owner && roster.owners <= 1) return 'last_owner';
    if (actor && actor.userId !== member.userId && !data.actorHolds(member.workspaceId, actor)) return 'changed';
    data.members.delete(pair(member.workspaceId, member.userId));
    roster.used -= 1;
    roster.members -= 1;
    if (owner) roster.owners -= 1;
    data.writeAudit(audit);
    return 'removed';
  }

  async changeRole(member: Member, role: Role, actor: Actor, audit: AuditRow): Promise<'changed' | 'last_owner' | 'conflict'> {
    const { data } = this;
    const held = this.still(member);
    if (!held) return 'conflict';
    const delta = (role === 'owner' ? 1 : 0) - (member.role === 'owner' ? 1 : 0);
    const roster = data.rosters.get(member.workspaceId);
    // Never the last owner: two owners demoting each other at once leave one.
    if (delta < 0 && (!roster || roster.owners <= 1)) return 'last_owner';
    if (actor.userId !== member.userId && !data.actorHolds(member.workspaceId, actor)) return 'conflict';
    held.role = role;
    if (delta !== 0) roster!.owners += delta;
    data.writeAudit(audit);
    return 'changed';
  }

  async transfer(from: Member, to: Member, audit: AuditRow): Promise<'transferred' | 'conflict'> {
    const { data } = this;
    const target = this.still(to);
    const previous = this.still(from);
    const delta = (to.role === 'owner' ? 0 : 1) - 1;
    const roster = data.rosters.get(from.workspaceId);
    if (!target || !previous || (delta !== 0 && (!roster || roster.owners <= 1))) return 'conflict';
    target.role = 'owner';
    previous.role = 'admin';
    if (delta !== 0) roster!.owners += delta;
    data.writeAudit(audit);
    return 'transferred';
  }
}
