/**
 * Numbers of the usage reports and product events. (They would sit in `shared/limits.ts` with
 * the others; they live here until that file is free to take them.)
 */
export const usageLimits = {
  /** `GET /v1/usage/history?days=`: default and maximum window, in days (today included). */
  historyDays: { min: 1, max: 90, default: 30 },
  /** DAY items outlive the longest window a reader may ask for, then TTL removes them. */
  dayRetentionDays: 100,
  /** Users rolled up at once by one run of the hourly job. */
  rollupConcurrency: 16,
  /** Product events are analytics, not records: TTL removes them after this. */
  productEventRetentionDays: 90,
} as const;

/** How the CLI was installed, and where: fixed lists, so a day's install item holds a bounded set of counts. */
export const cliInstallSources = ['script', 'homebrew', 'npm', 'scoop', 'apt', 'other'] as const;
export const cliInstallSystems = ['linux', 'macos', 'windows', 'other'] as const;

const dayMs = 24 * 3600 * 1000;

/** The date `days` days after `date` (both `yyyy-mm-dd`, UTC); negative goes back. */
export const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);

/** The month before `month` (`yyyy-mm`). */
export function previousMonth(month: string): string {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return number === 1 ? `${year - 1}-12` : `${year}-${String(number - 1).padStart(2, '0')}`;
}

/** When a DAY item of `date` is removed by TTL. */
export const dayExpiresAt = (date: string): number => Date.parse(`${date}T00:00:00Z`) + usageLimits.dayRetentionDays * dayMs;

export const productEventExpiresAt = (at: number): number => at + usageLimits.productEventRetentionDays * dayMs;
