import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@aws-sdk/types';
import type { FileObjects } from '../domain/files/ports.ts';
import { systemClock, type Clock } from '../clock.ts';

/** Where the files bucket is: AWS's regional endpoint, or a local S3 (path-style, fixed credentials). */
export interface BucketLocation {
  bucket: string;
  region: string;
  /** A local S3's origin (`http://127.0.0.1:port`); AWS's virtual-hosted endpoint when absent. */
  endpoint?: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
}

/** AWS's domain in a region's partition, as the stack's `urlSuffix` (the pages' connect-src) names it. */
const urlSuffixOf = (region: string) => (region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com');

/** SHA-256 (and HMAC-SHA-256 with a secret) on node:crypto, as SigV4 signers take it. */
class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

const bytesOf = (data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

/**
 * The files bucket through presigned requests alone: GET URLs handed to the client (the claim
 * of a file), DELETEs this function sends itself. SigV4 by the SDK's own S3 presigner; no S3
 * client, whose 48 KiB of gzip only the files function carries
 * (docs/adr/0019-the-claim-of-a-file-answers-a-presigned-url-only-the-files.md).
 */
export class PresignedFileObjects implements FileObjects {
  private readonly presigner: S3RequestPresigner;

  /** `clock` is the signing time: the local runtime's moved clock, so its local S3 (which judges expiry by it) agrees. */
  constructor(
    private readonly location: BucketLocation,
    private readonly clock: Clock = systemClock,
  ) {
    this.presigner = new S3RequestPresigner({ credentials: location.credentials, region: location.region, sha256: Sha256 });
  }

  async downloadUrl(key: string, expiresInSeconds: number): Promise<string> {
    return this.presign('GET', key, {}, expiresInSeconds);
  }

  async remove(key: string): Promise<void> {
    await this.send('DELETE', key, {});
  }

  async abortUpload(key: string, uploadId: string): Promise<void> {
    await this.send('DELETE', key, { uploadId });
  }

  /** Sends a presigned request; 404 (nothing there any more) is as good as done. */
  private async send(method: 'DELETE', key: string, query: Record<string, string>): Promise<void> {
    const response = await fetch(await this.presign(method, key, query, 60), { method });
    if (!response.ok && response.status !== 404)
      throw new Error(`S3 ${method} ${key} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    await response.body?.cancel();
  }

  private async presign(method: string, key: string, query: Record<string, string>, expiresIn: number): Promise<string> {
    const { bucket, region, endpoint } = this.location;
    const base = endpoint ? new URL(endpoint) : new URL(`https://${bucket}.s3.${region}.${urlSuffixOf(region)}`);
    const path = `${endpoint ? `/${bucket}` : ''}/${key.split('/').map(encodeURIComponent).join('/')}`;
    const signed = await this.presigner.presign(
      {
        method,
        protocol: base.protocol,
        hostname: base.hostname,
        ...(base.port ? { port: Number(base.port) } : {}),
        path,
        query,
        headers: { host: base.host },
      },
      { expiresIn, signingDate: new Date(this.clock.now()) },
    );
    const search = new URLSearchParams(signed.query as Record<string, string>).toString().replace(/\+/g, '%20');
    return `${base.protocol}//${base.host}${signed.path}?${search}`;
  }
}

/** The files bucket in AWS, as the stack gives it (FILES_BUCKET), with the role's credentials. */
export function awsBucket(
  config: { FILES_BUCKET?: string | undefined; REGION: string },
  credentials: AwsCredentialIdentityProvider,
): BucketLocation {
  if (!config.FILES_BUCKET) throw new Error('FILES_BUCKET is not set: this function has no access to the files bucket');
  return { bucket: config.FILES_BUCKET, region: config.REGION, credentials };
}
