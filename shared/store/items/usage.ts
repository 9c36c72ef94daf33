import { toIso } from '../../clock.ts';
import { sha256 } from '../../ids.ts';
import type { UsageChange } from '../../domain/usage/live.ts';

// Usage: a user's counters in their usage partition (`USAGE#<user>`), the feedback counters, and
// product events.

export const usagePartition = (userId: string): string => `USAGE#${userId}`;

/**
 * A user's live secrets and bytes stored (`USAGE#<user>` / `CURRENT`), moved from the table's
 * stream, and on the rollup's listing of users with usage (gsi2 `USAGE#<shard>` / `<user id>`):
 * written by the live usage ledger (usage.ts).
 */
export const currentUsageKey = (userId: string) => ({ pk: usagePartition(userId), sk: 'CURRENT' });
export const usageShards = 4;
export const usageShardOf = (userId: string): number => sha256(userId)[0]! % usageShards;
export const usageListingPartition = (shard: number): string => `USAGE#${shard}`;
export const usageListing = (userId: string) => ({ gsi2pk: usageListingPartition(usageShardOf(userId)), gsi2sk: userId });
export interface CurrentUsageItem {
  pk: string;
  sk: string;
  type: 'usage';
  live_secrets: number;
  bytes_stored: number;
  gsi2pk: string;
  gsi2sk: string;
}

/** A change applied to the counters (`USAGE#<user>` / `APPLIED#<secret>#<phase>`), put with it so a replayed stream record moves nothing twice: written by the live usage ledger (usage.ts). */
export const usageMarkKey = (userId: string, change: Pick<UsageChange, 'secretId' | 'phase'>) => ({
  pk: usagePartition(userId),
  sk: `APPLIED#${change.secretId}#${change.phase}`,
});
export interface UsageMarkItem {
  pk: string;
  sk: string;
  type: 'usage_mark';
  ttl: number;
}

/** A month's authenticated calls (`USAGE#<user>` / `MONTH#<yyyy-mm>`): written by the call counter (usage.ts). */
export const monthUsageKey = (userId: string, month: string) => ({ pk: usagePartition(userId), sk: `MONTH#${month}` });
export interface MonthUsageItem {
  pk: string;
  sk: string;
  type: 'usage_month';
  calls: number;
}

/** A day of usage history (`USAGE#<user>` / `DAY#<yyyy-mm-dd>`): written by the hourly rollup's store (usageReports.ts). */
export const dayUsageKey = (userId: string, date: string) => ({ pk: usagePartition(userId), sk: dayUsageSk(date) });
export const dayUsageSk = (date: string): string => `DAY#${date}`;
export interface DayUsageItem {
  pk: string;
  sk: string;
  type: 'usage_day';
  date: string;
  live_secrets: number;
  bytes_stored: number;
  calls: number;
  calls_base: number;
  calls_seen: number;
  ttl: number;
}

/** A day's feedback counters (`COUNTER#<name>` / `DAY#<yyyy-mm-dd>`, `n_<counter>` each): written by the counter store (counters.ts). */
export const counterKey = (name: string, day: string) => ({ pk: `COUNTER#${name}`, sk: `DAY#${day}` });
export type CounterItem = { pk: string; sk: string } & Record<`n_${string}`, number>;

/** A product event (`PRODUCT_EVENT#<yyyy-mm-dd>` / `<ISO time>#<id>`), a day in order with one Query: written by the product event store (productEvents.ts). */
export const productEventKey = (at: number, id: string) => {
  const iso = toIso(at);
  return { pk: `PRODUCT_EVENT#${iso.slice(0, 10)}`, sk: `${iso}#${id}` };
};
export interface ProductEventItem {
  pk: string;
  sk: string;
  type: 'product_event';
  id: string;
  name: string;
  user_id: string;
  /** A Map: the marshaller takes a plain object as a map only when its `constructor` is Object's. */
  properties: Map<string, unknown>;
  /** ISO 8601. */
  created_at: string;
  ttl: number;
}
