import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toIso } from '../clock.ts';
import { shards } from './secretItem.ts';

/**
 * The entries of the sharded work index, gsi2 (partitions `<prefix>#0` … `<prefix>#<shards - 1>`,
 * sort keys `<ISO time>#<id>`), that are due at `upTo`, oldest first: expiring secrets (`DUE`)
 * and webhook retries (`RETRY`). One Query per shard, in parallel, each at most `limit` entries.
 */
export async function dueEntries(
  db: DynamoDBDocumentClient,
  tableName: string,
  prefix: string,
  upTo: number,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const pages = await Promise.all(
    Array.from({ length: shards }, (_, shard) =>
      db.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :partition AND gsi2sk <= :upTo',
          ExpressionAttributeValues: { ':partition': `${prefix}#${shard}`, ':upTo': `${toIso(upTo)}#~` },
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
