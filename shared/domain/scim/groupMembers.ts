/**
 * What a User's own changes do to the roles and Groups it has (docs/adr/0175): a User of the
 * admin Group that is deactivated or deleted is first a member again (the directory removes only
 * members' memberships), one reactivated while in it is an admin again, and a User deleted leaves
 * every Group. Group membership outlives deactivation, as both directories keep it.
 */
import { Conflict, NotFound } from '../refusals.ts';
import { roleStep } from './groupRoles.ts';
import { dropMember, type ScimGroupPorts } from './groups.ts';

const settleAttempts = 12;

/**
 * The account's role moved to what its place in the admin Group says as its membership comes
 * (`admin`, after a reactivation) or goes (`member`, before a deactivation or deletion). Written
 * only if the Group and the policy are still as read; otherwise read again.
 */
export async function settleAdminRole(
  workspaceId: string,
  user: { id: string; userId: string },
  to: 'admin' | 'member',
  ports: Pick<ScimGroupPorts, 'scimGroups' | 'clock'>,
): Promise<void> {
  for (let attempt = 0; attempt < settleAttempts; attempt++) {
    const adminGroupId = await ports.scimGroups.adminGroupOf(workspaceId);
    if (adminGroupId === null) return;
    const group = await ports.scimGroups.get(workspaceId, adminGroupId);
    if (!group?.members.includes(user.id)) return;
    const role = (await ports.scimGroups.roles(workspaceId, [user.userId])).get(user.userId);
    const step = roleStep(workspaceId, group.id, user.userId, role, to, ports.clock.now());
    if (step.kind !== 'set') return;
    if ((await ports.scimGroups.settleRoles(group, { adminGroupId }, [step])) === 'settled') return;
  }
  // Never a silent give-up: a deactivation or deletion is refused before anything of it is made
  // (the directory's retry settles it); a reactivation, made, answers 409 (the next save of the
  // policy makes the User an admin again).
  throw new Conflict('The admin Group kept changing while this User’s role was set: send the change again.');
}

/** A deleted User out of every Group that held it (a Group deleted meanwhile is nothing to do). */
export async function leaveEveryGroup(workspaceId: string, scimUserId: string, ports: ScimGroupPorts): Promise<void> {
  for (const group of await ports.scimGroups.withMember(workspaceId, scimUserId)) {
    try {
      await dropMember(workspaceId, group.id, scimUserId, ports);
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
    }
  }
}
