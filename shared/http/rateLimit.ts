import type { Clock } from '../clock.ts';
import { sha256Base64Url } from '../ids.ts';
import type { RateLimits, RateWindow } from '../limits.ts';
import type { RateClass } from '../routes.ts';
import { HttpError } from './errors.ts';

export interface RateHit {
  /** What is being counted: rate class, dimension and subject. */
  bucket: string;
  /** Epoch seconds at which the fixed window starts. */
  windowStart: number;
  windowSeconds: number;
  limit: number;
}

/** Counts one request in a window; false when the window is already full. */
export interface RateCounter {
  hit(hit: RateHit): Promise<boolean>;
}

export interface RateLimitPorts {
  rateCounter: RateCounter;
  rateLimits: RateLimits;
  clock: Clock;
}

/**
 * Checks the fixed window of a rate class for the caller's address. The address is stored
 * only as a hash: the counters are for throttling, not for knowing who called.
 */
export function enforceRateLimit(rate: RateClass, sourceIp: string, ports: RateLimitPorts): Promise<void> {
  return enforceWindow(`${rate}#ip#${sha256Base64Url(sourceIp)}`, ports.rateLimits[rate].perIp, ports);
}

/** The same class counted per user, whichever address or credential they call from. */
export function enforceCredentialRateLimit(rate: RateClass, userId: string, ports: RateLimitPorts): Promise<void> {
  const window = ports.rateLimits[rate].perCredential ?? ports.rateLimits[rate].perIp;
  return enforceWindow(`${rate}#user#${userId}`, window, ports);
}

/** One fixed window of `bucket`: counts this request, or refuses it with retry-after. */
export async function enforceWindow(bucket: string, window: RateWindow, ports: Pick<RateLimitPorts, 'rateCounter' | 'clock'>): Promise<void> {
  const nowSeconds = Math.floor(ports.clock.now() / 1000);
  const windowStart = nowSeconds - (nowSeconds % window.windowSeconds);
  const allowed = await ports.rateCounter.hit({ bucket, windowStart, windowSeconds: window.windowSeconds, limit: window.limit });
  if (!allowed) {
    const retryAfter = windowStart + window.windowSeconds - nowSeconds;
    throw new HttpError(429, 'rate_limited', `Too many requests; try again in ${retryAfter} s.`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }
}
