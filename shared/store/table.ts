import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** Attributes copied into the listing index (besides the keys). */
const listingAttributes = [
  'type',
  'id',
  'state',
  'kind',
  'size_bytes',
  'max_views',
  'views_left',
  'created_at',
  'expires_at',
  'not_before',
  'ended_at',
  'owner_id',
  'user_id',
  'name',
  'prefix',
  'scopes',
  'last_used_at',
  'device_name',
  'revoked_at',
  'refresh_expires_at',
  'salt',
  'claim_verifier',
  'passphrase',
  'kdf_iterations',
] as const;

/**
 * The single table, described once. The CDK data construct and the local runtime both build
 * the table from this description, so local runs use exactly the indexes the stack deploys.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  indexes: [
    /**
     * Owner listings (a user's secrets, sessions, keys). Listings carry what they show and no
     * more: never an envelope, a token hash or events, so a page costs little whatever was
     * shared. (`claim_verifier` is there because metadata says whether a proof is needed.)
     */
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: listingAttributes },
    /** Work due at a time (active secrets by expiry, usage to roll up, webhook retries), sharded. */
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: ['owner_id', 'size_bytes'] },
  ],
  /**
   * Every change, with the item before and after, for the webhook relay (functions/relay.ts):
   * a secret's events are written with the change that causes them, and the stream hands
   * both over without anyone reading or rewriting the item again.
   */
  stream: 'NEW_AND_OLD_IMAGES',
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
    StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.stream },
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
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] },
    })),
  };
}
