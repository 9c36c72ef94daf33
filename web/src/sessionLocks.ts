/**
 * The Web Locks that keep refresh tokens from being presented twice (a rotated-away token
 * presented again makes the server revoke the session): the browser-wide cookie's one refresh
 * lock, and a shared-computer tab's claim on its own session.
 */

/**
 * Runs a cookie refresh while holding the browser's one refresh lock: every tab shares the cookie,
 * so the next tab's refresh sends the token this one's answer set. Without Web Locks (old
 * browsers) it runs alone, and the server's grace window covers a tab that raced it.
 */
export function acrossTabs<T>(run: () => Promise<T>): Promise<T> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  return locks ? locks.request('hushlink-refresh', run) : run();
}

// A duplicated tab (and some "open in new tab" paths) starts with a copy of this tab's
// sessionStorage. Whichever copy refreshed second would present a rotated-away token, and the
// server would revoke the session for both. So every page that uses a session holds a Web Lock
// named after it for as long as it is open (the browser releases it when the page goes). A
// page that finds a refresh token waits for that lock: right away, or as soon as the previous
// page of the same tab is gone; if another open tab keeps holding it, this tab has a copy and
// drops it (without signing anything out) to sign in on its own.
export const sessionIdOf = (token: string | null) => /^hlr_(ses_[A-Za-z0-9_-]+)\./.exec(token ?? '')?.[1] ?? null;
/** Longer than a page takes to leave; a copied tab waits this long before it asks to sign in. */
const lockWaitMs = 1500;
const claimed = new Set<string>();

/** Holds the session's lock for the life of this page; false when another open tab holds it. */
export function claimSession(session: string): Promise<boolean> {
  if (claimed.has(session)) return Promise.resolve(true);
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return Promise.resolve(true);
  const signal = AbortSignal.timeout(lockWaitMs);
  return new Promise((resolve) => {
    locks
      .request(`hushlink-session:${session}`, { signal }, () => {
        claimed.add(session);
        resolve(true);
        // Never settles: the lock is released when this page is unloaded.
        return new Promise<void>(() => undefined);
      })
      .catch(() => resolve(false));
  });
}
