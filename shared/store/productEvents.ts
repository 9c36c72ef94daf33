import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds, toIso } from '../clock.ts';
import type { ProductEvent, ProductEventStore } from '../domain/usage/ports.ts';

/**
 * Product events, one item each: `PRODUCT_EVENT#<yyyy-mm-dd>` / `<iso time>#<id>`, so a day
 * reads in order with one Query; removed by TTL.
 */
export class DynamoProductEventStore implements ProductEventStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async record(event: ProductEvent, expiresAt: number): Promise<void> {
    const at = toIso(event.at);
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: `PRODUCT_EVENT#${at.slice(0, 10)}`,
          sk: `${at}#${event.id}`,
          type: 'product_event',
          id: event.id,
          name: event.name,
          user_id: event.userId,
          // As a Map: the marshaller takes a plain object for a map only when its `constructor`
          // is Object's, so a property named `constructor` would fail the write.
          properties: new Map(Object.entries(event.properties)),
          created_at: at,
          ttl: toEpochSeconds(expiresAt),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }
}
