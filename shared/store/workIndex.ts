import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toIso } from '../clock.ts';
import { shards } from './secretItem.ts';

/**
 * The entries of a sharded work index (partitions `<prefix>#0` … `<prefix>#<shards - 1>`, sort
 * keys `<ISO time>#<id>`) that are due at `upTo`, oldest first: expiring secrets (gsi2 `DUE`),
 * unrelayed outboxes (gsi3 `OUTBOX`), webhook retries (gsi2 `RETRY`). One Query per shard, in
 * parallel, each at most `limit` entries.
 */
export async function dueEntries(
  db: DynamoDBDocumentClient,
  tableName: string,
  index: 'gsi2' | 'gsi3',
  prefix: string,
  upTo: number,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const pk = `${index}pk`;
  const sk = `${index}sk`;
  const pages = await Promise.all(
    Array.from({ length: shards }, (_, shard) =>
      db.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: index,
          KeyConditionExpression: '#pk = :partition AND #sk <= :upTo',
          ExpressionAttributeNames: { '#pk': pk, '#sk': sk },
          ExpressionAttributeValues: { ':partition': `${prefix}#${shard}`, ':upTo': `${toIso(upTo)}#~` },
          Limit: limit,
        }),
      ),
    ),
  );
  return pages
    .flatMap((page) => page.Items ?? [])
    .sort((a, b) => String(a[sk]).localeCompare(String(b[sk])))
    .slice(0, limit);
}
