import { tableDefinition } from './table.ts';

/**
 * Opaque pagination cursors: the key of a page's last item (DynamoDB's LastEvaluatedKey) as
 * base64url JSON. A cursor comes back from the caller, who may have changed it, and DynamoDB
 * refuses a malformed ExclusiveStartKey with an error that would become a 500; so a cursor is
 * only accepted as the key of an item of the listing it came from: exactly the key attributes
 * of the table and of the index queried, each a non-empty string within DynamoDB's key sizes,
 * with the listing's own partition. Anything else is `InvalidCursor` (400 to the caller).
 * `queryPage` (listing.ts) checks the rest against the query itself: the sort key condition.
 */
export function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** Names a partition key of the table or of one of its indexes. */
export type PartitionKeyName = typeof tableDefinition.partitionKey | (typeof tableDefinition.indexes)[number]['partitionKey'];

export function decodeCursor(cursor: string, expectedPartition: string, partitionKey: PartitionKeyName = 'gsi1pk'): Record<string, string> {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor)) throw invalidCursor();
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const index = tableDefinition.indexes.find((candidate) => candidate.partitionKey === partitionKey);
  const startKey = checkStartKey(key, index?.name);
  if (startKey[partitionKey] !== expectedPartition) throw invalidCursor();
  return startKey;
}

/**
 * DynamoDB's limits on a key attribute's value (bytes of UTF-8), which it also applies to an
 * ExclusiveStartKey; DynamoDB Local does not always (it lets an oversized sort key through).
 */
export const keyValueMaxBytes = { partition: 2048, sort: 1024 } as const;

/**
 * The start key of a query on the table (`indexName` undefined) or on one of its indexes, as
 * DynamoDB accepts it: the table's key and the index's, nothing else, each a non-empty string
 * (every key attribute of the table is a string) within its size. Returns a copy holding those
 * attributes only; throws `InvalidCursor` otherwise.
 */
export function checkStartKey(key: unknown, indexName: string | undefined): Record<string, string> {
  if (key === null || typeof key !== 'object' || Array.isArray(key)) throw invalidCursor();
  const index = indexName === undefined ? undefined : tableDefinition.indexes.find((candidate) => candidate.name === indexName);
  if (indexName !== undefined && index === undefined) throw new Error(`no index ${indexName} in the table definition`);
  const limits: Record<string, number> = {
    [tableDefinition.partitionKey]: keyValueMaxBytes.partition,
    [tableDefinition.sortKey]: keyValueMaxBytes.sort,
    ...(index ? { [index.partitionKey]: keyValueMaxBytes.partition, [index.sortKey]: keyValueMaxBytes.sort } : {}),
  };
  const given = Object.keys(key);
  if (given.length !== Object.keys(limits).length || !given.every((name) => Object.hasOwn(limits, name))) throw invalidCursor();
  const startKey: Record<string, string> = {};
  for (const [name, maxBytes] of Object.entries(limits)) {
    const value: unknown = (key as Record<string, unknown>)[name];
    if (typeof value !== 'string' || value === '' || Buffer.byteLength(value) > maxBytes) throw invalidCursor();
    startKey[name] = value;
  }
  return startKey;
}

/** What a refused cursor throws; the listing's domain code answers it with 400. */
export function invalidCursor(): Error {
  return Object.assign(new Error('invalid cursor'), { name: 'InvalidCursor' });
}
