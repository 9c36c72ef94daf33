import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** Names a browser or an SDK sends as `Host` for this machine: the emulators and `/_dev/*` answer no other (DNS rebinding). */
export const loopbackHost = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

/** What an emulator reads of one request at most. */
const maxBodyBytes = 1024 * 1024;

/**
 * An emulator's HTTP server on 127.0.0.1 (the Stripe and Slack emulators): bound first, its port
 * known before the emulator's state is built (its pages and events need their own address), 503
 * until `serve` names the listener, 404 to a `Host` that is not this machine's; `close` drops
 * kept-alive connections so a stop never waits.
 */
export async function listenOnLoopback(
  port = 0,
): Promise<{ port: number; origin: string; serve(listener: Listener): void; close(): Promise<void> }> {
  const host = '127.0.0.1';
  let listener: Listener = (_request, response) => {
    response.writeHead(503).end();
  };
  const server = createServer((request, response) => listener(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    origin: `http://${host}:${bound}`,
    serve: (next) => {
      listener = (request, response) => {
        if (!loopbackHost.test(request.headers.host ?? '')) return void response.writeHead(404).end();
        next(request, response);
      };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A request's body as text, or undefined past 1 MiB (the emulators answer 413). */
export async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

const pageStyle =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a2e}form{display:inline-block;margin:.25rem .5rem .25rem 0}.test{background:#fff3cd;padding:.25rem .5rem;border-radius:4px}';

/** An emulator's HTML page: its banner saying nothing real happens, the title, the body (already escaped), strict headers. */
export function sendPage(
  response: ServerResponse,
  status: number,
  page: { title: string; banner: string; style?: string; body: string },
): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  });
  response.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(page.title)}</title>
<style>${pageStyle}${page.style ?? ''}</style>
</head><body><p class="test">${escapeHtml(page.banner)}</p>
<h1>${escapeHtml(page.title)}</h1>
${page.body}
</body></html>`);
}
