import { createHash } from 'node:crypto';
import { readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FilesystemStore } from '@20minutes/s3rver';
import S3Error from '@20minutes/s3rver/lib/models/error.js';

/**
 * The multipart upload operations s3rver lacks or gets wrong, with S3's semantics, on s3rver's own
 * storage (an upload is the folder `<bucket>/._S3rver_uploads/<uploadId>/` holding `key`,
 * `metadata` and, per part, `<n>` and `<n>.md5`; s3rver writes the `.md5` once the part is whole):
 * - UploadPart: part numbers outside 1..10000 are InvalidArgument, an upload id unknown for the
 *   key is NoSuchUpload (s3rver stored both); s3rver then stores the part.
 * - ListParts and AbortMultipartUpload (s3rver: 405).
 * - CompleteMultipartUpload checks the list as S3 does (order, ETags, sizes, parts never
 *   uploaded, an upload already completed) before s3rver concatenates it (s3rver checked nothing,
 *   answered a second completion with 500, and crashed on a part never uploaded), and gives the
 *   object S3's multipart ETag.
 * Completion and abort of one upload are serialized, so exactly one of two racing calls wins.
 */

export interface UploadTarget {
  bucket: string;
  key: string;
  uploadId: string;
}

/** S3's smallest part other than the last. */
export const minPartBytes = 5 * 1024 * 1024;
export const maxPartNumber = 10_000;
const maxListedParts = 1000;
/** A CompleteMultipartUpload body of 10,000 parts is well under this. */
const maxCompleteBodyBytes = 4 * 1024 * 1024;
const xmlns = 'http://s3.amazonaws.com/doc/2006-03-01/';

interface StoredPart {
  number: number;
  /** Hex MD5 of the part's bytes: its ETag without quotes. */
  md5: string;
  size: number;
  lastModified: Date;
}

export class MultipartUploads {
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(private readonly store: FilesystemStore) {}

  /** Refuses what S3 refuses before s3rver stores a part; `store` stores it. */
  async uploadPart(target: UploadTarget, partNumber: string | undefined, store: () => Promise<void>): Promise<void> {
    const number = partNumber !== undefined && /^\d{1,5}$/.test(partNumber) ? Number(partNumber) : NaN;
    if (!(number >= 1 && number <= maxPartNumber)) {
      throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', {
        ArgumentName: 'partNumber',
        ArgumentValue: partNumber ?? '',
      });
    }
    const folder = await this.uploadFolder(target);
    const stored = await store().then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    // Aborted (or completed) while the part was arriving: s3rver made the folder again for it,
    // and nothing of it is kept.
    if (!(await this.exists(target))) {
      await rm(folder, { recursive: true, force: true });
      throw noSuchUpload(target);
    }
    if (stored) throw stored.error;
  }

  /** ListParts: the whole parts in part-number order, paged by max-parts and part-number-marker. */
  async listParts(target: UploadTarget, maxPartsParameter: string | undefined, markerParameter: string | undefined): Promise<object> {
    const maxParts = integerParameter('max-parts', maxPartsParameter, maxListedParts);
    const marker = integerParameter('part-number-marker', markerParameter, 0);
    const folder = await this.uploadFolder(target);
    const after = (await this.storedParts(folder)).filter((part) => part.number > marker);
    const page = after.slice(0, Math.min(maxParts, maxListedParts));
    const isTruncated = after.length > page.length;
    const owner = { ID: 'local', DisplayName: 'local' };
    return {
      ListPartsResult: {
        '@': { xmlns },
        Bucket: target.bucket,
        Key: target.key,
        UploadId: target.uploadId,
        Initiator: owner,
        Owner: owner,
        StorageClass: 'STANDARD',
        PartNumberMarker: marker,
        NextPartNumberMarker: page.at(-1)?.number ?? marker,
        MaxParts: maxParts,
        IsTruncated: isTruncated,
        Part: page.map((part) => ({
          PartNumber: part.number,
          LastModified: part.lastModified.toISOString(),
          ETag: `"${part.md5}"`,
          Size: part.size,
        })),
      },
    };
  }

  /** AbortMultipartUpload: the upload and every part of it are deleted. */
  abort(target: UploadTarget): Promise<void> {
    return this.serialized(target.uploadId, async () => {
      const folder = await this.uploadFolder(target);
      await rm(folder, { recursive: true, force: true });
    });
  }

  /** CompleteMultipartUpload: the checks S3 makes, then s3rver's concatenation, then S3's ETag. */
  complete(target: UploadTarget, body: AsyncIterable<Buffer | string>, location: string): Promise<object> {
    return this.serialized(target.uploadId, async () => {
      const folder = await this.uploadFolder(target);
      const listed = parseCompleteBody(await readBody(body));
      for (let index = 1; index < listed.length; index++) {
        if (listed[index]!.number <= listed[index - 1]!.number) {
          throw new S3Error(
            'InvalidPartOrder',
            'The list of parts was not in ascending order. The parts list must be specified in order by part number.',
          );
        }
      }
      const stored = new Map((await this.storedParts(folder)).map((part) => [part.number, part]));
      const parts = listed.map(({ number, etag }) => {
        const part = stored.get(number);
        if (!part || part.md5 !== etag.replaceAll('"', '').toLowerCase()) {
          throw new S3Error(
            'InvalidPart',
            "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
            {
              UploadId: target.uploadId,
              PartNumber: String(number),
              ETag: etag,
            },
          );
        }
        return part;
      });
      const small = parts.slice(0, -1).find((part) => part.size < minPartBytes);
      if (small) {
        throw new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size', {
          ProposedSize: String(small.size),
          MinSizeAllowed: String(minPartBytes),
          PartNumber: String(small.number),
          ETag: small.md5,
        });
      }
      await this.store.putObjectMultipart(
        target.bucket,
        target.uploadId,
        parts.map((part) => ({ number: part.number, etag: part.md5 })),
      );
      // S3's multipart ETag: the MD5 of the parts' binary MD5s, a dash and the number of parts.
      // s3rver serves an object's ETag from this file.
      const digests = Buffer.concat(parts.map((part) => Buffer.from(part.md5, 'hex')));
      const etag = `${createHash('md5').update(digests).digest('hex')}-${parts.length}`;
      await writeFile(this.store.getResourcePath(target.bucket, target.key, 'object.md5'), etag);
      return {
        CompleteMultipartUploadResult: { '@': { xmlns }, Location: location, Bucket: target.bucket, Key: target.key, ETag: `"${etag}"` },
      };
    });
  }

  /** The upload's folder, if the upload exists for this bucket and key; else NoSuchUpload. */
  private async uploadFolder(target: UploadTarget): Promise<string> {
    if (!(await this.exists(target))) throw noSuchUpload(target);
    return this.folder(target);
  }

  private async exists(target: UploadTarget): Promise<boolean> {
    // s3rver's upload ids are 32 hex digits; anything else is no upload (and no path).
    if (!/^[0-9a-f]{32}$/.test(target.uploadId)) return false;
    const key = await readFile(join(this.folder(target), 'key'), 'utf8').catch(() => undefined);
    return key === target.key;
  }

  private folder(target: UploadTarget): string {
    return join(this.store.getResourcePath(target.bucket, undefined, 'uploads'), target.uploadId);
  }

  private async storedParts(folder: string): Promise<StoredPart[]> {
    const names = await readdir(folder);
    const parts = await Promise.all(
      names
        .filter((name) => /^\d+$/.test(name) && names.includes(`${name}.md5`))
        .map(async (name) => {
          const [md5, stats] = await Promise.all([readFile(join(folder, `${name}.md5`), 'utf8'), stat(join(folder, name))]);
          return { number: Number(name), md5: md5.trim(), size: stats.size, lastModified: stats.mtime };
        }),
    );
    return parts.sort((a, b) => a.number - b.number);
  }

  /** Runs `task` after every earlier completion or abort of the same upload has settled. */
  private serialized<T>(uploadId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.pending.get(uploadId) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.catch(() => undefined);
    this.pending.set(uploadId, settled);
    void settled.then(() => {
      if (this.pending.get(uploadId) === settled) this.pending.delete(uploadId);
    });
    return run;
  }
}

function noSuchUpload(target: UploadTarget) {
  return new S3Error(
    'NoSuchUpload',
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
    { UploadId: target.uploadId },
  );
}

function integerParameter(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value))
    throw new S3Error('InvalidArgument', `Provided ${name} not an integer or within integer range`, {
      ArgumentName: name,
      ArgumentValue: value,
    });
  return Number(value);
}

async function readBody(body: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > maxCompleteBodyBytes) throw malformedXml();
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The parts of a CompleteMultipartUpload document, in the order listed. Its grammar is small:
 * `<CompleteMultipartUpload><Part><PartNumber>n</PartNumber><ETag>…</ETag>…</Part>…`.
 */
export function parseCompleteBody(xml: string): Array<{ number: number; etag: string }> {
  const document = /<CompleteMultipartUpload(?:\s[^>]*)?>([\s\S]*)<\/CompleteMultipartUpload>/.exec(xml);
  if (!document) throw malformedXml();
  const parts = [...document[1]!.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(([, part]) => {
    const number = /<PartNumber>\s*(\d{1,5})\s*<\/PartNumber>/.exec(part!)?.[1];
    const etag = /<ETag>([^<]*)<\/ETag>/.exec(part!)?.[1];
    if (number === undefined || etag === undefined) throw malformedXml();
    return { number: Number(number), etag: decodeXmlText(etag).trim() };
  });
  if (parts.length === 0) throw malformedXml();
  return parts;
}

const xmlEntities: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" };

function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] === '#')
      return String.fromCodePoint(name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1)));
    return xmlEntities[name] ?? entity;
  });
}

function malformedXml() {
  return new S3Error('MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema');
}
