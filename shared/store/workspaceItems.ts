import { PutCommand, TransactWriteCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Actor, InvitationToken } from '../domain/workspaces/ports.ts';
import type {
  AuditRow,
  Invitation,
  Member,
  Role,
  Roster,
  StoredWorkspace,
  WorkspaceBranding,
  WorkspacePolicy,
} from '../domain/workspaces/model.ts';
import { isCancelledByCondition } from './client.ts';
import { auditKey, memberKey, membershipListing, type AuditItem, type MemberItem } from './items/index.ts';
import { planFactsOf } from './planAttributes.ts';

/**
 * What the workspace stores share (the layout is shared/store/items/workspaces.ts): the table,
 * the items' mappers, and the parts of their transactions that no single one of them owns: a
 * member (written when a workspace is made, an invitation is accepted, a person is removed or
 * their role changes, and when SCIM provisions or deprovisions a User) and an audit row (written
 * with every change). Those two item types are written only through the parts here; the roster's
 * are workspaceRoster.ts's. Every change is one transaction with its audit row; invariants
 * (seats ≥ used, owners ≥ 1) are conditions on the roster item, never read-then-write.
 */

/** A used or revoked token answers 410 rather than 404 this long after the invitation's end. */
export const tokenKeptSeconds = 30 * 24 * 3600;

export const policyToItem = (policy: WorkspacePolicy) => ({ ...policy });
export const toBranding = (item: Record<string, unknown>): WorkspaceBranding => ({
  displayName: String(item.display_name),
  logo: (item.logo as string | null | undefined) ?? null,
  accent: (item.accent as string | null | undefined) ?? null,
});

export function toWorkspace(item: Record<string, unknown>): StoredWorkspace {
  return {
    id: String(item.id),
    name: String(item.name),
    slug: String(item.slug),
    region: String(item.region),
    // Both plans as written (the domain's workspaceInUse takes the higher).
    ...planFactsOf(item),
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

export function toMemberItem(member: Member): MemberItem {
  return {
    ...memberKey(member.workspaceId, member.userId),
    type: 'member',
    workspace_id: member.workspaceId,
    user_id: member.userId,
    email: member.email,
    role: member.role,
    joined_at: member.joinedAt,
    source: member.source,
    ...membershipListing(member.userId, member.workspaceId),
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

export function toAuditItem(row: AuditRow): AuditItem {
  return {
    ...auditKey(row.workspaceId, row.at, row.id),
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
  actor: {
    userId: (item.actor_user_id as string | null) ?? null,
    email: (item.actor_email as string | null) ?? null,
    via: item.via as AuditRow['actor']['via'],
  },
  action: String(item.action),
  target: String(item.target),
  details: (item.details ?? {}) as AuditRow['details'],
});

export type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The reason DynamoDB gave for each item of a cancelled transaction, in order. */
export const cancellationCodes = (error: unknown): string[] =>
  ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');

/** An audit row, in the transaction of the change it records (contract plans write one too). */
export const auditWrite = (tableName: string, row: AuditRow): TransactWriteItem => ({
  Put: { TableName: tableName, Item: toAuditItem(row) },
});

/** A new member item, unless the person is a member already. */
export const memberJoins = (tableName: string, member: Member): TransactWriteItem => ({
  Put: { TableName: tableName, Item: toMemberItem(member), ConditionExpression: 'attribute_not_exists(pk)' },
});

/** The member item removed, while its role is still `role` (what the change was decided on). */
export const memberLeaves = (tableName: string, workspaceId: string, userId: string, role: Role): TransactWriteItem => ({
  Delete: {
    TableName: tableName,
    Key: memberKey(workspaceId, userId),
    ConditionExpression: '#role = :role',
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':role': role },
  },
});

/** A member's new role, if the role is still the one read. */
export const memberRoleWrite = (tableName: string, member: Member, role: Role): TransactWriteItem => ({
  Update: {
    TableName: tableName,
    Key: memberKey(member.workspaceId, member.userId),
    UpdateExpression: 'SET #role = :role',
    ConditionExpression: '#role = :was',
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':role': role, ':was': member.role },
  },
});

/** The person is still a member (with any role) as the transaction commits. */
export const memberStays = (tableName: string, workspaceId: string, userId: string): TransactWriteItem => ({
  ConditionCheck: { TableName: tableName, Key: memberKey(workspaceId, userId), ConditionExpression: 'attribute_exists(pk)' },
});

/** What the workspace stores share: the table, and the pieces of their transactions. */
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

  /** A Put of one of the calling store's own items. */
  protected put(item: object, condition?: string, values?: Record<string, unknown>): TransactWriteItem {
    return {
      Put: {
        TableName: this.tableName,
        Item: item as Record<string, unknown>,
        ...(condition ? { ConditionExpression: condition } : {}),
        ...(values ? { ExpressionAttributeValues: values } : {}),
      },
    };
  }

  protected audit(row: AuditRow): TransactWriteItem {
    return auditWrite(this.tableName, row);
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

/** One audit row on its own: what a write outside the workspace's transactions records (an owner's break-glass sign-in). */
export async function putAuditRow(db: DynamoDBDocumentClient, tableName: string, row: AuditRow): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: toAuditItem(row) }));
}
