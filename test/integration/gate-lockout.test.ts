import { randomBytes } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../functions/gate.ts';
import type { Runtime } from '../../local/runtime.ts';
import { gateLimits } from '../../shared/limits.ts';
import { callFrom, mailsTo, newEmail } from '../support/accounts.ts';
import { claimPair, linkPair, startTestRuntime, textSecretBody, toFreshWindow, type Reply } from '../support/runtime.ts';

/**
 * A restricted link's gate against someone who holds the link and knows its address (issue 26,
 * item 5): their starts never void the recipient's code, and the caps that refuse them are
 * their own source's. Each source is a loopback address of its own (127.0.x.y): the local
 * gateway takes the caller's address from the socket, as API Gateway does. IPv6 networks, which
 * the loopback cannot offer, are given to the gate handler in its event. The route classes run
 * at the generous test limits, so what answers 429 here is the gate's own caps. What is left
 * here is what needs the runtime: tries and starts at once (the counts' conditions), what a start
 * tells over HTTP, and IPv6 /64s; the caps' and the code's rules one try at a time, with the
 * clock moved: test/usecases/gate.test.ts.
 */

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());

let sources = 0;
/** A loopback address no other test has called from. */
const freshSource = () => {
  sources += 1;
  return `127.0.${Math.floor(sources / 250) + 20}.${(sources % 250) + 1}`;
};

interface Gated {
  id: string;
  link: string;
  email: string;
}

/** A secret with one restricted link, made after `toFreshWindow` so its day is the test's. */
async function gated(): Promise<Gated> {
  // Every window (10 minutes, an hour, a day) starts afresh at a day's start.
  toFreshWindow(runtime.clock, 24 * 3600);
  const email = newEmail('gated');
  const reply = await callFrom(
    runtime,
    freshSource(),
    'POST',
    '/v1/secrets',
    textSecretBody({ recipients: [{ email, restricted: true }], claim_verifier: claimPair().verifier, link_verifier: linkPair().verifier }),
  );
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { id: reply.body.id, link: reply.body.recipients[0].recipient_id, email };
}

const start = (from: string, secret: Gated, email = secret.email) =>
  callFrom(runtime, from, 'POST', `/v1/secrets/${secret.id}/gate/start`, { recipient_id: secret.link, email });
const verify = (from: string, secret: Gated, code: string, email = secret.email) =>
  callFrom(runtime, from, 'POST', `/v1/secrets/${secret.id}/gate/verify`, { recipient_id: secret.link, email, code });
const codesTo = (email: string) => mailsTo(runtime, email).map((mail) => /\b(\d{6})\b/.exec(mail.text)![1]!);
/** A code that is not `code` (the `n`th after it). */
const wrongCode = (code: string, n = 1) => String((Number(code) + n) % 1_000_000).padStart(6, '0');
const statusesOf = (replies: Reply[]) => replies.map((reply) => reply.status);
const count = (statuses: number[], status: number) => statuses.filter((each) => each === status).length;

function expectLimited(reply: Reply, upTo: number): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(429);
  expect(reply.body).toMatchObject({ status: 429, code: 'rate_limited' });
  const retryAfter = Number(reply.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(upTo);
}

const startsPerSource = gateLimits.startsPerSource.limit;
const [triesShort] = gateLimits.triesPerSource;

describe('a stranger with the link and the address', () => {
  it('never voids the recipient’s code: starts from many sources mail nothing while it is live, and it still opens the gate', async () => {
    const secret = await gated();
    const recipient = freshSource();
    expect((await start(recipient, secret)).status).toBe(200);
    const [code] = codesTo(secret.email);
    expect(code).toMatch(/^\d{6}$/);
    // Six strangers, each starting as often as its cap allows, then once more.
    for (let stranger = 0; stranger < 6; stranger++) {
      const from = freshSource();
      const statuses = statusesOf(await Promise.all(Array.from({ length: startsPerSource + 1 }, () => start(from, secret))));
      expect(count(statuses, 200)).toBe(startsPerSource);
      expect(count(statuses, 429)).toBe(1);
    }
    expect(codesTo(secret.email)).toEqual([code]);
    const verified = await verify(recipient, secret, code!);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.gate_token).toMatch(/^hlg_[A-Za-z0-9_-]{43}$/);
  });

  it('10 starts at once from 10 sources store and mail exactly one code', async () => {
    const secret = await gated();
    const statuses = statusesOf(await Promise.all(Array.from({ length: 10 }, () => start(freshSource(), secret))));
    expect(statuses).toEqual(Array(10).fill(200));
    const codes = codesTo(secret.email);
    expect(codes).toHaveLength(1);
    expect((await verify(freshSource(), secret, codes[0]!)).status).toBe(200);
  });

  it('the recipient’s live code works after a stranger spent all of one source’s tries', async () => {
    const secret = await gated();
    const recipient = freshSource();
    expect((await start(recipient, secret)).status).toBe(200);
    const [code] = codesTo(secret.email);
    const stranger = freshSource();
    const statuses = statusesOf(await Promise.all(Array.from({ length: 8 }, (_, i) => verify(stranger, secret, wrongCode(code!, i + 1)))));
    expect(count(statuses, 401)).toBe(triesShort.limit);
    expect(count(statuses, 429)).toBe(8 - triesShort.limit);
    expect((await verify(recipient, secret, code!)).status).toBe(200);
  });
});

describe('the link’s own budget', () => {
  it(`meets at most ${gateLimits.triesPerRecipient.limit} tries a day from every source together: 30 at once from 6 sources`, async () => {
    const secret = await gated();
    expect((await start(freshSource(), secret)).status).toBe(200);
    const [code] = codesTo(secret.email);
    const from = Array.from({ length: 6 }, freshSource);
    const statuses = statusesOf(
      await Promise.all(Array.from({ length: 30 }, (_, i) => verify(from[i % 6]!, secret, wrongCode(code!, i + 1)))),
    );
    expect(count(statuses, 401)).toBe(gateLimits.triesPerRecipient.limit);
    expect(count(statuses, 429)).toBe(30 - gateLimits.triesPerRecipient.limit);
  });
});

describe('what a start tells', () => {
  it('answers the same for the link’s address with or without a live code, and for another address; its cap counts them all', async () => {
    const secret = await gated();
    const source = freshSource();
    const headerNames = (reply: Reply) =>
      [...reply.headers.keys()].filter((name) => !['date', 'x-request-id', 'content-length'].includes(name)).sort();
    const replies = [
      await start(source, secret),
      await start(source, secret),
      await start(source, secret, newEmail('not-them')),
      await start(source, secret, secret.email.toUpperCase()),
    ];
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ sent: true });
      expect(headerNames(reply)).toEqual(headerNames(replies[0]!));
    }
    expect(codesTo(secret.email)).toHaveLength(1);
    // Wrong addresses use this source's starts too, so a 429 says nothing about the address.
    expect((await start(source, secret, newEmail('other'))).status).toBe(200);
    expectLimited(await start(source, secret), 3600);
    expectLimited(await start(source, secret, newEmail('another')), 3600);
  });
});

describe('IPv6 sources', () => {
  /** The gate function as API Gateway calls it, with the caller's address in the event. */
  async function invoke(
    sourceIp: string,
    secret: Gated,
    step: 'start' | 'verify',
    json: Record<string, unknown>,
  ): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
    const handler = createHandler(runtime.functions.gate);
    const path = `/v1/secrets/${secret.id}/gate/${step}`;
    const routeKey = `POST /v1/secrets/{id}/gate/${step}`;
    const now = runtime.clock.now();
    const result = await handler(
      {
        version: '2.0',
        routeKey,
        rawPath: path,
        rawQueryString: '',
        headers: { 'content-type': 'application/json' },
        pathParameters: { id: secret.id },
        requestContext: {
          accountId: '000000000000',
          apiId: 'local',
          domainName: 'localhost',
          domainPrefix: 'localhost',
          http: { method: 'POST', path, protocol: 'HTTP/1.1', sourceIp, userAgent: 'test' },
          requestId: `req-${now}-${randomBytes(4).toString('hex')}`,
          routeKey,
          stage: '$default',
          time: new Date(now).toUTCString(),
          timeEpoch: now,
        },
        body: JSON.stringify({ recipient_id: secret.link, ...json }),
        isBase64Encoded: false,
      },
      { functionName: 'gate', awsRequestId: 'local', getRemainingTimeInMillis: () => 10_000 } as unknown as Context,
    );
    return { status: result.statusCode ?? 0, headers: result.headers ?? {}, body: result.body ? JSON.parse(result.body) : undefined };
  }

  it('count one /64 as one source for starts and tries: its addresses share the caps, another /64 has its own', async () => {
    const secret = await gated();
    const starts = [];
    for (let i = 0; i <= startsPerSource; i++)
      starts.push(await invoke(`2001:db8:7:1:${(i + 1).toString(16)}::${i}`, secret, 'start', { email: secret.email }));
    expect(starts.map((reply) => reply.status)).toEqual([...Array(startsPerSource).fill(200), 429]);
    expect(Number(starts.at(-1)!.headers['retry-after'])).toBeGreaterThan(0);
    const [code] = codesTo(secret.email);
    const tries = [];
    for (let i = 0; i <= triesShort.limit; i++)
      tries.push(
        (await invoke(`2001:db8:7:1::${(i + 100).toString(16)}`, secret, 'verify', { email: secret.email, code: wrongCode(code!, i + 1) }))
          .status,
      );
    expect(tries).toEqual([...Array(triesShort.limit).fill(401), 429]);
    expect((await invoke('2001:db8:7:2::1', secret, 'start', { email: secret.email })).status).toBe(200);
    expect((await invoke('2001:db8:7:2::1', secret, 'verify', { email: secret.email, code: code! })).status).toBe(200);
  });
});
