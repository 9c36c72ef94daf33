import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RateCounter, RateHit } from '../../shared/domain/rateWindows.ts';

/** The RateCounter port's contract: fixed windows counted exactly, refusing at the limit however many race. */
export function describeRateCounterContract(name: string, make: () => RateCounter | Promise<RateCounter>): void {
  describe(`RateCounter contract: ${name}`, () => {
    let counter: RateCounter;
    let hit: RateHit;
    beforeEach(async () => {
      counter = await make();
      hit = { bucket: `test#${randomUUID()}`, windowStart: 1_790_000_000, windowSeconds: 60, limit: 3 };
    });

    it('adds whatever the count, answering the count after', async () => {
      expect(await counter.add(hit, 2)).toBe(2);
      expect(await counter.add(hit, 5)).toBe(7);
    });

    it('adds one while below the limit, then answers null without counting', async () => {
      expect(await counter.addIfBelow(hit)).toBe(1);
      expect(await counter.addIfBelow(hit)).toBe(2);
      expect(await counter.addIfBelow(hit)).toBe(3);
      expect(await counter.addIfBelow(hit)).toBeNull();
      expect(await counter.add(hit, 0)).toBe(3);
    });

    it('of ten requests racing for a limit of three, exactly three are counted', async () => {
      const counts = await Promise.all(Array.from({ length: 10 }, () => counter.addIfBelow(hit)));
      expect(counts.filter((count) => count !== null).sort()).toEqual([1, 2, 3]);
    });

    it('counts each window and each bucket apart', async () => {
      await counter.add(hit, 3);
      expect(await counter.addIfBelow({ ...hit, windowStart: hit.windowStart + 60 })).toBe(1);
      expect(await counter.addIfBelow({ ...hit, bucket: `${hit.bucket}-other` })).toBe(1);
      expect(await counter.addIfBelow(hit)).toBeNull();
    });
  });
}
