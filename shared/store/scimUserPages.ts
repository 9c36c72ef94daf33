import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ScimUser } from '../domain/scim/model.ts';
import type { ScimPageStart } from '../domain/scim/ports.ts';
import { isConditionFailure } from './client.ts';
import {
  scimUserCountKey,
  scimUserKey,
  scimUserPageKey,
  scimUserPrefix,
  workspacePartition,
  type ScimUserCountItem,
  type ScimUserPageItem,
} from './items/index.ts';
import { toUser } from './scimUserItems.ts';
import type { TransactWriteItem } from './workspaceItems.ts';

/**
 * What lets a workspace's Users be listed a page at the cost of a page (issue 30; layout in
 * items/scimCursors.ts): the count of its Users, an unfiltered list's totalResults, and where
 * each served page ended, so the next is one Query from there instead of a read of every User.
 */

/** How long a page's end is remembered: an import reads its pages within minutes. */
const pageEndSeconds = 3600;

/** A listing's name in its key: the SHA-256 of its filter (any length of filter, one short key). */
const listingName = (listing: string) => createHash('sha256').update(listing).digest('base64url');

/**
 * The count raised or lowered in a User's create or delete transaction. It must exist: while
 * it does not, no User is made or deleted, so a count of the Users made then (`countUsers`) is
 * exact when written.
 */
export const userCountChange = (tableName: string, workspaceId: string, delta: 1 | -1): TransactWriteItem => ({
  Update: {
    TableName: tableName,
    Key: scimUserCountKey(workspaceId),
    UpdateExpression: 'ADD #count :delta',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':delta': delta },
  },
});

export class ScimUserPages {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** At most `limit` Users after the id `after`, in id order (the sort key's): one Query, or more past 1 MB. */
  async listAfter(workspaceId: string, after: string | null, limit: number): Promise<{ users: ScimUser[]; more: boolean }> {
    const users: ScimUser[] = [];
    let start: Record<string, unknown> | undefined = after === null ? undefined : scimUserKey(workspaceId, after);
    // One User more than asked says whether any follow (DynamoDB's LastEvaluatedKey does not).
    while (users.length <= limit) {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': workspacePartition(workspaceId), ':prefix': scimUserPrefix },
          ConsistentRead: true,
          Limit: limit + 1 - users.length,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      users.push(...(page.Items ?? []).map(toUser));
      start = page.LastEvaluatedKey;
      if (!start) break;
    }
    return { users: users.slice(0, limit), more: users.length > limit };
  }

  /** The workspace's count of Users; counted from the Users, once, for a workspace that has none yet. */
  async count(workspaceId: string): Promise<number> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: scimUserCountKey(workspaceId), ConsistentRead: true }),
    );
    return Item ? Number(Item.count) : this.countUsers(workspaceId);
  }

  /**
   * Counts the Users and writes the count, unless another did first (then theirs is the count:
   * no User changed in between, as every change needs the count to exist).
   */
  async countUsers(workspaceId: string): Promise<number> {
    let counted = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': workspacePartition(workspaceId), ':prefix': scimUserPrefix },
          Select: 'COUNT',
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      counted += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    const item: ScimUserCountItem = { ...scimUserCountKey(workspaceId), type: 'scim_user_count', count: counted };
    try {
      await this.db.send(new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
      return counted;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return this.count(workspaceId);
    }
  }

  async pageStart(workspaceId: string, listing: string, startIndex: number, now: number): Promise<ScimPageStart | null> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: scimUserPageKey(workspaceId, listingName(listing), startIndex),
        ConsistentRead: true,
      }),
    );
    // DynamoDB removes an expired item when it gets to it: until then it is read as gone.
    if (!Item || Number(Item.ttl) * 1000 <= now) return null;
    return { afterId: String(Item.after_id), ...(Item.total === undefined ? {} : { total: Number(Item.total) }) };
  }

  async rememberPageStart(workspaceId: string, listing: string, startIndex: number, start: ScimPageStart, now: number): Promise<void> {
    const item: ScimUserPageItem = {
      ...scimUserPageKey(workspaceId, listingName(listing), startIndex),
      type: 'scim_user_page',
      after_id: start.afterId,
      ...(start.total === undefined ? {} : { total: start.total }),
      ttl: Math.floor(now / 1000) + pageEndSeconds,
    };
    await this.db.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }
}
