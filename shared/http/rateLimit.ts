import type { Clock } from '../clock.ts';
import { sha256Base64Url } from '../ids.ts';
import type { RateLimits, RateWindow } from '../limits.ts';
import type { AppLogger } from '../logger.ts';
import type { RateClass } from '../routes.ts';
import { addressKey } from '../domain/sources.ts';
import { rateLimited, windowHit, type RateCounter, type RateHit } from '../domain/rateWindows.ts';

/** A request let through. `counted` settles once its count is stored (it never rejects). */
export interface Admission {
  counted: Promise<void>;
}

/** What an instance knows of one window. */
interface WindowState {
  /** The window's count as the table last answered it (this instance's reserved slots included). */
  known: number;
  /** Slots this instance counted in the table and has not used yet. */
  reserved: number;
  /** An unconditional increment of this instance is on its way to the table. */
  counting: boolean;
  endsAt: number;
}

/** Windows remembered per instance before the expired ones are dropped. */
const rememberedWindows = 10_000;

/**
 * Slots counted at once: 1 at the default limits (every request is counted), 1% of the limit
 * when an operator raises it, so a load test's thousands of requests cost tens of writes.
 */
export const slotsPerCount = (limit: number): number => Math.max(1, Math.floor(limit / 100));

/**
 * Fixed-window rate limits that hold across Lambda instances without putting a round trip
 * before the work. Each instance decides from what it knows: the count the table last
 * answered for the window, and the slots it counted ahead for itself.
 *
 * - A slot counted ahead is used at once, with no call.
 * - A window the instance knows to be full is refused at once, with no call.
 * - Otherwise the request is let through and counted alongside the operation
 *   (`Admission.counted`): one unconditional increment of `slotsPerCount(limit)`, whose answer
 *   becomes what the instance knows, the slots within the limit becoming its own.
 * - While that increment is on its way, further requests of the same instance are counted
 *   exactly instead (a conditional increment before the work, never past the limit).
 *
 * So an instance lets through at most one request past the limit per window, the one whose
 * count tells it the window is full: across N instances a window admits at most limit + N.
 * A Lambda instance serves one request at a time, so it never waits for the counter. Slots an
 * instance counted and did not use by the end of the window are lost (fewer than 1% of the
 * limit per instance); nothing else is refused that the table's count would have allowed.
 */
export class RateLimiter {
  private readonly windows = new Map<string, WindowState>();

  constructor(
    private readonly counter: RateCounter,
    readonly limits: RateLimits,
    private readonly clock: Clock,
    private readonly logger: AppLogger,
  ) {}

  /** The per-address window of a rate class (IPv6 by its /64). The address is stored only as a hash. */
  admitAddress(rate: RateClass, sourceIp: string): Promise<Admission> {
    return this.admit(`${rate}#ip#${sha256Base64Url(addressKey(sourceIp))}`, this.limits[rate].perIp);
  }

  /** The same class counted per user, whichever address or credential they call from. */
  admitUser(rate: RateClass, userId: string): Promise<Admission> {
    return this.admit(`${rate}#user#${userId}`, this.limits[rate].perCredential ?? this.limits[rate].perIp);
  }

  async admit(bucket: string, window: RateWindow): Promise<Admission> {
    const nowSeconds = Math.floor(this.clock.now() / 1000);
    const hit = windowHit(bucket, window, nowSeconds);
    const state = this.stateOf(hit, nowSeconds);
    if (state.reserved > 0) {
      state.reserved -= 1;
      return { counted: Promise.resolve() };
    }
    if (state.known >= window.limit) throw rateLimited(hit, nowSeconds);
    if (!state.counting) {
      state.counting = true;
      const amount = slotsPerCount(window.limit);
      const counted = this.counter.add(hit, amount).then(
        (count) => {
          // Of the slots just counted, those within the limit are this instance's; this
          // request took one of them (or was the one past the limit).
          const within = Math.min(amount, Math.max(0, window.limit - (count - amount)));
          state.reserved += Math.max(0, within - 1);
          state.known = Math.max(state.known, count);
        },
        (error: unknown) => {
          // The request did its work; a count lost to a fault of the table is only logged.
          this.logger.warn('rate count not stored', { error: (error as Error).name });
        },
      );
      return { counted: counted.finally(() => (state.counting = false)) };
    }
    const count = await this.counter.addIfBelow(hit);
    if (count === null) {
      state.known = Math.max(state.known, window.limit);
      throw rateLimited(hit, nowSeconds);
    }
    state.known = Math.max(state.known, count);
    return { counted: Promise.resolve() };
  }

  private stateOf(hit: RateHit, nowSeconds: number): WindowState {
    const key = `${hit.windowStart}#${hit.bucket}`;
    let state = this.windows.get(key);
    if (!state) {
      if (this.windows.size >= rememberedWindows) this.forgetEnded(nowSeconds);
      state = { known: 0, reserved: 0, counting: false, endsAt: hit.windowStart + hit.windowSeconds };
      this.windows.set(key, state);
    }
    return state;
  }

  /** Drops ended windows; if every one is live, starts over (costing at most a request each). */
  private forgetEnded(nowSeconds: number): void {
    for (const [key, state] of this.windows) if (state.endsAt <= nowSeconds) this.windows.delete(key);
    if (this.windows.size >= rememberedWindows) this.windows.clear();
  }
}

export type { RateCounter, RateHit } from '../domain/rateWindows.ts';
