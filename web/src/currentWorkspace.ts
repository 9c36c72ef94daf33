/**
 * The workspace this browser works in ("current workspace", chosen on `/workspaces`): its id
 * alone, in `localStorage` `hushlink.workspace`. An id is no credential (every call still needs
 * the session, and a non-member is answered 404), so it may outlive the tab, as a preference;
 * nothing else of a workspace is stored.
 */
const storageKey = 'hushlink.workspace';
const workspaceId = /^wks_[A-Za-z0-9_-]{1,64}$/;

export const isWorkspaceId = (id: string | null | undefined): id is string => typeof id === 'string' && workspaceId.test(id);

/** The chosen workspace's id, or null (none chosen, storage off, or not an id). */
export function currentWorkspaceId(): string | null {
  try {
    const stored = localStorage.getItem(storageKey);
    return isWorkspaceId(stored) ? stored : null;
  } catch {
    return null;
  }
}

/** Remembers `id` as the current workspace; null forgets the choice. False when storage is off. */
export function chooseWorkspace(id: string | null): boolean {
  try {
    if (id === null) localStorage.removeItem(storageKey);
    else if (isWorkspaceId(id)) localStorage.setItem(storageKey, id);
    else return false;
    return true;
  } catch {
    return false;
  }
}

/** Forgets the choice when it names a workspace the caller is no longer in (left, removed). */
export function forgetWorkspaceUnless(memberOf: readonly string[]): void {
  const chosen = currentWorkspaceId();
  if (chosen && !memberOf.includes(chosen)) chooseWorkspace(null);
}
