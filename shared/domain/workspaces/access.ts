import { newAuditId } from '../../ids.ts';
import { Forbidden, NotFound } from '../refusals.ts';
import type { AuditRow, Member } from './model.ts';
import { mayDo, permissions, refusalFor, type WorkspaceAction } from './permissions.ts';
import type { Actor, WorkspacePorts } from './ports.ts';

/** Ids as `shared/ids.ts` makes them: a prefix and 16 random bytes (malformed ones never reach the table). */
const idOf = (prefix: string) => new RegExp(`^${prefix}_[A-Za-z0-9_-]{21}[AQgw]$`);
export const isWorkspaceId = (id: string): boolean => idOf('wks').test(id);
export const isUserId = (id: string): boolean => idOf('usr').test(id);
export const isInvitationId = (id: string): boolean => idOf('inv').test(id);

/** A workspace the caller is not in is answered as one that does not exist (rule 10 of §5). */
export const noSuchWorkspace = () => new NotFound('No such workspace.');

/**
 * The caller's membership, when their role allows `action`: not found for a non-member (and for
 * a member refused the audit trail, whose routes list no 403), forbidden for a member whose role
 * does not allow it.
 */
export async function authorize(
  workspaceId: string,
  userId: string,
  action: WorkspaceAction,
  ports: Pick<WorkspacePorts, 'workspaces'>,
): Promise<Member> {
  const member = isWorkspaceId(workspaceId) ? await ports.workspaces.member(workspaceId, userId) : null;
  if (!member) throw noSuchWorkspace();
  if (!mayDo(member.role, action)) {
    if (refusalFor(action) === 404) throw noSuchWorkspace();
    throw new Forbidden(`Your role (${member.role}) cannot do this in this workspace.`, { facts: { reason: 'role', role: member.role } });
  }
  return member;
}

/** The actor as a transaction checks it: still holding a role that allows `action`. */
export const actorFor = (member: Member, action: WorkspaceAction): Actor => ({ userId: member.userId, roles: permissions[action] });

/** An audit row of a change a member made from a session. */
export function auditRow(
  actor: Pick<Member, 'userId' | 'email'>,
  workspaceId: string,
  action: string,
  target: string,
  details: AuditRow['details'],
  now: number,
): AuditRow {
  return {
    id: newAuditId(),
    workspaceId,
    at: now,
    actor: { userId: actor.userId, email: actor.email, via: 'session' },
    action,
    target,
    details,
  };
}

/** An audit row of what the service did by itself (an invitation's seat given back on expiry). */
export function systemAuditRow(workspaceId: string, action: string, target: string, details: AuditRow['details'], now: number): AuditRow {
  return { id: newAuditId(), workspaceId, at: now, actor: { userId: null, email: null, via: 'system' }, action, target, details };
}
