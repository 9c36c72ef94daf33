import { describe, expect, it } from 'vitest';
import { AdjustableClock } from '../../shared/clock.ts';
import { dayOf } from '../../shared/domain/counters.ts';
import { addDays, previousMonth, usageLimits } from '../../shared/domain/usage/model.ts';
import { monthOf, type UsageDay, type UsageReportStore, type UsageTotals } from '../../shared/domain/usage/ports.ts';
import { readUsageHistory } from '../../shared/domain/usage/read.ts';
import { rollUpUsage } from '../../shared/domain/usage/rollup.ts';

/** The usage items in memory: live counters, month call counts, DAY rows. */
class MemoryUsage implements UsageReportStore {
  live = new Map<string, { liveSecrets: number; bytesStored: number }>();
  months = new Map<string, number>();
  rows = new Map<string, Map<string, { day: UsageDay; expiresAt: number }>>();
  puts = 0;

  call(userId: string, at: number, times = 1) {
    const key = `${userId}|${monthOf(at)}`;
    this.months.set(key, (this.months.get(key) ?? 0) + times);
    if (!this.live.has(userId)) this.live.set(userId, { liveSecrets: 0, bytesStored: 0 });
  }
  async totals(userId: string, month: string): Promise<UsageTotals> {
    const live = this.live.get(userId) ?? { liveSecrets: 0, bytesStored: 0 };
    return { ...live, calls: this.months.get(`${userId}|${month}`) ?? 0 };
  }
  async *usersWithUsage(): AsyncIterable<string> {
    yield* this.live.keys();
  }
  async days(userId: string, from: string, to: string, limit: number): Promise<UsageDay[]> {
    return [...(this.rows.get(userId)?.values() ?? [])]
      .map((row) => row.day)
      .filter((day) => day.date >= from && day.date <= to)
      .sort((a, b) => b.date.localeCompare(a.date))
      .slice(0, limit);
  }
  async putDay(userId: string, day: UsageDay, expiresAt: number): Promise<void> {
    this.puts += 1;
    if (!this.rows.has(userId)) this.rows.set(userId, new Map());
    this.rows.get(userId)!.set(day.date, { day: { ...day }, expiresAt });
  }
  callsOn(userId: string, date: string) {
    return this.rows.get(userId)?.get(date)?.day.calls;
  }
}

/** A clock at a given UTC time. */
function clockAt(iso: string) {
  const clock = new AdjustableClock();
  clock.advance((Date.parse(iso) - clock.now()) / 1000);
  return clock;
}
const at = (clock: AdjustableClock, iso: string) => clock.advance((Date.parse(iso) - clock.now()) / 1000);

describe('the usage rollup', () => {
  it('writes today’s row for every user with usage, from the live counters and the month’s calls', async () => {
    const store = new MemoryUsage();
    const clock = clockAt('2031-03-10T05:00:00Z');
    store.call('a', clock.now(), 7);
    store.live.set('a', { liveSecrets: 3, bytesStored: 900 });
    store.call('b', clock.now(), 2);
    expect(await rollUpUsage({ clock, usageReports: store })).toBe(2);
    expect(await store.days('a', '2031-03-01', '2031-03-31', 10)).toEqual([
      { date: '2031-03-10', liveSecrets: 3, bytesStored: 900, calls: 7, callsBase: 0, callsSeen: 7 },
    ]);
    expect(store.callsOn('b', '2031-03-10')).toBe(2);
    expect(store.rows.get('a')!.get('2031-03-10')!.expiresAt).toBe(
      Date.parse('2031-03-10T00:00:00Z') + usageLimits.dayRetentionDays * 86_400_000,
    );
  });

  it('reruns the same day overwrite the row with the day’s calls so far', async () => {
    const store = new MemoryUsage();
    const clock = clockAt('2031-03-10T05:00:00Z');
    store.call('a', clock.now(), 4);
    await rollUpUsage({ clock, usageReports: store });
    at(clock, '2031-03-10T06:00:00Z');
    store.call('a', clock.now(), 3);
    await rollUpUsage({ clock, usageReports: store });
    await rollUpUsage({ clock, usageReports: store });
    expect(store.callsOn('a', '2031-03-10')).toBe(7);
    expect(store.rows.get('a')!.size).toBe(1);
  });

  it('a day’s calls are the month’s count minus what the last run before the day saw; late calls go to the next day', async () => {
    const store = new MemoryUsage();
    const clock = clockAt('2031-03-10T22:00:00Z');
    store.call('a', clock.now(), 5);
    await rollUpUsage({ clock, usageReports: store });
    // After the day's last run, before midnight.
    at(clock, '2031-03-10T23:30:00Z');
    store.call('a', clock.now(), 2);
    at(clock, '2031-03-11T00:15:00Z');
    store.call('a', clock.now(), 1);
    await rollUpUsage({ clock, usageReports: store });
    expect(store.callsOn('a', '2031-03-10')).toBe(5);
    expect(store.callsOn('a', '2031-03-11')).toBe(3);
    // A day without a run (the job was down) is missing; the next run's day takes its calls.
    at(clock, '2031-03-12T12:00:00Z');
    store.call('a', clock.now(), 4);
    at(clock, '2031-03-13T12:00:00Z');
    store.call('a', clock.now(), 6);
    await rollUpUsage({ clock, usageReports: store });
    expect(store.callsOn('a', '2031-03-12')).toBeUndefined();
    expect(store.callsOn('a', '2031-03-13')).toBe(10);
  });

  it('the days of a month add up to the month: its first run of the next month closes the last row', async () => {
    const store = new MemoryUsage();
    const clock = clockAt('2031-03-30T12:00:00Z');
    store.call('a', clock.now(), 4);
    await rollUpUsage({ clock, usageReports: store });
    at(clock, '2031-03-31T12:00:00Z');
    store.call('a', clock.now(), 6);
    await rollUpUsage({ clock, usageReports: store });
    at(clock, '2031-03-31T23:59:00Z');
    store.call('a', clock.now(), 5); // after March's last run
    at(clock, '2031-04-01T00:30:00Z');
    store.call('a', clock.now(), 2); // April's own
    await rollUpUsage({ clock, usageReports: store });
    expect(store.callsOn('a', '2031-03-30')).toBe(4);
    expect(store.callsOn('a', '2031-03-31')).toBe(11);
    expect(store.callsOn('a', '2031-04-01')).toBe(2);
    const march = (await store.days('a', '2031-03-01', '2031-03-31', 31)).reduce((sum, row) => sum + row.calls, 0);
    expect(march).toBe((await store.totals('a', '2031-03')).calls);
    // Later runs of April leave March alone.
    const puts = store.puts;
    await rollUpUsage({ clock, usageReports: store });
    expect(store.puts).toBe(puts + 1);
  });

  it('handles many users in batches', async () => {
    const store = new MemoryUsage();
    const clock = clockAt('2031-06-01T12:00:00Z');
    for (let i = 0; i < usageLimits.rollupConcurrency * 2 + 3; i++) store.call(`u${i}`, clock.now(), i);
    expect(await rollUpUsage({ clock, usageReports: store })).toBe(usageLimits.rollupConcurrency * 2 + 3);
    expect(store.callsOn('u7', '2031-06-01')).toBe(7);
  });
});

describe('usage history', () => {
  it('is the rows of the last `days` days, today included, newest first', async () => {
    const store = new MemoryUsage();
    const clock = clockAt('2031-05-20T12:00:00Z');
    for (let offset = 0; offset < 40; offset++) {
      const date = addDays('2031-05-20', -offset);
      await store.putDay('a', { date, liveSecrets: offset, bytesStored: 10, calls: 1, callsBase: 0, callsSeen: 1 }, 0);
    }
    const tiers = { plansOf: async () => [] };
    const history = await readUsageHistory('a', { days: 30 }, { clock, tiers, usageReports: store });
    expect(history).toHaveLength(30);
    expect(history[0]).toEqual({ date: '2031-05-20', live_secrets: 0, bytes_stored: 10, calls: 1 });
    expect(history.at(-1)!.date).toBe('2031-04-21');
    expect((await readUsageHistory('a', { days: 1 }, { clock, tiers, usageReports: store })).map((row) => row.date)).toEqual([
      '2031-05-20',
    ]);
  });

  it('date helpers', () => {
    expect(addDays('2031-03-01', -1)).toBe('2031-02-28');
    expect(addDays('2032-02-28', 1)).toBe('2032-02-29');
    expect(addDays('2031-12-31', 1)).toBe('2032-01-01');
    expect(previousMonth('2031-01')).toBe('2030-12');
    expect(previousMonth('2031-10')).toBe('2031-09');
    expect(dayOf(Date.parse('2031-03-01T00:00:00Z'))).toBe('2031-03-01');
  });
});
