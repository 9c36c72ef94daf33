import { sha256Base64Url } from '../../ids.ts';
import { planIncludes } from '../plans.ts';
import { planInUse } from '../billing/tier.ts';
import type { UserStore } from '../accounts/ports.ts';
import type { Clock } from '../../clock.ts';
import type { WorkspaceMembership } from './membership.ts';
import { Gone, NotFound } from '../refusals.ts';
import { workspaceInUse, type Invitation, type WorkspaceBranding } from './model.ts';
import type { MembershipChanges, WorkspaceStore } from './ports.ts';

/** The one read of an invitation the preview needs beyond its token: who sent it. */
export interface InvitationReads {
  /** The invitation while it is pending (its item goes when it is used, revoked or reclaimed); null otherwise. */
  invitation(workspaceId: string, invitationId: string): Promise<Invitation | null>;
}

export interface InvitationPreviewPorts {
  memberships: Pick<MembershipChanges, 'invitationToken'>;
  invitations: InvitationReads;
  workspaces: Pick<WorkspaceStore, 'get'>;
  workspaceMembership: Pick<WorkspaceMembership, 'brandingOf'>;
  users: Pick<UserStore, 'get'>;
  clock: Clock;
}

/** What the invitation page (`/join#<token>`) shows before anyone signs in. */
export interface InvitationPreview {
  workspace: { name: string; branding: WorkspaceBranding | null };
  /** The inviter's address; null when their account is gone. */
  inviter: { email: string } | null;
  /** The address it was sent to: the one to sign in with. */
  email: string;
  role: Invitation['role'];
  expiresAt: number;
}

/**
 * An invitation read by its token without accepting it: the same lookup as accepting (a GetItem by
 * the token's hash, so no comparison of secrets), the same answers for an unknown token (not
 * found) and one used, revoked or expired (gone, with the reason). It tells the token's holder
 * only what the invitation's email told them already: the workspace, who invited them, the
 * address and the role; the branding only where the reveal page would show it (the plan has it).
 */
export async function previewInvitation(token: string, ports: InvitationPreviewPorts): Promise<InvitationPreview> {
  const found = await ports.memberships.invitationToken(sha256Base64Url(`invitation:${token}`));
  if (!found) throw new NotFound('No such invitation: check that the whole link was copied.');
  const gone = (reason: 'used' | 'revoked' | 'expired') =>
    new Gone(`This invitation was ${reason === 'used' ? 'used already' : reason}.`, { facts: { reason } });
  if (found.state !== 'pending') throw gone(found.state);
  if (found.expiresAt <= ports.clock.now()) throw gone('expired');
  const [invitation, stored, branded] = await Promise.all([
    ports.invitations.invitation(found.workspaceId, found.invitationId),
    ports.workspaces.get(found.workspaceId),
    ports.workspaceMembership.brandingOf(found.workspaceId),
  ]);
  // The token still says pending while its invitation ended a moment ago: it was used meanwhile.
  if (!invitation) throw gone('used');
  if (!stored) throw new NotFound('No such invitation: its workspace was deleted.');
  const inviter = await ports.users.get(invitation.invitedBy);
  const showsBranding = branded !== null && planIncludes(planInUse(branded), 'branding');
  return {
    workspace: { name: workspaceInUse(stored).name, branding: showsBranding ? branded.branding : null },
    inviter: inviter ? { email: inviter.email } : null,
    email: found.email,
    role: found.role,
    expiresAt: found.expiresAt,
  };
}
