import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { encode, syntheticCursors } from '../support/property/arbitraries.ts';
import { propertySuite } from '../support/property/suite.ts';

const suite = propertySuite('billing');

/** The generator that found it (issue 26): cursors shaped as an invoice's id, `in_…`, of no invoice there is. */
const invoiceShapedCursors = fc.stringMatching(/^in_[A-Za-z0-9]{1,64}$/);

// What the generators found answered 500 before issue 26, pinned to its answer.
describe('billing: what the generators found', () => {
  /** A person with a Pro subscription paid at the Stripe emulator: a customer with an invoice. */
  async function buyer(label: string): Promise<{ who: SignedIn; invoice: string }> {
    const runtime = suite.runtime();
    const who = await signIn(runtime, newEmail(label));
    const started = await suite.send({
      method: 'POST',
      path: '/v1/billing/checkout',
      headers: { ...who.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'pro' }),
    });
    expect(started.status, started.text).toBe(201);
    await runtime.stripe.completeCheckout((JSON.parse(started.text) as { id: string }).id);
    await runtime.stripe.settled();
    const listed = await suite.send({ method: 'GET', path: '/v1/billing/invoices', headers: who.auth });
    expect(listed.status, listed.text).toBe(200);
    return { who, invoice: (JSON.parse(listed.text) as { items: Array<{ id: string }> }).items[0]!.id };
  }

  it('GET /v1/billing/invoices: a cursor that is no invoice of the caller’s (unknown, another customer’s, malformed) is a 400 naming the cursor, never a 500', async () => {
    const mine = await buyer('invoices-cursor');
    const theirs = await buyer('invoices-cursor-other');
    const page = (cursor: string) =>
      suite.send({ method: 'GET', path: `/v1/billing/invoices?limit=1&cursor=${encode(cursor)}`, headers: mine.who.auth });
    const refused = async (cursor: string) => {
      const reply = await page(cursor);
      expect(reply.status, `${cursor.slice(0, 80)} → ${reply.text}`).toBe(400);
      expect((JSON.parse(reply.text) as { errors: Array<{ path: string }> }).errors.map((error) => error.path)).toEqual(['query.cursor']);
    };
    await refused('in_doesnotexist');
    await refused(theirs.invoice);
    await fc.assert(
      // Past ~16 KiB of URL the server answers 431 before any route: those are no cursor's to name.
      fc.asyncProperty(
        fc.oneof(
          { weight: 3, arbitrary: invoiceShapedCursors },
          { weight: 1, arbitrary: syntheticCursors.filter((cursor) => encode(cursor).length <= 6000) },
        ),
        async (cursor) => {
          fc.pre(cursor !== mine.invoice);
          await refused(cursor);
        },
      ),
      { numRuns: 120 },
    );
    // The caller's own invoice still pages (the last one: nothing after it).
    const own = await page(mine.invoice);
    expect(own.status, own.text).toBe(200);
    expect(JSON.parse(own.text)).toEqual({ items: [], next_cursor: null });
  });
});
