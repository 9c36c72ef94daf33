import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { checkStartKey, encodeCursor, invalidCursor } from './cursor.ts';
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

/** Every item of a table partition whose sort key begins with `prefix`, read consistently (a workspace's domains, its SCIM Users). */
export async function listPrefix(
  db: DynamoDBDocumentClient,
  tableName: string,
  pk: string,
  prefix: string,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Writes `last_used_at` unless another request did within `resolutionMs` (then nothing changes). */
export async function touchLastUsed(
  db: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, string>,
  now: number,
  resolutionMs: number,
): Promise<void> {
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
  if (input.ExclusiveStartKey !== undefined) checkStartKeyWithin(input);
  const page = await db.send(new QueryCommand({ ...input, Limit: limit + 1 }));
  const items = page.Items ?? [];
  if (items.length <= limit) return { items, nextCursor: null };
  const last = items[limit - 1]!;
  return { items: items.slice(0, limit), nextCursor: encodeCursor(Object.fromEntries(keys.map((name) => [name, last[name]]))) };
}

/**
 * A start key DynamoDB would take for this query, or `InvalidCursor`: the shape of the queried
 * index's keys (cursor.ts), and values the key condition admits, for DynamoDB refuses a start
 * key outside it ("does not match the range key predicate", "outside query boundaries"). The
 * condition is read in DynamoDB's own grammar: `k = :v`, `k < :v` (and `<=`, `>`, `>=`),
 * `k BETWEEN :a AND :b`, `begins_with(k, :v)`, joined by AND; string values compare by their
 * UTF-8 bytes, as DynamoDB orders them. So every listing paged by `queryPage`, whatever its
 * condition, refuses a changed cursor with 400 instead of failing.
 */
function checkStartKeyWithin(input: Omit<QueryCommandInput, 'Limit'>): void {
  const startKey = checkStartKey(input.ExclusiveStartKey, input.IndexName);
  const name = (token: string) => (token.startsWith('#') ? input.ExpressionAttributeNames?.[token] : token);
  const value = (token: string) => {
    const found: unknown = input.ExpressionAttributeValues?.[token];
    if (typeof found !== 'string') throw new Error(`queryPage reads string key conditions only (${token})`);
    return Buffer.from(found);
  };
  const clause =
    /^\s*(?:begins_with\s*\(\s*([#\w]+)\s*,\s*(:\w+)\s*\)|([#\w]+)\s+BETWEEN\s+(:\w+)\s+AND\s+(:\w+)|([#\w]+)\s*(=|<=|>=|<|>)\s*(:\w+))\s*(?:AND\b|$)/i;
  let rest = input.KeyConditionExpression ?? '';
  while (rest.trim() !== '') {
    const match = clause.exec(rest);
    if (!match) throw new Error(`queryPage cannot read the key condition ${JSON.stringify(input.KeyConditionExpression)}`);
    const [whole, prefixKey, prefix, betweenKey, low, high, comparedKey, operator, operand] = match;
    const attribute = name((prefixKey ?? betweenKey ?? comparedKey)!);
    const held = startKey[attribute ?? ''];
    if (held === undefined) throw invalidCursor();
    const bytes = Buffer.from(held);
    let admitted: boolean;
    if (prefix !== undefined) {
      const start = value(prefix);
      admitted = bytes.subarray(0, start.length).equals(start);
    } else if (low !== undefined) {
      admitted = Buffer.compare(bytes, value(low)) >= 0 && Buffer.compare(bytes, value(high!)) <= 0;
    } else {
      const order = Buffer.compare(bytes, value(operand!));
      admitted = { '=': order === 0, '<': order < 0, '<=': order <= 0, '>': order > 0, '>=': order >= 0 }[
        operator as '=' | '<' | '<=' | '>' | '>='
      ];
    }
    if (!admitted) throw invalidCursor();
    rest = rest.slice(whole.length);
  }
}
