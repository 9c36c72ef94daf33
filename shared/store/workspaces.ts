import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds, toIso } from '../clock.ts';
import { planOf } from '../domain/plans.ts';
import type { Actor, InvitationToken, Membership, WorkspaceStore } from '../domain/workspaces/ports.ts';
import type { AuditRow, Invitation, Member, Role, Roster, Workspace, WorkspaceBranding, WorkspacePolicy } from '../domain/workspaces/model.ts';
import { isCancelledByCondition } from './client.ts';
import { decodeCursor } from './cursor.ts';
import { queryPage } from './listing.ts';

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
const partition = (workspaceId: string) => `WORKSPACE#${workspaceId}`;
const workspaceKey = (id: string) => ({ pk: partition(id), sk: 'WORKSPACE' });
const rosterKey = (id: string) => ({ pk: partition(id), sk: 'ROSTER' });
/** Branding has an item of its own: its logo (up to 64 KiB) must not weigh on every read of the workspace's policy. */
const brandingKey = (id: string) => ({ pk: partition(id), sk: 'BRANDING' });
const memberKey = (workspaceId: string, userId: string) => ({ pk: partition(workspaceId), sk: `MEMBER#${userId}` });
const invitationKey = (workspaceId: string, id: string) => ({ pk: partition(workspaceId), sk: `INVITATION#${id}` });
const tokenKey = (hash: string) => ({ pk: `INVITATION_TOKEN#${hash}`, sk: 'INVITATION_TOKEN' });
const slugKey = (slug: string) => ({ pk: `SLUG#${slug}`, sk: 'SLUG' });
const auditPartition = (workspaceId: string) => `AUDIT#${workspaceId}`;
const membershipsPartition = (userId: string) => `MEMBERSHIPS#${userId}`;

/** A used or revoked token answers 410 rather than 404 this long after the invitation's end. */
const tokenKeptSeconds = 30 * 24 * 3600;

const policyToItem = (policy: WorkspacePolicy) => ({ ...policy });
const toBranding = (item: Record<string, unknown>): WorkspaceBranding => ({
  displayName: String(item.display_name),
  logo: (item.logo as string | null | undefined) ?? null,
  accent: (item.accent as string | null | undefined) ?? null,
});

function toWorkspace(item: Record<string, unknown>): Workspace {
  return {
    id: String(item.id),
    name: String(item.name),
    slug: String(item.slug),
    region: String(item.region),
    plan: planOf(item.plan as string | undefined),
    createdAt: Number(item.created_at),
    policy: (item.policy ?? {}) as WorkspacePolicy,
  };
}

const toRoster = (item: Record<string, unknown>): Roster => ({
  seats: Number(item.seats),
  used: Number(item.used),
  owners: Number(item.owners),
  members: Number(item.members),
});

function toMemberItem(member: Member): Record<string, unknown> {
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

const toMember = (item: Record<string, unknown>): Member => ({
  workspaceId: String(item.workspace_id),
  userId: String(item.user_id),
  email: String(item.email),
  role: item.role as Role,
  joinedAt: Number(item.joined_at),
  source: item.source as Member['source'],
});

const toInvitation = (item: Record<string, unknown>): Invitation => ({
  id: String(item.id),
  workspaceId: String(item.workspace_id),
  email: String(item.email),
  role: item.role as Invitation['role'],
  createdAt: Number(item.created_at),
  expiresAt: Number(item.expires_at),
  invitedBy: String(item.invited_by),
  tokenHash: String(item.token_hash),
});

const toToken = (item: Record<string, unknown>): InvitationToken => ({
  tokenHash: String(item.token_hash),
  workspaceId: String(item.workspace_id),
  invitationId: String(item.invitation_id),
  email: String(item.email),
  role: item.role as Invitation['role'],
  expiresAt: Number(item.expires_at),
  state: item.state as InvitationToken['state'],
});

function toAuditItem(row: AuditRow): Record<string, unknown> {
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

const toAuditRow = (item: Record<string, unknown>): AuditRow => ({
  id: String(item.id),
  workspaceId: String(item.workspace_id),
  at: Number(item.at),
  actor: { userId: (item.actor_user_id as string | null) ?? null, email: (item.actor_email as string | null) ?? null, via: item.via as AuditRow['actor']['via'] },
  action: String(item.action),
  target: String(item.target),
  details: (item.details ?? {}) as AuditRow['details'],
});

/** The reason DynamoDB gave for each item of a cancelled transaction, in order. */
type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const cancellationCodes = (error: unknown): string[] =>
  ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');

export class DynamoWorkspaceStore implements WorkspaceStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Runs a transaction; the cancellation codes when a condition refused it (other failures throw). */
  private async transact(items: TransactWriteItem[]): Promise<string[] | null> {
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items }));
      return null;
    } catch (error) {
      if (isCancelledByCondition(error)) return cancellationCodes(error);
      throw error;
    }
  }

  private put(item: Record<string, unknown>, condition?: string): TransactWriteItem {
    return { Put: { TableName: this.tableName, Item: item, ...(condition ? { ConditionExpression: condition } : {}) } };
  }

  private audit(row: AuditRow): TransactWriteItem {
    return this.put(toAuditItem(row));
  }

  /** The actor is still a member with one of the roles as the transaction commits. */
  private actorCheck(workspaceId: string, actor: Actor): TransactWriteItem {
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

  async create(workspace: Workspace, roster: Roster, owner: Member, audit: AuditRow): Promise<'created' | 'slug_taken'> {
    const refused = await this.transact([
      this.put({ ...slugKey(workspace.slug), type: 'slug', workspace_id: workspace.id }, 'attribute_not_exists(pk)'),
      this.put(
        {
          ...workspaceKey(workspace.id),
          type: 'workspace',
          id: workspace.id,
          name: workspace.name,
          slug: workspace.slug,
          region: workspace.region,
          plan: workspace.plan,
          created_at: workspace.createdAt,
          policy: policyToItem(workspace.policy),
        },
        'attribute_not_exists(pk)',
      ),
      this.put({ ...rosterKey(workspace.id), type: 'roster', ...roster }, 'attribute_not_exists(pk)'),
      this.put(toMemberItem(owner), 'attribute_not_exists(pk)'),
      this.audit(audit),
    ]);
    return refused ? 'slug_taken' : 'created';
  }

  async get(id: string): Promise<Workspace | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: workspaceKey(id), ConsistentRead: true }));
    return Item ? toWorkspace(Item) : null;
  }

  async roster(id: string): Promise<Roster | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: rosterKey(id), ConsistentRead: true }));
    return Item ? toRoster(Item) : null;
  }

  async member(workspaceId: string, userId: string): Promise<Member | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: memberKey(workspaceId, userId), ConsistentRead: true }));
    return Item ? toMember(Item) : null;
  }

  async membershipsOf(userId: string): Promise<Membership[]> {
    const ids: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': membershipsPartition(userId) },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) ids.push(String(item.gsi1sk).slice('WORKSPACE#'.length));
      start = page.LastEvaluatedKey;
    } while (start);
    if (ids.length === 0) return [];
    // The index says where; the items themselves (read consistently) say what: a membership
    // removed a moment ago is on the index still, and is dropped here.
    const items = new Map<string, Record<string, unknown>>();
    const keys = ids.flatMap((id) => [workspaceKey(id), rosterKey(id), memberKey(id, userId), brandingKey(id)]);
    for (let i = 0; i < keys.length; i += 99) {
      let pending: Record<string, unknown>[] = keys.slice(i, i + 99);
      while (pending.length > 0) {
        const answer = await this.db.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }));
        for (const item of answer.Responses?.[this.tableName] ?? []) items.set(`${String(item.pk)}|${String(item.sk)}`, item);
        pending = (answer.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Record<string, unknown>[];
      }
    }
    const at = (key: { pk: string; sk: string }) => items.get(`${key.pk}|${key.sk}`);
    return ids.flatMap((id) => {
      const workspace = at(workspaceKey(id));
      const roster = at(rosterKey(id));
      const member = at(memberKey(id, userId));
      const branding = at(brandingKey(id));
      return workspace && roster && member ? [{ workspace: toWorkspace(workspace), roster: toRoster(roster), role: member.role as Role, branding: branding ? toBranding(branding) : null }] : [];
    });
  }

  async roll(workspaceId: string): Promise<{ members: Member[]; invitations: Invitation[] }> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      // Members and invitations only (`I…` to `N…`: INVITATION#, MEMBER#), read consistently.
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': partition(workspaceId), ':from': 'INVITATION#', ':to': 'MEMBER#\uffff' },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return {
      members: items.filter((item) => item.type === 'member').map(toMember),
      invitations: items.filter((item) => item.type === 'invitation').map(toInvitation),
    };
  }

  async invite(invitation: Invitation, actor: Actor, audit: AuditRow): Promise<'invited' | 'no_seat' | 'refused'> {
    const refused = await this.transact([
      {
        Update: {
          TableName: this.tableName,
          Key: rosterKey(invitation.workspaceId),
          UpdateExpression: 'SET used = used + :one',
          ConditionExpression: 'used < seats',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      this.put(
        {
          ...invitationKey(invitation.workspaceId, invitation.id),
          type: 'invitation',
          id: invitation.id,
          workspace_id: invitation.workspaceId,
          email: invitation.email,
          role: invitation.role,
          created_at: invitation.createdAt,
          expires_at: invitation.expiresAt,
          invited_by: invitation.invitedBy,
          token_hash: invitation.tokenHash,
        },
        'attribute_not_exists(pk)',
      ),
      this.put(
        {
          ...tokenKey(invitation.tokenHash),
          type: 'invitation_token',
          token_hash: invitation.tokenHash,
          workspace_id: invitation.workspaceId,
          invitation_id: invitation.id,
          email: invitation.email,
          role: invitation.role,
          expires_at: invitation.expiresAt,
          state: 'pending',
          ttl: toEpochSeconds(invitation.expiresAt) + tokenKeptSeconds,
        },
        'attribute_not_exists(pk)',
      ),
      this.actorCheck(invitation.workspaceId, actor),
      this.audit(audit),
    ]);
    if (!refused) return 'invited';
    return refused[0] === 'ConditionalCheckFailed' ? 'no_seat' : 'refused';
  }

  /** Ends a pending invitation (its token `state`) and gives its seat back, with the audit row. */
  private endInvitation(invitation: Invitation, state: 'revoked' | 'expired', audit: AuditRow, extra: TransactWriteItem[], now: number): TransactWriteItem[] {
    return [
      {
        Delete: {
          TableName: this.tableName,
          Key: invitationKey(invitation.workspaceId, invitation.id),
          ConditionExpression: state === 'expired' ? 'attribute_exists(pk) AND expires_at <= :now' : 'attribute_exists(pk)',
          ...(state === 'expired' ? { ExpressionAttributeValues: { ':now': now } } : {}),
        },
      },
      {
        Update: {
          TableName: this.tableName,
          Key: tokenKey(invitation.tokenHash),
          UpdateExpression: 'SET #state = :state',
          ConditionExpression: '#state = :pending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':state': state === 'revoked' ? 'revoked' : 'pending', ':pending': 'pending' },
        },
      },
      {
        Update: {
          TableName: this.tableName,
          Key: rosterKey(invitation.workspaceId),
          UpdateExpression: 'SET used = used - :one',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      ...extra,
      this.audit(audit),
    ];
  }

  async reclaimExpired(invitation: Invitation, now: number, audit: AuditRow): Promise<boolean> {
    return (await this.transact(this.endInvitation(invitation, 'expired', audit, [], now))) === null;
  }

  async revokeInvitation(invitation: Invitation, actor: Actor, audit: AuditRow): Promise<'revoked' | 'gone' | 'refused'> {
    const refused = await this.transact(this.endInvitation(invitation, 'revoked', audit, [this.actorCheck(invitation.workspaceId, actor)], 0));
    if (!refused) return 'revoked';
    return refused[3] === 'ConditionalCheckFailed' ? 'refused' : 'gone';
  }

  async invitationToken(tokenHash: string): Promise<InvitationToken | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: tokenKey(tokenHash), ConsistentRead: true }));
    return Item ? toToken(Item) : null;
  }

  async accept(token: InvitationToken, member: Member, now: number, audit: AuditRow): Promise<'joined' | 'gone' | 'already_member' | 'no_seat'> {
    const useToken: TransactWriteItem = {
      Update: {
        TableName: this.tableName,
        Key: tokenKey(token.tokenHash),
        UpdateExpression: 'SET #state = :used',
        ConditionExpression: '#state = :pending AND expires_at > :now',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':used': 'used', ':pending': 'pending', ':now': now },
      },
    };
    const leaveRoll: TransactWriteItem = {
      Delete: { TableName: this.tableName, Key: invitationKey(token.workspaceId, token.invitationId), ConditionExpression: 'attribute_exists(pk)' },
    };
    const refused = await this.transact([
      useToken,
      leaveRoll,
      this.put(toMemberItem(member), 'attribute_not_exists(pk)'),
      {
        Update: {
          TableName: this.tableName,
          Key: rosterKey(token.workspaceId),
          // The invitation held the seat: it becomes the member's. Seats lowered since (never
          // below the members) may leave pending invitations over them: those cannot join.
          UpdateExpression: 'SET members = members + :one',
          ConditionExpression: 'members < seats',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      this.audit(audit),
    ]);
    if (!refused) return 'joined';
    if (refused[0] === 'ConditionalCheckFailed' || refused[1] === 'ConditionalCheckFailed') return 'gone';
    if (refused[3] === 'ConditionalCheckFailed' && refused[2] !== 'ConditionalCheckFailed') return 'no_seat';
    // Already a member (joined another way meanwhile): the token is used and its seat given back.
    const settled = await this.transact([
      useToken,
      leaveRoll,
      {
        Update: {
          TableName: this.tableName,
          Key: rosterKey(token.workspaceId),
          UpdateExpression: 'SET used = used - :one',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      this.audit({ ...audit, details: { ...audit.details, already_member: true } }),
    ]);
    return settled ? 'gone' : 'already_member';
  }

  async removeMember(member: Member, actor: Actor | null, audit: AuditRow): Promise<'removed' | 'last_owner' | 'changed'> {
    const owner = member.role === 'owner';
    const refused = await this.transact([
      {
        Delete: {
          TableName: this.tableName,
          Key: memberKey(member.workspaceId, member.userId),
          ConditionExpression: '#role = :role',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':role': member.role },
        },
      },
      {
        Update: {
          TableName: this.tableName,
          Key: rosterKey(member.workspaceId),
          UpdateExpression: owner ? 'SET used = used - :one, members = members - :one, owners = owners - :one' : 'SET used = used - :one, members = members - :one',
          ...(owner ? { ConditionExpression: 'owners > :one' } : {}),
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      ...(actor && actor.userId !== member.userId ? [this.actorCheck(member.workspaceId, actor)] : []),
      this.audit(audit),
    ]);
    if (!refused) return 'removed';
    return refused[1] === 'ConditionalCheckFailed' && refused[0] !== 'ConditionalCheckFailed' ? 'last_owner' : 'changed';
  }

  async changeRole(member: Member, role: Role, actor: Actor, audit: AuditRow): Promise<'changed' | 'last_owner' | 'conflict'> {
    const delta = (role === 'owner' ? 1 : 0) - (member.role === 'owner' ? 1 : 0);
    const refused = await this.transact([
      {
        Update: {
          TableName: this.tableName,
          Key: memberKey(member.workspaceId, member.userId),
          UpdateExpression: 'SET #role = :role',
          ConditionExpression: '#role = :was',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':role': role, ':was': member.role },
        },
      },
      ...(delta === 0
        ? []
        : [
            {
              Update: {
                TableName: this.tableName,
                Key: rosterKey(member.workspaceId),
                UpdateExpression: 'SET owners = owners + :delta',
                // Never the last owner: two owners demoting each other at once leave one.
                ...(delta < 0 ? { ConditionExpression: 'owners > :one' } : {}),
                ExpressionAttributeValues: { ':delta': delta, ...(delta < 0 ? { ':one': 1 } : {}) },
              },
            } satisfies TransactWriteItem,
          ]),
      ...(actor.userId === member.userId ? [] : [this.actorCheck(member.workspaceId, actor)]),
      this.audit(audit),
    ]);
    if (!refused) return 'changed';
    return delta < 0 && refused[1] === 'ConditionalCheckFailed' && refused[0] !== 'ConditionalCheckFailed' ? 'last_owner' : 'conflict';
  }

  async transfer(from: Member, to: Member, audit: AuditRow): Promise<'transferred' | 'conflict'> {
    const setRole = (member: Member, role: Role): TransactWriteItem => ({
      Update: {
        TableName: this.tableName,
        Key: memberKey(member.workspaceId, member.userId),
        UpdateExpression: 'SET #role = :role',
        ConditionExpression: '#role = :was',
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: { ':role': role, ':was': member.role },
      },
    });
    // The target becoming owner adds one; the previous owner becoming admin takes one away.
    const delta = (to.role === 'owner' ? 0 : 1) - 1;
    const refused = await this.transact([
      setRole(to, 'owner'),
      setRole(from, 'admin'),
      ...(delta === 0
        ? []
        : [
            {
              Update: {
                TableName: this.tableName,
                Key: rosterKey(from.workspaceId),
                UpdateExpression: 'SET owners = owners + :delta',
                ConditionExpression: 'owners > :one',
                ExpressionAttributeValues: { ':delta': delta, ':one': 1 },
              },
            } satisfies TransactWriteItem,
          ]),
      this.audit(audit),
    ]);
    return refused ? 'conflict' : 'transferred';
  }

  async setPolicy(workspaceId: string, policy: WorkspacePolicy, actor: Actor, audit: AuditRow): Promise<boolean> {
    const refused = await this.transact([
      {
        Update: {
          TableName: this.tableName,
          Key: workspaceKey(workspaceId),
          UpdateExpression: 'SET policy = :policy',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':policy': policyToItem(policy) },
        },
      },
      this.actorCheck(workspaceId, actor),
      this.audit(audit),
    ]);
    return refused === null;
  }

  async setBranding(workspaceId: string, branding: WorkspaceBranding, actor: Actor, audit: AuditRow): Promise<boolean> {
    const refused = await this.transact([
      this.put({ ...brandingKey(workspaceId), type: 'branding', workspace_id: workspaceId, display_name: branding.displayName, logo: branding.logo, accent: branding.accent }),
      this.actorCheck(workspaceId, actor),
      this.audit(audit),
    ]);
    return refused === null;
  }

  async auditPage(workspaceId: string, limit: number, cursor: string | null) {
    const pk = auditPartition(workspaceId);
    const page = await queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: false,
        ...(cursor === null ? {} : { ExclusiveStartKey: decodeCursor(cursor, pk, 'pk') }),
      },
      limit,
      ['pk', 'sk'],
    );
    return { items: page.items.map(toAuditRow), nextCursor: page.nextCursor };
  }
}
