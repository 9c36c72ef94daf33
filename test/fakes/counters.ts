import type { Counters } from '../../shared/domain/counters.ts';

/** Counters in memory: one record of counts per name and day, each count added to atomically. */
export class MemoryCounters implements Counters {
  private readonly days = new Map<string, Record<string, number>>();

  async add(name: string, day: string, counts: Record<string, number>): Promise<void> {
    if (Object.keys(counts).length === 0) return;
    const current = this.days.get(`${name}\n${day}`) ?? {};
    for (const [counter, value] of Object.entries(counts)) current[counter] = (current[counter] ?? 0) + value;
    this.days.set(`${name}\n${day}`, current);
  }

  async read(name: string, day: string): Promise<Record<string, number>> {
    return { ...(this.days.get(`${name}\n${day}`) ?? {}) };
  }
}
