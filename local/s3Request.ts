import type { IncomingHttpHeaders } from 'node:http';
import S3Error from '@20minutes/s3rver/lib/models/error.js';

/**
 * The first check of every request to the local S3, before its signature (issue 26, item 2):
 * s3rver turns the bucket, the key, `uploadId` and `partNumber` into file paths, so what it is
 * handed must be exactly what was checked.
 * - The request target holds only what a URI may hold unencoded, and valid percent-escapes: Koa
 *   re-parses a target with `#`, a backslash or white space by the legacy URL parser, which turns
 *   backslashes into slashes (`a\..\x` would become `a/../x` after the check).
 * - Each query parameter once: s3rver joined two `partNumber`s into one file name, while the
 *   signature check read the first. Parameters whose value matters are decimal or non-empty.
 * - Bucket names as S3 allows them; keys (and prefixes, and a copy's source) without `.` or `..`
 *   segments or NUL, encoded or not: S3 allows them, but s3rver would leave its folder.
 * The layer then hands s3rver a query string rebuilt from these values (`canonicalQuery`).
 */

export interface S3Target {
  /** The raw path, as it was signed. */
  path: string;
  /** Every query parameter, decoded, each given once. */
  query: Map<string, string>;
  /** Decoded; '' for the service itself. */
  bucket: string;
  /** Decoded; '' for a bucket itself. */
  key: string;
}

/** RFC 3986's unreserved and sub-delimiter characters, `:@/`, and `%` (its escapes checked apart); `?` and `&` in the query. */
const uriCharacters = /^\/[A-Za-z0-9\-._~!$'()*+,;=:@/%]*(?:\?[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*)?$/;
// (The presigned URL's own parameters are read by s3Signature.ts, with S3's errors, and never reach s3rver.)
const decimalParameters = new Set(['partNumber', 'max-parts', 'part-number-marker', 'max-keys', 'max-uploads', 'list-type']);
const nonEmptyParameters = new Set(['uploadId', 'versionId']);
/** Parameters naming keys, which s3rver also turns into paths (listings). */
const keyParameters = new Set(['prefix', 'marker', 'start-after', 'key-marker']);
const bucketName = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const maxKeyBytes = 1024;

/** The checked target of a request; throws the S3 error S3 would answer (or the nearest one). */
export function checkedTarget(url: string, headers: IncomingHttpHeaders): S3Target {
  if (!uriCharacters.test(url)) throw invalidUri(url);
  const at = url.indexOf('?');
  const path = at === -1 ? url : url.slice(0, at);
  const query = new Map<string, string>();
  // `+` is taken literally, as S3 takes it (SigV4 clients encode a space as %20); s3rver is
  // handed `%2B` for it (canonicalQuery), since Koa would read a `+` as a space.
  for (const pair of at === -1 ? [] : url.slice(at + 1).split('&')) {
    if (!pair) continue;
    const equals = pair.indexOf('=');
    const name = decode(equals === -1 ? pair : pair.slice(0, equals), url);
    const value = equals === -1 ? '' : decode(pair.slice(equals + 1), url);
    if (query.has(name)) {
      throw new S3Error('InvalidArgument', `The query parameter ${name} may be given only once`, {
        ArgumentName: name,
        ArgumentValue: `${query.get(name)}, ${value}`,
      });
    }
    checkParameter(name, value);
    query.set(name, value);
  }
  // Split as s3rver's router splits (the raw path at its first slashes), then decoded as it decodes.
  const [, rawBucket = '', ...rawKey] = path.split('/');
  const bucket = decode(rawBucket, url);
  const key = decode(rawKey.join('/'), url);
  if (bucket) checkBucket(bucket);
  if (key) checkKey(key, 'key');
  const copySource = headers['x-amz-copy-source'];
  if (copySource !== undefined) checkCopySource(String(copySource));
  return { path, query, bucket, key };
}

/** The query string s3rver is given: the checked parameters, each once and encoded, less `omit`. */
export function canonicalQuery(query: Map<string, string>, omit: readonly string[]): string {
  return [...query]
    .filter(([name]) => !omit.includes(name))
    .map(([name, value]) => (value === '' ? encodeURIComponent(name) : `${encodeURIComponent(name)}=${encodeURIComponent(value)}`))
    .join('&');
}

function checkParameter(name: string, value: string): void {
  if (decimalParameters.has(name) && !/^\d{1,10}$/.test(value)) {
    if (name === 'partNumber') {
      throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', {
        ArgumentName: name,
        ArgumentValue: value,
      });
    }
    throw new S3Error('InvalidArgument', `Provided ${name} not an integer or within integer range`, {
      ArgumentName: name,
      ArgumentValue: value,
    });
  }
  if (nonEmptyParameters.has(name) && value === '') {
    throw new S3Error('InvalidArgument', `The query parameter ${name} cannot be empty`, { ArgumentName: name, ArgumentValue: value });
  }
  if (keyParameters.has(name) && value !== '') checkKey(value, name);
}

function checkBucket(bucket: string): void {
  if (!bucketName.test(bucket) || bucket.includes('..'))
    throw new S3Error('InvalidBucketName', 'The specified bucket is not valid.', { BucketName: bucket });
}

/** S3 keeps any key; s3rver keeps each as a file, so `.`, `..` and NUL are refused here. */
function checkKey(key: string, name: string): void {
  if (Buffer.byteLength(key) > maxKeyBytes)
    throw new S3Error('KeyTooLongError', 'Your key is too long', {
      MaxSizeAllowed: String(maxKeyBytes),
      Size: String(Buffer.byteLength(key)),
    });
  if (key.includes('\0') || key.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw new S3Error('InvalidArgument', 'The local S3 keeps objects as files: a key may not hold . or .. segments, or NUL', {
      ArgumentName: name,
      ArgumentValue: key.replaceAll('\0', '\\0'),
    });
  }
}

/** `x-amz-copy-source`: `[/]bucket/key[?versionId=…]`, percent-encoded. */
function checkCopySource(value: string): void {
  let source: string;
  try {
    source = decodeURIComponent(value.split('?', 1)[0]!.replace(/^\//, ''));
  } catch {
    throw new S3Error('InvalidArgument', 'Invalid copy source encoding', { ArgumentName: 'x-amz-copy-source', ArgumentValue: value });
  }
  const [bucket = '', ...keyPath] = source.split('/');
  checkBucket(bucket);
  checkKey(keyPath.join('/'), 'x-amz-copy-source');
}

function decode(text: string, url: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalidUri(url);
  }
}

const invalidUri = (url: string) => new S3Error('InvalidURI', 'Could not parse the specified URI.', { URI: url });
