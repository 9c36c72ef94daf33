import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { Session } from '../domain/accounts/model.ts';
import type { RefreshGrace } from '../domain/accounts/refreshGrace.ts';
import type { SessionStore } from '../domain/accounts/ports.ts';
import { isConditionFailure } from './client.ts';
import {
  sessionKey as key,
  sessionListing,
  sessionListingPartition,
  sessionPointerKey,
  sessionPointersPartition,
  type SessionItem,
  type SessionPointerItem,
} from './items/index.ts';
import { listAll, touchLastUsed } from './listing.ts';

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
    ...(item.chain_key === undefined ? {} : { chainKey: item.chain_key as string }),
    ...(item.grace === undefined
      ? {}
      : {
          grace: {
            previousHash: (item.grace as Record<string, string>).previous_hash!,
            sealedNext: (item.grace as Record<string, string>).sealed_next!,
            until: Number((item.grace as Record<string, unknown>).until),
          },
        }),
    refreshExpiresAt: item.refresh_expires_at as number,
    ...(item.revoked_at === undefined ? {} : { revokedAt: item.revoked_at as number }),
    ...(item.sso_workspace_id === undefined ? {} : { sso: { workspaceId: item.sso_workspace_id as string } }),
  };
}

export class DynamoSessionStore implements SessionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async insert(session: Session): Promise<void> {
    // The pointer needs no atomicity with the session: one without the other is never used
    // (a session whose write failed gave out no token; logout-all skips a pointer to nothing).
    await Promise.all([
      this.db.send(
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
            ...(session.chainKey === undefined ? {} : { chain_key: session.chainKey }),
            refresh_expires_at: session.refreshExpiresAt,
            ...(session.sso ? { sso_workspace_id: session.sso.workspaceId } : {}),
            ttl: toEpochSeconds(session.refreshExpiresAt),
            ...sessionListing(session.userId, session.createdAt, session.id),
          } satisfies SessionItem,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          // Kept while the session could still be refreshed from its first token; an older
          // session has long been on the listing index, which logout-all reads as well.
          Item: {
            ...sessionPointerKey(session.userId, session.id),
            ttl: toEpochSeconds(session.refreshExpiresAt),
          } satisfies SessionPointerItem,
        }),
      ),
    ]);
  }

  async get(id: string): Promise<Session | null> {
    // Strongly consistent: a logout must take effect on the very next request.
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key(id), ConsistentRead: true }));
    return Item ? fromItem(Item) : null;
  }

  async listForUser(userId: string): Promise<Session[]> {
    // The listing index carries no hashes; these views need none.
    return (await listAll(this.db, this.tableName, sessionListingPartition(userId))).map((item) => fromItem({ ...item, refresh_hash: '' }));
  }

  async rotate(
    id: string,
    expectedHash: string,
    next: { hash: string; expiresAt: number; now: number; grace: RefreshGrace; chainKey: string },
  ): Promise<boolean> {
    const current = await this.get(id);
    if (!current) return false;
    const rotated = [expectedHash, ...current.rotatedHashes].slice(0, rotatedKept);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          UpdateExpression:
            'SET refresh_hash = :next, rotated_hashes = :rotated, grace = :grace, chain_key = :chain, refresh_expires_at = :expires, last_used_at = :now, #ttl = :ttl',
          ConditionExpression: 'refresh_hash = :expected AND attribute_not_exists(revoked_at)',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':next': next.hash,
            ':rotated': rotated,
            ':grace': { previous_hash: next.grace.previousHash, sealed_next: next.grace.sealedNext, until: next.grace.until },
            ':expires': next.expiresAt,
            ':now': next.now,
            ':ttl': toEpochSeconds(next.expiresAt),
            ':chain': next.chainKey,
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
    await this.revokeIfOpen(id, at);
  }

  async revokeAllForUser(userId: string, at: number): Promise<number> {
    // The user's partition (strongly consistent, so a session opened a moment ago is there)
    // and the listing index (sessions older than their pointer's TTL) together.
    const [listed, pointed] = await Promise.all([this.listForUser(userId), this.sessionIdsOf(userId)]);
    const open = new Set([...listed.filter((session) => session.revokedAt === undefined).map((session) => session.id), ...pointed]);
    const revoked = await Promise.all([...open].map((id) => this.revokeIfOpen(id, at)));
    return revoked.filter(Boolean).length;
  }

  async revokeSsoSessions(userId: string, workspaceId: string, at: number): Promise<number> {
    // The listing index carries no `sso`: each open session is read whole before it is revoked.
    const [listed, pointed] = await Promise.all([this.listForUser(userId), this.sessionIdsOf(userId)]);
    const open = new Set([...listed.filter((session) => session.revokedAt === undefined).map((session) => session.id), ...pointed]);
    const revoked = await Promise.all(
      [...open].map(async (id) => {
        const session = await this.get(id);
        return session?.sso?.workspaceId === workspaceId && session.revokedAt === undefined ? this.revokeIfOpen(id, at) : false;
      }),
    );
    return revoked.filter(Boolean).length;
  }

  private async sessionIdsOf(userId: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': sessionPointersPartition(userId) },
          ConsistentRead: true,
          ExclusiveStartKey: cursor,
        }),
      );
      ids.push(...(page.Items ?? []).map((item) => String(item.sk)));
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    return ids;
  }

  /** Revokes a session still open; false when it was gone or already revoked. */
  private async revokeIfOpen(id: string, at: number): Promise<boolean> {
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
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async touch(id: string, now: number, resolutionMs: number): Promise<void> {
    await touchLastUsed(this.db, this.tableName, key(id), now, resolutionMs);
  }
}
