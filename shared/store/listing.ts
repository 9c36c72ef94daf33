import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { encodeCursor } from './cursor.ts';
import { isConditionFailure } from './client.ts';

/** Every item of one listing partition of gsi1 (a user's sessions or keys: a handful), newest first. */
export async function listAll(db: DynamoDBDocumentClient, tableName: string, partition: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        ScanIndexForward: false,
        ExclusiveStartKey: cursor,
      }),
    );
    items.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return items;
}

/** Writes `last_used_at` unless another request did within `resolutionMs` (then nothing changes). */
export async function touchLastUsed(db: DynamoDBDocumentClient, tableName: string, key: Record<string, string>, now: number, resolutionMs: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at < :stale)',
        ExpressionAttributeValues: { ':now': now, ':stale': now - resolutionMs },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * One page of a Query: `limit` items, and a cursor only when more follow. DynamoDB answers a
 * LastEvaluatedKey whenever it stopped at the limit, even with nothing after it, which made a
 * full last page lead to an empty one; so one item more is asked for, and the cursor is the key
 * of the last item given (its table keys, and the index's when `keys` names them).
 */
export async function queryPage(
  db: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'Limit'>,
  limit: number,
  keys: readonly string[],
): Promise<{ items: Record<string, unknown>[]; nextCursor: string | null }> {
  const page = await db.send(new QueryCommand({ ...input, Limit: limit + 1 }));
  const items = page.Items ?? [];
  if (items.length <= limit) return { items, nextCursor: null };
  const last = items[limit - 1]!;
  return { items: items.slice(0, limit), nextCursor: encodeCursor(Object.fromEntries(keys.map((name) => [name, last[name]]))) };
}
