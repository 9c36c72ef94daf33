import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateCounter, RateHit } from '../domain/rateWindows.ts';
import { isConditionFailure } from './client.ts';
import { rateWindowKey } from './items/index.ts';

/**
 * Fixed-window counters in the table, so a limit holds across every Lambda instance: one
 * item per window, incremented atomically, expiring by TTL with its window.
 */
export class DynamoRateCounter implements RateCounter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async add(hit: RateHit, amount: number): Promise<number> {
    const { Attributes } = await this.db.send(this.increment(hit, amount, false));
    return Number(Attributes?.hits ?? 0);
  }

  async addIfBelow(hit: RateHit): Promise<number | null> {
    try {
      const { Attributes } = await this.db.send(this.increment(hit, 1, true));
      return Number(Attributes?.hits ?? 0);
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  private increment({ bucket, windowStart, windowSeconds, limit }: RateHit, amount: number, belowLimit: boolean): UpdateCommand {
    return new UpdateCommand({
      TableName: this.tableName,
      Key: rateWindowKey(bucket, windowStart),
      UpdateExpression: 'ADD #hits :amount SET #ttl = if_not_exists(#ttl, :ttl)',
      ...(belowLimit ? { ConditionExpression: 'attribute_not_exists(#hits) OR #hits < :limit' } : {}),
      ExpressionAttributeNames: { '#hits': 'hits', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':amount': amount, ':ttl': windowStart + windowSeconds * 2, ...(belowLimit ? { ':limit': limit } : {}) },
      ReturnValues: 'UPDATED_NEW',
    });
  }
}
