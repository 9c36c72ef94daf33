import { toIso } from '../../clock.ts';
import type { Plan } from '../../domain/accounts/model.ts';
import type { AuditRow, Invitation, Member, Role, WorkspacePolicy } from '../../domain/workspaces/model.ts';
import type { InvitationToken } from '../../domain/workspaces/ports.ts';

// A workspace's partition (`WORKSPACE#<id>`) holds the workspace, its roster, branding, members
// and pending invitations (and, from other areas: its billing, billing.ts; its SSO directory and
// SCIM Users, scim.ts; its domain claims, domains.ts). Invitation tokens, slugs and the audit
// trail have partitions of their own.

export const workspacePartition = (workspaceId: string): string => `WORKSPACE#${workspaceId}`;

/** The workspace (`WORKSPACE`): written by the workspace store (workspaces.ts) alone; billing's `plan` and sales' `contract_plan` are its parts. */
export const workspaceKey = (id: string) => ({ pk: workspacePartition(id), sk: 'WORKSPACE' });
export interface WorkspaceItem {
  pk: string;
  sk: string;
  type: 'workspace';
  id: string;
  name: string;
  slug: string;
  region: string;
  /** The payment provider's plan (billing follows its events). */
  plan: Plan;
  /** A contract's plan, sales' alone (scripts/set-plan.ts), with who set it, when and why; readers take the higher. */
  contract_plan?: Plan;
  contract_plan_changed_at?: number;
  contract_plan_changed_by?: string;
  contract_plan_note?: string;
  created_at: number;
  policy: WorkspacePolicy;
}

/**
 * The roster (`ROSTER`): seats, seats used (members and pending invitations), owners, members,
 * and `contract_seats` while a contract sets the seats. Every join, invitation, removal and seat
 * change is a condition on it. Written by the roster's store (workspaceRoster.ts) alone: the
 * workspace, membership, SCIM, billing and contract stores compose its parts.
 */
export const rosterKey = (id: string) => ({ pk: workspacePartition(id), sk: 'ROSTER' });
export interface RosterItem {
  pk: string;
  sk: string;
  type: 'roster';
  seats: number;
  used: number;
  owners: number;
  members: number;
  contract_seats?: number;
}

/** Branding (`BRANDING`), an item of its own so its logo (up to 64 KiB) does not weigh on reads of the policy: written by the workspace store (workspaces.ts). */
export const brandingKey = (id: string) => ({ pk: workspacePartition(id), sk: 'BRANDING' });
export interface BrandingItem {
  pk: string;
  sk: string;
  type: 'branding';
  workspace_id: string;
  display_name: string;
  logo: string | null;
  accent: string | null;
}

/**
 * A member (`MEMBER#<user>`), also on the member's listing (gsi1 `MEMBERSHIPS#<user>` /
 * `WORKSPACE#<id>`): written only through the member parts of workspaceItems.ts, which the
 * workspace, membership and SCIM stores compose.
 */
export const memberKey = (workspaceId: string, userId: string) => ({ pk: workspacePartition(workspaceId), sk: `MEMBER#${userId}` });
export const membershipsPartition = (userId: string): string => `MEMBERSHIPS#${userId}`;
export const membershipListing = (userId: string, workspaceId: string) => ({
  gsi1pk: membershipsPartition(userId),
  gsi1sk: workspacePartition(workspaceId),
});
/** The workspace a membership listing entry names. */
export const workspaceIdOfListing = (gsi1sk: unknown): string => String(gsi1sk).slice(workspacePartition('').length);
export interface MemberItem {
  pk: string;
  sk: string;
  type: 'member';
  workspace_id: string;
  user_id: string;
  email: string;
  role: Role;
  joined_at: number;
  source: Member['source'];
  gsi1pk: string;
  gsi1sk: string;
}

/** A pending invitation (`INVITATION#<id>`), holding a seat: written by the membership store (workspaceMembershipChanges.ts). */
export const invitationKey = (workspaceId: string, id: string) => ({ pk: workspacePartition(workspaceId), sk: `INVITATION#${id}` });
export interface InvitationItem {
  pk: string;
  sk: string;
  type: 'invitation';
  id: string;
  workspace_id: string;
  email: string;
  role: Invitation['role'];
  created_at: number;
  expires_at: number;
  invited_by: string;
  token_hash: string;
}

/**
 * The sort keys of a workspace's roll, members and invitations alone (`I…` to `N…`:
 * `INVITATION#`, `MEMBER#`), for one Query BETWEEN them.
 */
export const rollRange = { from: 'INVITATION#', to: 'MEMBER#\uffff' } as const;

/**
 * An invitation's token (`INVITATION_TOKEN#<sha256>` / `INVITATION_TOKEN`), so accepting is one
 * read; it keeps its state after the invitation leaves the roll: written by the membership store
 * (workspaceMembershipChanges.ts).
 */
export const invitationTokenKey = (hash: string) => ({ pk: `INVITATION_TOKEN#${hash}`, sk: 'INVITATION_TOKEN' });
export interface InvitationTokenItem {
  pk: string;
  sk: string;
  type: 'invitation_token';
  token_hash: string;
  workspace_id: string;
  invitation_id: string;
  email: string;
  role: Invitation['role'];
  expires_at: number;
  state: InvitationToken['state'];
  ttl: number;
}

/** A slug's claim (`SLUG#<slug>` / `SLUG`), one workspace per slug: written by the workspace store (workspaces.ts). */
export const slugKey = (slug: string) => ({ pk: `SLUG#${slug}`, sk: 'SLUG' });
export interface SlugItem {
  pk: string;
  sk: string;
  type: 'slug';
  workspace_id: string;
}

/**
 * An audit row (`AUDIT#<workspace>` / `<ISO time>#<id>`), newest first: written only through the
 * audit part of workspaceItems.ts, in the transaction of the change it records.
 */
export const auditPartition = (workspaceId: string): string => `AUDIT#${workspaceId}`;
export const auditKey = (workspaceId: string, at: number, id: string) => ({ pk: auditPartition(workspaceId), sk: `${toIso(at)}#${id}` });
export interface AuditItem {
  pk: string;
  sk: string;
  type: 'audit';
  id: string;
  workspace_id: string;
  at: number;
  actor_user_id: string | null;
  actor_email: string | null;
  via: AuditRow['actor']['via'];
  action: string;
  target: string;
  details: AuditRow['details'];
}
