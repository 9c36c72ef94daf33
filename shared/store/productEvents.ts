import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds, toIso } from '../clock.ts';
import type { ProductEvent, ProductEventStore } from '../domain/usage/ports.ts';
import { productEventKey, type ProductEventItem } from './items/index.ts';

/** Product events, one item each (items/usage.ts), so a day reads in order with one Query; removed by TTL. */
export class DynamoProductEventStore implements ProductEventStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async record(event: ProductEvent, expiresAt: number): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...productEventKey(event.at, event.id),
          type: 'product_event',
          id: event.id,
          name: event.name,
          user_id: event.userId,
          // As a Map: the marshaller takes a plain object for a map only when its `constructor`
          // is Object's, so a property named `constructor` would fail the write.
          properties: new Map(Object.entries(event.properties)),
          created_at: toIso(event.at),
          ttl: toEpochSeconds(expiresAt),
        } satisfies ProductEventItem,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }
}
