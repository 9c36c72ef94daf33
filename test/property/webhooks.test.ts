import { describe, it } from 'vitest';
import { checkEditedCursors, checkNamedTamperings, type Listing } from '../support/property/cursorChecks.ts';
import { propertySuite } from '../support/property/suite.ts';

const suite = propertySuite('webhooks');

// What the generators above found answered 500 before issue 11, each pinned to its answer.
describe('webhooks: what the generators found', () => {
  const deliveries = (): Listing => ({
    path: `/v1/webhooks/${suite.fixtures().all('/v1/webhooks')[0]!}/deliveries`,
    who: 'a',
    partitionKey: 'pk',
    sortKey: 'sk',
    sortPrefix: 'DELIVERY#',
  });

  it('GET /v1/webhooks/{id}/deliveries: a tampered but well-formed cursor is a 400 naming the cursor', async () => {
    await checkNamedTamperings(suite, deliveries());
  });

  it('GET /v1/webhooks/{id}/deliveries: any edit of a live cursor is 200 only while it is still a key of the log, else 400', async () => {
    await checkEditedCursors(suite, deliveries(), 300);
  });
});
