import type { FilesystemStore } from '@20minutes/s3rver';
import S3Error, { type S3Context } from '@20minutes/s3rver/lib/models/error.js';
import type { Clock } from '../shared/clock.ts';
import { MultipartUploads } from './s3Multipart.ts';
import { canonicalQuery, checkedTarget, type S3Target } from './s3Request.ts';
import { authenticate, presignParameters, type Authentication, type S3Credentials } from './s3Signature.ts';

/**
 * What s3rver lacks for the files flow, added in front of its router as one Koa middleware (so
 * its answers are s3rver's own XML errors, on its own storage) — each piece is pinned by
 * test/integration/s3-conformance.test.ts and local-s3-security.test.ts:
 * - first, the request target is checked (s3Request.ts: each query parameter once, values,
 *   bucket names, keys that stay inside s3rver's folder), and s3rver is handed a query string
 *   rebuilt from the checked values, so it acts on exactly what was checked and signed;
 * - every request but a CORS preflight is authenticated by SigV4 (s3Signature.ts) with this
 *   machine's own key; an unsigned one is AccessDenied. s3rver accepted anything signed by the
 *   published key S3RVER, or unsigned;
 * - the multipart operations of s3Multipart.ts;
 * - CORS from one rule, the runtime's web origin: preflights answered as S3 does (s3rver
 *   answered `*` and did not expose headers), and the headers on every actual answer from that
 *   origin, errors included, so a page can read why S3 refused;
 * - time is the runtime's clock, also in the `Date` header, which the SDK reads for its clock;
 * - an aws-chunked body, which s3rver would store framing and all, is refused (501) instead.
 * Everything else (buckets, objects, ranged GETs, creating uploads and storing parts) is s3rver's.
 */

/** One CORS rule, as in the bucket's CORSConfiguration. */
export interface CorsRule {
  allowedOrigins: string[];
  allowedMethods: string[];
  /** Header names allowed in a preflight's Access-Control-Request-Headers; `*` allows any. */
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds: number;
}

export interface S3LayerOptions {
  store: FilesystemStore;
  clock: Clock;
  credentials: S3Credentials;
  cors: CorsRule;
}

type Middleware = (context: S3Context, next: () => Promise<void>) => Promise<void>;

export function s3Layer(options: S3LayerOptions): Middleware {
  const uploads = new MultipartUploads(options.store);
  return async function s3Layer(context, next) {
    const now = options.clock.now();
    context.set('Date', new Date(now).toUTCString());
    try {
      if (context.method !== 'OPTIONS') corsHeaders(context, options.cors);
      const target = checkedTarget(context.req.url ?? '/', context.req.headers);
      if (context.method === 'OPTIONS') return preflight(context, options.cors);
      const signedBy = await authenticate(
        { method: context.method, path: target.path, query: target.query, headers: context.req.headers },
        options.credentials,
        now,
      );
      handOn(context, target, signedBy);
      refuseChunkedBody(context);
      refuseKeysInBody(context, target);
      await route(context, target, uploads, next);
    } catch (error) {
      respondWithError(context, error);
    }
  };
}

/** Multipart operations on an upload id are the layer's; the rest goes on to s3rver. */
async function route(
  context: S3Context,
  { path, query, bucket, key }: S3Target,
  uploads: MultipartUploads,
  next: () => Promise<void>,
): Promise<void> {
  const uploadId = query.get('uploadId');
  if (uploadId === undefined || !bucket || !key) return next();
  const target = { bucket, key, uploadId };
  switch (context.method) {
    case 'PUT':
      return uploads.uploadPart(target, query.get('partNumber'), next);
    case 'GET':
      context.body = await uploads.listParts(target, query.get('max-parts'), query.get('part-number-marker'));
      return;
    case 'DELETE':
      await uploads.abort(target);
      context.status = 204;
      return;
    case 'POST':
      context.body = await uploads.complete(target, context.req, `http://${context.req.headers.host ?? ''}${path}`);
      return;
    default:
      return next();
  }
}

/** S3 matches an AllowedOrigin of `*` to any origin, and answers `*` for it. */
const originAllowed = (rule: CorsRule, origin: string) => rule.allowedOrigins.includes('*') || rule.allowedOrigins.includes(origin);
const allowOriginValue = (rule: CorsRule, origin: string) => (rule.allowedOrigins.includes('*') ? '*' : origin);

/** A preflight, as S3 evaluates it against the bucket's CORS rule (it needs no signature). */
function preflight(context: S3Context, rule: CorsRule): void {
  const origin = context.req.headers.origin;
  const method = context.req.headers['access-control-request-method'];
  if (!origin) throw new S3Error('InvalidRequest', 'Insufficient information. Origin request header needed.');
  if (typeof method !== 'string') throw new S3Error('InvalidRequest', 'Invalid Access-Control-Request-Method: null');
  const requested = String(context.req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const headersAllowed = requested.every((name) =>
    rule.allowedHeaders.some((allowed) => allowed === '*' || allowed.toLowerCase() === name),
  );
  if (!originAllowed(rule, origin) || !rule.allowedMethods.includes(method) || !headersAllowed) {
    throw new S3Error(
      'CORSResponse',
      "This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
    );
  }
  context.set('Access-Control-Allow-Origin', allowOriginValue(rule, origin));
  context.set('Access-Control-Allow-Methods', rule.allowedMethods.join(', '));
  if (requested.length > 0) context.set('Access-Control-Allow-Headers', requested.join(', '));
  context.set('Access-Control-Expose-Headers', rule.exposeHeaders.join(', '));
  context.set('Access-Control-Max-Age', String(rule.maxAgeSeconds));
  context.set('Access-Control-Allow-Credentials', 'true');
  context.set('Vary', 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method');
  context.status = 200;
  context.body = '';
}

/** An actual request from an allowed origin gets the CORS headers, whatever the answer. */
function corsHeaders(context: S3Context, rule: CorsRule): void {
  const origin = context.req.headers.origin;
  if (!origin || !originAllowed(rule, origin) || !rule.allowedMethods.includes(context.method)) return;
  context.set('Access-Control-Allow-Origin', allowOriginValue(rule, origin));
  context.set('Access-Control-Expose-Headers', rule.exposeHeaders.join(', '));
  // As S3: credentials only for a rule that names origins (a browser refuses them with `*`).
  if (!rule.allowedOrigins.includes('*')) context.set('Access-Control-Allow-Credentials', 'true');
  context.set('Vary', 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method');
}

/**
 * S3 decodes an aws-chunked body (what the SDK sends for a stream unless checksums are computed
 * only when required); s3rver would store the framing as the object's bytes. Refused loudly
 * instead: the service and its CLI send plain bodies.
 */
function refuseChunkedBody(context: S3Context): void {
  const encoding = String(context.req.headers['content-encoding'] ?? '');
  const payload = String(context.req.headers['x-amz-content-sha256'] ?? '');
  if (/aws-chunked/i.test(encoding) || payload.startsWith('STREAMING-')) {
    throw new S3Error(
      'NotImplemented',
      'The local S3 does not decode aws-chunked bodies: sign with requestChecksumCalculation WHEN_REQUIRED.',
    );
  }
}

/**
 * DeleteObjects names its keys in its body, where s3Request.ts cannot check them, and s3rver
 * removes each as a path: refused, as the service never sends it.
 */
function refuseKeysInBody(context: S3Context, target: S3Target): void {
  if (context.method === 'POST' && target.query.has('delete')) {
    throw new S3Error(
      'NotImplemented',
      'The local S3 does not take DeleteObjects (keys in a body are not checked): delete objects one at a time.',
    );
  }
}

/**
 * What s3rver sees: the query string rebuilt from the checked parameters (it can never see a
 * second value, or another decoding, of one), without the proof the layer checked — s3rver
 * checks signatures itself, by the system's time and differently, and lets through a request
 * that carries none.
 */
function handOn(context: S3Context, target: S3Target, signedBy: Authentication): void {
  if (signedBy === 'header') delete context.req.headers.authorization;
  context.querystring = canonicalQuery(target.query, presignParameters);
}

/** Answers as s3rver's error handler would, keeping the CORS headers and the clock's `Date`. */
function respondWithError(context: S3Context, error: unknown): void {
  if (context.headerSent) throw error;
  const s3Error = error instanceof S3Error ? error : S3Error.fromError(error);
  if (s3Error.status >= 500) context.app.emit('error', error, context);
  for (const name of context.res.getHeaderNames()) {
    if (!/^(access-control-|vary$|date$)/i.test(name)) context.res.removeHeader(name);
  }
  context.status = s3Error.status;
  context.type = 'application/xml';
  context.body = s3Error.toXML();
}
