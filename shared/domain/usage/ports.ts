/** Counts each authenticated call against its user's month ("calls this month"). */
export interface CallCounter {
  countCall(userId: string, at: number): Promise<void>;
}

export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** What `USAGE#<user>` holds now: `CURRENT` (live secrets, bytes) and `MONTH#<yyyy-mm>` (calls). */
export interface UsageTotals {
  liveSecrets: number;
  bytesStored: number;
  /** Calls counted in the month asked for. */
  calls: number;
}

/**
 * One day of a user's usage history (`USAGE#<user>` / `DAY#<yyyy-mm-dd>`), written by the
 * hourly rollup. `callsBase` is the month's call count taken as the start of the day and
 * `callsSeen` the month's count at the last rollup; `calls = callsSeen - callsBase`.
 */
export interface UsageDay {
  date: string;
  liveSecrets: number;
  bytesStored: number;
  calls: number;
  callsBase: number;
  callsSeen: number;
}

/** Reads and rollups of the usage items; the live counters are written with the secrets themselves. */
export interface UsageReportStore {
  /** `CURRENT` and `MONTH#<month>` of one user, in one read; absent items count as zero. */
  totals(userId: string, month: string): Promise<UsageTotals>;
  /** Every user with a usage item, across the shards of the listing, page by page. */
  usersWithUsage(): AsyncIterable<string>;
  /** DAY items from `from` to `to` (inclusive, `yyyy-mm-dd`), newest first, at most `limit`. */
  days(userId: string, from: string, to: string, limit: number): Promise<UsageDay[]>;
  /** Writes (or overwrites) one DAY item, removed by TTL at `expiresAt` (ms). */
  putDay(userId: string, day: UsageDay, expiresAt: number): Promise<void>;
}

export type ProductEventValue = string | number | boolean;

/** A product event from a signed-in surface: a validated name and flat properties, nothing else. */
export interface ProductEvent {
  id: string;
  userId: string;
  name: string;
  properties: Record<string, ProductEventValue>;
  at: number;
}

export interface ProductEventStore {
  /** Stores the event, removed by TTL at `expiresAt` (ms). */
  record(event: ProductEvent, expiresAt: number): Promise<void>;
}
