import { isIP } from 'node:net';
import { constantTimeEqual, sha256 } from '../ids.ts';

/**
 * The header CloudFront adds to every request it sends to the API (lib/web.ts), holding a value
 * only CloudFront and the functions know (ORIGIN_VERIFY). CloudFront overwrites a viewer's own
 * header of the same name, so a request carrying the right value came through the distribution.
 */
export const originVerifyHeader = 'x-hushlink-origin-verify';

/** `ip:port` of the viewer, added by CloudFront (the AllViewerExceptHostHeader policy forwards it). */
const viewerAddressHeader = 'cloudfront-viewer-address';

/**
 * The address per-IP rate limits count. Behind CloudFront, API Gateway's `sourceIp` is an edge
 * server shared by many viewers, so the viewer's address is read from CloudFront's header, but
 * only when the request proves it came through CloudFront: anyone can call the `execute-api`
 * endpoint directly with a forged viewer header, and for them `sourceIp` is the truth.
 */
export function clientAddress(headers: Record<string, string | undefined>, sourceIp: string, originSecret: string | undefined): string {
  if (!throughCloudFront(headers, originSecret)) return sourceIp;
  return viewerAddress(headers[viewerAddressHeader]) ?? sourceIp;
}

/** True when the request carries CloudFront's proof (ORIGIN_VERIFY), so its viewer headers are CloudFront's own. */
export function throughCloudFront(headers: Record<string, string | undefined>, originSecret: string | undefined): boolean {
  const proof = headers[originVerifyHeader];
  // Digests first: equal lengths for the comparison, whatever length the header has.
  return originSecret !== undefined && proof !== undefined && constantTimeEqual(sha256(proof), sha256(originSecret));
}

/** `198.51.100.10:46532` or `2001:db8::1:46532` → the address; anything else → undefined. */
function viewerAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const colon = value.lastIndexOf(':');
  if (colon <= 0 || !/^\d{1,5}$/.test(value.slice(colon + 1))) return undefined;
  const address = value.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return isIP(address) ? address : undefined;
}
