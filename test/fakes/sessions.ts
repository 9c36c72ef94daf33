import type { Session } from '../../shared/domain/accounts/model.ts';
import type { SessionStore } from '../../shared/domain/accounts/ports.ts';
import type { RefreshGrace } from '../../shared/domain/accounts/refreshGrace.ts';
import { conditionFailed, copy } from './memoryListing.ts';

/** Rotated refresh hashes remembered per session (DynamoSessionStore's). */
const rotatedKept = 20;

/** What the listing index carries of a session: no hashes, chain key or grace. */
function listed(session: Session): Session {
  const { chainKey: _chain, grace: _grace, ...rest } = copy(session);
  return { ...rest, refreshHash: '', rotatedHashes: [] };
}

/**
 * SessionStore in memory, with DynamoSessionStore's conditions: a rotation lands only on the
 * hash it expects and an open session; a revocation only once. Sessions past their refresh
 * expiry stay (TTL is cleanup): readers check `refreshExpiresAt` themselves.
 */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, Session>();

  async insert(session: Session): Promise<void> {
    if (this.sessions.has(session.id)) throw conditionFailed();
    // A new session's item has no grace and is not revoked, whatever the object said.
    const { grace: _grace, revokedAt: _revoked, ...stored } = copy(session);
    this.sessions.set(session.id, stored);
  }

  async get(id: string): Promise<Session | null> {
    const session = this.sessions.get(id);
    return session ? copy(session) : null;
  }

  async listForUser(userId: string): Promise<Session[]> {
    return [...this.sessions.values()]
      .filter((session) => session.userId === userId)
      .sort((a, b) => descending(`${a.createdAt}#${a.id}`, `${b.createdAt}#${b.id}`))
      .map(listed);
  }

  async rotate(
    id: string,
    expectedHash: string,
    next: { hash: string; expiresAt: number; now: number; grace: RefreshGrace; chainKey: string },
  ): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session || session.refreshHash !== expectedHash || session.revokedAt !== undefined) return false;
    session.rotatedHashes = [expectedHash, ...session.rotatedHashes].slice(0, rotatedKept);
    session.refreshHash = next.hash;
    session.grace = copy(next.grace);
    session.chainKey = next.chainKey;
    session.refreshExpiresAt = next.expiresAt;
    session.lastUsedAt = next.now;
    return true;
  }

  async revoke(id: string, at: number): Promise<void> {
    this.revokeIfOpen(id, at);
  }

  async revokeAllForUser(userId: string, at: number): Promise<number> {
    return [...this.sessions.values()].filter((session) => session.userId === userId && this.revokeIfOpen(session.id, at)).length;
  }

  async revokeSsoSessions(userId: string, workspaceId: string, at: number): Promise<number> {
    return [...this.sessions.values()].filter(
      (session) => session.userId === userId && session.sso?.workspaceId === workspaceId && this.revokeIfOpen(session.id, at),
    ).length;
  }

  async touch(id: string, now: number, resolutionMs: number): Promise<void> {
    const session = this.sessions.get(id);
    if (session && session.lastUsedAt < now - resolutionMs) session.lastUsedAt = now;
  }

  private revokeIfOpen(id: string, at: number): boolean {
    const session = this.sessions.get(id);
    if (!session || session.revokedAt !== undefined) return false;
    session.revokedAt = at;
    return true;
  }
}

/** Newest first by the listing's sort key, compared as DynamoDB compares strings. */
export const descending = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);
