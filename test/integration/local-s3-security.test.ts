import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { startS3Local } from '../../local/s3.ts';
import type { S3Credentials } from '../../local/s3Signature.ts';
import { startTestRuntime } from '../support/runtime.ts';

/**
 * The local S3 against requests that must not touch the host (issue 26, item 2), asked from
 * outside with the real `curl` binary, of a runtime whose data folder is `<sandbox>/data`: every
 * attempt aims at `<sandbox>` itself, and the sandbox is searched afterwards for what it would
 * have written. Part URLs are presigned as the files function presigns them (the SDK, the
 * runtime's S3 key, the runtime's clock); `curl --aws-sigv4` signs requests by header.
 */

const sandbox = mkdtempSync(join(tmpdir(), 'hushlink-s3-security-'));
const dataDir = join(sandbox, 'data');
let runtime: Runtime;
let sdk: S3Client;
let bucket: string;
beforeAll(async () => {
  runtime = await startTestRuntime({ dataDir });
  bucket = runtime.s3.bucket;
  sdk = clientFor(runtime.s3.credentials);
});
afterAll(async () => {
  sdk?.destroy();
  await runtime?.stop();
  rmSync(sandbox, { recursive: true, force: true });
});

function clientFor(credentials: S3Credentials): S3Client {
  return new S3Client({
    endpoint: runtime.s3.endpoint,
    region: 'us-east-1',
    credentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

let keys = 0;
const newKey = () => `files/security-${++keys}-${randomBytes(4).toString('hex')}`;
/** A name to look for: anything written under it went where it must not. */
const newMarker = () => `escaped-${randomBytes(6).toString('hex')}`;

async function createUpload(key: string): Promise<string> {
  return (await sdk.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }))).UploadId!;
}

function partUrl(key: string, uploadId: string, partNumber: number, client = sdk): Promise<string> {
  return getSignedUrl(client, new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: partNumber }), {
    expiresIn: 900,
    signingDate: new Date(runtime.clock.now()),
  });
}

interface Answer {
  status: number;
  code: string | undefined;
  body: string;
}

/** Runs curl (asynchronously: the S3 answering it is in this process) and reads S3's answer. */
async function curl(args: string[]): Promise<Answer> {
  const { stdout } = await promisify(execFile)(
    'curl',
    ['--silent', '--show-error', '--globoff', '--path-as-is', '--max-time', '20', '--write-out', '\n%{http_code}', ...args],
    {
      encoding: 'utf8',
    },
  );
  const at = stdout.lastIndexOf('\n');
  const body = stdout.slice(0, at);
  return { status: Number(stdout.slice(at + 1)), code: /<Code>([^<]*)<\/Code>/.exec(body)?.[1], body };
}

/** curl's own SigV4 signing, by header, with a key given as `id:secret`. */
const signedBy = (key: string) => [
  '--aws-sigv4',
  'aws:amz:us-east-1:s3',
  '--user',
  key,
  '--header',
  'x-amz-content-sha256: UNSIGNED-PAYLOAD',
];
const ownKey = () => `${runtime.s3.credentials.accessKeyId}:${runtime.s3.credentials.secretAccessKey}`;
const put = (url: string, body = 'part bytes', extra: string[] = []) => curl(['--request', 'PUT', '--data-binary', body, ...extra, url]);

/** Every path under the sandbox whose name holds `marker`. */
function written(marker: string, folder = sandbox): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return [...(entry.name.includes(marker) ? [path] : []), ...(entry.isDirectory() ? written(marker, path) : [])];
  });
}

const partsOf = async (key: string, uploadId: string) =>
  (await sdk.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))).Parts ?? [];

describe('a part URL with its query parameters given twice', () => {
  it('refuses a second partNumber that climbs out of the data folder: 400 InvalidArgument, no file written', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    const url = await partUrl(key, uploadId, 1);
    const marker = newMarker();
    // s3rver wrote the part to <upload folder>/<partNumber>: "1," and this, seven levels up from the upload's folder, is <sandbox>.
    const climb = `${'../'.repeat(7)}${marker}`;
    const answers: Array<[string, Answer]> = [];
    for (const extra of [
      `&partNumber=${climb}`,
      `&partNumber=${encodeURIComponent(climb)}`,
      `&part%4Eumber=${climb}`,
      '&partNumber=1',
      '&partNumber=',
    ]) {
      answers.push([extra, await put(`${url}${extra}`)]);
    }
    expect(written(marker)).toEqual([]);
    for (const [extra, answer] of answers) expect(answer, extra).toMatchObject({ status: 400, code: 'InvalidArgument' });
    expect(await partsOf(key, uploadId)).toEqual([]);
    // The same URL as signed stores the part: what was refused was the second value.
    expect((await put(url)).status).toBe(200);
    expect((await partsOf(key, uploadId)).map((part) => part.PartNumber)).toEqual([1]);
  });

  it('answers a second uploadId, the same or another, with 400 InvalidArgument, never a 500', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    const other = await createUpload(newKey());
    const url = await partUrl(key, uploadId, 1);
    for (const extra of [`&uploadId=${uploadId}`, `&uploadId=${other}`, '&uploadId=', `&uploadId=${'../'.repeat(4)}x`]) {
      expect(await put(`${url}${extra}`), extra).toMatchObject({ status: 400, code: 'InvalidArgument' });
    }
    expect(await partsOf(key, uploadId)).toEqual([]);
  });

  it('refuses an empty or non-decimal part number or upload id before the signature is read: 400 InvalidArgument', async () => {
    const key = newKey();
    const uploadId = await createUpload(key);
    const url = new URL(await partUrl(key, uploadId, 1));
    for (const [name, value] of [
      ['partNumber', ''],
      ['partNumber', '1e3'],
      ['partNumber', '+1'],
      ['partNumber', ' 1'],
      ['partNumber', '0x1'],
      ['uploadId', ''],
    ]) {
      const changed = new URL(url);
      changed.searchParams.set(name!, value!);
      expect(await put(changed.href), `${name}=${value}`).toMatchObject({ status: 400, code: 'InvalidArgument' });
    }
  });

  it('keeps subresources whose value is empty: ?uploads starts an upload, signed by curl', async () => {
    const answer = await curl([...signedBy(ownKey()), '--request', 'POST', `${runtime.s3.endpoint}/${bucket}/${newKey()}?uploads=`]);
    expect(answer.status, answer.body).toBe(200);
    expect(answer.body).toMatch(/<UploadId>[0-9a-f]{32}<\/UploadId>/);
  });
});

describe('x-amz-* headers the request was not signed with', () => {
  it('refuses an unsigned x-amz-copy-source on a valid part URL: 403 AccessDenied, HeadersNotSigned, nothing copied', async () => {
    const victim = newKey();
    const victimBytes = `another secret's envelope ${randomBytes(8).toString('hex')}`;
    await sdk.send(new PutObjectCommand({ Bucket: bucket, Key: victim, Body: victimBytes }));
    const key = newKey();
    const uploadId = await createUpload(key);
    const url = await partUrl(key, uploadId, 1);

    const answer = await curl(['--request', 'PUT', '--header', `x-amz-copy-source: /${bucket}/${victim}`, url]);
    expect(answer).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(answer.body).toContain('<HeadersNotSigned>x-amz-copy-source</HeadersNotSigned>');
    expect(await partsOf(key, uploadId)).toEqual([]);

    const metadata = await put(url, 'x', ['--header', 'x-amz-meta-note: unsigned']);
    expect(metadata).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(metadata.body).toContain('x-amz-meta-note');
    expect(await partsOf(key, uploadId)).toEqual([]);
    // The victim is untouched, and the URL still does what it was signed for.
    expect(await (await sdk.send(new GetObjectCommand({ Bucket: bucket, Key: victim }))).Body!.transformToString()).toBe(victimBytes);
    expect((await put(url)).status).toBe(200);
  });
});

describe("the local S3's key is this machine's own", () => {
  it('refuses the published S3RVER/S3RVER key, by header and by presigned URL: 403 InvalidAccessKeyId', async () => {
    const key = newKey();
    await sdk.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'stored' }));
    const objectUrl = `${runtime.s3.endpoint}/${bucket}/${key}`;
    expect(await curl([...signedBy('S3RVER:S3RVER'), objectUrl])).toMatchObject({ status: 403, code: 'InvalidAccessKeyId' });
    expect(await curl([...signedBy('S3RVER:S3RVER'), '--request', 'PUT', '--data-binary', 'forged', objectUrl])).toMatchObject({
      status: 403,
      code: 'InvalidAccessKeyId',
    });
    const published = clientFor({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
    try {
      const presigned = await getSignedUrl(published, new GetObjectCommand({ Bucket: bucket, Key: key }), {
        expiresIn: 900,
        signingDate: new Date(runtime.clock.now()),
      });
      expect(await curl([presigned])).toMatchObject({ status: 403, code: 'InvalidAccessKeyId' });
    } finally {
      published.destroy();
    }
    // The old secret under the key id of this machine is just a wrong secret.
    expect(await curl([...signedBy(`${runtime.s3.credentials.accessKeyId}:S3RVER`), objectUrl])).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    // Signed with the machine's key, the same request is answered.
    expect(await curl([...signedBy(ownKey()), objectUrl])).toMatchObject({ status: 200, body: 'stored' });
  });

  it('keeps its secret beside the data: 128 random bits, readable by its owner only, the one the service signs with', () => {
    const file = join(dataDir, 's3-secret-access-key');
    expect(readFileSync(file, 'utf8').trim()).toBe(runtime.s3.credentials.secretAccessKey);
    expect(runtime.s3.credentials.secretAccessKey).toMatch(/^[0-9a-f]{32}$/);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(runtime.s3.credentials.accessKeyId).not.toBe('S3RVER');
  });

  it('gives an S3 with its data in memory a new secret at each start', async () => {
    const first = await startS3Local({ bucket: 'first', webOrigin: runtime.url });
    const second = await startS3Local({ bucket: 'second', webOrigin: runtime.url });
    try {
      expect(first.credentials.secretAccessKey).toMatch(/^[0-9a-f]{32}$/);
      expect(second.credentials.secretAccessKey).toMatch(/^[0-9a-f]{32}$/);
      expect(first.credentials.secretAccessKey).not.toBe(second.credentials.secretAccessKey);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});

describe("keys that would leave s3rver's folder, even signed with the machine's key", () => {
  it('refuses . and .. segments, raw or percent-encoded, NUL, a bucket of .., and a target Koa would re-parse: 400, no file written', async () => {
    const marker = newMarker();
    const signed = signedBy(ownKey());
    const refused: Array<[string, string]> = [
      // <bucket>/a and four levels up is <sandbox>.
      [`/${bucket}/a/../../../../${marker}`, 'InvalidArgument'],
      [`/${bucket}/a/%2e%2e/%2E%2E/..%2F..%2F${marker}`, 'InvalidArgument'],
      [`/${bucket}/a%2F..%2F..%2F..%2F..%2F${marker}`, 'InvalidArgument'],
      [`/${bucket}/a/./${marker}`, 'InvalidArgument'],
      [`/${bucket}/a%00${marker}`, 'InvalidArgument'],
      [`/%2e%2e/${marker}`, 'InvalidBucketName'],
      [`/${bucket}%2F..%2F..%2F..%2F${marker}/x`, 'InvalidBucketName'],
      // Koa re-parses a target holding `#` or white space with the legacy parser, which reads `\` as `/`: no backslash at all.
      [`/${bucket}/a\\..\\..\\..\\..\\${marker}`, 'InvalidURI'],
      [`/${bucket}/a\\..\\..\\..\\..\\${marker}?x=1`, 'InvalidURI'],
    ];
    const answers: Answer[] = [];
    for (const [path] of refused)
      answers.push(await curl([...signed, '--request', 'PUT', '--data-binary', 'escaped', `${runtime.s3.endpoint}${path}`]));
    expect(written(marker)).toEqual([]);
    for (const [index, [path, code]] of refused.entries()) expect(answers[index], path).toMatchObject({ status: 400, code });
    // A listing's prefix is a path to s3rver too; DeleteObjects' keys, in its body, are not read: it is refused whole.
    expect(await curl([...signed, `${runtime.s3.endpoint}/${bucket}?prefix=..%2F..%2F`])).toMatchObject({
      status: 400,
      code: 'InvalidArgument',
    });
    const deleteObjects = `<Delete><Object><Key>a/../../../../${marker}</Key></Object></Delete>`;
    expect(
      await curl([...signed, '--request', 'POST', '--data-binary', deleteObjects, `${runtime.s3.endpoint}/${bucket}?delete=`]),
    ).toMatchObject({ status: 501, code: 'NotImplemented' });
    // Dots that are not a whole segment are a key like any other.
    const dotted = `/${bucket}/a..b/.c/d.../${marker}`;
    expect(await curl([...signed, '--request', 'PUT', '--data-binary', 'kept', `${runtime.s3.endpoint}${dotted}`])).toMatchObject({
      status: 200,
    });
    expect(await curl([...signed, `${runtime.s3.endpoint}${dotted}`])).toMatchObject({ status: 200, body: 'kept' });
  });
});
