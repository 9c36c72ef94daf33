import type { AdminGroupPorts } from '../scim/groupPolicy.ts';
import type { Mailer } from '../mail.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { UserStore } from '../accounts/ports.ts';
import type {
  AuditRow,
  Invitation,
  Member,
  Role,
  Roster,
  StoredWorkspace,
  Workspace,
  WorkspaceBranding,
  WorkspacePolicy,
} from './model.ts';

/** Who acts, as the transaction checks it: still a member with one of these roles when it commits. */
export interface Actor {
  userId: string;
  roles: readonly Role[];
}

/** What a save of the policy decided its SCIM admin Group on (issue 30, docs/adr/0174), each a condition of the save. */
export interface AdminGroupSwitch {
  /** The admin Group the stored policy named (null: none). */
  was: string | null;
  /**
   * When the save moves it from `was`: the version `was`'s Group was read at, its members the
   * ones made members again (null: the Group was gone).
   */
  wasVersion?: number | null;
  /** When the save moves it to a Group: that Group is still there. */
  next?: string | null;
}

/** An invitation's token as its lookup item keeps it: its state outlives the invitation. */
export interface InvitationToken {
  tokenHash: string;
  workspaceId: string;
  invitationId: string;
  email: string;
  role: Invitation['role'];
  expiresAt: number;
  state: 'pending' | 'used' | 'revoked';
}

export interface Membership {
  workspace: Workspace;
  roster: Roster;
  role: Role;
  branding: WorkspaceBranding | null;
}

/** A membership as the store reads it: the workspace's plan as held (`workspaceInUse` decides). */
export type StoredMembership = Omit<Membership, 'workspace'> & { workspace: StoredWorkspace };

/** The workspaces' items, read, and changed where who is in them stays the same. */
export interface WorkspaceStore {
  /** `slug_taken` when another workspace has the slug. */
  create(workspace: Workspace, roster: Roster, owner: Member, audit: AuditRow): Promise<'created' | 'slug_taken'>;
  /** The workspace, its plan as held (`workspaceInUse` gives the plan it is on). */
  get(id: string): Promise<StoredWorkspace | null>;
  roster(id: string): Promise<Roster | null>;
  member(workspaceId: string, userId: string): Promise<Member | null>;
  /** The caller's workspaces with their roster, the caller's role and the branding. */
  membershipsOf(userId: string): Promise<StoredMembership[]>;
  /** Members and pending invitations (expired ones included: the domain filters). */
  roll(workspaceId: string): Promise<{ members: Member[]; invitations: Invitation[] }>;
  /**
   * False when the actor no longer holds its role, or when `adminGroup` is given and a fact of it
   * moved: the stored policy's SCIM admin Group is no longer `was` (another owner named one
   * meanwhile), `was`'s Group is no longer at `wasVersion`, or `next`'s is gone.
   */
  setPolicy(workspaceId: string, policy: WorkspacePolicy, actor: Actor, audit: AuditRow, adminGroup?: AdminGroupSwitch): Promise<boolean>;
  setBranding(workspaceId: string, branding: WorkspaceBranding, actor: Actor, audit: AuditRow): Promise<boolean>;
  /** Audit rows, newest first. */
  auditPage(workspaceId: string, limit: number, cursor: string | null): Promise<{ items: AuditRow[]; nextCursor: string | null }>;
}

/**
 * Who is in a workspace, changed. Every change is one transaction that also writes its audit row
 * and checks the actor's role as it commits, so a right taken away meanwhile is never used.
 */
export interface MembershipChanges {
  /** Takes a seat for the invitation: `no_seat` when members and pending invitations fill them. */
  invite(invitation: Invitation, actor: Actor, audit: AuditRow): Promise<'invited' | 'no_seat' | 'refused'>;
  /** Gives an expired invitation's seat back (nothing when it was used, revoked or reclaimed meanwhile). */
  reclaimExpired(invitation: Invitation, now: number, audit: AuditRow): Promise<boolean>;
  invitationToken(tokenHash: string): Promise<InvitationToken | null>;
  /**
   * Uses the token and turns the invitation's seat into a membership: `gone` when it was used,
   * revoked or expired meanwhile; `no_seat` when the seats were lowered below it since.
   */
  accept(token: InvitationToken, member: Member, now: number, audit: AuditRow): Promise<'joined' | 'gone' | 'already_member' | 'no_seat'>;
  revokeInvitation(invitation: Invitation, actor: Actor, audit: AuditRow): Promise<'revoked' | 'gone' | 'refused'>;
  /** `last_owner` when the member is the only owner; `changed` when the member or the actor changed meanwhile. */
  removeMember(member: Member, actor: Actor | null, audit: AuditRow): Promise<'removed' | 'last_owner' | 'changed'>;
  changeRole(member: Member, role: Role, actor: Actor, audit: AuditRow): Promise<'changed' | 'last_owner' | 'conflict'>;
  /** The owner hands over: the target becomes owner, the owner an admin. */
  transfer(from: Member, to: Member, audit: AuditRow): Promise<'transferred' | 'conflict'>;
}

export interface WorkspacePorts {
  workspaces: WorkspaceStore;
  memberships: MembershipChanges;
  users: Pick<UserStore, 'get' | 'findByEmail'>;
  mailer: Mailer;
  clock: Clock;
  config: Pick<Config, 'REGION' | 'REGIONS' | 'WEB_ORIGIN'>;
  /** The SCIM Groups and Users an owner's naming of the admin Group reads and moves roles of (issue 30). */
  scimAdminRoles?: AdminGroupPorts;
}
