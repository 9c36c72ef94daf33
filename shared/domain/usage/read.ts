import type { Clock } from '../../clock.ts';
import type { Principal } from '../accounts/model.ts';
import { effectiveTier, type TierSource } from '../billing/tier.ts';
import { dayOf } from '../counters.ts';
import { defaultPlan, flagsFor, type Flags } from '../plans.ts';
import type { Plan } from '../accounts/model.ts';
import { addDays } from './model.ts';
import { monthOf, type UsageReportStore } from './ports.ts';

export interface UsageReadPorts {
  clock: Clock;
  tiers: TierSource;
  usageReports: Pick<UsageReportStore, 'totals' | 'days'>;
}

export interface UsageView {
  live_secrets: number;
  bytes_stored: number;
  calls_this_month: number;
  month: string;
  plan: Plan;
}

/** The caller's usage now: live secrets and bytes (kept with every secret write) and this month's calls. */
export async function readUsage(userId: string, ports: UsageReadPorts): Promise<UsageView> {
  const month = monthOf(ports.clock.now());
  const [totals, plan] = await Promise.all([ports.usageReports.totals(userId, month), effectiveTier(userId, ports)]);
  return {
    live_secrets: totals.liveSecrets,
    bytes_stored: totals.bytesStored,
    calls_this_month: totals.calls,
    month,
    plan,
  };
}

/** How far back a history goes: the last `days` days, today included. */
export interface UsageHistoryWindow {
  days: number;
}

export interface UsageDayView {
  date: string;
  live_secrets: number;
  bytes_stored: number;
  calls: number;
}

/** The rollup's DAY rows of the last `days` days (today included), newest first. */
export async function readUsageHistory(userId: string, window: UsageHistoryWindow, ports: UsageReadPorts): Promise<UsageDayView[]> {
  const today = dayOf(ports.clock.now());
  const rows = await ports.usageReports.days(userId, addDays(today, -(window.days - 1)), today, window.days);
  return rows.map((row) => ({ date: row.date, live_secrets: row.liveSecrets, bytes_stored: row.bytesStored, calls: row.calls }));
}

/** Flags for the caller: from the signed-in user's effective tier, the default plan's for anyone else. */
export async function readFlags(principal: Principal | null, ports: Pick<UsageReadPorts, 'tiers'>): Promise<Flags> {
  if (!principal) return flagsFor(defaultPlan, false);
  return flagsFor(await effectiveTier(principal.userId, ports), true);
}
