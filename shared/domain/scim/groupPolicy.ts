/**
 * The roles the admin Group gives, settled in bulk (docs/adr/0174): after an owner saves the
 * policy, its admin Group's members are admins and the members of the Group it named before that
 * are not in it are members again; before the admin Group is deleted, its admins are members.
 * Each chunk of role changes is written only if the policy still names the Group it was decided
 * on and that Group is still as read, so a Group change racing it is either seen here (and the
 * whole is decided again) or decided on the new roles.
 */
import { Conflict, Invalid } from '../refusals.ts';
import type { AdminGroupFact, GroupAsRead, ScimGroup, ScimGroupStore } from './groupModel.ts';
import { roleStep } from './groupRoles.ts';
import type { ScimUserStore } from './ports.ts';

export interface AdminGroupPorts {
  scimGroups: ScimGroupStore;
  scimUsers: Pick<ScimUserStore, 'get'>;
}

/**
 * Decisions of a policy's roles tried when the admin Group changes meanwhile (each chunk's write
 * is already retried by the client on a transaction conflict): a Group pushed to in a burst
 * settles between two of its changes.
 */
const settleAttempts = 20;
/** Role changes per transaction: each is the member and its audit row, beside the Group and the policy. */
const chunk = 40;

/** Refused unless `groupId` is one of the workspace's Groups (the policy names nothing else). */
export async function checkAdminGroup(workspaceId: string, groupId: string, ports: AdminGroupPorts): Promise<void> {
  const group = /^scg_[A-Za-z0-9_-]{22}$/.test(groupId) ? await ports.scimGroups.get(workspaceId, groupId) : null;
  if (!group) {
    throw new Invalid('The policy is not valid.', [
      { field: 'scim_admin_group', message: 'must be the id of one of this workspace’s SCIM Groups (or null)' },
    ]);
  }
}

/** Who moves: SCIM User ids to make members (audited as leaving `from`) and to make admins. */
export interface RoleMoves {
  demote: { from: string; members: readonly string[] } | null;
  promote: readonly string[];
}

/**
 * The roles `moves` says, written in chunks each conditioned on `group` as read and the policy's
 * admin Group being `fact`'s. Only real changes are written (an owner, an inactive User, a role
 * already right: nothing). The number of changes written, or `conflict` when a fact moved
 * (some chunks may have been written: deciding again on a fresh read finishes the work).
 */
export async function settleMoves(
  group: GroupAsRead,
  fact: AdminGroupFact,
  moves: RoleMoves,
  now: number,
  ports: AdminGroupPorts,
): Promise<number | 'conflict'> {
  const { workspaceId } = group;
  const wanted = [
    ...(moves.demote?.members ?? []).map((id) => ({ id, to: 'member' as const, groupId: moves.demote!.from })),
    ...moves.promote.map((id) => ({ id, to: 'admin' as const, groupId: group.id ?? '' })),
  ];
  const users = await Promise.all(wanted.map((want) => ports.scimUsers.get(workspaceId, want.id)));
  const found = wanted.flatMap((want, i) => (users[i] ? [{ ...want, userId: users[i].userId }] : []));
  const roles = found.length === 0 ? new Map() : await ports.scimGroups.roles(workspaceId, [...new Set(found.map((want) => want.userId))]);
  const steps = found
    .map((want) => roleStep(workspaceId, want.groupId, want.userId, roles.get(want.userId), want.to, now))
    .filter((step) => step.kind === 'set');
  for (let start = 0; start < steps.length; start += chunk) {
    if ((await ports.scimGroups.settleRoles(group, fact, steps.slice(start, start + chunk))) === 'conflict') return 'conflict';
  }
  return steps.length;
}

/**
 * The roles the policy gives as it is now: the members of the Group it names are admins, and
 * `former`'s members (the Group it named before this save, as the save read it) that are not in
 * it are members again. Idempotent: run after every save of a policy naming a Group, and it
 * writes nothing when nothing moved. Decided again on a fresh read while a fact moves; a
 * Conflict (409) when it never settles.
 */
export async function settleAdminGroup(
  workspaceId: string,
  former: Pick<ScimGroup, 'id' | 'members'> | null,
  now: number,
  ports: AdminGroupPorts,
): Promise<void> {
  for (let attempt = 0; attempt < settleAttempts; attempt++) {
    const adminGroupId = await ports.scimGroups.adminGroupOf(workspaceId);
    // A policy naming a Group that is gone names none (its deletion made its admins members).
    const group = adminGroupId === null ? null : await ports.scimGroups.get(workspaceId, adminGroupId);
    const staying = new Set(group?.members ?? []);
    const demote =
      former === null || former.id === adminGroupId ? null : { from: former.id, members: former.members.filter((id) => !staying.has(id)) };
    const outcome = await settleMoves(
      { workspaceId, id: adminGroupId, version: group?.version ?? null },
      { adminGroupId },
      { demote, promote: group?.members ?? [] },
      now,
      ports,
    );
    if (outcome !== 'conflict') return;
  }
  throw new Conflict(
    'The policy is saved, but its SCIM admin Group kept changing while its members’ roles were set: save the policy again.',
  );
}
