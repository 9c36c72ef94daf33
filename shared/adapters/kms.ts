import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import type { Config } from '../config.ts';
import type { SealingContext, SecretSealer } from '../domain/webhooks/ports.ts';

/**
 * Third parties' secrets encrypted by KMS, with the owner's id as encryption context under a
 * name of its kind (`webhook_endpoint` for endpoints' signing secrets, `chat_team` for chat bot
 * tokens, `sso_workspace` for workspaces' OIDC client secrets): a sealed secret copied to another
 * item does not decrypt, a secret of one kind never opens as another's (the stack grants each
 * function its context names only), and CloudTrail names the owner on every use. Opened secrets
 * are kept for the life of the instance, so a burst of deliveries to one endpoint costs one Decrypt.
 */
export class KmsSealer implements SecretSealer {
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
    private readonly contextName: SealingContext = 'webhook_endpoint',
  ) {}

  async seal(plaintext: string, endpointId: string): Promise<string> {
    const { CiphertextBlob } = await this.client.send(
      new EncryptCommand({
        KeyId: this.keyId,
        Plaintext: Buffer.from(plaintext, 'utf8'),
        EncryptionContext: { [this.contextName]: endpointId },
      }),
    );
    if (!CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
    return `kms:${Buffer.from(CiphertextBlob).toString('base64url')}`;
  }

  async open(sealed: string, endpointId: string): Promise<string> {
    const cacheKey = `${endpointId}:${sealed}`;
    const cached = this.opened.get(cacheKey);
    if (cached !== undefined) return cached;
    if (!sealed.startsWith('kms:')) throw new Error('not sealed by KmsSealer');
    const { Plaintext } = await this.client.send(
      new DecryptCommand({
        KeyId: this.keyId,
        CiphertextBlob: Buffer.from(sealed.slice('kms:'.length), 'base64url'),
        EncryptionContext: { [this.contextName]: endpointId },
      }),
    );
    if (!Plaintext) throw new Error('KMS Decrypt returned no plaintext');
    const secret = Buffer.from(Plaintext).toString('utf8');
    this.opened.set(cacheKey, secret);
    return secret;
  }
}

/** The sealer of the functions the stack gives the sealing key (WEBHOOK_KEY_ID), for secrets of one kind. */
export function kmsSealer(config: Pick<Config, 'REGION' | 'WEBHOOK_KEY_ID'>, contextName: SealingContext = 'webhook_endpoint'): KmsSealer {
  if (!config.WEBHOOK_KEY_ID) throw new Error('WEBHOOK_KEY_ID is not set: this function cannot seal or open signing secrets');
  return new KmsSealer(new KMSClient({ region: config.REGION }), config.WEBHOOK_KEY_ID, contextName);
}
