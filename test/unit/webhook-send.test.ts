import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES, pinnedLookup, postWebhook } from '../../shared/webhooks/send.ts';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP server on 127.0.0.1 whose behaviour each test sets, recording what it was sent. */
let server: Server;
let port: number;
let handle: RequestListener;
let seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      handle(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(() => {
  seen = [];
  // A test that leaves a request hanging must not hold the next one up.
  server.closeAllConnections();
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// hook.invalid can never resolve, so reaching the server at all proves the
// connection went to the pinned address without a DNS lookup.
const hook = (path = '/x') => new URL(`http://hook.invalid:${port}${path}`);
const post = (overrides: Partial<Parameters<typeof postWebhook>[0]> = {}) =>
  postWebhook({ url: hook(), address: '127.0.0.1', family: 4, headers: {}, body: '{}', ...overrides });

describe('postWebhook', () => {
  it('reaches the pinned address and reports a 2xx as ok', async () => {
    handle = (_req, res) => res.writeHead(204).end();
    const result = await post();
    expect(result).toEqual({ ok: true, status: 204, durationMs: expect.any(Number) });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers.host).toBe(`hook.invalid:${port}`);
  });

  it('reports a 500 as not ok, with its status and no error', async () => {
    handle = (_req, res) => res.writeHead(500).end('boom');
    expect(await post()).toEqual({ ok: false, status: 500, durationMs: expect.any(Number) });
  });

  it('does not follow a redirect', async () => {
    handle = (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
    const result = await post();
    expect(result).toMatchObject({ ok: false, status: 302 });
    expect(result.error).toBeUndefined();
    expect(seen.map((request) => request.url)).toEqual(['/x']);
  });

  it('delivers the headers and body exactly as given', async () => {
    handle = (_req, res) => res.writeHead(200).end('thanks');
    const body = JSON.stringify({ type: 'secret.viewed', note: 'héllo ✓' });
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'msg_2b1c',
      'webhook-timestamp': '1767225600',
      'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    };
    expect(await post({ url: hook('/hooks/in?team=7'), headers, body })).toMatchObject({ ok: true, status: 200 });
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/hooks/in?team=7');
    expect(request!.body).toBe(body);
    expect(request!.headers).toMatchObject({ ...headers, 'content-length': String(Buffer.byteLength(body)) });
  });

  it('times out a receiver that never answers, within the deadline', async () => {
    handle = () => {};
    const result = await post({ timeoutMs: 200 });
    expect(result).toEqual({ ok: false, durationMs: expect.any(Number), error: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(190);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('reports a closed port as a refused connection', async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const result = await post({ url: new URL(`http://hook.invalid:${closedPort}/x`) });
    expect(result).toEqual({ ok: false, durationMs: expect.any(Number), error: 'connection_refused' });
  });

  it('stops reading a huge response after a few KiB', async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    let closed!: () => void;
    const serverGaveUp = new Promise<void>((resolve) => (closed = resolve));
    handle = (_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      res.writeHead(200, { 'content-length': String(total) });
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => closed());
      pump();
    };
    const result = await post({ timeoutMs: 5_000 });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.error).toBeUndefined();
    await serverGaveUp;
    // Socket buffers take some, but nowhere near the whole body.
    expect(written).toBeLessThan(total / 4);
    expect(MAX_RESPONSE_BYTES).toBe(4096);
  });

  it('keeps the status of a receiver that stalls mid-body', async () => {
    handle = (_req, res) => {
      res.writeHead(202, { 'content-length': '1000' });
      res.write('partial');
    };
    expect(await post({ timeoutMs: 200 })).toMatchObject({ ok: true, status: 202 });
  });

  it('reports a receiver that does not speak HTTP', async () => {
    const garbage = createTcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://hook.invalid:${(garbage.address() as AddressInfo).port}/x`);
    try {
      expect(await post({ url })).toMatchObject({ ok: false, error: 'bad_response' });
    } finally {
      garbage.close();
    }
  });

  it('returns invalid headers as an error instead of throwing', async () => {
    const result = await post({ headers: { 'x-bad': 'line\r\nInjected: yes' } });
    expect(result).toEqual({ ok: false, durationMs: expect.any(Number), error: 'invalid_header' });
    expect(seen).toHaveLength(0);
  });
});

describe('pinnedLookup', () => {
  it('answers both the single and the all: true form with the checked address', () => {
    const lookup = pinnedLookup('2606:4700::1111', 6);
    const answers: unknown[][] = [];
    lookup('anything.example', {}, (...args) => answers.push(args));
    lookup('anything.example', { all: true }, (...args) => answers.push(args));
    expect(answers).toEqual([
      [null, '2606:4700::1111', 6],
      [null, [{ address: '2606:4700::1111', family: 6 }]],
    ]);
  });
});

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasOpenssl)('postWebhook over TLS', () => {
  it('sends SNI for the URL host and refuses a certificate it cannot verify', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hushlink-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=hook.test',
          '-addext',
          'subjectAltName=DNS:hook.test',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      const names: string[] = [];
      const tls = createHttpsServer(
        {
          key: readFileSync(join(dir, 'key.pem')),
          cert: readFileSync(join(dir, 'cert.pem')),
          SNICallback: (name, callback) => {
            names.push(name);
            callback(null);
          },
        },
        (_req, res) => res.writeHead(200).end(),
      );
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
      const url = new URL(`https://hook.test:${(tls.address() as AddressInfo).port}/x`);
      try {
        const result = await post({ url });
        expect(result).toMatchObject({ ok: false, error: 'tls: depth_zero_self_signed_cert' });
        expect(names).toEqual(['hook.test']);
      } finally {
        tls.closeAllConnections();
        tls.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
