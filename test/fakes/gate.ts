import type { GateCode, GateSession, GateStore } from '../../shared/domain/secrets/gate.ts';
import { copy } from './memoryListing.ts';

/**
 * GateStore in memory, with DynamoGateStore's conditions: a live code is never replaced, a code
 * is consumed once. Expired codes and sessions stay until replaced (TTL is only cleanup):
 * readers compare `expiresAt` with their clock themselves.
 */
export class MemoryGateStore implements GateStore {
  private readonly codes = new Map<string, GateCode>();
  private readonly sessions = new Map<string, GateSession>();

  async addCode(secretId: string, recipientId: string, code: GateCode, now: number): Promise<boolean> {
    const current = this.codes.get(`${secretId}#${recipientId}`);
    if (current && current.expiresAt > now) return false;
    this.codes.set(`${secretId}#${recipientId}`, copy(code));
    return true;
  }

  async getCode(secretId: string, recipientId: string): Promise<GateCode | null> {
    const code = this.codes.get(`${secretId}#${recipientId}`);
    return code ? copy(code) : null;
  }

  async consumeCode(secretId: string, recipientId: string, codeHash: string): Promise<boolean> {
    if (this.codes.get(`${secretId}#${recipientId}`)?.codeHash !== codeHash) return false;
    this.codes.delete(`${secretId}#${recipientId}`);
    return true;
  }

  async putSession(tokenHash: string, session: GateSession): Promise<void> {
    this.sessions.set(tokenHash, copy(session));
  }

  async getSession(tokenHash: string): Promise<GateSession | null> {
    const session = this.sessions.get(tokenHash);
    return session ? copy(session) : null;
  }
}
