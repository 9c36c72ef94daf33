/**
 * How a request's calls to Stripe fit in its deadline (ADR 0169): each call's settings from the
 * time left, the race that holds the deadline whatever the SDK does, and the two 503s a request
 * gets from it: no time left to ask (nothing was changed), or asked and not answered in time (it
 * may have been done).
 */
import type { Deadline } from '../deadline.ts';
import { Unavailable } from '../domain/refusals.ts';

/**
 * How long one call to Stripe may take (ADR 0163, 0169): each try at most 3 s; a second try (the
 * SDK's retry, after its back-off) only when both fit before the request's deadline; no call at all
 * with less than 250 ms left.
 */
export const stripeTiming = {
  tryTimeoutMs: 3_000,
  /** The SDK's sleep before its first retry (its INITIAL_NETWORK_RETRY_DELAY_SEC, jitter never below it). */
  retryBackoffMs: 500,
  /** Less than this left before the deadline: no call is started, the request is a 503 at once. */
  minimumCallMs: 250,
} as const;

/** The SDK's per-request settings of one call: each try's timeout and the retries after the first. */
export interface CallSettings {
  timeout: number;
  maxNetworkRetries: 0 | 1;
}

/**
 * The settings of a call with `remainingMs` left before the request's deadline, or null when that
 * is too little to start one. The first try is never shortened to make room for a second: it gets
 * 3 s or all that is left, and the second is made only when a whole one fits after the back-off.
 */
export function callSettings(remainingMs: number): CallSettings | null {
  if (!(remainingMs >= stripeTiming.minimumCallMs)) return null;
  const timeout = Math.floor(Math.min(stripeTiming.tryTimeoutMs, remainingMs));
  return { timeout, maxNetworkRetries: 2 * timeout + stripeTiming.retryBackoffMs <= remainingMs ? 1 : 0 };
}

/** setTimeout's longest delay; beyond it a timer fires at once. */
const longestTimer = 2_147_483_647;

/**
 * The call's answer, or `Unavailable` (`providerNoAnswer`) when the deadline comes first. The
 * SDK's own settings (`callSettings`) end each try by then, but its timeout counts a socket's idle
 * time, not the try's, and it retries a reset connection once even with no retries allowed: this
 * holds the deadline whatever it does. A call given up on may still be done at Stripe, as any
 * timed-out request may; its answer is dropped, and the 503 says it may have been applied.
 */
export function byDeadline<T>(work: Promise<T>, deadline: Deadline): Promise<T> {
  const left = deadline.remaining();
  if (!(left < longestTimer)) return work;
  work.catch(() => {}); // an answer after the deadline is nobody's: not an unhandled rejection
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(providerNoAnswer()), Math.max(0, left));
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * 503 `provider_unavailable`, retry-after 60, when nothing was changed: the request had no time
 * left to ask the provider, or the provider refused the call outright (its 429 or 5xx).
 */
export const providerUnavailable = (): Unavailable =>
  new Unavailable('The payment provider is not answering right now; nothing was changed. Try again in a minute.', 60, {
    code: 'provider_unavailable',
  });

/**
 * The same 503 when a call was sent and no answer came back in time (cut at the deadline, the
 * SDK's timeout, a broken connection): Stripe may have done it (a subscription changed or
 * canceled, a checkout session made), so the detail cannot say nothing was changed.
 */
export const providerNoAnswer = (): Unavailable =>
  new Unavailable('The payment provider did not answer in time; what was asked may have been applied: check before retrying.', 60, {
    code: 'provider_unavailable',
  });
