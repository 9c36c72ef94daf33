/**
 * A signed-in page's list as it is read. The first read stands behind the page's own loading
 * line (`startSignedInPage` until `markReady`); a failed read says why in the page's error box,
 * with "Retry" under it, and a retry shows its own loading line (accountPage.ts's pattern).
 */
import { retryAfter, showLoading, showProblem } from './accountPage.ts';
import { setVisible } from './dom.ts';

export interface ListLoading {
  /** Reads the list; true once it is shown, false when the read failed (the error and "Retry" are shown). */
  load(): Promise<boolean>;
}

/** `object` ends Retry's accessible name ("Retry" + hidden "listing your keys"). */
export function listLoading(
  parts: { error: HTMLElement; failed: string; object: string; loading: string },
  read: () => Promise<void>,
): ListLoading {
  let reads = 0;
  const retry = retryAfter(parts.error, parts.object, () => void load());
  const load = async (): Promise<boolean> => {
    setVisible(parts.error, false);
    retry.hide();
    const done = reads++ > 0 ? showLoading(parts.error, null, parts.loading) : () => undefined;
    try {
      await read();
      return true;
    } catch (error) {
      showProblem(parts.error, error, parts.failed);
      retry.failed();
      return false;
    } finally {
      done();
    }
  };
  return { load };
}
