import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SealingContext, SecretSealer } from '../domain/webhooks/ports.ts';

/**
 * AES-256-GCM under a key the local runtime holds (random per run, or kept in its data
 * folder), with the owner's id as associated data so a sealed secret opens only for the owner
 * it was made for; for kinds other than endpoints' signing secrets the context's name is bound
 * too (`chat_team=T…`, `sso_workspace=wks_…`), as KMS binds it. Endpoints' keep the bare id, so secrets sealed in a kept
 * data folder still open. KMS does this job in AWS (shared/adapters/kms.ts).
 */
export class LocalSealer implements SecretSealer {
  constructor(
    private readonly key: Uint8Array = randomBytes(32),
    private readonly contextName: SealingContext = 'webhook_endpoint',
  ) {
    if (key.length !== 32) throw new Error('LocalSealer needs a 32-byte key');
  }

  private associatedData(id: string): Buffer {
    return Buffer.from(this.contextName === 'webhook_endpoint' ? id : `${this.contextName}=${id}`);
  }

  async seal(plaintext: string, endpointId: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(this.associatedData(endpointId));
    const sealed = Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `local:${sealed.toString('base64url')}`;
  }

  async open(sealed: string, endpointId: string): Promise<string> {
    if (!sealed.startsWith('local:')) throw new Error('not sealed by LocalSealer');
    const bytes = Buffer.from(sealed.slice('local:'.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12)).setAAD(this.associatedData(endpointId));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  }
}

/** For functions that never handle signing secrets. */
export const noSealer: SecretSealer = {
  seal: () => Promise.reject(new Error('this function was built without a sealer')),
  open: () => Promise.reject(new Error('this function was built without a sealer')),
};
