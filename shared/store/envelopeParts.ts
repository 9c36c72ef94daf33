import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { envelopePartKey as partKey, envelopePartPrefix, secretKey, type EnvelopePartItem } from './items/index.ts';

/**
 * Envelopes too big for one item (DynamoDB's 400 KB: only curl mode's, up to 1 MiB) are kept
 * in parts beside their secret (items/secrets.ts), each under this size. The secret's item
 * names how many (`envelope_parts`) and holds no envelope itself. The secret store's.
 */
export const inlineEnvelopeBytes = 300_000;
const partBytes = 300_000;

/** Writes the parts of `envelope` (before the secret's own item, so no secret exists without them); answers how many. */
export async function writeEnvelopeParts(
  db: DynamoDBDocumentClient,
  tableName: string,
  id: string,
  envelope: Uint8Array,
  ttl: number,
): Promise<number> {
  const parts = Array.from({ length: Math.ceil(envelope.length / partBytes) }, (_, index) =>
    envelope.subarray(index * partBytes, (index + 1) * partBytes),
  );
  // A few items (four at 1 MiB), each its own Put: no batch action to grant.
  await Promise.all(
    parts.map((data, index) =>
      db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...partKey(id, index), type: 'envelope_part', data, ttl } satisfies EnvelopePartItem,
        }),
      ),
    ),
  );
  return parts.length;
}

/** The whole envelope from its `count` parts (strongly consistent: they were written before the secret). */
export async function readEnvelopeParts(db: DynamoDBDocumentClient, tableName: string, id: string, count: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :part)',
        ExpressionAttributeValues: { ':pk': secretKey(id).pk, ':part': envelopePartPrefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) parts.push(item.data as Uint8Array);
    start = page.LastEvaluatedKey;
  } while (start);
  if (parts.length !== count) throw new Error(`secret ${id} has ${parts.length} envelope parts of ${count}`);
  return Buffer.concat(parts);
}

export async function deleteEnvelopeParts(db: DynamoDBDocumentClient, tableName: string, id: string, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, index) => db.send(new DeleteCommand({ TableName: tableName, Key: partKey(id, index) }))),
  );
}
