import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { listPrefix } from './listing.ts';
import { foldCase } from '../domain/scim/filter.ts';
import type { ScimUser, ScimUserAttributes } from '../domain/scim/model.ts';
import type { ScimAccount, ScimPageStart, ScimUserStore } from '../domain/scim/ports.ts';
import type { AuditRow } from '../domain/workspaces/model.ts';
import {
  memberKey,
  scimAccountKey as accountKey,
  scimExternalIdKey as externalIdKey,
  scimUserKey as userKey,
  scimUserNameKey,
  scimUserPrefix,
  workspacePartition,
  type ScimUniqueItem,
} from './items/index.ts';
import { toUser, toUserItem } from './scimUserItems.ts';
import { ScimUserPages, userCountChange } from './scimUserPages.ts';
import { directJoin, memberSeatFreed } from './workspaceRoster.ts';
import { memberJoins, memberLeaves, memberStays, WorkspaceTable, type TransactWriteItem } from './workspaceItems.ts';

/**
 * A workspace's provisioned Users live in its partition (the layout is in items/scim.ts): the
 * User, and its userName, externalId and account items that point at it and, written with it
 * under attribute_not_exists, make each unique per workspace under any concurrency (one User per
 * account: two would share one membership, and deactivating either would end it for both). An
 * active User's membership is the ordinary member item (source `scim`) with its seat on the
 * roster, changed in the User's transaction through their parts.
 */
const userNameKey = (workspaceId: string, userName: string) => scimUserNameKey(workspaceId, foldCase(userName));

/** What each item of a transaction stands for, so a cancellation's reasons say what was refused. */
type Part = 'user' | 'unique' | 'member' | 'seat' | 'count' | 'audit';
interface Step {
  part: Part;
  item: TransactWriteItem;
}

/** A membership change for the User's transaction, or why there can be none. */
type MembershipSteps = { steps: Step[]; linked: boolean } | 'privileged';

/** Attempts when the membership changed between its read and the transaction (someone joined or left meanwhile). */
const membershipAttempts = 3;

export class DynamoScimUserStore extends WorkspaceTable implements ScimUserStore {
  private readonly pages = new ScimUserPages(this.db, this.tableName);

  async create(
    workspaceId: string,
    id: string,
    attributes: ScimUserAttributes,
    account: ScimAccount,
    now: number,
    audit: AuditRow,
  ): Promise<'created' | 'duplicate' | 'no_seat' | 'already_member'> {
    const user: ScimUser = { ...attributes, id, workspaceId, userId: account.userId, createdAt: now, lastModified: now, version: 1 };
    for (let attempt = 1; attempt <= membershipAttempts; attempt++) {
      const membership = attributes.active ? await this.joinSteps(workspaceId, account, now) : { steps: [], linked: false };
      if (membership === 'privileged') throw new Error('joining never meets a privileged membership');
      const refused = await this.run([
        { part: 'user', item: this.put(toUserItem(user, account.email), 'attribute_not_exists(pk)') },
        ...this.uniqueSteps(user, null),
        {
          part: 'unique',
          item: this.put(
            { ...accountKey(workspaceId, account.userId), type: 'scim_unique', scim_id: id } satisfies ScimUniqueItem,
            'attribute_not_exists(pk)',
          ),
        },
        ...membership.steps,
        { part: 'count', item: userCountChange(this.tableName, workspaceId, 1) },
        { part: 'audit', item: this.audit(audit) },
      ]);
      if (!refused) return membership.linked ? 'already_member' : 'created';
      if (refused.has('unique') || refused.has('user')) return 'duplicate';
      if (refused.has('seat')) return 'no_seat';
      if (refused.has('count')) await this.pages.countUsers(workspaceId);
    }
    throw new Error(`the membership of ${account.userId} kept changing while User ${id} was made`);
  }

  async get(workspaceId: string, id: string): Promise<ScimUser | null> {
    const item = await this.read(userKey(workspaceId, id));
    return item ? toUser(item) : null;
  }

  async byUserName(workspaceId: string, userName: string): Promise<ScimUser | null> {
    const pointer = await this.read(userNameKey(workspaceId, userName));
    return pointer ? this.get(workspaceId, String(pointer.scim_id)) : null;
  }

  async byExternalId(workspaceId: string, externalId: string): Promise<ScimUser | null> {
    const pointer = await this.read(externalIdKey(workspaceId, externalId));
    return pointer ? this.get(workspaceId, String(pointer.scim_id)) : null;
  }

  async list(workspaceId: string): Promise<ScimUser[]> {
    // The Query's order: by sort key, so by id.
    return (await listPrefix(this.db, this.tableName, workspacePartition(workspaceId), scimUserPrefix)).map(toUser);
  }

  listAfter(workspaceId: string, after: string | null, limit: number): Promise<{ users: ScimUser[]; more: boolean }> {
    return this.pages.listAfter(workspaceId, after, limit);
  }

  count(workspaceId: string): Promise<number> {
    return this.pages.count(workspaceId);
  }

  pageStart(workspaceId: string, listing: string, startIndex: number, now: number): Promise<ScimPageStart | null> {
    return this.pages.pageStart(workspaceId, listing, startIndex, now);
  }

  rememberPageStart(workspaceId: string, listing: string, startIndex: number, start: ScimPageStart, now: number): Promise<void> {
    return this.pages.rememberPageStart(workspaceId, listing, startIndex, start, now);
  }

  async replace(
    workspaceId: string,
    id: string,
    attributes: ScimUserAttributes,
    previousVersion: number,
    now: number,
    audit: AuditRow,
  ): Promise<'replaced' | 'conflict' | 'duplicate' | 'no_seat' | 'privileged'> {
    for (let attempt = 1; attempt <= membershipAttempts; attempt++) {
      const item = await this.read(userKey(workspaceId, id));
      if (!item || Number(item.version) !== previousVersion) return 'conflict';
      const before = toUser(item);
      const account = { userId: before.userId, email: String(item.account_email) };
      const after: ScimUser = {
        ...attributes,
        id,
        workspaceId,
        userId: before.userId,
        createdAt: before.createdAt,
        lastModified: now,
        version: previousVersion + 1,
      };
      const membership: MembershipSteps =
        before.active === after.active
          ? { steps: [], linked: false }
          : after.active
            ? await this.joinSteps(workspaceId, account, now)
            : await this.leaveSteps(workspaceId, before.userId);
      if (membership === 'privileged') return 'privileged';
      const refused = await this.run([
        { part: 'user', item: this.put(toUserItem(after, account.email), 'version = :previous', { ':previous': previousVersion }) },
        ...this.uniqueSteps(after, before),
        ...membership.steps,
        { part: 'audit', item: this.audit(audit) },
      ]);
      if (!refused) return 'replaced';
      if (refused.has('user')) return 'conflict';
      if (refused.has('unique')) return 'duplicate';
      if (refused.has('seat')) return 'no_seat';
    }
    return 'conflict';
  }

  async delete(workspaceId: string, id: string, audit: AuditRow): Promise<'deleted' | 'gone' | 'conflict' | 'privileged'> {
    for (let attempt = 1; attempt <= membershipAttempts; attempt++) {
      const item = await this.read(userKey(workspaceId, id));
      if (!item) return 'gone';
      const user = toUser(item);
      const membership = user.active ? await this.leaveSteps(workspaceId, user.userId) : { steps: [], linked: false };
      if (membership === 'privileged') return 'privileged';
      const remove = (key: { pk: string; sk: string }): Step => ({
        part: 'unique',
        item: {
          Delete: { TableName: this.tableName, Key: key, ConditionExpression: 'scim_id = :id', ExpressionAttributeValues: { ':id': id } },
        },
      });
      const refused = await this.run([
        {
          part: 'user',
          item: {
            Delete: {
              TableName: this.tableName,
              Key: userKey(workspaceId, id),
              ConditionExpression: 'version = :version',
              ExpressionAttributeValues: { ':version': user.version },
            },
          },
        },
        remove(userNameKey(workspaceId, user.userName)),
        ...(user.externalId === undefined ? [] : [remove(externalIdKey(workspaceId, user.externalId))]),
        remove(accountKey(workspaceId, user.userId)),
        ...membership.steps,
        { part: 'count', item: userCountChange(this.tableName, workspaceId, -1) },
        { part: 'audit', item: this.audit(audit) },
      ]);
      if (!refused) return 'deleted';
      if (refused.has('user') || refused.has('unique')) return 'conflict';
      if (refused.has('count')) await this.pages.countUsers(workspaceId);
    }
    return 'conflict';
  }

  private async read(key: { pk: string; sk: string }): Promise<Record<string, unknown> | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return Item ?? null;
  }

  /** Runs the steps as one transaction: null when it committed, else the parts a condition refused. */
  private async run(steps: Step[]): Promise<Set<Part> | null> {
    const codes = await this.transact(steps.map((step) => step.item));
    if (!codes) return null;
    return new Set(steps.filter((_, i) => codes[i] === 'ConditionalCheckFailed').map((step) => step.part));
  }

  /**
   * The uniqueness items the User needs that `before` did not hold (all of them for a new User),
   * and the ones it no longer needs removed. A userName changed only in case keeps its item.
   */
  private uniqueSteps(user: ScimUser, before: ScimUser | null): Step[] {
    const steps: Step[] = [];
    const claim = (key: { pk: string; sk: string }) =>
      steps.push({
        part: 'unique',
        item: this.put({ ...key, type: 'scim_unique', scim_id: user.id } satisfies ScimUniqueItem, 'attribute_not_exists(pk)'),
      });
    const release = (key: { pk: string; sk: string }) =>
      steps.push({
        part: 'unique',
        item: {
          Delete: {
            TableName: this.tableName,
            Key: key,
            ConditionExpression: 'scim_id = :id',
            ExpressionAttributeValues: { ':id': user.id },
          },
        },
      });
    if (!before || foldCase(before.userName) !== foldCase(user.userName)) {
      if (before) release(userNameKey(user.workspaceId, before.userName));
      claim(userNameKey(user.workspaceId, user.userName));
    }
    if (before?.externalId !== user.externalId) {
      if (before?.externalId !== undefined) release(externalIdKey(user.workspaceId, before.externalId));
      if (user.externalId !== undefined) claim(externalIdKey(user.workspaceId, user.externalId));
    }
    return steps;
  }

  /**
   * Joining: a member item (role member, source scim) and a seat (`members < seats AND used <
   * seats`, both raised). An account that is a member already is linked to its membership, which
   * must still be there as the transaction commits: no second seat.
   */
  private async joinSteps(workspaceId: string, account: ScimAccount, now: number): Promise<MembershipSteps> {
    if (await this.read(memberKey(workspaceId, account.userId))) {
      return { steps: [{ part: 'member', item: memberStays(this.tableName, workspaceId, account.userId) }], linked: true };
    }
    const member = { workspaceId, userId: account.userId, email: account.email, role: 'member', joinedAt: now, source: 'scim' } as const;
    return {
      steps: [
        { part: 'member', item: memberJoins(this.tableName, member) },
        { part: 'seat', item: directJoin(this.tableName, workspaceId) },
      ],
      linked: false,
    };
  }

  /**
   * Leaving: the member item removed, if its role is still member, and its seat given back. None
   * to remove (an admin removed it meanwhile) is nothing to do; an admin's or the owner's
   * membership is never the directory's to remove.
   */
  private async leaveSteps(workspaceId: string, userId: string): Promise<MembershipSteps> {
    const member = await this.read(memberKey(workspaceId, userId));
    if (!member) return { steps: [], linked: false };
    if (member.role !== 'member') return 'privileged';
    return {
      steps: [
        { part: 'member', item: memberLeaves(this.tableName, workspaceId, userId, 'member') },
        { part: 'seat', item: memberSeatFreed(this.tableName, workspaceId, false) },
      ],
      linked: false,
    };
  }
}
