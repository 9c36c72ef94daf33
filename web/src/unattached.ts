/**
 * Secrets created in this browser without an account, kept so they can be attached to one
 * after signing in (`POST /v1/auth/adopt-secrets`). One `localStorage` key holds
 * `[{id, delete_token, expires_at}]`.
 *
 * A delete token is not a decryption key: it can revoke the secret (or attach it to an
 * account, which can then revoke it and see its state), never read it. The link key, the
 * passphrase and the text are never stored. Entries are dropped once their secret has expired.
 */

export interface UnattachedEntry {
  id: string;
  delete_token: string;
  expires_at: string;
}

export const unattachedKey = 'hushlink.unattached-secrets';
/** The API adopts at most 100 per request; more than that is not kept. */
const maxEntries = 100;

function isEntry(value: unknown): value is UnattachedEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry.id === 'string' && typeof entry.delete_token === 'string' && typeof entry.expires_at === 'string';
}

function read(): UnattachedEntry[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(unattachedKey) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isEntry) : [];
  } catch {
    return [];
  }
}

function write(entries: UnattachedEntry[]): void {
  try {
    if (entries.length === 0) localStorage.removeItem(unattachedKey);
    else localStorage.setItem(unattachedKey, JSON.stringify(entries));
  } catch {
    // Storage full or disabled: the secret simply cannot be attached later.
  }
}

/** The entries whose secret has not expired yet (expired ones are removed on the way). */
export function listUnattached(now = Date.now()): UnattachedEntry[] {
  const all = read();
  const live = all.filter((entry) => !(Date.parse(entry.expires_at) <= now));
  if (live.length !== all.length) write(live);
  return live;
}

export function rememberUnattached(entry: UnattachedEntry): boolean {
  const entries = listUnattached().filter((existing) => existing.id !== entry.id);
  if (entries.length >= maxEntries) return false;
  write([...entries, { id: entry.id, delete_token: entry.delete_token, expires_at: entry.expires_at }]);
  return true;
}

export function isRemembered(id: string): boolean {
  return read().some((entry) => entry.id === id);
}

export function forgetUnattached(ids: Iterable<string>): void {
  const drop = new Set(ids);
  write(read().filter((entry) => !drop.has(entry.id)));
}
