import type { RateCounter, RateHit } from '../../shared/domain/rateWindows.ts';

/** RateCounter in memory: one count per bucket and window start, as DynamoRateCounter's items. */
export class MemoryRateCounter implements RateCounter {
  private readonly hits = new Map<string, number>();

  async add(hit: RateHit, amount: number): Promise<number> {
    const count = (this.hits.get(keyOf(hit)) ?? 0) + amount;
    this.hits.set(keyOf(hit), count);
    return count;
  }

  async addIfBelow(hit: RateHit): Promise<number | null> {
    const current = this.hits.get(keyOf(hit));
    if (current !== undefined && current >= hit.limit) return null;
    this.hits.set(keyOf(hit), (current ?? 0) + 1);
    return (current ?? 0) + 1;
  }
}

const keyOf = (hit: RateHit) => `${hit.bucket}\n${hit.windowStart}`;
