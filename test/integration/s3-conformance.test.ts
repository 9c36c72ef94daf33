import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { AdjustableClock } from '../../shared/clock.ts';
import { startS3Local, type LocalS3 } from '../../local/s3.ts';

/**
 * What the files flow (issue 13) needs of S3, each answer as real S3 documents it, asked of the
 * local S3 the way the runtime starts it: the SDK for the server's calls, plain `fetch` on
 * presigned URLs for the browser's. The local S3 was chosen by this suite
 * (docs/adr/0103-the-local-s3-chosen-by-a-conformance-suite.md); the last two groups are the local
 * runtime's own promises.
 *
 * Where each answer is written down (the S3 API Reference, as bundled with @aws-sdk/client-s3,
 * whose service model also gives each operation's success status):
 * - UploadPart: part numbers 1 to 10,000; NoSuchUpload, 404. CompleteMultipartUpload:
 *   EntityTooSmall (parts other than the last under 5 MB), InvalidPart, InvalidPartOrder, 400;
 *   NoSuchUpload (aborted or completed), 404. ListParts: at most 1,000 parts, IsTruncated,
 *   NextPartNumberMarker for the next PartNumberMarker. AbortMultipartUpload: 204, the parts'
 *   storage freed. DeleteObject: 204. GetObject: Range, Content-Range.
 * - The list of Amazon S3 error codes (the API Reference's `Error` type): AccessDenied,
 *   SignatureDoesNotMatch and RequestTimeTooSkewed 403, InvalidArgument 400, InvalidRange 416,
 *   NoSuchKey 404, NotImplemented 501.
 * - "Appendix: OPTIONS object", "Common response headers" and the User Guide's "Troubleshooting
 *   CORS": a preflight S3's CORS rules refuse is 403; Access-Control-Allow-Origin is the origin
 *   sent, Access-Control-Expose-Headers the rule's, whenever the CORS evaluation succeeds.
 * - A URL past X-Amz-Date + X-Amz-Expires is AccessDenied, "Request has expired" (as S3 answers
 *   it; the User Guide's "Download and upload objects with presigned URLs" gives the lifetime).
 * - The multipart ETag's form (the MD5 of the parts' MD5s, "-", the part count) is S3's observed
 *   answer: the API Reference says only that such an ETag is not an MD5 of the data.
 */

const webOrigin = 'http://localhost:4173';
const otherOrigin = 'http://attacker.example';
const MiB = 1024 * 1024;
/** S3's smallest part other than the last (CompleteMultipartUpload: EntityTooSmall). */
const minPartBytes = 5 * MiB;

const clock = new AdjustableClock();
/** Where the local S3 keeps its bytes, so a test can see that aborted parts are gone. */
const dataDir = mkdtempSync(join(tmpdir(), 'hushlink-s3-conformance-'));
let s3: LocalS3;
let client: S3Client;
beforeAll(async () => {
  s3 = await startS3Local({ bucket: 'conformance', webOrigin, clock, dataDir });
  client = s3Client(s3.credentials);
});
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function s3Client(credentials: LocalS3['credentials']): S3Client {
  return new S3Client({
    endpoint: s3.endpoint,
    region: 'local',
    credentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Sizes of every file the local S3 keeps. */
function storedFileSizes(folder = dataDir): number[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? storedFileSizes(join(folder, entry.name)) : [statSync(join(folder, entry.name)).size],
  );
}

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest();
const quotedMd5 = (bytes: Uint8Array) => `"${md5(bytes).toString('hex')}"`;
let keys = 0;
const newKey = () => `files/${Date.now()}-${++keys}`;

type Signing = { expiresIn?: number; signingDate?: Date };
/** URLs are signed as the files function signs them: at the runtime clock's time. */
const signing = (options: Signing = {}) => ({ expiresIn: 900, signingDate: new Date(clock.now()), ...options });

async function createUpload(key: string): Promise<string> {
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: key }));
  return UploadId!;
}

function partUrl(key: string, uploadId: string, partNumber: number, options?: Signing) {
  return getSignedUrl(
    client,
    new UploadPartCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber }),
    signing(options),
  );
}

function downloadUrl(key: string, options?: Signing) {
  return getSignedUrl(client, new GetObjectCommand({ Bucket: s3.bucket, Key: key }), signing(options));
}

/** The browser's PUT of one part to its presigned URL; answers the ETag S3 gave the part. */
async function putPart(key: string, uploadId: string, partNumber: number, bytes: Uint8Array<ArrayBuffer>): Promise<CompletedPart> {
  const response = await fetch(await partUrl(key, uploadId, partNumber), { method: 'PUT', body: bytes });
  expect(response.status, await response.clone().text()).toBe(200);
  return { PartNumber: partNumber, ETag: response.headers.get('etag')! };
}

function complete(key: string, uploadId: string, parts: CompletedPart[]) {
  return client.send(
    new CompleteMultipartUploadCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
  );
}

/** The status and S3 error code of an SDK call expected to fail. */
async function failure(call: Promise<unknown>): Promise<{ status: number | undefined; code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    const { $metadata, name, message } = error as { $metadata?: { httpStatusCode?: number }; name: string; message: string };
    return { status: $metadata?.httpStatusCode, code: name, message };
  }
  throw new Error('expected the S3 call to fail');
}

/** The status and XML error of a plain HTTP answer, as a browser would read it. */
async function answer(response: Response) {
  const text = await response.text();
  return {
    status: response.status,
    code: /<Code>([^<]*)<\/Code>/.exec(text)?.[1],
    message: /<Message>([^<]*)<\/Message>/.exec(text)?.[1],
  };
}

async function putObject(key: string, bytes: Uint8Array) {
  await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: bytes }));
}

describe('presigned UploadPart and GET', () => {
  it("stores a part PUT to its presigned URL and answers the part's MD5 as its ETag", async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    const bytes = randomBytes(64 * 1024);
    const url = await partUrl(key, uploadId, 1);
    // Checksums are computed only when required, so the URL signs no checksum of an empty body.
    expect(new URL(url).searchParams.has('x-amz-checksum-crc32')).toBe(false);

    const response = await fetch(url, { method: 'PUT', body: bytes });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe(quotedMd5(bytes));
  });

  it('answers a ranged GET with 206, the bytes asked for and Content-Range', async () => {
    const key = newKey();
    const bytes = randomBytes(4096);
    await putObject(key, bytes);
    const url = await downloadUrl(key);

    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);

    const ranged = await fetch(url, { headers: { range: 'bytes=1000-1999' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe('bytes 1000-1999/4096');
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);

    const tail = await fetch(url, { headers: { range: 'bytes=4000-' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe('bytes 4000-4095/4096');
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(4000))).toBe(true);
  });

  it('signs and serves keys whose path is percent-encoded', async () => {
    for (const key of ['files/a b+c', "files/é/ü~!*()'", 'files/%41=&?#']) {
      const uploadId = await createUpload(key);
      const bytes = randomBytes(100);
      const part = await putPart(key, uploadId, 1, bytes);
      expect((await complete(key, uploadId, [part])).$metadata.httpStatusCode, key).toBe(200);
      const downloaded = await fetch(await downloadUrl(key));
      expect(downloaded.status, key).toBe(200);
      expect(Buffer.from(await downloaded.arrayBuffer()).equals(bytes), key).toBe(true);
    }
  });

  it('answers a range past the end with 416 InvalidRange', async () => {
    const key = newKey();
    await putObject(key, randomBytes(4096));
    const url = await downloadUrl(key);
    expect(await answer(await fetch(url, { headers: { range: 'bytes=4096-' } }))).toMatchObject({ status: 416, code: 'InvalidRange' });
  });
});

describe('request authentication', () => {
  it('refuses a presigned URL whose signature or signed query was changed: 403 SignatureDoesNotMatch', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    const url = new URL(await partUrl(key, uploadId, 1));

    const tampered = new URL(url);
    const signature = tampered.searchParams.get('X-Amz-Signature')!;
    tampered.searchParams.set('X-Amz-Signature', signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0'));
    expect(await answer(await fetch(tampered, { method: 'PUT', body: randomBytes(16) }))).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });

    const zeroed = new URL(url);
    zeroed.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect(await answer(await fetch(zeroed, { method: 'PUT', body: randomBytes(16) }))).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });

    // A part's URL is for that part alone.
    const otherPart = new URL(url);
    otherPart.searchParams.set('partNumber', '2');
    expect(await answer(await fetch(otherPart, { method: 'PUT', body: randomBytes(16) }))).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });

    const objectKey = newKey();
    await putObject(objectKey, randomBytes(64));
    const download = new URL(await downloadUrl(objectKey));
    download.pathname = download.pathname.replace(objectKey, newKey());
    expect(await answer(await fetch(download))).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });

    // Nothing of the refused PUTs was stored.
    const listed = await client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId }));
    expect(listed.Parts ?? []).toEqual([]);
  });

  it('refuses a call signed with another secret: 403 SignatureDoesNotMatch', async () => {
    const forger = s3Client({ accessKeyId: s3.credentials.accessKeyId, secretAccessKey: 'not-the-secret' });
    try {
      expect(await failure(forger.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: newKey() })))).toMatchObject({
        status: 403,
        code: 'SignatureDoesNotMatch',
      });
    } finally {
      forger.destroy();
    }
  });

  it('refuses unsigned requests: 403 AccessDenied', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    await putObject(key, randomBytes(64));
    const objectUrl = `${s3.endpoint}/${s3.bucket}/${key}`;

    expect(await answer(await fetch(objectUrl))).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(await answer(await fetch(objectUrl, { method: 'PUT', body: randomBytes(16) }))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
    expect(
      await answer(await fetch(`${objectUrl}?partNumber=1&uploadId=${uploadId}`, { method: 'PUT', body: randomBytes(16) })),
    ).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
    expect(await answer(await fetch(`${objectUrl}?uploadId=${uploadId}`))).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(await answer(await fetch(objectUrl, { method: 'DELETE' }))).toMatchObject({ status: 403, code: 'AccessDenied' });
    // Still there.
    expect((await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }))).ContentLength).toBe(64);
  });

  it('refuses a presigned URL past its lifetime: 403 AccessDenied, "Request has expired"', async () => {
    const key = newKey();
    await putObject(key, randomBytes(64));
    const signedAnHourAgo = new Date(clock.now() - 3600_000);
    const url = await downloadUrl(key, { signingDate: signedAnHourAgo, expiresIn: 60 });
    expect(await answer(await fetch(url))).toEqual({ status: 403, code: 'AccessDenied', message: 'Request has expired' });
  });
});

describe('ListParts', () => {
  it('lists the parts uploaded so far with their number, ETag and size', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    const first = randomBytes(1000);
    const third = randomBytes(3000);
    await putPart(key, uploadId, 3, third);
    await putPart(key, uploadId, 1, first);

    const listed = await client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId }));
    expect(listed.UploadId).toBe(uploadId);
    expect(listed.IsTruncated).toBe(false);
    expect(listed.Parts?.map(({ PartNumber, ETag, Size }) => ({ PartNumber, ETag, Size }))).toEqual([
      { PartNumber: 1, ETag: quotedMd5(first), Size: 1000 },
      { PartNumber: 3, ETag: quotedMd5(third), Size: 3000 },
    ]);
    expect(listed.Parts?.every((part) => part.LastModified instanceof Date)).toBe(true);
  });

  it('lists a part uploaded again with its last bytes', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    await putPart(key, uploadId, 1, randomBytes(100));
    const again = randomBytes(200);
    await putPart(key, uploadId, 1, again);
    const listed = await client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId }));
    expect(listed.Parts?.map(({ PartNumber, ETag, Size }) => ({ PartNumber, ETag, Size }))).toEqual([
      { PartNumber: 1, ETag: quotedMd5(again), Size: 200 },
    ]);
  });

  it('pages with MaxParts, PartNumberMarker and NextPartNumberMarker', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    for (const partNumber of [1, 2, 4, 7, 9]) await putPart(key, uploadId, partNumber, randomBytes(10));
    const page = (PartNumberMarker?: string) =>
      client.send(
        new ListPartsCommand({
          Bucket: s3.bucket,
          Key: key,
          UploadId: uploadId,
          MaxParts: 2,
          ...(PartNumberMarker ? { PartNumberMarker } : {}),
        }),
      );

    const first = await page();
    expect(first.Parts?.map((part) => part.PartNumber)).toEqual([1, 2]);
    expect(first.IsTruncated).toBe(true);
    expect(first.MaxParts).toBe(2);
    expect(first.NextPartNumberMarker).toBe('2');

    const second = await page(first.NextPartNumberMarker);
    expect(second.Parts?.map((part) => part.PartNumber)).toEqual([4, 7]);
    expect(second.PartNumberMarker).toBe('2');
    expect(second.IsTruncated).toBe(true);
    expect(second.NextPartNumberMarker).toBe('7');

    const last = await page(second.NextPartNumberMarker);
    expect(last.Parts?.map((part) => part.PartNumber)).toEqual([9]);
    expect(last.IsTruncated).toBe(false);
  });

  it('answers 404 NoSuchUpload for an upload id it never issued', async () => {
    expect(await failure(client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: newKey(), UploadId: 'never-issued' })))).toMatchObject({
      status: 404,
      code: 'NoSuchUpload',
    });
  });
});

describe('AbortMultipartUpload', () => {
  it('answers 204, after which ListParts, UploadPart and Complete answer 404 NoSuchUpload', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    // A size no other test stores, to find the part's bytes on disk.
    const partBytes = 777_777;
    const part = await putPart(key, uploadId, 1, randomBytes(partBytes));
    expect(storedFileSizes()).toContain(partBytes);

    const aborted = await client.send(new AbortMultipartUploadCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId }));
    expect(aborted.$metadata.httpStatusCode).toBe(204);
    // S3 frees the parts' storage.
    expect(storedFileSizes()).not.toContain(partBytes);

    expect(await failure(client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId })))).toMatchObject({
      status: 404,
      code: 'NoSuchUpload',
    });
    const url = await partUrl(key, uploadId, 2);
    expect(await answer(await fetch(url, { method: 'PUT', body: randomBytes(100) }))).toMatchObject({ status: 404, code: 'NoSuchUpload' });
    expect(await failure(complete(key, uploadId, [part]))).toMatchObject({ status: 404, code: 'NoSuchUpload' });
    expect(await failure(client.send(new AbortMultipartUploadCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId })))).toMatchObject({
      status: 404,
      code: 'NoSuchUpload',
    });
    expect(await failure(client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })))).toMatchObject({ status: 404 });
  });

  it('answers 404 NoSuchUpload to a part for an upload id it never issued, or issued for another key', async () => {
    const key = newKey();
    expect(await answer(await fetch(await partUrl(key, 'never-issued', 1), { method: 'PUT', body: randomBytes(10) }))).toMatchObject({
      status: 404,
      code: 'NoSuchUpload',
    });
    const uploadId = await createUpload(key);
    expect(await answer(await fetch(await partUrl(newKey(), uploadId, 1), { method: 'PUT', body: randomBytes(10) }))).toMatchObject({
      status: 404,
      code: 'NoSuchUpload',
    });
  });
});

describe('CompleteMultipartUpload', () => {
  /** An upload of a 5 MiB first part and a small last one, both uploaded. */
  async function twoParts() {
    const key = newKey();
    const uploadId = await createUpload(key);
    const parts = [await putPart(key, uploadId, 1, randomBytes(minPartBytes)), await putPart(key, uploadId, 2, randomBytes(1000))];
    return { key, uploadId, parts };
  }

  it('refuses a part whose ETag is not the one uploaded: 400 InvalidPart, the upload left as it was', async () => {
    const { key, uploadId, parts } = await twoParts();
    expect(await failure(complete(key, uploadId, [parts[0]!, { PartNumber: 2, ETag: quotedMd5(randomBytes(8)) }]))).toMatchObject({
      status: 400,
      code: 'InvalidPart',
    });
    expect((await complete(key, uploadId, parts)).$metadata.httpStatusCode).toBe(200);
  });

  it('refuses a part never uploaded: 400 InvalidPart, and goes on answering', async () => {
    const { key, uploadId, parts } = await twoParts();
    expect(await failure(complete(key, uploadId, [...parts, { PartNumber: 3, ETag: quotedMd5(randomBytes(8)) }]))).toMatchObject({
      status: 400,
      code: 'InvalidPart',
    });
    expect((await client.send(new HeadBucketCommand({ Bucket: s3.bucket }))).$metadata.httpStatusCode).toBe(200);
    expect((await complete(key, uploadId, parts)).$metadata.httpStatusCode).toBe(200);
  });

  it('refuses a part other than the last under 5 MiB: 400 EntityTooSmall', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    const parts = [await putPart(key, uploadId, 1, randomBytes(minPartBytes - 1)), await putPart(key, uploadId, 2, randomBytes(1000))];
    expect(await failure(complete(key, uploadId, parts))).toMatchObject({ status: 400, code: 'EntityTooSmall' });
    // The same parts are fine as the whole object when the small one is last: only the first is listed.
    expect((await complete(key, uploadId, [parts[0]!])).$metadata.httpStatusCode).toBe(200);
  });

  it('refuses parts not listed in ascending order: 400 InvalidPartOrder', async () => {
    const { key, uploadId, parts } = await twoParts();
    expect(await failure(complete(key, uploadId, [parts[1]!, parts[0]!]))).toMatchObject({ status: 400, code: 'InvalidPartOrder' });
    expect((await complete(key, uploadId, parts)).$metadata.httpStatusCode).toBe(200);
  });

  it('answers a second completion of the same upload with 404 NoSuchUpload', async () => {
    const { key, uploadId, parts } = await twoParts();
    expect((await complete(key, uploadId, parts)).$metadata.httpStatusCode).toBe(200);
    expect(await failure(complete(key, uploadId, parts))).toMatchObject({ status: 404, code: 'NoSuchUpload' });
  });

  it('refuses part numbers outside 1..10000: 400 InvalidArgument', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    for (const partNumber of [0, 10001]) {
      const url = await partUrl(key, uploadId, partNumber);
      expect(await answer(await fetch(url, { method: 'PUT', body: randomBytes(10) })), String(partNumber)).toMatchObject({
        status: 400,
        code: 'InvalidArgument',
      });
    }
    const last = await putPart(key, uploadId, 10000, randomBytes(10));
    expect(last.ETag).toBeTruthy();
  });

  it('lets exactly one of a completion and an abort racing on an upload win; the other answers NoSuchUpload', async () => {
    for (let round = 0; round < 4; round++) {
      const { key, uploadId, parts } = await twoParts();
      const [completed, aborted] = await Promise.allSettled([
        complete(key, uploadId, parts),
        client.send(new AbortMultipartUploadCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId })),
      ]);
      const outcomes = [completed, aborted].map((outcome) => outcome.status);
      expect(
        outcomes.filter((status) => status === 'fulfilled'),
        String(round),
      ).toHaveLength(1);
      const loser = [completed, aborted].find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect(await failure(Promise.reject(loser.reason)), String(round)).toMatchObject({ status: 404, code: 'NoSuchUpload' });
      const head = client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
      if (completed.status === 'fulfilled') expect((await head).ContentLength).toBe(minPartBytes + 1000);
      else expect(await failure(head)).toMatchObject({ status: 404 });
    }
  });

  it('assembles parts uploaded out of order; HeadObject tells the size and the multipart ETag; DeleteObject removes it', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    const bytes = [randomBytes(minPartBytes), randomBytes(minPartBytes), randomBytes(12345)];
    const parts = [
      await putPart(key, uploadId, 3, bytes[2]!),
      await putPart(key, uploadId, 1, bytes[0]!),
      await putPart(key, uploadId, 2, bytes[1]!),
    ];
    parts.sort((a, b) => a.PartNumber! - b.PartNumber!);

    const completed = await complete(key, uploadId, parts);
    // The multipart ETag: the MD5 of the parts' binary MD5s, a dash and the number of parts.
    const multipartETag = `"${md5(Buffer.concat(bytes.map(md5))).toString('hex')}-3"`;
    expect(completed.ETag).toBe(multipartETag);

    const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
    expect(head.ContentLength).toBe(2 * minPartBytes + 12345);
    expect(head.ETag).toBe(multipartETag);

    const url = await downloadUrl(key);
    const downloaded = await fetch(url);
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get('etag')).toBe(multipartETag);
    expect(md5(Buffer.from(await downloaded.arrayBuffer()))).toEqual(md5(Buffer.concat(bytes)));
    const seam = await fetch(url, { headers: { range: `bytes=${minPartBytes - 2}-${minPartBytes + 1}` } });
    expect(seam.status).toBe(206);
    expect(Buffer.from(await seam.arrayBuffer()).equals(Buffer.concat([bytes[0]!.subarray(-2), bytes[1]!.subarray(0, 2)]))).toBe(true);

    const deleted = await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: key }));
    expect(deleted.$metadata.httpStatusCode).toBe(204);
    expect(await answer(await fetch(url))).toMatchObject({ status: 404, code: 'NoSuchKey' });
    expect(await failure(client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })))).toMatchObject({ status: 404 });
  });
});

describe("CORS: any origin, as the bucket's rule says (issue 17: files on workspaces' hostnames)", () => {
  const preflight = (url: string, origin: string, method: string, headers?: string) =>
    fetch(url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, ...(headers ? { 'access-control-request-headers': headers } : {}) },
    });

  it("allows a preflight from the web origin and from a workspace's hostname for a part's PUT and a ranged GET, answering `*`, and exposes ETag", async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    for (const origin of [webOrigin, otherOrigin]) {
      for (const [method, url, headers] of [
        ['PUT', await partUrl(key, uploadId, 1), 'content-type'],
        ['GET', await downloadUrl(key), 'range'],
      ] as const) {
        const response = await preflight(url, origin, method, headers);
        expect(response.status, method).toBe(200);
        expect(response.headers.get('access-control-allow-origin'), method).toBe('*');
        expect(response.headers.get('access-control-allow-methods'), method).toContain(method);
        expect(response.headers.get('access-control-allow-headers')?.toLowerCase(), method).toContain(headers);
        expect(
          response.headers
            .get('access-control-expose-headers')
            ?.toLowerCase()
            .split(/\s*,\s*/),
          method,
        ).toContain('etag');
      }
    }
  });

  it('refuses a preflight for a method the rule does not allow: 403, no CORS headers', async () => {
    const key = newKey();
    await putObject(key, randomBytes(16));
    const response = await preflight(await downloadUrl(key), otherOrigin, 'DELETE');
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('puts the CORS headers on actual responses, without credentials, refusals included', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    const put = await fetch(await partUrl(key, uploadId, 1), { method: 'PUT', body: randomBytes(10), headers: { origin: otherOrigin } });
    expect(put.status).toBe(200);
    expect(put.headers.get('access-control-allow-origin')).toBe('*');
    expect(put.headers.get('access-control-allow-credentials')).toBeNull();
    expect(
      put.headers
        .get('access-control-expose-headers')
        ?.toLowerCase()
        .split(/\s*,\s*/),
    ).toContain('etag');

    await putObject(key, randomBytes(64));
    const url = await downloadUrl(key);
    const get = await fetch(url, { headers: { origin: webOrigin, range: 'bytes=0-9' } });
    expect(get.status).toBe(206);
    expect(get.headers.get('access-control-allow-origin')).toBe('*');

    // A refusal carries them too, so the page can read why (here: a URL past its lifetime).
    const expired = await downloadUrl(key, { signingDate: new Date(clock.now() - 3600_000), expiresIn: 60 });
    const refused = await fetch(expired, { headers: { origin: webOrigin } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe("time is the runtime's clock", () => {
  it('refuses a URL once the clock has moved past its lifetime', async () => {
    const key = newKey();
    await putObject(key, randomBytes(64));
    const url = await downloadUrl(key, { expiresIn: 600 });
    expect((await fetch(url)).status).toBe(200);
    clock.advance(601);
    try {
      expect(await answer(await fetch(url))).toEqual({ status: 403, code: 'AccessDenied', message: 'Request has expired' });
    } finally {
      clock.advance(-601);
    }
  });

  it('answers calls signed far from its time with RequestTimeTooSkewed, which the SDK corrects for itself', async () => {
    const skewed = s3Client(s3.credentials);
    clock.advance(2 * 3600);
    try {
      const key = newKey();
      // The first call is refused; the SDK reads S3's time from the refusal and signs again.
      await skewed.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: randomBytes(8) }));
      expect(Math.round((skewed.config.systemClockOffset ?? 0) / 60_000)).toBe(120);
      // Errors carry S3's time too, so the SDK's clock stays where S3's is.
      expect(await failure(skewed.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: 'never-issued' })))).toMatchObject({
        code: 'NoSuchUpload',
      });
      expect(Math.round((skewed.config.systemClockOffset ?? 0) / 60_000)).toBe(120);
      expect((await skewed.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }))).ContentLength).toBe(8);
      expect(skewed.config.systemClockOffset).toBeGreaterThan(0);
    } finally {
      clock.advance(-2 * 3600);
      skewed.destroy();
    }
  });
});

describe('where the local S3 knowingly differs', () => {
  it("refuses an aws-chunked body (a stream signed with the SDK's default checksums) with 501, where S3 would decode it", async () => {
    const defaults = new S3Client({ endpoint: s3.endpoint, region: 'local', credentials: s3.credentials, forcePathStyle: true });
    try {
      const key = newKey();
      const body = Readable.from([Buffer.from('hello '), Buffer.from('world')]);
      expect(
        await failure(defaults.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body, ContentLength: 11 }))),
      ).toMatchObject({
        status: 501,
        code: 'NotImplemented',
      });
      // Signed as the service signs, the same stream is stored as sent.
      await client.send(
        new PutObjectCommand({
          Bucket: s3.bucket,
          Key: key,
          Body: Readable.from([Buffer.from('hello '), Buffer.from('world')]),
          ContentLength: 11,
        }),
      );
      const stored = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
      expect(await stored.Body!.transformToString()).toBe('hello world');
    } finally {
      defaults.destroy();
    }
  });
});
