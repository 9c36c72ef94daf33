import type { ApiKey } from '../../shared/domain/accounts/model.ts';
import type { ApiKeyStore } from '../../shared/domain/accounts/ports.ts';
import { conditionFailed, copy } from './memoryListing.ts';
import { descending } from './sessions.ts';

/**
 * ApiKeyStore in memory, with DynamoApiKeyStore's conditions: one key per id, deleted only by
 * its owner. Expired keys stay (TTL is cleanup): readers check `expiresAt` themselves.
 */
export class MemoryApiKeyStore implements ApiKeyStore {
  private readonly keys = new Map<string, ApiKey>();

  async insert(key: ApiKey): Promise<void> {
    if (this.keys.has(key.id)) throw conditionFailed();
    // A new key's item has no use recorded, whatever the object said.
    const { lastUsedAt: _used, ...stored } = copy(key);
    this.keys.set(key.id, stored);
  }

  async get(id: string): Promise<ApiKey | null> {
    const key = this.keys.get(id);
    return key ? copy(key) : null;
  }

  async listForUser(userId: string): Promise<ApiKey[]> {
    // The listing index carries no key hash.
    return [...this.keys.values()]
      .filter((key) => key.userId === userId)
      .sort((a, b) => descending(`${a.createdAt}#${a.id}`, `${b.createdAt}#${b.id}`))
      .map((key) => ({ ...copy(key), keyHash: '' }));
  }

  async delete(id: string, userId: string): Promise<boolean> {
    if (this.keys.get(id)?.userId !== userId) return false;
    this.keys.delete(id);
    return true;
  }

  async touch(id: string, now: number, resolutionMs: number): Promise<void> {
    const key = this.keys.get(id);
    if (key && (key.lastUsedAt === undefined || key.lastUsedAt < now - resolutionMs)) key.lastUsedAt = now;
  }
}
