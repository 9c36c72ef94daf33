import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The single table, described once. The CDK data construct and the local runtime both build
 * the table from this description, so local runs use exactly the indexes the stack deploys.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  indexes: [
    /** Owner listings and lookups by hash, email or hostname. */
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    /** Work due at a time (active secrets by expiry), sharded: `DUE#<n>` / `<iso time>#<id>`. */
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    /** Items holding undelivered lifecycle events (the outbox), sharded: `OUTBOX#<n>`. */
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
} as const;

export type IndexName = (typeof tableDefinition.indexes)[number]['name'];

/** CreateTable input for DynamoDB Local (the CDK construct maps the same definition). */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyAttributes = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);
  for (const index of tableDefinition.indexes) {
    keyAttributes.add(index.partitionKey);
    keyAttributes.add(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...keyAttributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: tableDefinition.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    })),
  };
}
