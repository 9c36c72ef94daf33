import type { SignInCode, SignInCodes } from '../../shared/domain/accounts/model.ts';
import type { SignInCodeStore } from '../../shared/domain/accounts/ports.ts';
import { copy } from './memoryListing.ts';

/**
 * SignInCodeStore in memory, with DynamoSignInCodeStore's conditions: codes written only over
 * the version read (of two writes from one read, one lands), asks recorded once per cooldown.
 */
export class MemorySignInCodeStore implements SignInCodeStore {
  private readonly codes = new Map<string, SignInCodes>();
  private readonly asked = new Map<string, number>();

  async get(emailHash: string): Promise<SignInCodes> {
    return copy(this.codes.get(emailHash) ?? { codes: [], version: 0 });
  }

  async replace(emailHash: string, codes: SignInCode[], version: number): Promise<boolean> {
    if ((this.codes.get(emailHash)?.version ?? 0) !== version) return false;
    this.codes.set(emailHash, { codes: copy(codes), version: version + 1 });
    return true;
  }

  async markAsked(askerHash: string, now: number, cooldownMs?: number): Promise<number | null> {
    const last = this.asked.get(askerHash);
    if (cooldownMs !== undefined && last !== undefined && last > now - cooldownMs) return last;
    this.asked.set(askerHash, now);
    return null;
  }
}
