import { createHash, createHmac, timingSafeEqual, type Hash, type Hmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4, getCanonicalHeaders } from '@smithy/signature-v4';
import S3Error from '@20minutes/s3rver/lib/models/error.js';

/**
 * SigV4 verification for the local S3, as S3 does it: the canonical request is rebuilt from
 * what arrived (the raw path, every query parameter but the signature, the headers the client
 * says it signed, the declared payload hash or UNSIGNED-PAYLOAD for a presigned URL) and signed
 * again by the SDK's own signer (@smithy/signature-v4) with the one local secret.
 *
 * Time is the runtime's clock: a presigned URL expires at X-Amz-Date + X-Amz-Expires by it, and
 * a header-signed request more than 15 minutes from it is RequestTimeTooSkewed, whose ServerTime
 * the SDK reads to correct its own clock (so SDK calls follow `clock.advance` by themselves).
 *
 * An `x-amz-*` header the request was not signed with is refused, as S3 refuses it.
 *
 * Not checked: the body against a declared x-amz-content-sha256 (S3's XAmzContentSHA256Mismatch),
 * and the scope's region (the local S3 has none of its own: any region signs).
 */

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SignedRequest {
  method: string;
  /** The raw path, as received (S3 does not normalize or re-encode it). */
  path: string;
  /** The decoded query, each parameter once (local/s3Request.ts refused any given twice). */
  query: Map<string, string>;
  headers: IncomingHttpHeaders;
}

/** How a request proved itself, so the layer can take the proof off before s3rver sees it. */
export type Authentication = 'header' | 'query';

const algorithm = 'AWS4-HMAC-SHA256';
const maxSkewMs = 15 * 60 * 1000;
const maxPresignedSeconds = 7 * 24 * 3600;
/** The query parameters of a presigned URL that carry its signature (and are not S3 parameters). */
export const presignParameters = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
];

/** Throws the S3 error S3 would answer, or tells how the request was signed. */
export async function authenticate(request: SignedRequest, credentials: S3Credentials, now: number): Promise<Authentication> {
  const { path, query } = request;
  const authorization = request.headers.authorization;
  const presigned = query.has('X-Amz-Algorithm');
  if (authorization !== undefined && presigned) {
    throw new S3Error(
      'InvalidArgument',
      'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
      {
        ArgumentName: 'Authorization',
        ArgumentValue: authorization,
      },
    );
  }
  if (authorization !== undefined) {
    await verifyHeader(request, path, query, authorization, credentials, now);
    return 'header';
  }
  if (presigned) {
    await verifyQuery(request, path, query, credentials, now);
    return 'query';
  }
  throw new S3Error('AccessDenied', 'Access Denied');
}

async function verifyHeader(
  request: SignedRequest,
  path: string,
  query: Map<string, string>,
  authorization: string,
  credentials: S3Credentials,
  now: number,
) {
  const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]+)$/.exec(authorization.trim());
  if (!match)
    throw new S3Error(
      'AuthorizationHeaderMalformed',
      'The authorization header is malformed; the authorization header requires three components: Credential, SignedHeaders, and Signature.',
    );
  const [, credential, signedHeaders, signature] = match as unknown as [string, string, string, string];
  const scope = parseScope(credential, credentials, 'AuthorizationHeaderMalformed');
  refuseUnsignedAmzHeaders(request.headers, signedHeaders);
  const amzDate = headerValue(request.headers, 'x-amz-date') ?? '';
  const signingDate = parseAmzDate(amzDate);
  if (!signingDate) throw new S3Error('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  if (Math.abs(now - signingDate.getTime()) > maxSkewMs) {
    throw new S3Error('RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.', {
      RequestTime: amzDate,
      ServerTime: new Date(now).toISOString(),
      MaxAllowedSkewMilliseconds: String(maxSkewMs),
    });
  }
  const payloadHash = headerValue(request.headers, 'x-amz-content-sha256');
  if (payloadHash === undefined) throw new S3Error('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  const expected = await signatureOf(
    {
      method: request.method,
      path,
      query,
      headers: request.headers,
      signedHeaders: signedHeaders.split(';'),
      payloadHash,
      amzDate,
      signingDate,
      scope,
    },
    credentials,
  );
  if (!sameSignature(expected, signature)) throw signatureMismatch(credentials);
}

async function verifyQuery(request: SignedRequest, path: string, query: Map<string, string>, credentials: S3Credentials, now: number) {
  if (query.get('X-Amz-Algorithm') !== algorithm)
    throw new S3Error('AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  const [, credential, amzDate, expires, signedHeaders, signature] = presignParameters.map((name) => query.get(name));
  if (
    credential === undefined ||
    amzDate === undefined ||
    expires === undefined ||
    signedHeaders === undefined ||
    signature === undefined
  ) {
    throw new S3Error(
      'AuthorizationQueryParametersError',
      'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
    );
  }
  const scope = parseScope(credential, credentials, 'AuthorizationQueryParametersError');
  refuseUnsignedAmzHeaders(request.headers, signedHeaders);
  const signingDate = parseAmzDate(amzDate);
  if (!signingDate)
    throw new S3Error('AuthorizationQueryParametersError', "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
  const lifetime = /^\d+$/.test(expires) ? Number(expires) : NaN;
  if (!(lifetime <= maxPresignedSeconds)) {
    throw new S3Error(
      'AuthorizationQueryParametersError',
      'X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must be less than 604800 seconds',
    );
  }
  const expiresAt = signingDate.getTime() + lifetime * 1000;
  if (now > expiresAt) {
    throw new S3Error('AccessDenied', 'Request has expired', {
      'X-Amz-Expires': expires,
      Expires: new Date(expiresAt).toISOString(),
      ServerTime: new Date(now).toISOString(),
    });
  }
  // A presigned URL cannot know its body: S3 signs it as UNSIGNED-PAYLOAD.
  const expected = await signatureOf(
    {
      method: request.method,
      path,
      query,
      headers: request.headers,
      signedHeaders: signedHeaders.split(';'),
      payloadHash: 'UNSIGNED-PAYLOAD',
      amzDate,
      signingDate,
      scope,
    },
    credentials,
  );
  if (!sameSignature(expected, signature)) throw signatureMismatch(credentials);
}

interface Scope {
  region: string;
  service: string;
  /** `date/region/service/aws4_request` */
  text: string;
}

function parseScope(credential: string, credentials: S3Credentials, malformed: string): Scope {
  const [accessKeyId, date, region, service, terminator, ...rest] = credential.split('/');
  if (!date || !region || !service || terminator !== 'aws4_request' || rest.length > 0) {
    throw new S3Error(
      malformed,
      'Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".',
    );
  }
  if (accessKeyId !== credentials.accessKeyId) {
    throw new S3Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', {
      AWSAccessKeyId: accessKeyId ?? '',
    });
  }
  return { region, service, text: `${date}/${region}/${service}/aws4_request` };
}

/**
 * The signature S3 expects for this request. The canonical request and the signing key are the
 * SDK signer's own; only the canonical headers are limited to the ones the client signed.
 */
async function signatureOf(
  request: {
    method: string;
    path: string;
    query: Map<string, string>;
    headers: IncomingHttpHeaders;
    signedHeaders: string[];
    payloadHash: string;
    amzDate: string;
    signingDate: Date;
    scope: Scope;
  },
  credentials: S3Credentials,
): Promise<string> {
  const headers: Record<string, string> = {};
  for (const name of request.signedHeaders) {
    const value = headerValue(request.headers, name);
    // A header signed but not sent cannot match.
    if (value === undefined) return '';
    headers[name] = value;
  }
  const signer = new Verifier({
    service: request.scope.service,
    region: request.scope.region,
    credentials,
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  return signer.signatureOf(
    {
      method: request.method,
      protocol: 'http:',
      hostname: headers.host ?? '',
      path: request.path,
      query: Object.fromEntries(request.query),
      headers,
    },
    new Set(request.signedHeaders),
    request.payloadHash,
    request.amzDate,
    request.signingDate,
    request.scope,
  );
}

/** The SDK's signer, asked for the signature of a canonical request it is given the parts of. */
class Verifier extends SignatureV4 {
  async signatureOf(
    request: Parameters<SignatureV4['presign']>[0],
    signedHeaders: Set<string>,
    payloadHash: string,
    amzDate: string,
    signingDate: Date,
    scope: Scope,
  ): Promise<string> {
    const canonicalHeaders = getCanonicalHeaders(request, undefined, signedHeaders);
    const canonicalRequest = this.createCanonicalRequest(request, canonicalHeaders, payloadHash);
    const stringToSign = await this.createStringToSign(amzDate, scope.text, canonicalRequest, algorithm);
    return this.sign(stringToSign, { signingDate, signingRegion: scope.region, signingService: scope.service });
  }
}

/** SHA-256 (an HMAC when given a key) in the shape the signer takes, on node:crypto. */
class Sha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = this.start();
  }
  private start(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key =
      typeof this.secret === 'string'
        ? this.secret
        : ArrayBuffer.isView(this.secret)
          ? Buffer.from(this.secret.buffer, this.secret.byteOffset, this.secret.byteLength)
          : Buffer.from(this.secret);
    return createHmac('sha256', key);
  }
  update(data: string | Uint8Array): void {
    this.hash.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.start();
  }
}

function signatureMismatch(credentials: S3Credentials) {
  return new S3Error(
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    {
      AWSAccessKeyId: credentials.accessKeyId,
    },
  );
}

function sameSignature(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** `yyyyMMddTHHmmssZ` */
function parseAmzDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return undefined;
  const date = new Date(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * S3 refuses a SigV4 request with an `x-amz-*` header it was not signed with: such a header
 * changes what the request does (an unsigned `x-amz-copy-source` on a part's URL would copy
 * another object into the upload) without the signer having said so.
 */
function refuseUnsignedAmzHeaders(headers: IncomingHttpHeaders, signedHeaders: string): void {
  const signed = new Set(signedHeaders.split(';'));
  const unsigned = Object.keys(headers).filter((name) => name.startsWith('x-amz-') && !signed.has(name));
  if (unsigned.length > 0) {
    throw new S3Error('AccessDenied', 'There were headers present in the request which were not signed', {
      HeadersNotSigned: unsigned.join(', '),
    });
  }
}
