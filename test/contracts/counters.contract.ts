import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Counters } from '../../shared/domain/counters.ts';

/** The Counters port's contract: named counts per day, added to atomically. */
export function describeCountersContract(name: string, make: () => Counters | Promise<Counters>): void {
  describe(`Counters contract: ${name}`, () => {
    let counters: Counters;
    let counter: string;
    beforeEach(async () => {
      counters = await make();
      counter = `feedback-${randomUUID()}`;
    });

    it('reads nothing for a name and day never counted', async () => {
      expect(await counters.read(counter, '2026-11-24')).toEqual({});
      await counters.add(counter, '2026-11-24', {});
      expect(await counters.read(counter, '2026-11-24')).toEqual({});
    });

    it('adds each count to what it was, per day', async () => {
      await counters.add(counter, '2026-11-24', { up: 1, down: 2 });
      await counters.add(counter, '2026-11-24', { up: 3 });
      await counters.add(counter, '2026-11-25', { down: 1 });
      expect(await counters.read(counter, '2026-11-24')).toEqual({ up: 4, down: 2 });
      expect(await counters.read(counter, '2026-11-25')).toEqual({ down: 1 });
    });

    it('loses no count to additions racing', async () => {
      await Promise.all(Array.from({ length: 10 }, () => counters.add(counter, '2026-11-24', { up: 1 })));
      expect(await counters.read(counter, '2026-11-24')).toEqual({ up: 10 });
    });
  });
}
