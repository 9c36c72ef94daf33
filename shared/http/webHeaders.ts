/**
 * Headers of every web client response. The local runtime sends them; the CDK web hosting
 * puts the same values in CloudFront's response headers policy.
 *
 * `filesOrigin` is the files bucket's origin, the one place besides the page's own that the
 * page talks to: file parts go up and come down by presigned URLs straight to the bucket
 * (`https://<bucket>.s3.<region>.amazonaws.com` in AWS, the local S3's `http://127.0.0.1:<port>`).
 * That one bucket's origin, never a wildcard such as `*.amazonaws.com`: a script that got into
 * the page could otherwise send what it read to a bucket of its own.
 */
export function contentSecurityPolicy(filesOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${filesOrigin}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function webHeaders(filesOrigin: string) {
  return {
    'content-security-policy': contentSecurityPolicy(filesOrigin),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'strict-transport-security': 'max-age=63072000; includeSubDomains',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), clipboard-read=()',
    // Pages are tiny and the reveal page must never be served from a cache.
    'cache-control': 'no-store',
  } as const;
}
