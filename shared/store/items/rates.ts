// Rate limits' fixed windows.

/**
 * One window's hits of one bucket (`RATE#<bucket>` / `<window start>`), incremented atomically
 * and expiring by TTL with its window: written by the rate counter (rateLimits.ts).
 */
export const rateWindowKey = (bucket: string, windowStart: number) => ({ pk: `${ratePrefix}${bucket}`, sk: String(windowStart) });
/** Every rate window's partition starts so (benches tell their calls apart by it). */
export const ratePrefix = 'RATE#';
export interface RateWindowItem {
  pk: string;
  sk: string;
  hits: number;
  ttl: number;
}
