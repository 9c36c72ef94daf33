import { BatchWriteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { key } from './secretItem.ts';

/**
 * Envelopes too big for one item (DynamoDB's 400 KB: only curl mode's, up to 1 MiB) are kept
 * in parts beside their secret, `SECRET#<id>` / `ENVELOPE#<nnn>`, each under this size. The
 * secret's item names how many (`envelope_parts`) and holds no envelope itself.
 */
export const inlineEnvelopeBytes = 300_000;
const partBytes = 300_000;

const partKey = (id: string, index: number) => ({ pk: key(id).pk, sk: `ENVELOPE#${String(index).padStart(3, '0')}` });

/** Writes the parts of `envelope` (before the secret's own item, so no secret exists without them); answers how many. */
export async function writeEnvelopeParts(db: DynamoDBDocumentClient, tableName: string, id: string, envelope: Uint8Array, ttl: number): Promise<number> {
  const parts = Array.from({ length: Math.ceil(envelope.length / partBytes) }, (_, index) => envelope.subarray(index * partBytes, (index + 1) * partBytes));
  await writeBatch(
    db,
    tableName,
    parts.map((data, index) => ({ PutRequest: { Item: { ...partKey(id, index), type: 'envelope_part', data, ttl } } })),
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
        ExpressionAttributeValues: { ':pk': key(id).pk, ':part': 'ENVELOPE#' },
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
  await writeBatch(
    db,
    tableName,
    Array.from({ length: count }, (_, index) => ({ DeleteRequest: { Key: partKey(id, index) } })),
  );
}

/** BatchWriteItem in runs of 25, sending again what DynamoDB left unprocessed. */
async function writeBatch(db: DynamoDBDocumentClient, tableName: string, requests: Array<Record<string, unknown>>): Promise<void> {
  for (let start = 0; start < requests.length; start += 25) {
    let pending: Array<Record<string, unknown>> = requests.slice(start, start + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === 5) throw new Error('envelope parts left unprocessed after 5 tries');
      const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
      pending = (UnprocessedItems?.[tableName] ?? []) as Array<Record<string, unknown>>;
    }
  }
}
