import type { PendingSsoSignIn, SsoExchange, SsoSignInStore } from '../../shared/domain/sso/signInPorts.ts';

/** SsoSignInStore in memory (shared/store/ssoSignIns.ts): each record taken once, unexpired; a bound exchange only with its challenge. */
export class MemorySsoSignIns implements SsoSignInStore {
  private readonly pending = new Map<string, PendingSsoSignIn>();
  private readonly exchanges = new Map<string, SsoExchange>();

  async savePending(pending: PendingSsoSignIn): Promise<void> {
    if (this.pending.has(pending.stateId)) throw new Error('ConditionalCheckFailedException');
    this.pending.set(pending.stateId, structuredClone(pending));
  }

  async takePending(stateId: string, now: number): Promise<PendingSsoSignIn | null> {
    const found = this.pending.get(stateId);
    if (!found || found.expiresAt <= now) return null;
    this.pending.delete(stateId);
    return found;
  }

  async saveExchange(codeHash: string, exchange: SsoExchange): Promise<void> {
    if (this.exchanges.has(codeHash)) throw new Error('ConditionalCheckFailedException');
    this.exchanges.set(codeHash, structuredClone(exchange));
  }

  async takeExchange(codeHash: string, now: number, clientChallenge: string | null): Promise<SsoExchange | null> {
    const found = this.exchanges.get(codeHash);
    if (!found || found.expiresAt <= now || (found.clientChallenge ?? null) !== clientChallenge) return null;
    this.exchanges.delete(codeHash);
    return found;
  }
}
