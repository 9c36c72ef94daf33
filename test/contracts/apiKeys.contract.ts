import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiKey } from '../../shared/domain/accounts/model.ts';
import type { ApiKeyStore } from '../../shared/domain/accounts/ports.ts';
import { newApiKeyId, newUserId } from '../../shared/ids.ts';
import { hour, minute, t0 } from './secretFixtures.ts';

const aKey = (userId: string, overrides: Partial<ApiKey> = {}): ApiKey => ({
  id: newApiKeyId(),
  userId,
  name: 'deploy',
  prefix: 'hlk_abcd',
  scopes: ['secrets:write', 'receipts:read'],
  keyHash: 'key-hash',
  createdAt: t0,
  ...overrides,
});

/** The ApiKeyStore port's contract: keys kept as given, listed without their hash, deleted by their owner only. */
export function describeApiKeyStoreContract(name: string, make: () => ApiKeyStore | Promise<ApiKeyStore>): void {
  describe(`ApiKeyStore contract: ${name}`, () => {
    let keys: ApiKeyStore;
    let userId: string;
    beforeEach(async () => {
      keys = await make();
      userId = newUserId();
    });

    it('keeps a key as given, once per id', async () => {
      const key = aKey(userId, { expiresAt: t0 + hour });
      await keys.insert(key);
      expect(await keys.get(key.id)).toEqual(key);
      await expect(keys.insert({ ...key, name: 'again' })).rejects.toThrow();
      expect(await keys.get(newApiKeyId())).toBeNull();
    });

    it('lists a user’s keys newest first, without their hash', async () => {
      const [older, newer] = [aKey(userId, { createdAt: t0 }), aKey(userId, { createdAt: t0 + 1, expiresAt: t0 + hour })];
      for (const key of [older, newer, aKey(newUserId())]) await keys.insert(key);
      expect(await keys.listForUser(userId)).toEqual([newer, older].map((key) => ({ ...key, keyHash: '' })));
      expect(await keys.listForUser(newUserId())).toEqual([]);
    });

    it('deletes a key for its owner only', async () => {
      const key = aKey(userId);
      await keys.insert(key);
      expect(await keys.delete(key.id, newUserId())).toBe(false);
      expect(await keys.delete(key.id, userId)).toBe(true);
      expect(await keys.get(key.id)).toBeNull();
      expect(await keys.delete(key.id, userId)).toBe(false);
    });

    it('records use the first time and then at most once per resolution, also in the listing', async () => {
      const key = aKey(userId);
      await keys.insert(key);
      await keys.touch(key.id, t0 + 1, minute);
      expect((await keys.get(key.id))?.lastUsedAt).toBe(t0 + 1);
      await keys.touch(key.id, t0 + minute, minute);
      expect((await keys.get(key.id))?.lastUsedAt).toBe(t0 + 1);
      await keys.touch(key.id, t0 + minute + 2, minute);
      expect((await keys.listForUser(userId))[0]?.lastUsedAt).toBe(t0 + minute + 2);
      await expect(keys.touch(newApiKeyId(), t0, minute)).resolves.toBeUndefined();
      expect(await keys.get(key.id)).not.toBeNull();
    });
  });
}
