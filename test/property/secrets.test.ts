import { describe, it } from 'vitest';
import { checkEditedCursors, checkNamedTamperings, type Listing } from '../support/property/cursorChecks.ts';
import { propertySuite } from '../support/property/suite.ts';

const suite = propertySuite('secrets');

// What the generators above found answered 500 before issue 11, each pinned to its answer.
describe('secrets: what the generators found', () => {
  const owned: Listing = { path: '/v1/secrets', who: 'a', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' };

  it('GET /v1/secrets: a tampered but well-formed cursor is a 400 naming the cursor', async () => {
    await checkNamedTamperings(suite, owned);
  });

  it('GET /v1/secrets: any edit of a live cursor is 200 only while it is still a key of the listing, else 400', async () => {
    await checkEditedCursors(suite, owned, 300);
  });
});
