import { givesPlan, type SubscriptionRecord } from '../../shared/domain/billing/model.ts';
import type { Grant, LinkWrite } from '../../shared/domain/billing/ports.ts';
import type { AuditRow, Invitation, Member, Role, Workspace } from '../../shared/domain/workspaces/model.ts';
import type { Actor } from '../../shared/domain/workspaces/ports.ts';
import { newAuditId, newInvitationId, newInvitationToken, newUserId, newWorkspaceId, sha256Base64Url } from '../../shared/ids.ts';
import type { WorkspaceWorld } from './workspaceWorld.ts';

/** A fixed time for the contracts (no TTL runs on the table: nothing goes by itself). */
export const t0 = Date.UTC(2026, 10, 24, 12);
export const minute = 60_000;
export const hour = 60 * minute;
export const day = 24 * hour;

export const owners: Actor['roles'] = ['owner'];
export const admins: Actor['roles'] = ['owner', 'admin'];
export const anyone: Actor['roles'] = ['owner', 'admin', 'member'];

export const actorOf = (member: Pick<Member, 'userId'>, roles: Actor['roles'] = admins): Actor => ({ userId: member.userId, roles });

export function audit(workspaceId: string, action = 'test.change', at = t0, target = workspaceId): AuditRow {
  return {
    id: newAuditId(),
    workspaceId,
    at,
    actor: { userId: null, email: null, via: 'system' },
    action,
    target,
    details: { note: action },
  };
}

let emails = 0;
export const newAddress = (label = 'person', domain = 'example.com') =>
  `${label}-${process.pid}-${++emails}-${newUserId().slice(4, 10).toLowerCase()}@${domain}`;

export function aMember(workspaceId: string, role: Role = 'member', overrides: Partial<Member> = {}): Member {
  return {
    workspaceId,
    userId: newUserId(),
    email: newAddress(role),
    role,
    joinedAt: t0,
    source: role === 'owner' ? 'owner' : 'invitation',
    ...overrides,
  };
}

export interface MadeWorkspace {
  workspace: Workspace;
  owner: Member;
  /** The owner acting with every role a change may ask for. */
  ownerActs: Actor;
}

/** A workspace made as createWorkspace makes one (its owner, one seat), then given `seats` through billing's seat write. */
export async function makeWorkspace(world: WorkspaceWorld, options: { seats?: number; name?: string } = {}): Promise<MadeWorkspace> {
  const id = newWorkspaceId();
  const workspace: Workspace = {
    id,
    name: options.name ?? 'Acme',
    slug: `acme-${id.slice(4).toLowerCase()}`,
    region: 'eu-west-1',
    plan: 'free',
    createdAt: t0,
    policy: {},
  };
  const owner = aMember(id, 'owner');
  const made = await world.workspaces.create(
    workspace,
    { seats: 1, used: 1, owners: 1, members: 1 },
    owner,
    audit(id, 'workspace.created'),
  );
  if (made !== 'created') throw new Error(`the workspace was not made: ${made}`);
  if (options.seats !== undefined) await setSeats(world, id, options.seats);
  return { workspace, owner, ownerActs: actorOf(owner, anyone) };
}

/** The roster's seats set (lowerSeats writes any number at or above the members). */
export async function setSeats(world: WorkspaceWorld, workspaceId: string, seats: number): Promise<void> {
  const set = await world.billing.lowerSeats(workspaceId, seats);
  if (!set.lowered) throw new Error(`seats ${seats} are below the members (${set.members})`);
}

export function anInvitation(
  workspaceId: string,
  role: Invitation['role'] = 'member',
  overrides: Partial<Invitation> = {},
): { invitation: Invitation; token: string } {
  const token = newInvitationToken();
  return {
    token,
    invitation: {
      id: newInvitationId(),
      workspaceId,
      email: newAddress('invited'),
      role,
      createdAt: t0,
      expiresAt: t0 + 7 * day,
      invitedBy: 'usr_inviter',
      tokenHash: sha256Base64Url(token),
      ...overrides,
    },
  };
}

/** A member who came in by invitation (a new account, or `who`): invited by the owner, accepted at t0. */
export async function join(
  world: WorkspaceWorld,
  made: MadeWorkspace,
  role: Exclude<Role, 'owner'> = 'member',
  who?: Pick<Member, 'userId' | 'email'>,
): Promise<Member> {
  const { invitation } = anInvitation(made.workspace.id, role, who ? { email: who.email } : {});
  const invited = await world.memberships.invite(invitation, made.ownerActs, audit(made.workspace.id, 'member.invited'));
  if (invited !== 'invited') throw new Error(`the invitation was not made: ${invited}`);
  const token = (await world.memberships.invitationToken(invitation.tokenHash))!;
  const member = aMember(made.workspace.id, role, { email: invitation.email, ...(who ? { userId: who.userId } : {}) });
  const joined = await world.memberships.accept(token, member, t0, audit(made.workspace.id, 'member.joined'));
  if (joined !== 'joined') throw new Error(`the invitation was not accepted: ${joined}`);
  return member;
}

/** A Team subscription's record for the workspace, live, `seats` paid for. */
export function teamRecord(made: MadeWorkspace, overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord {
  return {
    id: `sub_${newUserId().slice(4)}`,
    customerId: 'cus_team',
    target: { kind: 'workspace', workspaceId: made.workspace.id, ownerId: made.owner.userId },
    plan: 'team',
    status: 'active',
    seats: 5,
    currentPeriodEnd: t0 + 30 * day,
    cancelAtPeriodEnd: false,
    syncedAt: t0,
    ...overrides,
  };
}

/**
 * What following a subscription grants (the domain's rule, live.ts `grantOf`, spelled out here so
 * the store's contract does not lean on domain code): its plan while it gives one, and for a
 * workspace the seats paid for, else its members, else the seats as they are (a contract's).
 */
export function grantFor(record: SubscriptionRecord): Grant {
  const plan = givesPlan(record.status) ? record.plan : 'free';
  if (record.target.kind === 'user') return { plan, seats: ['unchanged'] };
  return { plan, seats: plan === 'team' ? [record.seats, 'members', 'unchanged'] : ['members', 'unchanged'] };
}

/** Follows the record while the target links `linked`, granting what it grants. */
export const follow = (record: SubscriptionRecord, linked: string | null = null): LinkWrite => ({
  mode: 'follow',
  linked,
  grant: grantFor(record),
});

/** The workspace on Team with `seats` seats, as a live subscription's event gives it. */
export async function onTeam(world: WorkspaceWorld, made: MadeWorkspace, seats = 5): Promise<SubscriptionRecord> {
  const record = teamRecord(made, { seats });
  const applied = await world.billing.applySubscription(record, `evt_${newUserId().slice(4)}`, t0, follow(record));
  if (applied !== 'applied') throw new Error(`the subscription was not applied: ${applied}`);
  return record;
}
