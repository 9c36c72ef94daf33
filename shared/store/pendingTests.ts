import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { deliveryIdTime } from '../ids.ts';
import { isCancelledByCondition } from './client.ts';

type Key = { pk: string; sk: string };
type Put = { TableName: string; Item: Record<string, unknown>; ConditionExpression: string };

/**
 * An endpoint's test deliveries not yet settled: one item holding the set of their ids
 * (items/webhooks.ts), the webhook store's. A test
 * delivery joins the set in the transaction that writes it, on the condition that fewer than
 * the cap are in it, and leaves it in the transaction that settles it (delivered, failed for
 * good, cancelled), so the set's size is how many are pending however calls interleave.
 */
export class PendingTestDeliveries {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Writes the test delivery (`put`) and adds `id` to the set at `key`, unless `max` are in it.
   * Ids written before `lostBefore` are taken out first: a test delivery that old lost its
   * messages and will never settle. Refused, it names the newest id in the set.
   */
  async add(
    key: Key,
    put: Put,
    id: string,
    options: { max: number; lostBefore: number; ttl: number },
  ): Promise<{ queued: true } | { queued: false; newestPendingId: string }> {
    for (let pass = 1; ; pass++) {
      const pending = await this.tryAdd(key, put, id, options);
      if (!pending) return { queued: true };
      const lost = pending.filter((one) => deliveryIdTime(one) < options.lostBefore);
      // One more try once the lost ones are out; refused again, others filled the set meanwhile.
      if (lost.length === 0 || pass > 1) return { queued: false, newestPendingId: pending.sort().at(-1) ?? id };
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'DELETE ids :lost',
          ExpressionAttributeValues: { ':lost': new Set(lost) },
        }),
      );
    }
  }

  /** The transaction item that takes `id` out of the set at `key` (a no-op if it is not there). */
  leave(key: Key, id: string) {
    return {
      Update: {
        TableName: this.tableName,
        Key: key,
        UpdateExpression: 'DELETE ids :id',
        ExpressionAttributeValues: { ':id': new Set([id]) },
      },
    };
  }

  /** Null when written; the ids in the set when it was full. */
  private async tryAdd(key: Key, put: Put, id: string, options: { max: number; ttl: number }): Promise<string[] | null> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: key,
                UpdateExpression: 'ADD ids :id SET #ttl = :ttl',
                ConditionExpression: 'attribute_not_exists(ids) OR size(ids) < :max',
                ExpressionAttributeNames: { '#ttl': 'ttl' },
                ExpressionAttributeValues: { ':id': new Set([id]), ':max': options.max, ':ttl': options.ttl },
                // The refusal's answer comes with it: no second read for the newest pending id.
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            { Put: put },
          ],
        }),
      );
      return null;
    } catch (error) {
      const [set] =
        (error as { CancellationReasons?: Array<{ Code?: string; Item?: Record<string, AttributeValue> }> }).CancellationReasons ?? [];
      if (!isCancelledByCondition(error) || set?.Code !== 'ConditionalCheckFailed') throw error;
      return [...((set.Item ? (unmarshall(set.Item).ids as Set<string> | undefined) : undefined) ?? [])];
    }
  }
}
