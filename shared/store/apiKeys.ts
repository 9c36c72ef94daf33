import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { ApiKey } from '../domain/accounts/model.ts';
import type { ApiKeyStore } from '../domain/accounts/ports.ts';
import { isConditionFailure } from './client.ts';
import { apiKeyKey as key, apiKeyListing, apiKeyListingPartition, type ApiKeyItem } from './items/index.ts';
import { listAll, touchLastUsed } from './listing.ts';

function fromItem(item: Record<string, unknown>): ApiKey {
  return {
    id: item.id as string,
    userId: item.user_id as string,
    name: item.name as string,
    prefix: item.prefix as string,
    scopes: item.scopes as ApiKey['scopes'],
    keyHash: (item.key_hash as string | undefined) ?? '',
    createdAt: item.created_at as number,
    ...(item.expires_at === undefined ? {} : { expiresAt: item.expires_at as number }),
    ...(item.last_used_at === undefined ? {} : { lastUsedAt: item.last_used_at as number }),
  };
}

export class DynamoApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async insert(apiKey: ApiKey): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...key(apiKey.id),
          type: 'api_key',
          id: apiKey.id,
          user_id: apiKey.userId,
          name: apiKey.name,
          prefix: apiKey.prefix,
          scopes: apiKey.scopes,
          key_hash: apiKey.keyHash,
          created_at: apiKey.createdAt,
          ...(apiKey.expiresAt === undefined
            ? {}
            : { expires_at: apiKey.expiresAt, ttl: toEpochSeconds(apiKey.expiresAt) + 30 * 24 * 3600 }),
          ...apiKeyListing(apiKey.userId, apiKey.createdAt, apiKey.id),
        } satisfies ApiKeyItem,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(id: string): Promise<ApiKey | null> {
    // Strongly consistent: a revoked key must fail on the very next request.
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key(id), ConsistentRead: true }));
    return Item ? fromItem(Item) : null;
  }

  async listForUser(userId: string): Promise<ApiKey[]> {
    return (await listAll(this.db, this.tableName, apiKeyListingPartition(userId))).map(fromItem);
  }

  async delete(id: string, userId: string): Promise<boolean> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: key(id),
          ConditionExpression: 'user_id = :user',
          ExpressionAttributeValues: { ':user': userId },
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
