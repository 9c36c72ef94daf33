import type { AuditRow, Role } from '../workspaces/model.ts';

/**
 * SCIM Groups (issue 30, RFC 7643 §4.2): a workspace's directory pushes its groups, each with
 * members that are the workspace's SCIM Users. One Group may be named by the workspace's policy
 * (`scimAdminGroup`): its members are the workspace's admins (groupRoles.ts).
 */

export const groupSchema = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** What one Group and one request may hold. */
export const scimGroupLimits = {
  displayNameChars: 256,
  externalIdChars: 256,
  /** Members of one Group: its item holds their ids (27 bytes each), well inside DynamoDB's 400 KB. */
  members: 5000,
  /**
   * Role changes one request may make: each is the member's role and its audit row in the
   * Group's one transaction (DynamoDB: 100 items), beside the Group, its uniqueness items and the policy check.
   */
  roleChanges: 40,
} as const;

/** The attributes of a Group the directory sets. */
export interface ScimGroupAttributes {
  displayName: string;
  externalId?: string | undefined;
  /** Ids of the workspace's SCIM Users, each once, in the order they joined. */
  members: string[];
}

export interface ScimGroup extends ScimGroupAttributes {
  id: string;
  workspaceId: string;
  createdAt: number;
  lastModified: number;
  version: number;
  /**
   * How many role settlements (`settleRoles`) were written on this version, as read: a deletion
   * is conditioned on it, so no member made an admin after its roles were read is left one.
   */
  roleSettles?: number;
}

/** The Group a role settlement was decided on: at `version`, gone (`version` null), or none (`id` null: the policy names none). */
export interface GroupAsRead {
  workspaceId: string;
  id: string | null;
  version: number | null;
}

/**
 * What a Group change decided about one member's role, and what it relied on: each is a
 * condition of the change's transaction, so a membership that changed meanwhile refuses it and
 * the change is decided again. `absent`: no membership (the User is inactive), none is written.
 */
export type RoleStep =
  | { kind: 'set'; userId: string; from: Role; to: Role; audit: AuditRow }
  | { kind: 'holds'; userId: string; role: Role }
  | { kind: 'absent'; userId: string };

/** Where a change stands on the policy: the admin Group it read (null: none), a condition of its transaction. */
export interface AdminGroupFact {
  adminGroupId: string | null;
}

/** A page of Groups in the store's order (the order of their keys). */
export interface ScimGroupPage {
  groups: ScimGroup[];
  totalResults: number;
}

/** A workspace's Groups. Each write is one transaction whose conditions are what it was decided on. */
export interface ScimGroupStore {
  /** `duplicate`: the displayName or externalId is another Group's; `conflict`: the policy or a role moved. */
  create(group: ScimGroup, fact: AdminGroupFact, roles: RoleStep[], audit: AuditRow): Promise<'created' | 'duplicate' | 'conflict'>;
  get(workspaceId: string, id: string): Promise<ScimGroup | null>;
  byDisplayName(workspaceId: string, displayName: string): Promise<ScimGroup | null>;
  byExternalId(workspaceId: string, externalId: string): Promise<ScimGroup | null>;
  /** Groups `startIndex` (1-based) to `startIndex + count - 1`, reading only those (and where the page before ended). */
  page(workspaceId: string, startIndex: number, count: number): Promise<ScimGroupPage>;
  /** Every Group holding the User (a User's deletion takes it out of each). */
  withMember(workspaceId: string, scimUserId: string): Promise<ScimGroup[]>;
  /** `after` replaces `before` if `before.version` is still the Group's. */
  replace(
    before: ScimGroup,
    after: ScimGroup,
    fact: AdminGroupFact,
    roles: RoleStep[],
    audit: AuditRow,
  ): Promise<'replaced' | 'duplicate' | 'conflict'>;
  /**
   * `gone` when it is not there; `conflict` when its version, its role settlements, the policy or
   * a role moved. Deleting the Group `fact` names as the admin Group clears the policy's.
   */
  delete(group: ScimGroup, fact: AdminGroupFact, roles: RoleStep[], audit: AuditRow): Promise<'deleted' | 'gone' | 'conflict'>;
  /**
   * Role steps alone (a User's reactivation, an owner naming another admin Group, the admin
   * Group's deletion), if the Group is still as read and the policy's admin Group is still `fact`'s.
   */
  settleRoles(group: GroupAsRead, fact: AdminGroupFact, roles: RoleStep[]): Promise<'settled' | 'conflict'>;
  /** The Group the policy names for admins, as the policy is now. */
  adminGroupOf(workspaceId: string): Promise<string | null>;
  /** The role of each account's membership (absent: none), read consistently. */
  roles(workspaceId: string, userIds: string[]): Promise<Map<string, Role>>;
}
