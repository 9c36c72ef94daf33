import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import type { Config } from '../config.ts';
import type { SecretSealer } from '../domain/webhooks/ports.ts';

/**
 * Signing secrets encrypted by KMS, with the endpoint id as encryption context: a sealed
 * secret copied to another endpoint's item does not decrypt, and CloudTrail names the
 * endpoint on every use. Opened secrets are kept for the life of the instance, so a burst of
 * deliveries to one endpoint costs one Decrypt.
 */
export class KmsSealer implements SecretSealer {
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async seal(plaintext: string, endpointId: string): Promise<string> {
    const { CiphertextBlob } = await this.client.send(
      new EncryptCommand({ KeyId: this.keyId, Plaintext: Buffer.from(plaintext, 'utf8'), EncryptionContext: { webhook_endpoint: endpointId } }),
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
        EncryptionContext: { webhook_endpoint: endpointId },
      }),
    );
    if (!Plaintext) throw new Error('KMS Decrypt returned no plaintext');
    const secret = Buffer.from(Plaintext).toString('utf8');
    this.opened.set(cacheKey, secret);
    return secret;
  }
}

/** The sealer of the functions the stack gives the signing-secrets key (WEBHOOK_KEY_ID). */
export function kmsSealer(config: Pick<Config, 'REGION' | 'WEBHOOK_KEY_ID'>): KmsSealer {
  if (!config.WEBHOOK_KEY_ID) throw new Error('WEBHOOK_KEY_ID is not set: this function cannot seal or open signing secrets');
  return new KmsSealer(new KMSClient({ region: config.REGION }), config.WEBHOOK_KEY_ID);
}
