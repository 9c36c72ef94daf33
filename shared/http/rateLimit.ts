import type { Clock } from '../clock.ts';
import { sha256Base64Url } from '../ids.ts';
import type { RateLimits } from '../limits.ts';
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
export async function enforceRateLimit(rate: RateClass, sourceIp: string, ports: RateLimitPorts): Promise<void> {
  const { perIp } = ports.rateLimits[rate];
  const nowSeconds = Math.floor(ports.clock.now() / 1000);
  const windowStart = nowSeconds - (nowSeconds % perIp.windowSeconds);
  const allowed = await ports.rateCounter.hit({
    bucket: `${rate}#ip#${sha256Base64Url(sourceIp)}`,
    windowStart,
    windowSeconds: perIp.windowSeconds,
    limit: perIp.limit,
  });
  if (!allowed) {
    const retryAfter = windowStart + perIp.windowSeconds - nowSeconds;
    throw new HttpError(429, 'rate_limited', `Too many requests; try again in ${retryAfter} s.`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }
}
