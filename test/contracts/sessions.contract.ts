import { beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../shared/domain/accounts/model.ts';
import type { SessionStore } from '../../shared/domain/accounts/ports.ts';
import { newSessionId, newUserId } from '../../shared/ids.ts';
import { hour, minute, t0 } from './secretFixtures.ts';

const aSession = (userId: string, overrides: Partial<Session> = {}): Session => ({
  id: newSessionId(),
  userId,
  deviceName: 'Firefox on Linux',
  createdAt: t0,
  lastUsedAt: t0,
  refreshHash: 'refresh-0',
  rotatedHashes: [],
  chainKey: 'chain-0',
  refreshExpiresAt: t0 + 30 * 24 * hour,
  ...overrides,
});

const rotation = (hash: string, now: number) => ({
  hash,
  expiresAt: now + 30 * 24 * hour,
  now,
  grace: { previousHash: `before-${hash}`, sealedNext: `sealed-${hash}`, until: now + minute },
  chainKey: `chain-${hash}`,
});

/** The SessionStore port's contract: rotation on the hash expected, revocation once, use recorded at a resolution. */
export function describeSessionStoreContract(name: string, make: () => SessionStore | Promise<SessionStore>): void {
  describe(`SessionStore contract: ${name}`, () => {
    let sessions: SessionStore;
    let userId: string;
    beforeEach(async () => {
      sessions = await make();
      userId = newUserId();
    });

    it('keeps a session as given, once per id', async () => {
      const session = aSession(userId, { rotatedHashes: ['older'] });
      await sessions.insert(session);
      expect(await sessions.get(session.id)).toEqual(session);
      await expect(sessions.insert(session)).rejects.toThrow();
      expect(await sessions.get(newSessionId())).toBeNull();
    });

    it('lists a user’s sessions newest first, without their hashes, chain key or grace', async () => {
      const [older, newer] = [aSession(userId, { createdAt: t0 }), aSession(userId, { createdAt: t0 + 1 })];
      for (const session of [older, newer, aSession(newUserId())]) await sessions.insert(session);
      await sessions.rotate(newer.id, 'refresh-0', rotation('refresh-1', t0 + 2));
      const listed = await sessions.listForUser(userId);
      expect(listed.map((session) => session.id)).toEqual([newer.id, older.id]);
      const { chainKey: _chain, ...rest } = older;
      expect(listed[1]).toEqual({ ...rest, refreshHash: '', rotatedHashes: [] });
      expect(listed[0]).not.toHaveProperty('grace');
      expect(await sessions.listForUser(newUserId())).toEqual([]);
    });

    it('rotates only from the hash expected: the old one remembered, the grace and chain key kept', async () => {
      const session = aSession(userId);
      await sessions.insert(session);
      expect(await sessions.rotate(session.id, 'wrong', rotation('refresh-1', t0 + 1))).toBe(false);
      const next = rotation('refresh-1', t0 + 1);
      expect(await sessions.rotate(session.id, 'refresh-0', next)).toBe(true);
      expect(await sessions.get(session.id)).toEqual({
        ...session,
        refreshHash: 'refresh-1',
        rotatedHashes: ['refresh-0'],
        grace: next.grace,
        chainKey: next.chainKey,
        refreshExpiresAt: next.expiresAt,
        lastUsedAt: t0 + 1,
      });
      expect(await sessions.rotate(newSessionId(), 'refresh-0', next)).toBe(false);
    });

    it('remembers the last 20 rotated hashes, newest first', async () => {
      const session = aSession(userId);
      await sessions.insert(session);
      for (let i = 0; i < 22; i++)
        expect(await sessions.rotate(session.id, `refresh-${i}`, rotation(`refresh-${i + 1}`, t0 + i))).toBe(true);
      const rotated = (await sessions.get(session.id))!.rotatedHashes;
      expect(rotated).toHaveLength(20);
      expect(rotated[0]).toBe('refresh-21');
      expect(rotated[19]).toBe('refresh-2');
    });

    it('of two rotations racing from one token, exactly one lands', async () => {
      const session = aSession(userId);
      await sessions.insert(session);
      const rotated = await Promise.all([
        sessions.rotate(session.id, 'refresh-0', rotation('a', t0)),
        sessions.rotate(session.id, 'refresh-0', rotation('b', t0)),
      ]);
      expect(rotated.filter(Boolean)).toHaveLength(1);
    });

    it('revokes once (the first time stays), and a revoked session rotates no more', async () => {
      const session = aSession(userId);
      await sessions.insert(session);
      await sessions.revoke(session.id, t0 + 1);
      await sessions.revoke(session.id, t0 + 2);
      expect((await sessions.get(session.id))?.revokedAt).toBe(t0 + 1);
      expect(await sessions.rotate(session.id, 'refresh-0', rotation('refresh-1', t0 + 3))).toBe(false);
      await expect(sessions.revoke(newSessionId(), t0)).resolves.toBeUndefined();
    });

    it('revokes all of a user’s open sessions, counting those it revoked', async () => {
      const [open, another, revoked, theirs] = [
        aSession(userId),
        aSession(userId, { createdAt: t0 + 1 }),
        aSession(userId),
        aSession(newUserId()),
      ];
      for (const session of [open, another, revoked, theirs]) await sessions.insert(session);
      await sessions.revoke(revoked.id, t0);
      expect(await sessions.revokeAllForUser(userId, t0 + 5)).toBe(2);
      expect((await sessions.get(open.id))?.revokedAt).toBe(t0 + 5);
      expect((await sessions.get(revoked.id))?.revokedAt).toBe(t0);
      expect((await sessions.get(theirs.id))?.revokedAt).toBeUndefined();
      expect(await sessions.revokeAllForUser(userId, t0 + 6)).toBe(0);
    });

    it('records use at most once per resolution', async () => {
      const session = aSession(userId);
      await sessions.insert(session);
      await sessions.touch(session.id, t0 + minute, minute);
      expect((await sessions.get(session.id))?.lastUsedAt).toBe(t0);
      await sessions.touch(session.id, t0 + minute + 1, minute);
      expect((await sessions.get(session.id))?.lastUsedAt).toBe(t0 + minute + 1);
      await expect(sessions.touch(newSessionId(), t0, minute)).resolves.toBeUndefined();
    });
  });
}
