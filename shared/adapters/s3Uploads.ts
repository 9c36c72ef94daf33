import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { CompleteRefusal, MultipartUploads, StoredPart } from '../domain/files/ports.ts';
import type { BucketLocation } from './fileObjects.ts';
import { systemClock, type Clock } from '../clock.ts';

/** S3's answers to a refused CompleteMultipartUpload, as the domain tells them apart. */
const refusals: Record<string, CompleteRefusal> = {
  InvalidPart: 'invalid_part',
  EntityTooSmall: 'too_small',
  InvalidPartOrder: 'invalid_order',
  NoSuchUpload: 'no_such_upload',
};

const errorName = (error: unknown) => (error as { name?: string; Code?: string }).name ?? (error as { Code?: string }).Code;

/** An S3 client for the files bucket: checksums only where S3 requires them (presigned parts carry none). */
export function s3Client(location: BucketLocation): S3Client {
  return new S3Client({
    region: location.region,
    credentials: location.credentials,
    ...(location.endpoint ? { endpoint: location.endpoint, forcePathStyle: true } : {}),
    // The SDK's default adds `x-amz-checksum-crc32` (the CRC of an empty body) to presigned
    // UploadPart URLs, which the browser's part then fails; and stream bodies get aws-chunked.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Multipart uploads of the files bucket: the files function's, and the schedule's for large uploads' completions (the two with an S3 client). */
export class S3MultipartUploads implements MultipartUploads {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    /** Signs part URLs at this time (see PresignedFileObjects); the client's own requests follow S3's Date. */
    private readonly clock: Clock = systemClock,
  ) {}

  async start(key: string): Promise<string> {
    const { UploadId } = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: 'application/octet-stream' }),
    );
    if (!UploadId) throw new Error('S3 answered no UploadId');
    return UploadId;
  }

  partUrl(key: string, uploadId: string, partNumber: number, sizeBytes: number, expiresInSeconds: number): Promise<string> {
    // The length is a signed header (X-Amz-SignedHeaders `content-length;host`): a body of any
    // other length is SignatureDoesNotMatch. Named signable too, in case the SDK ever leaves it out.
    return getSignedUrl(
      this.client,
      new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, ContentLength: sizeBytes }),
      {
        expiresIn: expiresInSeconds,
        signingDate: new Date(this.clock.now()),
        signableHeaders: new Set(['content-length']),
      },
    );
  }

  async parts(key: string, uploadId: string): Promise<StoredPart[] | null> {
    const parts: StoredPart[] = [];
    let marker: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, ...(marker ? { PartNumberMarker: marker } : {}) }),
        );
        for (const part of page.Parts ?? []) parts.push({ partNumber: part.PartNumber!, etag: part.ETag!, size: part.Size ?? 0 });
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker);
    } catch (error) {
      if (errorName(error) === 'NoSuchUpload') return null;
      throw error;
    }
    return parts;
  }

  async complete(key: string, uploadId: string, parts: Array<{ partNumber: number; etag: string }>) {
    try {
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })) },
        }),
      );
      return { completed: true as const };
    } catch (error) {
      const reason = refusals[errorName(error) ?? ''];
      if (reason) return { completed: false as const, reason };
      throw error;
    }
  }

  async abort(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }));
    } catch (error) {
      if (errorName(error) !== 'NoSuchUpload') throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (errorName(error) === 'NotFound' || errorName(error) === 'NoSuchKey') return null;
      throw error;
    }
  }

  async firstBytes(key: string, length: number): Promise<Uint8Array> {
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${length - 1}` }));
    return object.Body ? await object.Body.transformToByteArray() : new Uint8Array(0);
  }
}
