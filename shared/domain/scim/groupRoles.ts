/**
 * Roles from Groups (issue 30, docs/adr/0174): the Group the workspace's policy names
 * (`scimAdminGroup`) makes its members admins. Joining it makes a member an admin; leaving it, or
 * its deletion, makes an admin a member again. Owners are never changed, and a User without a
 * membership (inactive) has no role to change. Pure: the use cases read, this decides, and the
 * store writes what was decided with every fact it relied on as a condition.
 */
import { newAuditId } from '../../ids.ts';
import type { AuditRow, Role } from '../workspaces/model.ts';
import type { RoleStep } from './groupModel.ts';

/** A role change the directory made, in the change's transaction. */
export function roleAudit(workspaceId: string, userId: string, from: Role, to: Role, groupId: string, now: number): AuditRow {
  return {
    id: newAuditId(),
    workspaceId,
    at: now,
    actor: { userId: null, email: null, via: 'scim' },
    action: 'member.role_changed',
    target: userId,
    details: { from, to, scim_group_id: groupId },
  };
}

/** What the role of one account becomes as it joins (`admin`) or leaves (`member`) the admin Group. */
export function roleStep(
  workspaceId: string,
  groupId: string,
  userId: string,
  role: Role | undefined,
  to: 'admin' | 'member',
  now: number,
): RoleStep {
  if (role === undefined) return { kind: 'absent', userId };
  const from = to === 'admin' ? 'member' : 'admin';
  if (role !== from) return { kind: 'holds', userId, role };
  return { kind: 'set', userId, from, to, audit: roleAudit(workspaceId, userId, from, to, groupId, now) };
}

export interface MembershipChange {
  workspaceId: string;
  groupId: string;
  /** The Group the policy names for admins (null: none). */
  adminGroupId: string | null;
  /** Member ids (SCIM Users) before and after; `after` empty when the Group is deleted. */
  before: readonly string[];
  after: readonly string[];
  /** The account each member User is (a User deleted meanwhile is absent, and skipped). */
  accounts: ReadonlyMap<string, string>;
  /** Each account's role in the workspace (absent: not a member). */
  roles: ReadonlyMap<string, Role>;
  now: number;
}

/** The members whose role a change of the Group's members may move: none unless it is the admin Group. */
export function movedMembers(change: Pick<MembershipChange, 'groupId' | 'adminGroupId' | 'before' | 'after'>): string[] {
  if (change.adminGroupId !== change.groupId) return [];
  const before = new Set(change.before);
  const after = new Set(change.after);
  return [...change.after.filter((id) => !before.has(id)), ...change.before.filter((id) => !after.has(id))];
}

/** The role steps of a change of the Group's members. */
export function roleSteps(change: MembershipChange): RoleStep[] {
  const joined = new Set(change.after);
  return movedMembers(change).flatMap((scimId) => {
    const userId = change.accounts.get(scimId);
    if (userId === undefined) return [];
    const to = joined.has(scimId) ? 'admin' : 'member';
    return [roleStep(change.workspaceId, change.groupId, userId, change.roles.get(userId), to, change.now)];
  });
}

/**
 * The number of items the steps add to one transaction: a change of role is the member and its
 * audit row, a role relied on (or its absence) a condition check.
 */
export const roleWrites = (steps: readonly RoleStep[]): number => steps.reduce((sum, step) => sum + (step.kind === 'set' ? 2 : 1), 0);
