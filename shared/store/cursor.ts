/**
 * Opaque pagination cursors: DynamoDB's LastEvaluatedKey as base64url JSON. A cursor is only
 * accepted back for the listing it came from (its partition key must match).
 */
export function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor(cursor: string, expectedPartition: string, partitionKey: 'gsi1pk' | 'pk' = 'gsi1pk'): Record<string, unknown> {
  const invalid = Object.assign(new Error('invalid cursor'), { name: 'InvalidCursor' });
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!key || typeof key !== 'object' || Array.isArray(key)) throw invalid;
  const record = key as Record<string, unknown>;
  const allowed = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk']);
  if (Object.keys(record).some((name) => !allowed.has(name)) || Object.values(record).some((value) => typeof value !== 'string')) throw invalid;
  if (record[partitionKey] !== expectedPartition) throw invalid;
  return record;
}
