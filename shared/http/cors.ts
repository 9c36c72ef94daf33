/**
 * The CORS policy for the web origin, read by the CDK api construct (API Gateway answers
 * preflights in AWS), by the local gateway (which answers them locally) and by the response
 * headers middleware.
 */
export const corsPolicy = {
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowHeaders: ['content-type', 'authorization', 'x-delete-token', 'x-request-id'],
  exposeHeaders: ['x-request-id', 'retry-after'],
  maxAgeSeconds: 600,
} as const;

/**
 * The files bucket's CORS rule, read by lib/data.ts and by the local S3: the browser PUTs parts
 * and reads each one's ETag for the completion, and GETs (or HEADs) ranges of a download. Any
 * origin (issue 17): a file sent on a workspace's own hostname is fetched by a page of that
 * hostname, and hostnames are verified at run time, past what a bucket's CORS rules can list.
 * Nothing is lost: every URL is presigned (a bearer credential for one object and minutes, which
 * a server holding it could use without CORS) and carries ciphertext only, and no credentials
 * (cookies) are involved, which `*` excludes anyway.
 */
export const filesCorsPolicy = {
  allowOrigins: ['*'],
  allowMethods: ['PUT', 'GET', 'HEAD'],
  allowHeaders: ['*'],
  exposeHeaders: ['ETag', 'Content-Length', 'Content-Range'],
  maxAgeSeconds: 3600,
} as const;
