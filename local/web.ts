import type { IncomingMessage, ServerResponse } from 'node:http';
import { webHeaders } from '../shared/http/webHeaders.ts';
import { assetPathFor, notFoundPage, type WebAsset } from '../web/build.ts';

/**
 * Not the web client's: the API's paths (the gateway's, as CloudFront's API behaviours) and the
 * local runtime's `/_dev/` routes. An unknown one keeps the gateway's problem+json 404.
 */
const apiPrefixes = ['/v1/', '/scim/v2/', '/_dev/'];

/**
 * Serves the web client built by `web/build.ts`, and its 404 page (status 404) at any other GET
 * or HEAD path that is not the API's, as CloudFront does; false for what the API answers.
 * `filesOrigin` is the local S3's, which the pages' CSP lets them reach.
 */
export function serveWeb(
  assets: Map<string, WebAsset>,
  request: IncomingMessage,
  response: ServerResponse,
  filesOrigin: string,
  hostServed: (host: string | undefined) => true | Promise<boolean> = () => true,
): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (apiPrefixes.some((prefix) => pathname.startsWith(prefix))) return false;
  const found = assets.get(assetPathFor(pathname));
  const asset = found ?? assets.get(notFoundPage);
  if (!asset) return false;
  const status = found ? 200 : 404;
  const send = () => {
    response.writeHead(status, { ...webHeaders(filesOrigin), 'content-type': asset.contentType, 'content-length': asset.body.length });
    response.end(request.method === 'HEAD' ? undefined : asset.body);
  };
  const served = hostServed(request.headers.host);
  if (served === true) send();
  else {
    served.then(
      (yes) => (yes ? send() : notServedHere(response, filesOrigin)),
      () => notServedHere(response, filesOrigin, 503),
    );
  }
  return true;
}

/**
 * A workspace's hostname whose claim was deleted, or never verified (rule 5): a page that says
 * so, as the API's 404 `unknown_host` does, instead of a client that could open nothing.
 */
function notServedHere(response: ServerResponse, filesOrigin: string, status = 404): void {
  const body = Buffer.from(
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
      '<title>Not served here · Hushlink</title></head><body><main><h1>This address serves no Hushlink links</h1>' +
      (status === 404
        ? '<p>Its domain was removed from the workspace that used it, or was never verified, so links on it no longer open. Ask whoever sent you the link to send it again.</p>'
        : '<p>This address could not be checked just now. Try again in a moment.</p>') +
      '</main></body></html>',
  );
  response.writeHead(status, {
    ...webHeaders(filesOrigin),
    'content-type': 'text/html; charset=utf-8',
    'content-length': body.length,
    'cache-control': 'no-store',
  });
  response.end(body);
}
