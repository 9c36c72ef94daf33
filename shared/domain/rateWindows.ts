/**
 * Fixed windows counted in the table, so a limit holds across every instance: the domain's own
 * limits (codes mailed, guesses at a code) are counted exactly with `enforceWindow`; the
 * per-request limits of the HTTP layer (shared/http/rateLimit.ts) count the same windows ahead.
 */
import type { Clock } from '../clock.ts';
import type { RateWindow } from '../limits.ts';
import { RateLimited } from './refusals.ts';

export interface RateHit {
  /** What is being counted: rate class, dimension and subject. */
  bucket: string;
  /** Epoch seconds at which the fixed window starts. */
  windowStart: number;
  windowSeconds: number;
  limit: number;
}

/** The shared count of one fixed window (DynamoDB, so it holds across every instance). */
export interface RateCounter {
  /** Counts `amount` requests, whatever the count; answers the window's count after it. */
  add(hit: RateHit, amount: number): Promise<number>;
  /** Counts one request unless the window already holds `limit`; the count after it, or null when full. */
  addIfBelow(hit: RateHit): Promise<number | null>;
}

/**
 * One fixed window counted exactly: a conditional increment before anything else happens.
 * For limits that guard something scarcer than a request (codes mailed to an address, guesses
 * at a sign-in code). Answers the window's count, this request included.
 */
export async function enforceWindow(
  bucket: string,
  window: RateWindow,
  ports: { rateCounter: RateCounter; clock: Clock },
): Promise<number> {
  const nowSeconds = Math.floor(ports.clock.now() / 1000);
  const hit = windowHit(bucket, window, nowSeconds);
  const count = await ports.rateCounter.addIfBelow(hit);
  if (count === null) throw rateLimited(hit, nowSeconds);
  return count;
}

export function windowHit(bucket: string, window: RateWindow, nowSeconds: number): RateHit {
  return {
    bucket,
    windowStart: nowSeconds - (nowSeconds % window.windowSeconds),
    windowSeconds: window.windowSeconds,
    limit: window.limit,
  };
}

/** The window is full: try again when it ends. */
export function rateLimited(hit: RateHit, nowSeconds: number): RateLimited {
  const retryAfter = hit.windowStart + hit.windowSeconds - nowSeconds;
  return new RateLimited(`Too many requests; try again in ${retryAfter} s.`, retryAfter);
}
