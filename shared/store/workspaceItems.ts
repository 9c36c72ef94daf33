import { TransactWriteCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { toIso } from '../clock.ts';
import type { Actor, InvitationToken } from '../domain/workspaces/ports.ts';
import type { AuditRow, Invitation, Member, Role, Roster, Workspace, WorkspaceBranding, WorkspacePolicy } from '../domain/workspaces/model.ts';
import { isCancelledByCondition } from './client.ts';
import { planOfItem } from './planAttributes.ts';

/**
 * A workspace's partition (`WORKSPACE#<id>`) holds the workspace (`WORKSPACE`), its roster
 * (`ROSTER`: seats, seats used, owners, members), its members (`MEMBER#<user>`, also on gsi1 as
 * `MEMBERSHIPS#<user>` for the member's listing) and pending invitations (`INVITATION#<id>`).
 * An invitation's token has its own item (`INVITATION_TOKEN#<hash>`), so accepting is one read,
 * and it keeps its state (used, revoked) after the invitation leaves the roll. Slugs are claimed
 * by `SLUG#<slug>`. The audit trail is a partition of its own (`AUDIT#<workspace>`), newest
 * first by time. Every change is one transaction with its audit row; invariants (seats ≥ used,
 * owners ≥ 1) are conditions on the roster item, never read-then-write.
 */
export const partition = (workspaceId: string) => `WORKSPACE#${workspaceId}`;
export const workspaceKey = (id: string) => ({ pk: partition(id), sk: 'WORKSPACE' });
export const rosterKey = (id: string) => ({ pk: partition(id), sk: 'ROSTER' });
/** Branding has an item of its own: its logo (up to 64 KiB) must not weigh on every read of the workspace's policy. */
export const brandingKey = (id: string) => ({ pk: partition(id), sk: 'BRANDING' });
export const memberKey = (workspaceId: string, userId: string) => ({ pk: partition(workspaceId), sk: `MEMBER#${userId}` });
export const invitationKey = (workspaceId: string, id: string) => ({ pk: partition(workspaceId), sk: `INVITATION#${id}` });
export const tokenKey = (hash: string) => ({ pk: `INVITATION_TOKEN#${hash}`, sk: 'INVITATION_TOKEN' });
export const slugKey = (slug: string) => ({ pk: `SLUG#${slug}`, sk: 'SLUG' });
export const auditPartition = (workspaceId: string) => `AUDIT#${workspaceId}`;
export const membershipsPartition = (userId: string) => `MEMBERSHIPS#${userId}`;

/** A used or revoked token answers 410 rather than 404 this long after the invitation's end. */
export const tokenKeptSeconds = 30 * 24 * 3600;

export const policyToItem = (policy: WorkspacePolicy) => ({ ...policy });
export const toBranding = (item: Record<string, unknown>): WorkspaceBranding => ({
  displayName: String(item.display_name),
  logo: (item.logo as string | null | undefined) ?? null,
  accent: (item.accent as string | null | undefined) ?? null,
});

export function toWorkspace(item: Record<string, unknown>): Workspace {
  return {
    id: String(item.id),
    name: String(item.name),
    slug: String(item.slug),
    region: String(item.region),
    plan: planOfItem(item),
    createdAt: Number(item.created_at),
    policy: (item.policy ?? {}) as WorkspacePolicy,
  };
}

export const toRoster = (item: Record<string, unknown>): Roster => ({
  seats: Number(item.seats),
  used: Number(item.used),
  owners: Number(item.owners),
  members: Number(item.members),
});

export function toMemberItem(member: Member): Record<string, unknown> {
  return {
    ...memberKey(member.workspaceId, member.userId),
    type: 'member',
    workspace_id: member.workspaceId,
    user_id: member.userId,
    email: member.email,
    role: member.role,
    joined_at: member.joinedAt,
    source: member.source,
    gsi1pk: membershipsPartition(member.userId),
    gsi1sk: `WORKSPACE#${member.workspaceId}`,
  };
}

export const toMember = (item: Record<string, unknown>): Member => ({
  workspaceId: String(item.workspace_id),
  userId: String(item.user_id),
  email: String(item.email),
  role: item.role as Role,
  joinedAt: Number(item.joined_at),
  source: item.source as Member['source'],
});

export const toInvitation = (item: Record<string, unknown>): Invitation => ({
  id: String(item.id),
  workspaceId: String(item.workspace_id),
  email: String(item.email),
  role: item.role as Invitation['role'],
  createdAt: Number(item.created_at),
  expiresAt: Number(item.expires_at),
  invitedBy: String(item.invited_by),
  tokenHash: String(item.token_hash),
});

export const toToken = (item: Record<string, unknown>): InvitationToken => ({
  tokenHash: String(item.token_hash),
  workspaceId: String(item.workspace_id),
  invitationId: String(item.invitation_id),
  email: String(item.email),
  role: item.role as Invitation['role'],
  expiresAt: Number(item.expires_at),
  state: item.state as InvitationToken['state'],
});

export function toAuditItem(row: AuditRow): Record<string, unknown> {
  return {
    pk: auditPartition(row.workspaceId),
    sk: `${toIso(row.at)}#${row.id}`,
    type: 'audit',
    id: row.id,
    workspace_id: row.workspaceId,
    at: row.at,
    actor_user_id: row.actor.userId,
    actor_email: row.actor.email,
    via: row.actor.via,
    action: row.action,
    target: row.target,
    details: row.details,
  };
}

export const toAuditRow = (item: Record<string, unknown>): AuditRow => ({
  id: String(item.id),
  workspaceId: String(item.workspace_id),
  at: Number(item.at),
  actor: { userId: (item.actor_user_id as string | null) ?? null, email: (item.actor_email as string | null) ?? null, via: item.via as AuditRow['actor']['via'] },
  action: String(item.action),
  target: String(item.target),
  details: (item.details ?? {}) as AuditRow['details'],
});

/** The reason DynamoDB gave for each item of a cancelled transaction, in order. */
export type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export const cancellationCodes = (error: unknown): string[] =>
  ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');

/** What both workspace stores share: the table, and the pieces of their transactions. */
export abstract class WorkspaceTable {
  constructor(
    protected readonly db: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  /** Runs a transaction; the cancellation codes when a condition refused it (other failures throw). */
  protected async transact(items: TransactWriteItem[]): Promise<string[] | null> {
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items }));
      return null;
    } catch (error) {
      if (isCancelledByCondition(error)) return cancellationCodes(error);
      throw error;
    }
  }

  protected put(item: Record<string, unknown>, condition?: string, values?: Record<string, unknown>): TransactWriteItem {
    return { Put: { TableName: this.tableName, Item: item, ...(condition ? { ConditionExpression: condition } : {}), ...(values ? { ExpressionAttributeValues: values } : {}) } };
  }

  protected audit(row: AuditRow): TransactWriteItem {
    return this.put(toAuditItem(row));
  }

  /** The actor is still a member with one of the roles as the transaction commits. */
  protected actorCheck(workspaceId: string, actor: Actor): TransactWriteItem {
    const names = actor.roles.map((_, i) => `:role${i}`);
    return {
      ConditionCheck: {
        TableName: this.tableName,
        Key: memberKey(workspaceId, actor.userId),
        ConditionExpression: `#role IN (${names.join(', ')})`,
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: Object.fromEntries(actor.roles.map((role, i) => [names[i], role])),
      },
    };
  }
}
