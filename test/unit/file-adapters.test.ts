import {
  GetObjectCommand,
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  ListPartsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { awsBucket, PresignedFileObjects } from '../../shared/adapters/fileObjects.ts';
import { S3MultipartUploads, s3Client } from '../../shared/adapters/s3Uploads.ts';

// The files bucket's adapters: the exact requests they send, the URLs they sign (no network).

const credentials = { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret-example', sessionToken: 'session-example' };
const location = { bucket: 'hushlink-files-example', region: 'eu-west-1', credentials };
const s3 = mockClient(S3Client);
afterAll(() => s3.restore());
afterEach(() => s3.reset());

const checksumParams = (url: string) =>
  [...new URL(url).searchParams.keys()].filter(
    (name) => name.toLowerCase().startsWith('x-amz-checksum') || name.toLowerCase() === 'x-amz-sdk-checksum-algorithm',
  );

describe('presigned URLs', () => {
  it('sign an UploadPart for exactly one part of exactly its length, with no checksum parameter (the SDK default would add the CRC of an empty body)', async () => {
    const uploads = new S3MultipartUploads(s3Client(location), location.bucket);
    const url = new URL(await uploads.partUrl('files/sec_x', 'upload-1', 7, 8_388_736, 3600));
    // The length is signed: S3 refuses a body of any other (issue 26).
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;host');
    expect(url.origin).toBe('https://hushlink-files-example.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/files/sec_x');
    expect(url.searchParams.get('partNumber')).toBe('7');
    expect(url.searchParams.get('uploadId')).toBe('upload-1');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('session-example');
    expect(checksumParams(url.href)).toEqual([]);
  });

  it('sign a GET of the object (the claim of a file) and DELETEs, path-style against a local S3', async () => {
    const aws = new PresignedFileObjects(awsBucket({ FILES_BUCKET: location.bucket, REGION: location.region }, async () => credentials));
    const download = new URL(await aws.downloadUrl('files/sec_x', 900));
    expect(`${download.origin}${download.pathname}`).toBe('https://hushlink-files-example.s3.eu-west-1.amazonaws.com/files/sec_x');
    expect(download.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(download.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(checksumParams(download.href)).toEqual([]);
    // China's partition has its own domain, as the stack's urlSuffix (the pages' connect-src) says.
    const china = new PresignedFileObjects(awsBucket({ FILES_BUCKET: location.bucket, REGION: 'cn-north-1' }, async () => credentials));
    expect(new URL(await china.downloadUrl('files/sec_x', 900)).origin).toBe(
      'https://hushlink-files-example.s3.cn-north-1.amazonaws.com.cn',
    );
    const local = new PresignedFileObjects({ ...location, endpoint: 'http://127.0.0.1:4569' });
    expect(new URL(await local.downloadUrl('files/sec_y', 60)).pathname).toBe('/hushlink-files-example/files/sec_y');
  });

  it('refuse to work without the bucket a function was given', () => {
    expect(() => awsBucket({ REGION: 'eu-west-1' }, async () => credentials)).toThrow(/FILES_BUCKET/);
  });
});

describe('S3MultipartUploads', () => {
  const uploads = () => new S3MultipartUploads(new S3Client({ region: 'eu-west-1', credentials }), location.bucket);
  const named = (name: string) => Object.assign(new Error(name), { name });

  it('begins an upload of an opaque object', async () => {
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'u-1' });
    expect(await uploads().start('files/sec_x')).toBe('u-1');
    expect(s3.commandCalls(CreateMultipartUploadCommand)[0]!.args[0].input).toEqual({
      Bucket: location.bucket,
      Key: 'files/sec_x',
      ContentType: 'application/octet-stream',
    });
  });

  it('lists every part, page by page, and says null for an upload S3 does not know', async () => {
    s3.on(ListPartsCommand, { PartNumberMarker: undefined })
      .resolves({ Parts: [{ PartNumber: 1, ETag: '"a"', Size: 8 }], IsTruncated: true, NextPartNumberMarker: '1' })
      .on(ListPartsCommand, { PartNumberMarker: '1' })
      .resolves({ Parts: [{ PartNumber: 2, ETag: '"b"', Size: 3 }], IsTruncated: false });
    expect(await uploads().parts('files/sec_x', 'u-1')).toEqual([
      { partNumber: 1, etag: '"a"', size: 8 },
      { partNumber: 2, etag: '"b"', size: 3 },
    ]);
    s3.reset();
    s3.on(ListPartsCommand).rejects(named('NoSuchUpload'));
    expect(await uploads().parts('files/sec_x', 'gone')).toBeNull();
  });

  it('completes with the parts given, and names S3’s refusals', async () => {
    s3.on(CompleteMultipartUploadCommand).resolves({});
    expect(
      await uploads().complete('files/sec_x', 'u-1', [
        { partNumber: 1, etag: '"a"' },
        { partNumber: 2, etag: '"b"' },
      ]),
    ).toEqual({ completed: true });
    expect(s3.commandCalls(CompleteMultipartUploadCommand)[0]!.args[0].input).toEqual({
      Bucket: location.bucket,
      Key: 'files/sec_x',
      UploadId: 'u-1',
      MultipartUpload: {
        Parts: [
          { PartNumber: 1, ETag: '"a"' },
          { PartNumber: 2, ETag: '"b"' },
        ],
      },
    });
    for (const [error, reason] of [
      ['InvalidPart', 'invalid_part'],
      ['EntityTooSmall', 'too_small'],
      ['InvalidPartOrder', 'invalid_order'],
      ['NoSuchUpload', 'no_such_upload'],
    ] as const) {
      s3.reset();
      s3.on(CompleteMultipartUploadCommand).rejects(named(error));
      expect(await uploads().complete('files/sec_x', 'u-1', [])).toEqual({ completed: false, reason });
    }
    s3.reset();
    s3.on(CompleteMultipartUploadCommand).rejects(named('InternalError'));
    await expect(uploads().complete('files/sec_x', 'u-1', [])).rejects.toThrow('InternalError');
  });

  it('aborts (an upload already gone is fine) and measures the object (none is null)', async () => {
    s3.on(AbortMultipartUploadCommand).rejectsOnce(named('NoSuchUpload')).resolves({});
    await uploads().abort('files/sec_x', 'u-1');
    expect(s3.commandCalls(AbortMultipartUploadCommand)[0]!.args[0].input).toEqual({
      Bucket: location.bucket,
      Key: 'files/sec_x',
      UploadId: 'u-1',
    });
    s3.on(HeadObjectCommand).resolvesOnce({ ContentLength: 1234 }).rejects(named('NotFound'));
    expect(await uploads().size('files/sec_x')).toBe(1234);
    expect(await uploads().size('files/sec_x')).toBeNull();
  });

  it('reads an object’s first bytes with one ranged GetObject', async () => {
    // The SDK's body is a stream with helpers; only the one the adapter calls is needed.
    s3.on(GetObjectCommand).resolves({ Body: { transformToByteArray: async () => Buffer.from('HLE1') } as never });
    expect(Buffer.from(await uploads().firstBytes('files/sec_x', 64)).toString()).toBe('HLE1');
    expect(s3.commandCalls(GetObjectCommand)[0]!.args[0].input).toEqual({
      Bucket: location.bucket,
      Key: 'files/sec_x',
      Range: 'bytes=0-63',
    });
  });
});
