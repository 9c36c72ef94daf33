import { throughCloudFront } from './clientAddress.ts';

/**
 * The header CloudFront's viewer-request function sets on API requests to the `Host` the viewer
 * used (lib/web.ts): API Gateway is reached on its own name, so the viewer's would be lost.
 */
export const viewerHostHeader = 'x-hushlink-viewer-host';

/**
 * The host the browser or client asked for: CloudFront's copy when the request proves it came
 * through CloudFront (anyone may send the header to the `execute-api` endpoint), `Host` in a
 * local run (the gateway is the edge), and null otherwise: a direct call to the API's own
 * endpoint, which is this deployment's.
 */
export function viewerHost(headers: Record<string, string | undefined>, originSecret: string | undefined, local: boolean): string | null {
  if (throughCloudFront(headers, originSecret)) return headers[viewerHostHeader] ?? null;
  return local ? (headers.host ?? null) : null;
}
