import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRuntime, type Runtime } from '../../local/runtime.ts';
import { maxRequestBodyBytes, type RateLimits } from '../../shared/limits.ts';
import { bearer, jwtHeader, jwtPayload, newEmail, signIn } from '../support/accounts.ts';
import { apiClient, generousRateLimits, type Reply, startTestRuntime, textSecretBody } from '../support/runtime.ts';
import { expectProblem } from '../support/problem.ts';
import { openApiDocument } from '../../shared/api/document.ts';

const windowSeconds = 60;
const rateLimits: RateLimits = {
  ...generousRateLimits,
  secret_create: { perIp: { limit: 3, windowSeconds } },
  secret_claim: { perIp: { limit: 2, windowSeconds } },
};

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({ rateLimits });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

/**
 * Moves the clock to the start of a fresh rate window, so each test has the whole budget and
 * nearly a minute of real time before the window could roll over under it.
 */
beforeEach(() => {
  const nowSeconds = Math.floor(runtime.clock.now() / 1000);
  runtime.clock.advance(windowSeconds - (nowSeconds % windowSeconds));
});

const unknownId = () => `sec_${randomBytes(16).toString('base64url')}`;

async function create(overrides: Record<string, unknown> = {}) {
  const reply = await api.post('/v1/secrets', textSecretBody(overrides));
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body as { id: string; delete_token: string };
}

function expectRateLimited(reply: Reply) {
  expectProblem(reply, 429, 'rate_limited');
  const retryAfter = reply.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThan(0);
  expect(Number(retryAfter)).toBeLessThanOrEqual(windowSeconds);
}

/** The headers every API response carries, errors included. */
function expectApiHeaders(reply: Reply, label: string) {
  const header = (name: string) => reply.headers.get(name);
  expect(header('x-request-id'), `${label}: x-request-id`).toMatch(/^\S{8,}$/);
  expect(header('cache-control'), `${label}: cache-control`).toBe('no-store');
  expect(header('x-content-type-options'), `${label}: x-content-type-options`).toBe('nosniff');
  expect(header('referrer-policy'), `${label}: referrer-policy`).toBe('no-referrer');
  expect(header('content-security-policy'), `${label}: content-security-policy`).toContain("frame-ancestors 'none'");
}

describe('rate limits', () => {
  it('refuses the 4th creation in a window with 429 and retry-after, and allows it in the next', async () => {
    for (let i = 0; i < 3; i++) await create();
    const refused = await api.post('/v1/secrets', textSecretBody());
    expectRateLimited(refused);
    expectApiHeaders(refused, '429');

    runtime.clock.advance(windowSeconds);
    await create();
  });

  it('refuses the 3rd claim in a window without consuming a view, and allows it in the next', async () => {
    const { id } = await create({ max_views: 10 });
    for (let i = 0; i < 2; i++) expect((await api.post(`/v1/secrets/${id}/claim`)).status).toBe(200);
    expectRateLimited(await api.post(`/v1/secrets/${id}/claim`));
    expectRateLimited(await api.post(`/v1/secrets/${unknownId()}/claim`));
    // Metadata reads have no rate class.
    expect((await api.get(`/v1/secrets/${id}`)).body.views_left).toBe(8);

    runtime.clock.advance(windowSeconds);
    const claimed = await api.post(`/v1/secrets/${id}/claim`);
    expect(claimed.status).toBe(200);
    expect(claimed.body.views_left).toBe(7);
  });

  it('counts each rate class on its own', async () => {
    const { id } = await create({ max_views: 5 });
    await create();
    await create();
    expectRateLimited(await api.post('/v1/secrets', textSecretBody()));
    expect((await api.post(`/v1/secrets/${id}/claim`)).status).toBe(200);
  });

  it('counts refused creations too, so invalid bodies cannot probe without limit', async () => {
    for (let i = 0; i < 3; i++) expectProblem(await api.post('/v1/secrets', { kind: 'text' }), 400, 'invalid_request');
    expectRateLimited(await api.post('/v1/secrets', textSecretBody()));
  });
});

describe('response headers', () => {
  it('puts request id, no-store and the security headers on every answer of the functions', async () => {
    const { id, delete_token } = await create({ max_views: 2 });
    const replies: Array<[string, Reply]> = [
      ['201 create', await api.post('/v1/secrets', textSecretBody())],
      ['200 metadata', await api.get(`/v1/secrets/${id}`)],
      ['200 claim', await api.post(`/v1/secrets/${id}/claim`)],
      ['204 delete', await api.delete(`/v1/secrets/${id}`, { 'x-delete-token': delete_token })],
      ['410 claim', await api.post(`/v1/secrets/${id}/claim`)],
      ['400 create', await api.post('/v1/secrets', {})],
      ['403 delete', await api.delete(`/v1/secrets/${id}`, { 'x-delete-token': 'wrong' })],
      ['404 metadata', await api.get(`/v1/secrets/${unknownId()}`)],
    ];
    expect(replies.map(([, reply]) => reply.status)).toEqual([201, 200, 200, 204, 410, 400, 403, 404]);
    for (const [label, reply] of replies) expectApiHeaders(reply, label);
    const ids = replies.map(([, reply]) => reply.headers.get('x-request-id'));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('puts the request id in problem bodies too', async () => {
    const reply = await api.get(`/v1/secrets/${unknownId()}`);
    expect(reply.body.request_id).toBe(reply.headers.get('x-request-id'));
  });

  it('puts the same headers, and CORS for the web origin, on answers of the gateway itself', async () => {
    const origin = { origin: runtime.url };
    const tooLarge = Buffer.alloc(maxRequestBodyBytes + 1, 0x20);
    const replies: Array<[string, Reply]> = [
      ['404 unknown path', await api.get('/v1/nothing-here', origin)],
      ['404 wrong method', await api.call('PUT', `/v1/secrets/${unknownId()}`, { headers: origin })],
      [
        '413 too large',
        await api.call('POST', '/v1/secrets', { body: tooLarge, headers: { ...origin, 'content-type': 'application/json' } }),
      ],
    ];
    expect(replies.map(([, reply]) => reply.status)).toEqual([404, 404, 413]);
    for (const [label, reply] of replies) {
      expectApiHeaders(reply, label);
      // Without it the web client cannot read why its request was refused.
      expect(reply.headers.get('access-control-allow-origin'), `${label}: access-control-allow-origin`).toBe(runtime.url);
    }
  });
});

describe('CORS', () => {
  it('allows the web origin, exposing request id and retry-after', async () => {
    const reply = await api.get(`/v1/secrets/${unknownId()}`, { origin: runtime.url });
    expect(reply.headers.get('access-control-allow-origin')).toBe(runtime.url);
    expect(reply.headers.get('access-control-expose-headers')).toMatch(/x-request-id.*retry-after|retry-after.*x-request-id/);
    expect(reply.headers.get('vary')).toMatch(/origin/i);

    const created = await api.post('/v1/secrets', textSecretBody(), { origin: runtime.url });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(runtime.url);
  });

  it('gives a foreign origin no CORS headers', async () => {
    const reply = await api.get(`/v1/secrets/${unknownId()}`, { origin: 'https://evil.example' });
    expect(reply.status).toBe(404);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    expect(reply.headers.get('access-control-expose-headers')).toBeNull();
  });

  it('answers a preflight from the web origin with 204 and the allowed methods and headers', async () => {
    const reply = await api.call('OPTIONS', `/v1/secrets/${unknownId()}`, {
      headers: { origin: runtime.url, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'x-delete-token' },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe(runtime.url);
    expect(reply.headers.get('access-control-allow-methods')?.split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST', 'DELETE']));
    expect(reply.headers.get('access-control-allow-headers')?.split(/,\s*/)).toEqual(
      expect.arrayContaining(['content-type', 'x-delete-token']),
    );
    expect(Number(reply.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  it('answers a preflight from a foreign origin without allowing it', async () => {
    const reply = await api.call('OPTIONS', '/v1/secrets', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    expect(reply.headers.get('access-control-allow-methods')).toBeNull();
  });
});

describe('gateway', () => {
  it('answers 404 problem+json for an unknown path under /v1', async () => {
    expectProblem(await api.get('/v1/nothing-here'), 404, 'not_found');
    expectProblem(await api.post(`/v1/secrets/${unknownId()}/claim/extra`), 404, 'not_found');
    expectProblem(await api.get('/v1/secrets/'), 404, 'not_found');
  });

  it('answers 404 problem+json for a wrong method on a known path', async () => {
    expectProblem(await api.call('PUT', `/v1/secrets/${unknownId()}`), 404, 'not_found');
    expectProblem(await api.get(`/v1/secrets/${unknownId()}/claim`), 404, 'not_found');
    expectProblem(await api.call('PATCH', '/v1/secrets'), 404, 'not_found');
  });

  it('answers 413 for a body over 10 MiB, declared or streamed', async () => {
    const tooLarge = Buffer.alloc(maxRequestBodyBytes + 1, 0x20);
    const declared = await api.call('POST', '/v1/secrets', { body: tooLarge, headers: { 'content-type': 'application/json' } });
    expectProblem(declared, 413, 'payload_too_large');

    const chunks = [tooLarge.subarray(0, maxRequestBodyBytes / 2), tooLarge.subarray(maxRequestBodyBytes / 2)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const streamed = await fetch(`${runtime.url}/v1/secrets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ code: 'payload_too_large' });
  });

  it('passes a body of exactly 10 MiB on to the function', async () => {
    const reply = await api.call('POST', '/v1/secrets', {
      body: Buffer.alloc(maxRequestBodyBytes, 0x20),
      headers: { 'content-type': 'application/json' },
    });
    // Whitespace only: the function, not the gateway, refuses it.
    expectProblem(reply, 400, 'invalid_json');
  });
});

describe('start-up abandoned', () => {
  it('stops every emulator it started, also one that finished starting after another had failed', async () => {
    // s3rver's temporary folder is made as it starts and removed as it stops: in a folder of this test's own.
    const tmp = mkdtempSync(join(tmpdir(), 'hushlink-abandon-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const abandon = new AbortController();
      const starting = startRuntime({ port: 0, signal: abandon.signal });
      // DynamoDB Local refuses at once (before Java), while s3rver is still starting.
      abandon.abort();
      await expect(starting).rejects.toThrow();
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      // Assigning undefined would set the text "undefined", and the worker's next files (it keeps its process) would write there.
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('/_dev/mail', () => {
  it('lists the local outbox as JSON, newest first', async () => {
    const empty = await api.get('/_dev/mail');
    expect(empty.status).toBe(200);
    expect(empty.headers.get('content-type')).toMatch(/^application\/json/);
    expect(empty.body).toEqual([]);

    await runtime.outbox.send({ to: 'ada@example.com', subject: 'Your code', text: 'Code: 123456' });
    runtime.clock.advance(5);
    await runtime.outbox.send({ to: 'bob@example.com', subject: 'Your link', text: 'Open it' });

    const listed = await api.get('/_dev/mail');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      { from: 'no-reply@hushlink.local', to: 'bob@example.com', subject: 'Your link', text: 'Open it', sent_at: expect.any(String) },
      { from: 'no-reply@hushlink.local', to: 'ada@example.com', subject: 'Your code', text: 'Code: 123456', sent_at: expect.any(String) },
    ]);
    expect(Date.parse(listed.body[0].sent_at) - Date.parse(listed.body[1].sent_at)).toBeGreaterThanOrEqual(5000);
  });

  it('answers only a loopback Host: a page rebinding its own name to 127.0.0.1 gets the 404 of an unknown path', async () => {
    await runtime.outbox.send({ to: 'ada@example.com', subject: 'Your code', text: 'Code: 123456' });
    for (const host of ['localhost', `localhost:${runtime.port}`, `127.0.0.1:${runtime.port}`, `[::1]:${runtime.port}`, 'LOCALHOST']) {
      const reply = await withHost(host, '/_dev/mail');
      expect(reply.status, host).toBe(200);
      expect(reply.body, host).toContain('123456');
    }
    for (const host of [
      `rebind.attacker.example:${runtime.port}`,
      'localhost.attacker.example',
      '127.0.0.1.nip.io',
      `localhost:${runtime.port}@attacker.example`,
      '',
    ]) {
      const reply = await withHost(host, '/_dev/mail');
      expect(reply.status, host).toBe(404);
      expect(reply.headers['content-type'], host).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(reply.body), host).toMatchObject({ code: 'not_found' });
      expect(reply.body, host).not.toContain('123456');
    }
  });
});

/** A GET with the `Host` header given (fetch does not let a caller set it). */
function withHost(host: string, path: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: runtime.port, path, headers: { host }, setHost: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

describe('access tokens', () => {
  it('are refused without exp (401), however well signed', async () => {
    const session = await signIn(runtime, newEmail('no-exp'));
    const { sub, sid, iss, aud } = jwtPayload(session.access_token) as Record<string, string>;
    const key = (await runtime.stores.signingKeys.list()).find((candidate) => candidate.kid === jwtHeader(session.access_token).kid)!;
    const sign = async (exp?: number) => {
      const token = new SignJWT({ sid })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
        .setSubject(sub!)
        .setIssuer(iss!)
        .setAudience(aud!);
      return (exp === undefined ? token : token.setExpirationTime(exp)).sign(await importJWK(key.privateJwk, 'ES256'));
    };
    // The same token with an expiry is good: only the missing exp is refused.
    expect((await api.get('/v1/webhooks', bearer(await sign(Math.floor(runtime.clock.now() / 1000) + 900)))).status).toBe(200);
    expect((await api.get('/v1/webhooks', bearer(await sign()))).status).toBe(401);
  });
});

describe('GET /v1/openapi.json', () => {
  it('serves the document made from the route table, for this origin, cacheable for an hour', async () => {
    const reply = await api.get('/v1/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.headers.get('cache-control')).toBe('public, max-age=3600');
    // The other headers every API response carries stay.
    expect(reply.headers.get('x-request-id')).toMatch(/^\S{8,}$/);
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(reply.body).toEqual(JSON.parse(JSON.stringify(openApiDocument(runtime.url))));
    expect(reply.body.servers).toEqual([{ url: runtime.url }]);
    // Needs no credential; one sent is not read.
    expect((await api.get('/v1/openapi.json', { authorization: 'Bearer nonsense' })).status).toBe(200);
  });

  it('leaves every other response uncacheable', async () => {
    expect((await api.get('/v1/regions')).headers.get('cache-control')).toBe('no-store');
    expect((await api.get(`/v1/secrets/sec_${randomBytes(16).toString('base64url')}`)).headers.get('cache-control')).toBe('no-store');
  });
});
