import * as z from 'zod/mini';
import type { Clock } from '../../clock.ts';
import { newAuditId, newScimUserId, newUserId } from '../../ids.ts';
import { normalizeEmail } from '../accounts/model.ts';
import type { AccountPorts } from '../accounts/ports.ts';
import { Conflict, Forbidden, NotFound } from '../refusals.ts';
import type { AuditRow } from '../workspaces/model.ts';
import { isObject, keyOf } from './attributes.ts';
import { scimFacts, scimInvalid, type ScimUser, type ScimUserAttributes } from './model.ts';
import { leaveEveryGroup, settleAdminRole } from './groupMembers.ts';
import type { ScimGroupStore } from './groupModel.ts';
import { applyPatch } from './patch.ts';
import type { ScimUserStore } from './ports.ts';
import { parseUserBody } from './userBody.ts';

export interface ScimPorts {
  scimUsers: ScimUserStore;
  users: Pick<AccountPorts['users'], 'createOrGet'>;
  /** A User deactivated or deleted loses the sessions this workspace's single sign-on opened (issue 29). */
  sessions: Pick<AccountPorts['sessions'], 'revokeSsoSessions'>;
  /** The workspace's Groups (issue 30): the admin Group's role follows a User's membership (docs/adr/0175). Absent: no Groups. */
  scimGroups?: ScimGroupStore;
  clock: Clock;
}

/** The admin role the admin Group gave, taken back before the membership goes (the directory removes only members). */
async function beforeLeaving(workspaceId: string, user: ScimUser, ports: ScimPorts): Promise<void> {
  if (ports.scimGroups) await settleAdminRole(workspaceId, user, 'member', { scimGroups: ports.scimGroups, clock: ports.clock });
}

/** Attempts when another change of the same User lands between the read and the write. */
const changeAttempts = 3;

const notFound = (id: string) => new NotFound(`No User ${id} in this workspace.`);
const uniqueness = () =>
  new Conflict('A User with this userName or externalId, or for this email address, exists in this workspace.', scimFacts('uniqueness'));
const noSeat = () => new Forbidden('Every seat of the workspace is taken: add seats, or deactivate a User, before activating another.');
const privileged = () =>
  new Forbidden(
    'This User’s membership is an owner’s or an admin’s: the workspace changes those roles itself, the directory never removes them.',
  );
const busy = (id: string) => new Conflict(`User ${id} kept changing while this change was applied: read it again.`);

/** What an address an account may be made for is, as sign-in reads one. */
const address = z.email().check(z.maxLength(254));

/**
 * The address the User's account is: its primary email, else its work email, else its first,
 * else its userName when that is an address (Okta's default). The account is fixed at create:
 * renaming a User, or changing its emails, never moves the membership to another account.
 */
export function accountAddress(user: ScimUserAttributes): string {
  const emails = user.emails ?? [];
  const candidates = [
    emails.find((email) => email.primary === true),
    emails.find((email) => email.type?.toLowerCase() === 'work'),
    emails[0],
  ]
    .map((email) => email?.value)
    .concat(user.userName);
  const found = candidates.find((value) => value !== undefined && address.safeParse(value).success);
  if (found === undefined) {
    throw scimInvalid('A User needs an email address (in emails, or as its userName): its account is made for it.', 'invalidValue');
  }
  return normalizeEmail(found);
}

function scimAudit(
  workspaceId: string,
  action: string,
  user: Pick<ScimUser, 'id' | 'userName' | 'userId' | 'active'>,
  now: number,
): AuditRow {
  return {
    id: newAuditId(),
    workspaceId,
    at: now,
    actor: { userId: null, email: null, via: 'scim' },
    action,
    target: user.userId,
    details: { scim_id: user.id, user_name: user.userName, active: user.active },
  };
}

/**
 * `POST /Users`: the User, and the account its address is (made when new: no sign-in is needed
 * for it to exist), a member of the workspace holding a seat when active. Never any secret.
 */
export async function createScimUser(workspaceId: string, body: unknown, ports: ScimPorts): Promise<ScimUser> {
  const attributes = parseUserBody(body);
  const email = accountAddress(attributes);
  // A known duplicate is refused before an account is made for it; the conditions settle races.
  const [sameName, sameExternalId] = await Promise.all([
    ports.scimUsers.byUserName(workspaceId, attributes.userName),
    attributes.externalId === undefined ? null : ports.scimUsers.byExternalId(workspaceId, attributes.externalId),
  ]);
  if (sameName || sameExternalId) throw uniqueness();
  const now = ports.clock.now();
  const account = await ports.users.createOrGet({ id: newUserId(), email, plan: 'free', createdAt: now });
  const id = newScimUserId();
  const user: ScimUser = { ...attributes, id, workspaceId, userId: account.id, createdAt: now, lastModified: now, version: 1 };
  const outcome = await ports.scimUsers.create(
    workspaceId,
    id,
    attributes,
    { userId: account.id, email: account.email },
    now,
    scimAudit(workspaceId, 'scim.user_created', user, now),
  );
  if (outcome === 'duplicate') throw uniqueness();
  if (outcome === 'no_seat') throw noSeat();
  return user;
}

/** What newScimUserId makes: any other id is no User's, and is not read (DynamoDB refuses a key past 1,024 bytes). */
const scimUserId = /^scu_[A-Za-z0-9_-]{22}$/;

export async function readScimUser(workspaceId: string, id: string, ports: Pick<ScimPorts, 'scimUsers'>): Promise<ScimUser> {
  const user = scimUserId.test(id) ? await ports.scimUsers.get(workspaceId, id) : null;
  if (!user) throw notFound(id);
  return user;
}

/**
 * `PUT /Users/{id}`: the User's attributes replaced by the body's. `active` left out keeps the
 * User as it is: Okta's wizard-made apps PUT back what they read, and a PUT that forgot
 * `active` must not take or free a seat by surprise.
 */
export function replaceScimUser(workspaceId: string, id: string, body: unknown, ports: ScimPorts): Promise<ScimUser> {
  const attributes = parseUserBody(body);
  const activeSent = isObject(body) && keyOf(body, 'active') !== undefined && body[keyOf(body, 'active')!] !== null;
  return change(workspaceId, id, ports, (current) => (activeSent ? attributes : { ...attributes, active: current.active }));
}

/** `PATCH /Users/{id}`: the operations applied to the User as it is now, all or none. */
export function patchScimUser(workspaceId: string, id: string, body: unknown, ports: ScimPorts): Promise<ScimUser> {
  return change(workspaceId, id, ports, (current) => applyPatch(current, body));
}

/**
 * A change of a User, made on its latest version: deactivating removes the membership and frees
 * the seat (the User stays, `active: false`); reactivating takes a seat (403 when none is free).
 */
async function change(
  workspaceId: string,
  id: string,
  ports: ScimPorts,
  next: (current: ScimUser) => ScimUserAttributes,
): Promise<ScimUser> {
  for (let attempt = 0; attempt < changeAttempts; attempt++) {
    const current = await readScimUser(workspaceId, id, ports);
    const attributes = next(current);
    const now = ports.clock.now();
    const after: ScimUser = {
      ...attributes,
      id,
      workspaceId,
      userId: current.userId,
      createdAt: current.createdAt,
      lastModified: now,
      version: current.version + 1,
    };
    const action = current.active === after.active ? 'scim.user_updated' : after.active ? 'scim.user_reactivated' : 'scim.user_deactivated';
    if (action === 'scim.user_deactivated') await beforeLeaving(workspaceId, current, ports);
    const outcome = await ports.scimUsers.replace(
      workspaceId,
      id,
      attributes,
      current.version,
      now,
      scimAudit(workspaceId, action, after, now),
    );
    if (outcome === 'replaced') {
      if (action === 'scim.user_deactivated') await ports.sessions.revokeSsoSessions(current.userId, workspaceId, now);
      // Back in the workspace while in the admin Group: an admin again.
      if (action === 'scim.user_reactivated' && ports.scimGroups) {
        await settleAdminRole(workspaceId, after, 'admin', { scimGroups: ports.scimGroups, clock: ports.clock });
      }
      return after;
    }
    if (outcome === 'duplicate') throw uniqueness();
    if (outcome === 'no_seat') throw noSeat();
    if (outcome === 'privileged') throw privileged();
  }
  throw busy(id);
}

/** `DELETE /Users/{id}`: the User and its membership go, the seat is freed; the account stays (rule 6). */
export async function deleteScimUser(workspaceId: string, id: string, ports: ScimPorts): Promise<void> {
  for (let attempt = 0; attempt < changeAttempts; attempt++) {
    const current = await readScimUser(workspaceId, id, ports);
    if (current.active) await beforeLeaving(workspaceId, current, ports);
    const now = ports.clock.now();
    const outcome = await ports.scimUsers.delete(workspaceId, id, scimAudit(workspaceId, 'scim.user_deleted', current, now));
    if (outcome === 'deleted') {
      await ports.sessions.revokeSsoSessions(current.userId, workspaceId, now);
      if (ports.scimGroups)
        await leaveEveryGroup(workspaceId, id, { scimGroups: ports.scimGroups, scimUsers: ports.scimUsers, clock: ports.clock });
      return;
    }
    if (outcome === 'gone') throw notFound(id);
    if (outcome === 'privileged') throw privileged();
  }
  throw busy(id);
}
