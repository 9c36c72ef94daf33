import fc from 'fast-check';
import { expect } from 'vitest';
import type { Who } from './fixtures.ts';
import { cursorEdits, editCursor } from './arbitraries.ts';
import type { PropertySuite } from './suite.ts';

/**
 * Found: a cursor changed by its holder but still base64url JSON of an object reached DynamoDB
 * as an ExclusiveStartKey it refused, and the listing answered 500 where
 * docs/adr/0094-cursors-are-checked-as-dynamodb-would-check-them.md promises 400. These check a
 * listing against the named edits and against `cursorEdits` at large.
 */

export interface Listing {
  /** The listing's path, e.g. `/v1/secrets` or an endpoint's delivery log. */
  path: string;
  who: Who;
  /** The key of what it queries (the table's, or an index's). */
  partitionKey: string;
  sortKey: string;
  /** A prefix its key condition puts on the sort key (`begins_with`), if any. */
  sortPrefix?: string;
}

const decode = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
const encode = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString('base64url');

async function liveCursor(suite: PropertySuite, listing: Listing): Promise<string> {
  const { auth } = await suite.fixtures().liveSession(listing.who);
  const reply = await suite.send({ method: 'GET', path: `${listing.path}?limit=1`, headers: auth });
  expect(reply.status, reply.text).toBe(200);
  const cursor = (JSON.parse(reply.text) as { next_cursor: string | null }).next_cursor;
  expect(cursor, `${listing.path} has more than one item`).toEqual(expect.any(String));
  return cursor!;
}

async function page(suite: PropertySuite, listing: Listing, cursor: string) {
  const auth = suite.fixtures().sessions.get(listing.who)!.auth;
  return suite.send({ method: 'GET', path: `${listing.path}?limit=1&cursor=${encodeURIComponent(cursor)}`, headers: auth });
}

function expectCursorRefused(reply: { status: number; text: string }, context: string): void {
  expect(reply.status, `${context} → ${reply.text}`).toBe(400);
  expect(
    (JSON.parse(reply.text) as { errors: Array<{ path: string }> }).errors.map((error) => error.path),
    context,
  ).toEqual(['query.cursor']);
}

/** The cases: each is refused with 400 naming the cursor. */
export async function checkNamedTamperings(suite: PropertySuite, listing: Listing): Promise<void> {
  const cursor = await liveCursor(suite, listing);
  const key = decode(cursor);
  const { partitionKey, sortKey } = listing;
  const without = (name: string) => Object.fromEntries(Object.entries(key).filter(([other]) => other !== name));
  const tampered: Record<string, string> = Object.fromEntries(
    Object.entries({
      'no sort key': without(sortKey),
      'no table sort key': without('sk'),
      'an empty sort key': { ...key, [sortKey]: '' },
      'an empty table key': { ...key, pk: '' },
      'a number for a key': { ...key, [sortKey]: 1 },
      'a typed value for a key': { ...key, [sortKey]: { S: key[sortKey] } },
      'another index’s key': { ...key, gsi2pk: 'USAGE#0', gsi2sk: 'x' },
      'an attribute that is no key': { ...key, ttl: 1 },
      // Within the 2048 characters a cursor may have; DynamoDB refuses a sort key over 1024 bytes.
      'a sort key over 1024 bytes': { ...key, [sortKey]: `${String(key[sortKey])}${'x'.repeat(1025)}` },
      'another partition': { ...key, [partitionKey]: `${String(key[partitionKey])}x` },
    }).map(([what, changed]) => [what, encode(changed)]),
  );
  if (listing.sortPrefix) tampered['a sort key outside the listing'] = encode({ ...key, [sortKey]: `x${String(key[sortKey])}` });
  tampered['a prototype key'] = Buffer.from(`${JSON.stringify(key).slice(0, -1)},"__proto__":"x"}`).toString('base64url');
  for (const [what, text] of Object.entries(tampered))
    expectCursorRefused(await page(suite, listing, text), `${listing.path} with ${what}`);
  // The cursor as given still pages.
  expect((await page(suite, listing, cursor)).status).toBe(200);
}

/**
 * Any edit of a live cursor is answered 200 or 400, never 5xx; 200 only when what it decodes
 * to is still a key of this listing: the same attributes, non-empty strings within DynamoDB's
 * sizes, the same partition, the sort key within the listing's prefix.
 */
export async function checkEditedCursors(suite: PropertySuite, listing: Listing, numRuns: number): Promise<void> {
  const cursor = await liveCursor(suite, listing);
  const key = decode(cursor);
  await fc.assert(
    fc.asyncProperty(cursorEdits, async (edits) => {
      const edited = editCursor(cursor, edits);
      const reply = await page(suite, listing, edited);
      const context = `${listing.path} cursor edited by ${JSON.stringify(edits).slice(0, 300)}`;
      if (reply.status === 400) return expectCursorRefused(reply, context);
      expect(reply.status, `${context} → ${reply.text}`).toBe(200);
      let changed: Record<string, unknown>;
      try {
        changed = JSON.parse(Buffer.from(edited, 'base64url').toString('utf8')) as Record<string, unknown>;
      } catch {
        throw new Error(`${context}: accepted a cursor that is not JSON`);
      }
      expect(Object.keys(changed).sort(), context).toEqual(Object.keys(key).sort());
      for (const [name, value] of Object.entries(changed)) {
        expect(
          typeof value === 'string' && value !== '' && Buffer.byteLength(value) <= (name.endsWith('pk') ? 2048 : 1024),
          `${context}: ${name}`,
        ).toBe(true);
      }
      expect(changed[listing.partitionKey], context).toBe(key[listing.partitionKey]);
      if (listing.sortPrefix) expect(String(changed[listing.sortKey]).startsWith(listing.sortPrefix), context).toBe(true);
    }),
    { numRuns },
  );
}
