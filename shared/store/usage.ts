import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CallCounter } from '../domain/usage/ports.ts';
import { monthOf } from '../domain/usage/ports.ts';
import { sha256 } from '../ids.ts';

/** Usage items: `USAGE#<user>` / `CURRENT` (live secrets, bytes stored), `MONTH#<yyyy-mm>` (calls), `DAY#<yyyy-mm-dd>` (rollups). */
export const usageKey = (userId: string, sk: string) => ({ pk: `USAGE#${userId}`, sk });

/** Shards of the rollup's listing of users with usage (gsi2 `USAGE#<n>`). */
export const usageShards = 4;
export const usageShardOf = (userId: string) => sha256(userId)[0]! % usageShards;

/**
 * The Update that moves a user's live-secret and byte counters, for a transaction with the
 * secret write that causes it. It also lists the user for the hourly rollup.
 */
export function usageAdjustment(tableName: string, userId: string, secrets: number, bytes: number) {
  return {
    TableName: tableName,
    Key: usageKey(userId, 'CURRENT'),
    UpdateExpression: 'ADD live_secrets :secrets, bytes_stored :bytes SET gsi2pk = :shard, gsi2sk = :user, #type = :type',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':secrets': secrets, ':bytes': bytes, ':shard': `USAGE#${usageShardOf(userId)}`, ':user': userId, ':type': 'usage' },
  };
}

/** `calls` of `USAGE#<user>` / `MONTH#<yyyy-mm>`: one atomic increment per authenticated call. */
export class DynamoCallCounter implements CallCounter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async countCall(userId: string, at: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: usageKey(userId, `MONTH#${monthOf(at)}`),
        UpdateExpression: 'ADD calls :one SET #type = :type',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':one': 1, ':type': 'usage_month' },
      }),
    );
  }
}
