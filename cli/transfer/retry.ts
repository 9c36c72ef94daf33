/** Tries of a part or a range: the first, then 3 retries. */
export const attempts = 4;

/** Waits before retry `attempt` (1, 2, 3): 0.5 s, 1 s, 2 s. */
export const defaultRetryDelay = (attempt: number): number => 500 * 2 ** (attempt - 1);

/** A pause that ends early, rejecting, when `signal` fires. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return signal.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Runs `work` on each item with at most `lanes` at once, each lane taking the next item as it
 * frees (so items start in order). The first failure stops the rest: `signal` of the work fires,
 * and that failure is what this rejects with.
 */
export async function inLanes<T>(
  items: readonly T[],
  lanes: number,
  outer: AbortSignal | undefined,
  work: (item: T, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const stop = new AbortController();
  const signal = outer ? AbortSignal.any([outer, stop.signal]) : stop.signal;
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length && !failure) {
      const item = items[next++]!;
      try {
        await work(item, signal);
      } catch (error) {
        failure ??= { error: outer?.aborted ? outer.reason : error };
        stop.abort(failure.error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  if (failure) throw failure.error;
  outer?.throwIfAborted();
}
