import { BatchGetCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../domain/accounts/model.ts';
import type { ContractRecord } from '../domain/contractPlans.ts';
import type { Actor, AdminGroupSwitch, StoredMembership, WorkspaceStore } from '../domain/workspaces/ports.ts';
import type {
  AuditRow,
  Invitation,
  Member,
  Role,
  Roster,
  StoredWorkspace,
  Workspace,
  WorkspaceBranding,
  WorkspacePolicy,
} from '../domain/workspaces/model.ts';
import { decodeCursor } from './cursor.ts';
import {
  auditPartition,
  brandingKey,
  memberKey,
  membershipsPartition,
  rollRange,
  rosterKey,
  scimGroupKey,
  slugKey,
  workspaceIdOfListing,
  workspaceKey,
  workspacePartition,
  type BrandingItem,
  type SlugItem,
  type WorkspaceItem,
} from './items/index.ts';
import { queryPage } from './listing.ts';
import { contractPlanUpdate, providerPlanUpdate } from './planAttributes.ts';
import { rosterMade } from './workspaceRoster.ts';
import {
  memberJoins,
  policyToItem,
  toAuditRow,
  toBranding,
  toInvitation,
  toMember,
  toRoster,
  toWorkspace,
  WorkspaceTable,
  type TransactWriteItem,
} from './workspaceItems.ts';

/**
 * The workspace's parts of others' writes: the workspace item is this store's alone, so billing
 * (the provider's `plan`, in its subscription's transaction) and sales' contract command
 * (`contract_plan`, with the roster's seats and an audit row) write it through these. Each fails
 * its transaction when the workspace is gone.
 */
export const workspacePlanWrite = (tableName: string, workspaceId: string, plan: Plan): TransactWriteItem => ({
  Update: { TableName: tableName, Key: workspaceKey(workspaceId), ...providerPlanUpdate(plan) },
});
export const workspaceContractPlanWrite = (
  tableName: string,
  workspaceId: string,
  plan: Plan | null,
  record: ContractRecord,
): TransactWriteItem => ({
  Update: { TableName: tableName, Key: workspaceKey(workspaceId), ...contractPlanUpdate(plan, record) },
});

/**
 * The policy's SCIM admin Group cleared, while it names `groupId`: the workspace item's part of
 * the transaction deleting that Group (the Groups store's, docs/adr/0174).
 */
export const adminGroupCleared = (tableName: string, workspaceId: string, groupId: string): TransactWriteItem => ({
  Update: {
    TableName: tableName,
    Key: workspaceKey(workspaceId),
    UpdateExpression: 'REMOVE #policy.#group',
    ConditionExpression: '#policy.#group = :group',
    ExpressionAttributeNames: { '#policy': 'policy', '#group': 'scimAdminGroup' },
    ExpressionAttributeValues: { ':group': groupId },
  },
});

/**
 * Workspaces' items (the layout is in items/workspaces.ts): making one, reading a workspace, its
 * roster, a member, a person's workspaces and a workspace's roll, its settings, and its audit
 * trail. Changes to who is in it are workspaceMembershipChanges.ts's.
 */
export class DynamoWorkspaceStore extends WorkspaceTable implements WorkspaceStore {
  async create(workspace: Workspace, roster: Roster, owner: Member, audit: AuditRow): Promise<'created' | 'slug_taken'> {
    const refused = await this.transact([
      this.put({ ...slugKey(workspace.slug), type: 'slug', workspace_id: workspace.id } satisfies SlugItem, 'attribute_not_exists(pk)'),
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
        } satisfies WorkspaceItem,
        'attribute_not_exists(pk)',
      ),
      rosterMade(this.tableName, workspace.id, roster),
      memberJoins(this.tableName, owner),
      this.audit(audit),
    ]);
    return refused ? 'slug_taken' : 'created';
  }

  async get(id: string): Promise<StoredWorkspace | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: workspaceKey(id), ConsistentRead: true }));
    return Item ? toWorkspace(Item) : null;
  }

  async roster(id: string): Promise<Roster | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: rosterKey(id), ConsistentRead: true }));
    return Item ? toRoster(Item) : null;
  }

  async member(workspaceId: string, userId: string): Promise<Member | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: memberKey(workspaceId, userId), ConsistentRead: true }),
    );
    return Item ? toMember(Item) : null;
  }

  async membershipsOf(userId: string): Promise<StoredMembership[]> {
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
      for (const item of page.Items ?? []) ids.push(workspaceIdOfListing(item.gsi1sk));
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
        const answer = await this.db.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }),
        );
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
      return workspace && roster && member
        ? [
            {
              workspace: toWorkspace(workspace),
              roster: toRoster(roster),
              role: member.role as Role,
              branding: branding ? toBranding(branding) : null,
            },
          ]
        : [];
    });
  }

  async roll(workspaceId: string): Promise<{ members: Member[]; invitations: Invitation[] }> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      // Members and invitations only, read consistently.
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': workspacePartition(workspaceId), ':from': rollRange.from, ':to': rollRange.to },
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

  async setPolicy(
    workspaceId: string,
    policy: WorkspacePolicy,
    actor: Actor,
    audit: AuditRow,
    adminGroup?: AdminGroupSwitch,
  ): Promise<boolean> {
    // The SCIM admin Group it was decided from, when asked: absent or null for none.
    const was =
      adminGroup === undefined
        ? {}
        : adminGroup.was === null
          ? { condition: ' AND (attribute_not_exists(policy.#group) OR policy.#group = :none)', values: { ':none': null } }
          : { condition: ' AND policy.#group = :was', values: { ':was': adminGroup.was } };
    // The Group it names no longer (its members' roles were decided on that version) and the one it names now.
    const groupChecks: TransactWriteItem[] = [];
    const check = (id: string, condition: string, values?: Record<string, unknown>) =>
      groupChecks.push({
        ConditionCheck: {
          TableName: this.tableName,
          Key: scimGroupKey(workspaceId, id),
          ConditionExpression: condition,
          ...(values ? { ExpressionAttributeValues: values } : {}),
        },
      });
    if (adminGroup?.was && adminGroup.wasVersion !== undefined && adminGroup.next !== adminGroup.was) {
      if (adminGroup.wasVersion === null) check(adminGroup.was, 'attribute_not_exists(pk)');
      else check(adminGroup.was, 'version = :v', { ':v': adminGroup.wasVersion });
    }
    if (adminGroup?.next && adminGroup.next !== adminGroup.was) check(adminGroup.next, 'attribute_exists(pk)');
    const refused = await this.transact([
      {
        Update: {
          TableName: this.tableName,
          Key: workspaceKey(workspaceId),
          UpdateExpression: 'SET policy = :policy',
          ConditionExpression: `attribute_exists(pk)${was.condition ?? ''}`,
          ExpressionAttributeValues: { ':policy': policyToItem(policy), ...was.values },
          ...(was.condition ? { ExpressionAttributeNames: { '#group': 'scimAdminGroup' } } : {}),
        },
      },
      ...groupChecks,
      this.actorCheck(workspaceId, actor),
      this.audit(audit),
    ]);
    return refused === null;
  }

  async setBranding(workspaceId: string, branding: WorkspaceBranding, actor: Actor, audit: AuditRow): Promise<boolean> {
    const refused = await this.transact([
      this.put({
        ...brandingKey(workspaceId),
        type: 'branding',
        workspace_id: workspaceId,
        display_name: branding.displayName,
        logo: branding.logo,
        accent: branding.accent,
      } satisfies BrandingItem),
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
