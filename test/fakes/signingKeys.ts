import type { SigningKey } from '../../shared/domain/accounts/model.ts';
import type { SigningKeyStore } from '../../shared/domain/accounts/ports.ts';
import { copy } from './memoryListing.ts';

/** SigningKeyStore in memory: the keys newest first, rotated only over the newest key expected (DynamoSigningKeyStore's condition). */
export class MemorySigningKeyStore implements SigningKeyStore {
  private keys: SigningKey[] | null = null;

  async list(): Promise<SigningKey[]> {
    return copy(this.keys ?? []);
  }

  async add(key: SigningKey, expectedNewestKid: string | null, keep: number): Promise<boolean> {
    if (expectedNewestKid === null ? this.keys !== null : this.keys?.[0]?.kid !== expectedNewestKid) return false;
    this.keys = [copy(key), ...(this.keys ?? [])].slice(0, keep);
    return true;
  }
}
