import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dueUpTo, workPartition, workShards, type WorkQueue } from './items/index.ts';

/**
 * The entries of one queue of the sharded work index (gsi2, items/work.ts) that are due at
 * `upTo`, oldest first: expiring secrets, stale uploads, purges, webhook retries, domain checks
 * and hosting steps. One Query per shard, in parallel, each at most `limit` entries.
 */
export async function dueEntries(
  db: DynamoDBDocumentClient,
  tableName: string,
  queue: WorkQueue,
  upTo: number,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const pages = await Promise.all(
    Array.from({ length: workShards }, (_, shard) =>
      db.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :partition AND gsi2sk <= :upTo',
          ExpressionAttributeValues: { ':partition': workPartition(queue, shard), ':upTo': dueUpTo(upTo) },
          Limit: limit,
        }),
      ),
    ),
  );
  return pages
    .flatMap((page) => page.Items ?? [])
    .sort((a, b) => String(a.gsi2sk).localeCompare(String(b.gsi2sk)))
    .slice(0, limit);
}
