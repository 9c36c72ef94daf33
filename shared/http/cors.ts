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
