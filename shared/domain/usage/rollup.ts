import type { Clock } from '../../clock.ts';
import { dayOf } from '../counters.ts';
import { dayExpiresAt, previousMonth, usageLimits } from './model.ts';
import { monthOf, type UsageDay, type UsageReportStore } from './ports.ts';

export interface RollupPorts {
  clock: Clock;
  usageReports: UsageReportStore;
}

/**
 * The hourly rollup: for every user with usage, (over)writes today's DAY item with the live
 * counters and the calls made today. Safe to run at any time and any number of times.
 *
 * Calls are counted per month only (one atomic increment per call); a day's calls are the
 * month's count now minus the month's count when the day began, which the rollup takes as the
 * count it last saw before today (0 on the month's first row). So calls made between the
 * day's last run and midnight go to the next day, and the days of a month add up to the month
 * exactly: the first run of a month also closes the previous month's last row with that
 * month's final count.
 */
export async function rollUpUsage(ports: RollupPorts): Promise<number> {
  const now = ports.clock.now();
  let processed = 0;
  let batch: Promise<unknown>[] = [];
  for await (const userId of ports.usageReports.usersWithUsage()) {
    batch.push(rollUpUser(userId, now, ports.usageReports));
    if (batch.length >= usageLimits.rollupConcurrency) {
      await Promise.all(batch);
      processed += batch.length;
      batch = [];
    }
  }
  await Promise.all(batch);
  return processed + batch.length;
}

export async function rollUpUser(userId: string, now: number, store: UsageReportStore): Promise<UsageDay> {
  const today = dayOf(now);
  const month = monthOf(now);
  const [totals, [latest]] = await Promise.all([store.totals(userId, month), store.days(userId, `${month}-01`, today, 1)]);
  let callsBase: number;
  if (latest?.date === today) callsBase = latest.callsBase;
  else if (latest) callsBase = latest.callsSeen;
  else {
    callsBase = 0;
    await closeMonth(userId, previousMonth(month), store);
  }
  const row: UsageDay = {
    date: today,
    liveSecrets: totals.liveSecrets,
    bytesStored: totals.bytesStored,
    calls: Math.max(0, totals.calls - callsBase),
    callsBase,
    callsSeen: totals.calls,
  };
  await store.putDay(userId, row, dayExpiresAt(today));
  return row;
}

/** Gives a finished month's last row the calls made after its last run (the month's count no longer moves). */
async function closeMonth(userId: string, month: string, store: UsageReportStore): Promise<void> {
  const [last] = await store.days(userId, `${month}-01`, `${month}-31`, 1);
  if (!last) return;
  const { calls: final } = await store.totals(userId, month);
  if (final === last.callsSeen) return;
  await store.putDay(userId, { ...last, calls: Math.max(0, final - last.callsBase), callsSeen: final }, dayExpiresAt(last.date));
}
