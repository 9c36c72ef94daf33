import type { IncomingMessage, ServerResponse } from 'node:http';
import { webHeaders } from '../shared/http/webHeaders.ts';
import { assetPathFor, type WebAsset } from '../web/build.ts';

/**
 * Serves the web client built by `web/build.ts`; false when no asset answers the path.
 * `filesOrigin` is the local S3's, which the pages' CSP lets them reach.
 */
export function serveWeb(assets: Map<string, WebAsset>, request: IncomingMessage, response: ServerResponse, filesOrigin: string): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
  const asset = assets.get(assetPathFor(pathname));
  if (!asset) return false;
  response.writeHead(200, { ...webHeaders(filesOrigin), 'content-type': asset.contentType, 'content-length': asset.body.length });
  response.end(request.method === 'HEAD' ? undefined : asset.body);
  return true;
}
