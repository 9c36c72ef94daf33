/**
 * The Groups use cases (issue 30): create, read, replace, PATCH and delete a workspace's Groups,
 * their members the workspace's SCIM Users, and the roles the admin Group gives (groupRoles.ts).
 * Each change is decided on what was read and written with every fact it relied on as a
 * condition; when one moved meanwhile, it is decided again on a fresh read.
 */
import type { Clock } from '../../clock.ts';
import { newAuditId, newScimGroupId } from '../../ids.ts';
import { Conflict, NotFound } from '../refusals.ts';
import type { AuditRow } from '../workspaces/model.ts';
import { invalidValue } from './attributes.ts';
import { applyGroupPatch, parseGroupBody } from './groupBody.ts';
import { scimGroupLimits, type ScimGroup, type ScimGroupAttributes, type ScimGroupStore } from './groupModel.ts';
import { settleMoves } from './groupPolicy.ts';
import { movedMembers, roleSteps, roleWrites } from './groupRoles.ts';
import { scimFacts } from './model.ts';
import type { ScimUserStore } from './ports.ts';

export interface ScimGroupPorts {
  scimGroups: ScimGroupStore;
  scimUsers: Pick<ScimUserStore, 'get'>;
  clock: Clock;
}

/**
 * Attempts when the Group, the policy or a member's role changes between the read and the write:
 * parallel PATCHes of one Group (Entra sends them) each win one round.
 */
const changeAttempts = 12;

/** What newScimGroupId makes: any other id is no Group's, and is not read. */
const scimGroupId = /^scg_[A-Za-z0-9_-]{22}$/;
const scimUserId = /^scu_[A-Za-z0-9_-]{22}$/;

const notFound = (id: string) => new NotFound(`No Group ${id} in this workspace.`);
const uniqueness = () => new Conflict('A Group with this displayName or externalId exists in this workspace.', scimFacts('uniqueness'));
const busy = (id: string) => new Conflict(`Group ${id} kept changing while this change was applied: read it again.`);

function groupAudit(action: string, group: ScimGroup, now: number): AuditRow {
  return {
    id: newAuditId(),
    workspaceId: group.workspaceId,
    at: now,
    actor: { userId: null, email: null, via: 'scim' },
    action,
    target: group.id,
    details: { display_name: group.displayName, members: group.members.length },
  };
}

/**
 * The account of each User among `ids`. `required` ones must be the workspace's Users (a
 * member being added): any that is not is 400 `invalidValue` and nothing is applied. Others (a
 * member leaving) may be gone already.
 */
async function accountsOf(
  workspaceId: string,
  ids: readonly string[],
  required: ReadonlySet<string>,
  ports: ScimGroupPorts,
): Promise<Map<string, string>> {
  const users = await Promise.all(ids.map((id) => (scimUserId.test(id) ? ports.scimUsers.get(workspaceId, id) : null)));
  const accounts = new Map<string, string>();
  ids.forEach((id, index) => {
    const user = users[index];
    if (user) accounts.set(id, user.userId);
    else if (required.has(id)) throw invalidValue(`members: ${JSON.stringify(id)} is not the id of a User of this workspace.`);
  });
  return accounts;
}

/** The members `after` adds to `before`: each must be a User of the workspace. */
const joining = (before: readonly string[], after: readonly string[]) => {
  const had = new Set(before);
  return new Set(after.filter((id) => !had.has(id)));
};

/** The role steps of a change, read as the policy and the memberships are now. */
async function decideRoles(
  workspaceId: string,
  groupId: string,
  before: readonly string[],
  after: readonly string[],
  ports: ScimGroupPorts,
) {
  const adminGroupId = await ports.scimGroups.adminGroupOf(workspaceId);
  const moved = movedMembers({ groupId, adminGroupId, before, after });
  const joiners = joining(before, after);
  // Every User joining is checked, the admin Group or not; those leaving are read only to move their role.
  const accounts = await accountsOf(workspaceId, [...new Set([...joiners, ...moved])], joiners, ports);
  const roles = moved.length === 0 ? new Map() : await ports.scimGroups.roles(workspaceId, [...new Set(accounts.values())]);
  const now = ports.clock.now();
  const steps = roleSteps({ workspaceId, groupId, adminGroupId, before, after, accounts, roles, now });
  if (roleWrites(steps) > scimGroupLimits.roleChanges * 2) {
    throw invalidValue(
      `One request may change the admin Group by at most ${scimGroupLimits.roleChanges} members: send the rest in another.`,
    );
  }
  return { fact: { adminGroupId }, steps, now };
}

/** `POST /Groups`: the Group, its members this workspace's Users, its displayName and externalId its own. */
export async function createScimGroup(workspaceId: string, body: unknown, ports: ScimGroupPorts): Promise<ScimGroup> {
  const attributes = parseGroupBody(body);
  const [sameName, sameExternalId] = await Promise.all([
    ports.scimGroups.byDisplayName(workspaceId, attributes.displayName),
    attributes.externalId === undefined ? null : ports.scimGroups.byExternalId(workspaceId, attributes.externalId),
  ]);
  if (sameName || sameExternalId) throw uniqueness();
  const id = newScimGroupId();
  for (let attempt = 0; attempt < changeAttempts; attempt++) {
    // A new Group is no policy's admin Group yet: its roles move when an owner names it.
    const { fact, steps, now } = await decideRoles(workspaceId, id, [], attributes.members, ports);
    const group: ScimGroup = { ...attributes, id, workspaceId, createdAt: now, lastModified: now, version: 1 };
    const outcome = await ports.scimGroups.create(group, fact, steps, groupAudit('scim.group_created', group, now));
    if (outcome === 'created') return group;
    if (outcome === 'duplicate') throw uniqueness();
  }
  throw busy(id);
}

export async function readScimGroup(workspaceId: string, id: string, ports: Pick<ScimGroupPorts, 'scimGroups'>): Promise<ScimGroup> {
  const group = scimGroupId.test(id) ? await ports.scimGroups.get(workspaceId, id) : null;
  if (!group) throw notFound(id);
  return group;
}

/** A change of a Group made on its latest version, with the roles it moves. */
async function change(
  workspaceId: string,
  id: string,
  ports: ScimGroupPorts,
  next: (current: ScimGroup) => ScimGroupAttributes,
): Promise<ScimGroup> {
  for (let attempt = 0; attempt < changeAttempts; attempt++) {
    const current = await readScimGroup(workspaceId, id, ports);
    const attributes = next(current);
    const { fact, steps, now } = await decideRoles(workspaceId, id, current.members, attributes.members, ports);
    const after: ScimGroup = { ...current, ...attributes, lastModified: now, version: current.version + 1 };
    const outcome = await ports.scimGroups.replace(current, after, fact, steps, groupAudit('scim.group_updated', after, now));
    if (outcome === 'replaced') return after;
    if (outcome === 'duplicate') throw uniqueness();
  }
  throw busy(id);
}

/** `PUT /Groups/{id}`: displayName, externalId and members replaced by the body's. */
export function replaceScimGroup(workspaceId: string, id: string, body: unknown, ports: ScimGroupPorts): Promise<ScimGroup> {
  const attributes = parseGroupBody(body);
  return change(workspaceId, id, ports, () => attributes);
}

/** `PATCH /Groups/{id}`: the operations applied to the Group as it is now, all or none. */
export function patchScimGroup(workspaceId: string, id: string, body: unknown, ports: ScimGroupPorts): Promise<ScimGroup> {
  return change(workspaceId, id, ports, (current) => applyGroupPatch(current, body));
}

/**
 * `DELETE /Groups/{id}`: the Group goes, whatever its size. When it is the admin Group, its admins
 * are members again first (in chunks, each on the Group's version and the policy), then it is
 * deleted on its version and the role settlements read, clearing the policy's admin Group.
 */
export async function deleteScimGroup(workspaceId: string, id: string, ports: ScimGroupPorts): Promise<void> {
  for (let attempt = 0; attempt < changeAttempts; attempt++) {
    const current = await readScimGroup(workspaceId, id, ports);
    const adminGroupId = await ports.scimGroups.adminGroupOf(workspaceId);
    const now = ports.clock.now();
    if (adminGroupId === id) {
      const demoted = await settleMoves(
        current,
        { adminGroupId },
        { demote: { from: id, members: current.members }, promote: [] },
        now,
        ports,
      );
      // Some were demoted (or a fact moved): read again, so the deletion holds what was settled as its condition.
      if (demoted !== 0) continue;
    }
    const outcome = await ports.scimGroups.delete(current, { adminGroupId }, [], groupAudit('scim.group_deleted', current, now));
    if (outcome === 'deleted') return;
    if (outcome === 'gone') throw notFound(id);
  }
  throw busy(id);
}

/** A User out of one Group (its deletion takes it out of every Group that held it). */
export function dropMember(workspaceId: string, groupId: string, scimUserId: string, ports: ScimGroupPorts): Promise<ScimGroup> {
  return change(workspaceId, groupId, ports, (current) => ({ ...current, members: current.members.filter((id) => id !== scimUserId) }));
}
