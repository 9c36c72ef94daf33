/**
 * What the in-memory fakes share: copies in and out (a caller never holds a fake's own object),
 * the errors the DynamoDB stores let through, and pages with opaque cursors as listing.ts pages.
 */

/** A deep copy: Maps of structured clones, so nothing a fake hands out or takes in stays linked. */
export const copy = <T>(value: T): T => structuredClone(value);

/** What a DynamoDB write whose condition failed throws when the store does not catch it. */
export function conditionFailed(): Error {
  return Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
}

/** What shared/store/cursor.ts throws for a cursor that is not one of the listing's own (400 to the caller). */
export function invalidCursor(): Error {
  return Object.assign(new Error('invalid cursor'), { name: 'InvalidCursor' });
}

/** Sort keys in the table's form: ISO time, then id, so equal times order by id as DynamoDB does. */
export const timeKey = (at: number, id: string): string => `${new Date(at).toISOString()}#${id}`;

/**
 * One page of a listing, newest first by `key` (compared as DynamoDB compares string keys), the
 * cursor naming the last item given and the listing (`partition`), and only when more follow.
 */
export function pageOf<T>(
  rows: Iterable<{ key: string; value: T }>,
  partition: string,
  limit: number,
  cursor: string | null,
): { items: T[]; nextCursor: string | null } {
  const after = cursor === null ? null : cursorKey(cursor, partition);
  const sorted = [...rows].sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0)).filter((row) => after === null || row.key < after);
  const items = sorted.slice(0, limit);
  const nextCursor =
    sorted.length > limit ? Buffer.from(JSON.stringify({ p: partition, k: items[items.length - 1]!.key })).toString('base64url') : null;
  return { items: items.map((row) => copy(row.value)), nextCursor };
}

function cursorKey(cursor: string, partition: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const { p, k } = (decoded ?? {}) as { p?: unknown; k?: unknown };
  if (p !== partition || typeof k !== 'string' || k === '') throw invalidCursor();
  return k;
}
