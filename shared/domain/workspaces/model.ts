/**
 * Workspaces (interface §4.7, rules 10 of §3 and 10-11 of §5): members with roles, seats,
 * invitations, a policy for what is sent inside, branding, and an audit trail. Membership
 * decides who is billed and audited, never who can read a secret: there is no content to grant.
 */
import type { Plan } from '../accounts/model.ts';
import { planInUse } from '../billing/tier.ts';

export const roles = ['owner', 'admin', 'member'] as const;
export type Role = (typeof roles)[number];

/** How a member came in. */
/** How a member joined: made the workspace, an invitation, SCIM, or signing in through its SSO (`sso_jit`). */
export type MemberSource = 'owner' | 'invitation' | 'scim' | 'sso';

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  region: string;
  /** The workspace's plan: `free` until a Team subscription exists (the billing issue sets it). */
  plan: Plan;
  createdAt: number;
  policy: WorkspacePolicy;
}

/**
 * A workspace as the store holds it: its plan as its two writers left it (billing/tier.ts,
 * `PlanFacts`): `plan` is the provider's, `contractPlan` a contract's (absent without one).
 */
export type StoredWorkspace = Workspace & { contractPlan?: Plan };

/** The workspace on the plan it is on (`planInUse`: the higher of the provider's and a contract's). */
export function workspaceInUse(stored: StoredWorkspace): Workspace;
export function workspaceInUse(stored: StoredWorkspace | null): Workspace | null;
export function workspaceInUse(stored: StoredWorkspace | null): Workspace | null {
  if (!stored) return null;
  const { contractPlan: _held, ...workspace } = stored;
  return { ...workspace, plan: planInUse(stored) };
}

/**
 * The roster: one item per workspace holding its seat count and what uses seats, so every join,
 * invitation, removal and seat change is a condition on this one item in its transaction.
 */
export interface Roster {
  /** Seats paid for (1, its owner, until a Team subscription exists). */
  seats: number;
  /** Members plus pending invitations: never above `seats`. */
  used: number;
  /** Members with the owner role: never below 1. */
  owners: number;
  /** Members alone (what `members` in the listings shows). */
  members: number;
}

export interface Member {
  workspaceId: string;
  userId: string;
  email: string;
  role: Role;
  joinedAt: number;
  source: MemberSource;
}

export interface Invitation {
  id: string;
  workspaceId: string;
  /** Lower-cased, as accounts store addresses. */
  email: string;
  role: Exclude<Role, 'owner'>;
  createdAt: number;
  expiresAt: number;
  invitedBy: string;
  /** SHA-256 (base64url) of the one-time token mailed in the link; the token itself is never stored. */
  tokenHash: string;
}

/**
 * What every secret, file and request link created with the workspace's id must satisfy. An
 * absent rule does not apply.
 */
export interface WorkspacePolicy {
  maxExpiresIn?: number;
  maxViews?: number;
  requirePassphrase?: boolean;
  /** Restricted recipients' addresses must be at one of these domains (lower case). */
  allowedRecipientDomains?: string[];
  allowFiles?: boolean;
  maxFileBytes?: number;
  allowRequests?: boolean;
  /**
   * The SCIM Group whose members are the workspace's admins (issue 30, docs/adr/0174): set by
   * owners alone; the directory's changes to that Group move roles. Not a rule of what is sent.
   */
  scimAdminGroup?: string;
}

/** Display only: shown on the reveal page as "sent from <displayName> on Hushlink". */
export interface WorkspaceBranding {
  displayName: string;
  /** A `data:` URL of a PNG, JPEG or WebP image, checked when set. */
  logo: string | null;
  /** `#rrggbb`, checked for contrast when set. */
  accent: string | null;
}

/** Who made a change: a person's session, the directory (SCIM), or the service itself. */
export type AuditVia = 'session' | 'scim' | 'system';

/**
 * One row of the audit trail, written in the same transaction as the change it records. No IP
 * addresses; no secret ids beyond what the action needs.
 */
export interface AuditRow {
  id: string;
  workspaceId: string;
  at: number;
  actor: { userId: string | null; email: string | null; via: AuditVia };
  /** A dotted verb: `workspace.created`, `member.invited`, `member.role_changed`, `policy.updated`, … */
  action: string;
  /** What was acted on: a user id, an invitation id, or the workspace's own id. */
  target: string;
  details: Record<string, string | number | boolean | null | string[]>;
}
