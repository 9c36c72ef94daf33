import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { Session } from '../domain/accounts/model.ts';
import type { SessionStore } from '../domain/accounts/ports.ts';
import { isConditionFailure } from './client.ts';
import { listAll, touchLastUsed } from './listing.ts';

const key = (id: string) => ({ pk: `SESSION#${id}`, sk: 'SESSION' });
/** Rotated refresh hashes remembered per session, to recognise a reused token. */
const rotatedKept = 20;

function fromItem(item: Record<string, unknown>): Session {
  return {
    id: item.id as string,
    userId: item.user_id as string,
    deviceName: item.device_name as string,
    createdAt: item.created_at as number,
    lastUsedAt: item.last_used_at as number,
    refreshHash: item.refresh_hash as string,
    rotatedHashes: (item.rotated_hashes as string[] | undefined) ?? [],
    refreshExpiresAt: item.refresh_expires_at as number,
    ...(item.revoked_at === undefined ? {} : { revokedAt: item.revoked_at as number }),
  };
}

export class DynamoSessionStore implements SessionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async insert(session: Session): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...key(session.id),
          type: 'session',
          id: session.id,
          user_id: session.userId,
          device_name: session.deviceName,
          created_at: session.createdAt,
          last_used_at: session.lastUsedAt,
          refresh_hash: session.refreshHash,
          rotated_hashes: session.rotatedHashes,
          refresh_expires_at: session.refreshExpiresAt,
          ttl: toEpochSeconds(session.refreshExpiresAt),
          gsi1pk: `USER#${session.userId}#SESSIONS`,
          gsi1sk: `${session.createdAt}#${session.id}`,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(id: string): Promise<Session | null> {
    // Strongly consistent: a logout must take effect on the very next request.
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key(id), ConsistentRead: true }));
    return Item ? fromItem(Item) : null;
  }

  async listForUser(userId: string): Promise<Session[]> {
    // The listing index carries no hashes; these views need none.
    return (await listAll(this.db, this.tableName, `USER#${userId}#SESSIONS`)).map((item) => fromItem({ ...item, refresh_hash: '' }));
  }

  async rotate(id: string, expectedHash: string, next: { hash: string; expiresAt: number; now: number }): Promise<boolean> {
    const current = await this.get(id);
    if (!current) return false;
    const rotated = [expectedHash, ...current.rotatedHashes].slice(0, rotatedKept);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          UpdateExpression: 'SET refresh_hash = :next, rotated_hashes = :rotated, refresh_expires_at = :expires, last_used_at = :now, #ttl = :ttl',
          ConditionExpression: 'refresh_hash = :expected AND attribute_not_exists(revoked_at)',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':next': next.hash,
            ':rotated': rotated,
            ':expires': next.expiresAt,
            ':now': next.now,
            ':ttl': toEpochSeconds(next.expiresAt),
            ':expected': expectedHash,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async revoke(id: string, at: number): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          UpdateExpression: 'SET revoked_at = :at',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revoked_at)',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async revokeAllForUser(userId: string, at: number): Promise<number> {
    const open = (await this.listForUser(userId)).filter((session) => session.revokedAt === undefined);
    await Promise.all(open.map((session) => this.revoke(session.id, at)));
    return open.length;
  }

  async touch(id: string, now: number, resolutionMs: number): Promise<void> {
    await touchLastUsed(this.db, this.tableName, key(id), now, resolutionMs);
  }
}
