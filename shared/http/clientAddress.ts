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
export function clientAddress(
  headers: Record<string, string | undefined>,
  sourceIp: string,
  originSecret: string | undefined,
): string {
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

/**
 * The subject per-address limits count: an IPv4 address as it is, an IPv6 address by its /64.
 * A /64 is what one subscriber (one home, one VM) gets and what SLAAC and privacy addresses
 * rotate within: counting whole IPv6 addresses would give one client 2^64 windows. IPv4
 * written inside IPv6 (`::ffff:a.b.c.d`) counts as that IPv4 address.
 */
export function addressKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = ipv6Groups(address.replace(/%.*$/, ''));
  if (!groups) return address;
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail read). */
function ipv6Groups(address: string): number[] | null {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const start = parse(head);
  const end = tail === undefined ? [] : parse(tail);
  const groups = tail === undefined ? start : [...start, ...new Array<number>(8 - start.length - end.length).fill(0), ...end];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}
