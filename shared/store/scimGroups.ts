import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.ts';
import { foldCase } from '../domain/scim/filter.ts';
import type { AdminGroupFact, GroupAsRead, RoleStep, ScimGroup, ScimGroupPage, ScimGroupStore } from '../domain/scim/groupModel.ts';
import type { AuditRow, Member, Role } from '../domain/workspaces/model.ts';
import { isTransactionConflict } from './client.ts';
import {
  memberKey,
  scimGroupCountKey,
  scimGroupExternalIdKey,
  scimGroupKey,
  scimGroupNameKey,
  scimGroupPageKey,
  scimGroupPrefix,
  workspaceKey,
  workspacePartition,
  type ScimGroupPageItem,
} from './items/index.ts';
import { listPrefix } from './listing.ts';
import { releaseItem, removeItem, toGroup, toItem, uniqueSteps, type Part, type Step } from './scimGroupItems.ts';
import { auditWrite, memberRoleWrite, WorkspaceTable, type TransactWriteItem } from './workspaceItems.ts';
import { adminGroupCleared } from './workspaces.ts';

/**
 * A workspace's SCIM Groups (the layout is items/scimGroups.ts): the Group with its members' ids,
 * its displayName and externalId items (written with it under attribute_not_exists, so each is
 * unique per workspace under any concurrency), a count for totalResults, and where listed pages
 * ended. Every change is one transaction holding what it was decided on as conditions: the
 * Group's version, the admin Group the policy names, and each moved member's role (docs/adr/0174).
 */

const nameKey = (workspaceId: string, displayName: string) => scimGroupNameKey(workspaceId, foldCase(displayName));

/** How long a page's end is remembered: an import reads its pages within minutes. */
const pageEndSeconds = 24 * 3600;

/**
 * The facts a change was decided on, as conditions: the policy's admin Group as read, and each
 * moved member's role. `clearPolicy`: the change deletes the admin Group, so the policy names
 * none after it (the workspaces store's update of its item, on the same condition).
 */
function factSteps(tableName: string, workspaceId: string, fact: AdminGroupFact, roles: RoleStep[], clearPolicy = false): Step[] {
  const names = { '#policy': 'policy', '#group': 'scimAdminGroup' };
  const condition = fact.adminGroupId === null ? 'attribute_not_exists(#policy.#group)' : '#policy.#group = :group';
  const values = fact.adminGroupId === null ? {} : { ExpressionAttributeValues: { ':group': fact.adminGroupId } };
  const policy: TransactWriteItem =
    clearPolicy && fact.adminGroupId !== null
      ? adminGroupCleared(tableName, workspaceId, fact.adminGroupId)
      : {
          ConditionCheck: {
            TableName: tableName,
            Key: workspaceKey(workspaceId),
            ConditionExpression: condition,
            ExpressionAttributeNames: names,
            ...values,
          },
        };
  const check = (userId: string, condition: string, values?: Record<string, unknown>): TransactWriteItem => ({
    ConditionCheck: {
      TableName: tableName,
      Key: memberKey(workspaceId, userId),
      ConditionExpression: condition,
      ...(values ? { ExpressionAttributeNames: { '#role': 'role' }, ExpressionAttributeValues: values } : {}),
    },
  });
  const steps: Step[] = [{ part: 'policy', item: policy }];
  for (const role of roles) {
    if (role.kind === 'absent') steps.push({ part: 'role', item: check(role.userId, 'attribute_not_exists(pk)') });
    else if (role.kind === 'holds') steps.push({ part: 'role', item: check(role.userId, '#role = :role', { ':role': role.role }) });
    else {
      const member = { workspaceId, userId: role.userId, role: role.from } as Member;
      steps.push(
        { part: 'role', item: memberRoleWrite(tableName, member, role.to) },
        { part: 'other', item: auditWrite(tableName, role.audit) },
      );
    }
  }
  return steps;
}

export class DynamoScimGroupStore extends WorkspaceTable implements ScimGroupStore {
  constructor(
    db: DynamoDBDocumentClient,
    tableName: string,
    private readonly clock: Clock,
  ) {
    super(db, tableName);
  }

  async create(group: ScimGroup, fact: AdminGroupFact, roles: RoleStep[], audit: AuditRow): Promise<'created' | 'duplicate' | 'conflict'> {
    const refused = await this.run([
      { part: 'group', item: this.put(toItem(group), 'attribute_not_exists(pk)') },
      ...uniqueSteps(this.tableName, nameKey, group, null),
      { part: 'other', item: this.countBy(group.workspaceId, 1) },
      ...factSteps(this.tableName, group.workspaceId, fact, roles),
      { part: 'other', item: this.audit(audit) },
    ]);
    if (!refused) return 'created';
    return refused.has('unique') || refused.has('group') ? 'duplicate' : 'conflict';
  }

  async get(workspaceId: string, id: string): Promise<ScimGroup | null> {
    const item = await this.read(scimGroupKey(workspaceId, id));
    return item ? toGroup(item) : null;
  }

  async byDisplayName(workspaceId: string, displayName: string): Promise<ScimGroup | null> {
    const pointer = await this.read(nameKey(workspaceId, displayName));
    return pointer ? this.get(workspaceId, String(pointer.scim_group_id)) : null;
  }

  async byExternalId(workspaceId: string, externalId: string): Promise<ScimGroup | null> {
    const pointer = await this.read(scimGroupExternalIdKey(workspaceId, externalId));
    return pointer ? this.get(workspaceId, String(pointer.scim_group_id)) : null;
  }

  /**
   * The Groups in key order from `startIndex`: from where the page before ended when that was
   * remembered (a Query from that key, reading this page's Groups alone), from the first Group
   * otherwise. A full page remembers where it ended, for the page after it.
   */
  async page(workspaceId: string, startIndex: number, count: number): Promise<ScimGroupPage> {
    const counted = await this.read(scimGroupCountKey(workspaceId));
    const totalResults = Math.max(0, Number(counted?.count ?? 0));
    if (count === 0 || startIndex > totalResults) return { groups: [], totalResults };
    const remembered = startIndex > 1 ? await this.read(scimGroupPageKey(workspaceId, startIndex)) : null;
    // DynamoDB removes an expired item when it gets to it: until then it is read as gone.
    const ended = remembered && Number(remembered.ttl) * 1000 > this.clock.now() ? remembered : null;
    let skip = ended ? 0 : startIndex - 1;
    let start: Record<string, unknown> | undefined = ended ? scimGroupKey(workspaceId, String(ended.after_id)) : undefined;
    const groups: ScimGroup[] = [];
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': workspacePartition(workspaceId), ':prefix': scimGroupPrefix },
          ExclusiveStartKey: start,
          Limit: skip + count - groups.length,
          ConsistentRead: true,
        }),
      );
      for (const item of page.Items ?? []) {
        if (skip > 0) skip--;
        else if (groups.length < count) groups.push(toGroup(item));
      }
      start = page.LastEvaluatedKey;
    } while (start && groups.length < count);
    if (groups.length === count) await this.rememberEnd(workspaceId, startIndex + count, groups[groups.length - 1]!.id);
    return { groups, totalResults };
  }

  async withMember(workspaceId: string, scimUserId: string): Promise<ScimGroup[]> {
    const items = await listPrefix(this.db, this.tableName, workspacePartition(workspaceId), scimGroupPrefix);
    return items.map(toGroup).filter((group) => group.members.includes(scimUserId));
  }

  async replace(
    before: ScimGroup,
    after: ScimGroup,
    fact: AdminGroupFact,
    roles: RoleStep[],
    audit: AuditRow,
  ): Promise<'replaced' | 'duplicate' | 'conflict'> {
    const refused = await this.run([
      { part: 'group', item: this.put(toItem(after), 'version = :previous', { ':previous': before.version }) },
      ...uniqueSteps(this.tableName, nameKey, after, before),
      ...factSteps(this.tableName, after.workspaceId, fact, roles),
      { part: 'other', item: this.audit(audit) },
    ]);
    if (!refused) return 'replaced';
    return refused.has('unique') && !refused.has('group') ? 'duplicate' : 'conflict';
  }

  /**
   * On the Group's version and the role settlements written on it as read (so no member was made
   * an admin since its roles were read); deleting the admin Group clears the policy's.
   */
  async delete(group: ScimGroup, fact: AdminGroupFact, roles: RoleStep[], audit: AuditRow): Promise<'deleted' | 'gone' | 'conflict'> {
    const settles =
      group.roleSettles === undefined
        ? { condition: 'attribute_not_exists(role_settles)', values: {} }
        : { condition: 'role_settles = :settles', values: { ':settles': group.roleSettles } };
    const refused = await this.run([
      {
        part: 'group',
        item: removeItem(this.tableName, scimGroupKey(group.workspaceId, group.id), `version = :v AND ${settles.condition}`, {
          ':v': group.version,
          ...settles.values,
        }),
      },
      { part: 'unique', item: releaseItem(this.tableName, nameKey(group.workspaceId, group.displayName), group.id) },
      ...(group.externalId === undefined
        ? []
        : [
            {
              part: 'unique' as const,
              item: releaseItem(this.tableName, scimGroupExternalIdKey(group.workspaceId, group.externalId), group.id),
            },
          ]),
      { part: 'other', item: this.countBy(group.workspaceId, -1) },
      ...factSteps(this.tableName, group.workspaceId, fact, roles, fact.adminGroupId === group.id),
      { part: 'other', item: this.audit(audit) },
    ]);
    if (!refused) return 'deleted';
    if (refused.has('group') && !(await this.read(scimGroupKey(group.workspaceId, group.id)))) return 'gone';
    return 'conflict';
  }

  /**
   * Role steps alone, on the Group as read: at its version (each settlement counted on it, which
   * a deletion is conditioned on), gone (absent), or none (`id` null).
   */
  async settleRoles(group: GroupAsRead, fact: AdminGroupFact, roles: RoleStep[]): Promise<'settled' | 'conflict'> {
    const key = group.id === null ? null : scimGroupKey(group.workspaceId, group.id);
    const held: Step[] =
      key === null
        ? []
        : group.version === null
          ? [
              {
                part: 'group',
                item: { ConditionCheck: { TableName: this.tableName, Key: key, ConditionExpression: 'attribute_not_exists(pk)' } },
              },
            ]
          : [
              {
                part: 'group',
                item: {
                  Update: {
                    TableName: this.tableName,
                    Key: key,
                    UpdateExpression: 'ADD role_settles :one',
                    ConditionExpression: 'version = :v',
                    ExpressionAttributeValues: { ':v': group.version, ':one': 1 },
                  },
                },
              },
            ];
    const refused = await this.run([...held, ...factSteps(this.tableName, group.workspaceId, fact, roles)]);
    return refused ? 'conflict' : 'settled';
  }

  async adminGroupOf(workspaceId: string): Promise<string | null> {
    const item = await this.read(workspaceKey(workspaceId));
    const policy = (item?.policy ?? {}) as { scimAdminGroup?: unknown };
    return typeof policy.scimAdminGroup === 'string' ? policy.scimAdminGroup : null;
  }

  async roles(workspaceId: string, userIds: string[]): Promise<Map<string, Role>> {
    const items = await Promise.all(userIds.map((userId) => this.read(memberKey(workspaceId, userId))));
    return new Map(items.flatMap((item, i) => (item ? [[userIds[i]!, item.role as Role] as const] : [])));
  }

  private async read(key: { pk: string; sk: string }): Promise<Record<string, unknown> | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return Item ?? null;
  }

  private async rememberEnd(workspaceId: string, nextStart: number, afterId: string): Promise<void> {
    const item: ScimGroupPageItem = {
      ...scimGroupPageKey(workspaceId, nextStart),
      type: 'scim_group_page',
      after_id: afterId,
      ttl: Math.floor(this.clock.now() / 1000) + pageEndSeconds,
    };
    await this.db.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }

  /**
   * Runs the steps as one transaction: null when it committed, else the parts a condition refused
   * (none: it lost to a concurrent transaction still after the client's retries, a conflict too).
   */
  private async run(steps: Step[]): Promise<Set<Part> | null> {
    let codes: string[] | null;
    try {
      codes = await this.transact(steps.map((step) => step.item));
    } catch (error) {
      if (isTransactionConflict(error)) return new Set();
      throw error;
    }
    if (!codes) return null;
    return new Set(steps.filter((_, i) => codes[i] === 'ConditionalCheckFailed').map((step) => step.part));
  }

  private countBy(workspaceId: string, delta: number): TransactWriteItem {
    return {
      Update: {
        TableName: this.tableName,
        Key: scimGroupCountKey(workspaceId),
        UpdateExpression: 'SET #type = :type ADD #count :delta',
        ExpressionAttributeNames: { '#type': 'type', '#count': 'count' },
        ExpressionAttributeValues: { ':type': 'scim_group_count', ':delta': delta },
      },
    };
  }
}
