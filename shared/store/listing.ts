import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
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
