import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateCounter, RateHit } from '../http/rateLimit.ts';
import { isConditionFailure } from './client.ts';

/**
 * Fixed-window counters in the table, so a limit holds across every Lambda instance. One
 * conditional increment per check; the item expires with its window.
 */
export class DynamoRateCounter implements RateCounter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async hit({ bucket, windowStart, windowSeconds, limit }: RateHit): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `RATE#${bucket}`, sk: String(windowStart) },
          UpdateExpression: 'ADD #hits :one SET #ttl = if_not_exists(#ttl, :ttl)',
          ConditionExpression: 'attribute_not_exists(#hits) OR #hits < :limit',
          ExpressionAttributeNames: { '#hits': 'hits', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': windowStart + windowSeconds * 2 },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
