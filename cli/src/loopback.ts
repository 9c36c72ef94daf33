/**
 * The loopback redirect of a native client (RFC 8252 §7.3): an HTTP server on 127.0.0.1 and a
 * port the system picks, for the browser to come back to once the organization's sign-in is done.
 *
 * The service sends the browser to `http://127.0.0.1:<port>/callback#code=hlx_…`: the one-time
 * code is in the fragment, which a browser never sends to a server. So the first GET is answered
 * with a small page whose script reads the fragment, removes it from the address bar, and posts
 * the code back to this server (JSON, with a token only that page holds), then shows what came
 * of it. A post is taken only from the page itself: the Host and Origin must be this server's
 * (not another site's page, not a DNS rebinding), the body JSON (so a cross-site form cannot send
 * it), the token the page's, and the code of the service's form. The first such code is the one:
 * any later post is refused. The code alone is of no use to whoever sees it (the service binds
 * it to the CLI's PKCE verifier), and it is never printed.
 */
import { nodeCrypto } from './nodeCrypto.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError, exitCodes } from './errors.ts';
import { currentDirection, currentLanguage, t } from './i18n.ts';

/** What the service's callback hands over: `hlx_` and 256 bits, base64url. */
export const oneTimeCodePattern = /^hlx_[A-Za-z0-9_-]{43}$/;
const callbackPath = '/callback';
/** The page's post is a code and a token: anything longer is not it. */
const bodyLimit = 1024;
/** How long the page's post waits for the terminal's outcome before it is told to look there. */
const outcomeWaitMs = 30_000;

export interface Outcome {
  ok: boolean;
  /** Shown on the page: one sentence, never the code or a token. */
  message: string;
}

export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port>/callback`: the `loopback` of the sign-in's start. */
  readonly url: string;
  /** The code the page posts, once; rejects when `signal` fires or after `timeoutMs`. */
  code(options: { signal: AbortSignal; timeoutMs: number }): Promise<string>;
  /** Answers the page's post with how the sign-in ended (it waits for this). */
  finish(outcome: Outcome): Promise<void>;
  close(): Promise<void>;
}

export async function listenOnLoopback(): Promise<LoopbackRedirect> {
  // Loaded when signing in, not with the program: node:http costs every `hushlink --help` its start-up.
  const { createServer } = await import('node:http');
  const pageToken = nodeCrypto().randomBytes(24).toString('base64url');
  const nonce = nodeCrypto().randomBytes(16).toString('base64url');
  let origin = '';
  let taken = false;
  let deliver: (code: string) => void = () => undefined;
  const delivered = new Promise<string>((resolve) => {
    deliver = resolve;
  });
  let pending: ServerResponse | undefined;
  let pendingTimer: NodeJS.Timeout | undefined;

  const reply = (response: ServerResponse, status: number, outcome: Outcome): Promise<void> =>
    new Promise((resolve) => {
      if (response.writableEnded || response.destroyed) return resolve();
      response.once('close', () => resolve());
      response.writeHead(status, { ...commonHeaders, 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      response.end(JSON.stringify(outcome), () => resolve());
    });

  const server = createServer((request, response) => {
    response.on('error', () => undefined);
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, commonHeaders);
      response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Only this address: a page of another site whose name was pointed here (DNS rebinding) has its own Host.
    if (request.headers.host !== new URL(origin).host) return plain(response, 400, t('cli.loopback.badRequest'));
    const path = (request.url ?? '').split('?')[0];
    if (path !== callbackPath) return plain(response, 404, t('cli.loopback.notFound'));
    if (request.method === 'GET') return page(response, pageToken, nonce);
    if (request.method !== 'POST') {
      response.setHeader('allow', 'GET, POST');
      return plain(response, 405, t('cli.loopback.methodNotAllowed'));
    }
    const refuse = (status: number, message: string) => reply(response, status, { ok: false, message });
    // Browsers send Origin with every POST: only this server's own page may post.
    if (request.headers.origin !== origin) return refuse(403, t('cli.loopback.notThisPage'));
    if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return refuse(415, t('cli.loopback.json'));
    const body = await readBody(request);
    let posted: { code?: unknown; token?: unknown } | undefined;
    try {
      posted = body === undefined ? undefined : (JSON.parse(body) as typeof posted);
    } catch {
      posted = undefined;
    }
    if (typeof posted?.token !== 'string' || !sameText(posted.token, pageToken)) return refuse(403, t('cli.loopback.notThisPage'));
    if (typeof posted.code !== 'string' || !oneTimeCodePattern.test(posted.code)) return refuse(400, t('cli.loopback.noCode'));
    if (taken) return refuse(409, t('cli.loopback.alreadyHanded'));
    taken = true;
    pending = response;
    // Should the terminal never answer, the page is not left waiting.
    pendingTimer = setTimeout(() => {
      pending = undefined;
      void reply(response, 200, { ok: true, message: t('cli.loopback.handed') });
    }, outcomeWaitMs);
    deliver(posted.code);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${origin}${callbackPath}`,
    code: ({ signal, timeoutMs }) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new CliError(exitCodes.refused, 'sso_timeout', t('cli.loopback.timeout', { minutes: Math.round(timeoutMs / 60_000) }))),
          timeoutMs,
        );
        const onAbort = () => {
          clearTimeout(timer);
          reject(signal.reason instanceof Error ? signal.reason : new DOMException('Interrupted', 'AbortError'));
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        void delivered.then((code) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(code);
        });
      }),
    finish: async (outcome) => {
      clearTimeout(pendingTimer);
      const response = pending;
      pending = undefined;
      if (response) await reply(response, outcome.ok ? 200 : 401, outcome);
    },
    close: async () => {
      clearTimeout(pendingTimer);
      const response = pending;
      pending = undefined;
      if (response) await reply(response, 503, { ok: false, message: t('cli.loopback.stopped') });
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

const commonHeaders = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
} as const;

function plain(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { ...commonHeaders, 'content-type': 'text/plain; charset=utf-8' });
  response.end(`${text}\n`);
}

/** The request's body as text, or undefined when it is longer than a page's post. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > bodyLimit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A text as HTML: the catalogues' messages are plain text. */
const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** A text as a script's string literal: JSON, with `<` escaped so no `</script>` can end the script. */
const script = (text: string) => JSON.stringify(text).replace(/</g, '\\u003c');

const sameText = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && nodeCrypto().timingSafeEqual(a, b);
};

/**
 * The page the browser lands on. Its script and style run by nonce alone (no other script, no
 * frame, no form, requests to this server only); it takes the code from the fragment, removes the
 * fragment from the address and the history, and posts the code with the page's token.
 */
function page(response: ServerResponse, token: string, nonce: string): void {
  response.writeHead(200, {
    ...commonHeaders,
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  });
  response.end(`<!doctype html>
<html lang="${currentLanguage()}"${currentDirection() === 'rtl' ? ' dir="rtl"' : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(t('cli.loopback.pageTitle'))}</title>
<style nonce="${nonce}">
body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem; color: #1b1b1b; }
h1 { font-size: 1.25rem; }
.failed { color: #a11; }
</style>
</head>
<body>
<h1>${html(t('cli.loopback.pageHeading'))}</h1>
<p id="message">${html(t('cli.loopback.pageHanding'))}</p>
<noscript><p>${html(t('cli.loopback.pageNoScript'))}</p></noscript>
<script nonce="${nonce}">
(() => {
  const message = document.getElementById('message');
  const say = (text, ok) => { message.textContent = text; message.className = ok ? '' : 'failed'; };
  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  history.replaceState(null, '', location.pathname);
  if (!code) { say(${script(t('cli.loopback.pageNoCode'))}, false); return; }
  fetch(${JSON.stringify(callbackPath)}, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, token: ${JSON.stringify(token)} }),
  })
    .then((answer) => answer.json())
    .then((outcome) => say(outcome.message, outcome.ok))
    .catch(() => say(${script(t('cli.loopback.pageUnreachable'))}, false));
})();
</script>
</body>
</html>
`);
}
