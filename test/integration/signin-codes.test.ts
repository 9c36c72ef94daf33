import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../functions/account.ts';
import type { Runtime } from '../../local/runtime.ts';
import { signInLimits } from '../../shared/limits.ts';
import { callFrom, latestCode, mailsTo, newEmail } from '../support/accounts.ts';
import { startTestRuntime, type Reply } from '../support/runtime.ts';

/**
 * Guessing and lockout of sign-in codes (issue 11, items 1 and 2). Each source is a loopback
 * address of its own (127.0.x.y): the local gateway takes the caller's address from the
 * socket, as API Gateway does, so these are distinct callers all the way through. IPv6
 * networks, which the loopback cannot offer, are given to the account handler in its event.
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
  return `127.0.${Math.floor(sources / 250) + 1}.${(sources % 250) + 1}`;
};

const start = (source: string, email: string) => callFrom(runtime, source, 'POST', '/v1/auth/otp/start', { email });
const resend = (source: string, email: string) => callFrom(runtime, source, 'POST', '/v1/auth/otp/resend', { email });
const verify = (source: string, email: string, code: string) => callFrom(runtime, source, 'POST', '/v1/auth/otp/verify', { email, code });
/** A code that is not `code` (the `n`th after it). */
const wrongCode = (code: string, n = 1) => String((Number(code) + n) % 100_000_000).padStart(8, '0');
const tagged = (email: string, tag: string) => email.replace('@', `+${tag}@`);
const statusesOf = (replies: Reply[]) => replies.map((reply) => reply.status);
const count = (statuses: number[], status: number) => statuses.filter((each) => each === status).length;

const hourMs = 3_600_000;
/** Just after the start of an hour: every window (10 minutes, an hour) starts afresh there. */
function atHourStart(): void {
  runtime.clock.advance((hourMs - (runtime.clock.now() % hourMs)) / 1000 + 1);
}

function expectLimited(reply: Reply, upTo: number): number {
  expect(reply.status, JSON.stringify(reply.body)).toBe(429);
  expect(reply.body).toMatchObject({ status: 429, code: 'rate_limited' });
  const retryAfter = Number(reply.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(upTo);
  return retryAfter;
}

const { limit: perAddress } = signInLimits.guessesPerAddress;
const [perSourceShort, perSourceHour] = signInLimits.guessesPerSource;

describe('guessing a chosen address’s code', () => {
  it(`meets at most ${perAddress} guesses an hour from any number of sources; beyond, everyone gets 429, the right code too`, async () => {
    atHourStart();
    const email = newEmail('target');
    expect((await start(freshSource(), email)).status).toBe(200);
    const code = latestCode(runtime, email)!;
    // Ten sources, each guessing as much as its own 10 minutes allow.
    const statuses: number[] = [];
    for (let source = 0; source < 10; source++) {
      const from = freshSource();
      for (let guess = 0; guess < perSourceShort.limit; guess++)
        statuses.push((await verify(from, email, wrongCode(code, 1 + statuses.length))).status);
    }
    expect(count(statuses, 401)).toBe(perAddress);
    expect(count(statuses, 429)).toBe(10 * perSourceShort.limit - perAddress);
    // The right code is not compared any more this hour, from wherever it comes.
    const retryAfter = expectLimited(await verify(freshSource(), email, code), 3600);
    runtime.clock.advance(retryAfter);
    const victim = freshSource();
    expect((await start(victim, email)).status).toBe(200);
    expect((await verify(victim, email, latestCode(runtime, email)!)).status).toBe(200);
  });

  it('60 wrong guesses at once from 12 sources: exactly the address’s budget is compared, none past it', async () => {
    atHourStart();
    const email = newEmail('parallel');
    expect((await start(freshSource(), email)).status).toBe(200);
    const code = latestCode(runtime, email)!;
    const from = Array.from({ length: 12 }, freshSource);
    const statuses = statusesOf(
      await Promise.all(Array.from({ length: 60 }, (_, i) => verify(from[i % 12]!, email, wrongCode(code, 1 + i)))),
    );
    expect(count(statuses, 401)).toBe(perAddress);
    expect(count(statuses, 429)).toBe(60 - perAddress);
  });

  it('20 wrong guesses at once from one source: exactly its 10-minute budget is compared', async () => {
    atHourStart();
    const email = newEmail('one-source');
    const source = freshSource();
    expect((await start(source, email)).status).toBe(200);
    const code = latestCode(runtime, email)!;
    const statuses = statusesOf(await Promise.all(Array.from({ length: 20 }, (_, i) => verify(source, email, wrongCode(code, 1 + i)))));
    expect(count(statuses, 401)).toBe(perSourceShort.limit);
    expect(count(statuses, 429)).toBe(20 - perSourceShort.limit);
    // Another source still has its own tries, and the code.
    expect((await verify(freshSource(), email, code)).status).toBe(200);
  });
});

describe('keeping a person from signing in', () => {
  it('one source that asked and guessed all it may leaves the victim, elsewhere, signing in at once', async () => {
    atHourStart();
    const email = newEmail('victim');
    const attacker = freshSource();
    const starts = statusesOf(await Promise.all(Array.from({ length: 5 }, () => start(attacker, email))));
    expect(count(starts, 200)).toBe(signInLimits.codesPerSource.limit);
    expect(count(starts, 429)).toBe(5 - signInLimits.codesPerSource.limit);
    expectLimited(await resend(attacker, email), 3600);
    const guesses = statusesOf(await Promise.all(Array.from({ length: 8 }, (_, i) => verify(attacker, email, String(i).padStart(8, '0')))));
    expect(count(guesses, 401)).toBe(perSourceShort.limit);
    expect(mailsTo(runtime, email)).toHaveLength(signInLimits.liveCodesPerAddress);

    // The victim asks from its own address: the answer is the usual one, and the codes in the
    // mailbox (three, all live) sign in. None of the attacker's calls cancelled any of them.
    const victim = freshSource();
    const started = await start(victim, email);
    expect(started.status).toBe(200);
    expect(started.body).toEqual({ sent: true });
    const signedIn = await verify(victim, email, latestCode(runtime, email)!);
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.body.user.email).toBe(email);
  });

  it(`one source guessing all hour is refused past ${perSourceHour.limit}: the address keeps the rest of its budget`, async () => {
    atHourStart();
    const email = newEmail('hour-long');
    const attacker = freshSource();
    const statuses: number[] = [];
    for (let window = 0; window < 6; window++) {
      for (let guess = 0; guess < perSourceShort.limit; guess++)
        statuses.push((await verify(attacker, email, String(statuses.length).padStart(8, '0'))).status);
      if (window < 5) runtime.clock.advance(perSourceShort.windowSeconds);
    }
    expect(count(statuses, 401)).toBe(perSourceHour.limit);
    // Still inside the same hour (50 minutes in): the victim signs in from elsewhere.
    const victim = freshSource();
    expect((await start(victim, email)).status).toBe(200);
    expect((await verify(victim, email, latestCode(runtime, email)!)).status).toBe(200);
  });

  it('a start never cancels a code already sent: later starts and resends, from anywhere, leave every live code working', async () => {
    atHourStart();
    const email = newEmail('first-code');
    const victim = freshSource();
    expect((await start(victim, email)).status).toBe(200);
    const first = latestCode(runtime, email)!;
    for (let i = 0; i < 4; i++) expect((await start(freshSource(), email)).status).toBe(200);
    expect((await resend(freshSource(), email)).status).toBe(200);
    // Three live codes; the calls beyond them mailed nothing and answered as usual.
    const codes = mailsTo(runtime, email).map((mail) => /\b(\d{8})\b/.exec(mail.text)![1]!);
    expect(codes).toHaveLength(signInLimits.liveCodesPerAddress);
    expect(codes.at(-1)).toBe(first);
    expect((await verify(victim, email, first)).status).toBe(200);
    for (const code of codes.slice(0, -1)) expect((await verify(victim, email, code)).status).toBe(200);
  });

  it('codes expire after 10 minutes, and then a start mails a new one', async () => {
    atHourStart();
    const email = newEmail('expiry');
    for (let i = 0; i < 3; i++) expect((await start(freshSource(), email)).status).toBe(200);
    const old = latestCode(runtime, email)!;
    runtime.clock.advance(signInLimits.codeSeconds);
    const source = freshSource();
    expect((await verify(source, email, old)).status).toBe(401);
    expect((await start(source, email)).status).toBe(200);
    expect(mailsTo(runtime, email)).toHaveLength(4);
    expect((await verify(source, email, latestCode(runtime, email)!)).status).toBe(200);
  });
});

describe('+tag variants', () => {
  it('share one source’s mail cap and guess budget, and the address’s budget', async () => {
    atHourStart();
    const base = newEmail('tagged');
    const source = freshSource();
    const variants = ['a', 'b', 'c'].map((tag) => tagged(base, tag));
    for (const variant of variants) expect((await start(source, variant)).status).toBe(200);
    for (const another of [base, tagged(base, 'd'), tagged(base, 'E').toUpperCase()]) expectLimited(await start(source, another), 3600);

    const guesser = freshSource();
    for (let i = 0; i < perSourceShort.limit; i++) expect((await verify(guesser, tagged(base, `g${i}`), '00000000')).status).toBe(401);
    expectLimited(await verify(guesser, base, '00000000'), 600);

    // The address's budget, spent across variants by other sources, holds for all of them.
    let spent = perSourceShort.limit;
    while (spent < perAddress) {
      const from = freshSource();
      for (let i = 0; i < perSourceShort.limit && spent < perAddress; i++, spent++)
        expect((await verify(from, tagged(base, `x${spent}`), '00000000')).status).toBe(401);
    }
    expectLimited(await verify(freshSource(), variants[1]!, latestCode(runtime, variants[1]!)!), 3600);
  });

  it('keep their own codes and accounts: a code for ana+x@ signs in ana+x@, not ana@', async () => {
    atHourStart();
    const base = newEmail('own');
    const variant = tagged(base, 'x');
    const source = freshSource();
    expect((await start(source, variant)).status).toBe(200);
    const code = latestCode(runtime, variant)!;
    expect(mailsTo(runtime, base)).toEqual([]);
    expect((await verify(source, base, code)).status).toBe(401);
    const signedIn = await verify(source, variant, code);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.email).toBe(variant);
  });
});

describe('otp/resend', () => {
  it('answers the same whether or not someone else asked for the address in the last minute, or a code is pending', async () => {
    atHourStart();
    const asked = newEmail('asked');
    const quiet = newEmail('quiet');
    expect((await start(freshSource(), asked)).status).toBe(200);
    const source = freshSource();
    const [forAsked, forQuiet] = [await resend(source, asked), await resend(source, quiet)];
    const headerNames = (reply: Reply) =>
      [...reply.headers.keys()].filter((name) => !['date', 'x-request-id', 'content-length'].includes(name)).sort();
    for (const reply of [forAsked, forQuiet]) {
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ sent: true });
    }
    expect(headerNames(forAsked)).toEqual(headerNames(forQuiet));
    // Each was sent a code by this resend, pending or not.
    expect(mailsTo(runtime, asked)).toHaveLength(2);
    expect(mailsTo(runtime, quiet)).toHaveLength(1);
    // Only this source's own asking counts: asking again at once is 429, for both alike.
    for (const email of [asked, quiet]) expectLimited(await resend(source, email), signInLimits.resendCooldownSeconds);
    expect((await resend(freshSource(), asked)).status).toBe(200);
  });

  it('counts this source’s start in its cooldown, and its +tag variants with it', async () => {
    atHourStart();
    const email = newEmail('cooldown');
    const source = freshSource();
    expect((await start(source, email)).status).toBe(200);
    expectLimited(await resend(source, tagged(email, 'other')), signInLimits.resendCooldownSeconds);
    runtime.clock.advance(signInLimits.resendCooldownSeconds);
    expect((await resend(source, email)).status).toBe(200);
  });
});

describe('IPv6 sources', () => {
  /** The account function as API Gateway calls it, with the caller's address in the event. */
  async function invoke(sourceIp: string, path: string, json: unknown): Promise<{ status: number; body: any }> {
    const handler = createHandler(runtime.functions.account);
    const now = runtime.clock.now();
    const result = await handler(
      {
        version: '2.0',
        routeKey: `POST ${path}`,
        rawPath: path,
        rawQueryString: '',
        headers: { 'content-type': 'application/json' },
        requestContext: {
          accountId: '000000000000',
          apiId: 'local',
          domainName: 'localhost',
          domainPrefix: 'localhost',
          http: { method: 'POST', path, protocol: 'HTTP/1.1', sourceIp, userAgent: 'test' },
          requestId: `req-${now}-${Math.random()}`,
          routeKey: `POST ${path}`,
          stage: '$default',
          time: new Date(now).toUTCString(),
          timeEpoch: now,
        },
        body: JSON.stringify(json),
        isBase64Encoded: false,
      },
      { functionName: 'account', awsRequestId: 'local', getRemainingTimeInMillis: () => 10_000 } as unknown as Context,
    );
    return { status: result.statusCode ?? 0, body: result.body ? JSON.parse(result.body) : undefined };
  }

  it('count one /64 as one source: its addresses share a budget, another /64 has its own', async () => {
    atHourStart();
    const email = newEmail('ipv6');
    expect((await invoke('2001:db8:1:2::10', '/v1/auth/otp/start', { email })).status).toBe(200);
    const code = latestCode(runtime, email)!;
    const guesses = [];
    for (let i = 0; i < perSourceShort.limit + 1; i++) {
      guesses.push(
        (await invoke(`2001:db8:1:2:${(i + 1).toString(16)}::${i}`, '/v1/auth/otp/verify', { email, code: wrongCode(code, 1 + i) })).status,
      );
    }
    expect(guesses).toEqual([...Array(perSourceShort.limit).fill(401), 429]);
    expect((await invoke('2001:db8:1:3::1', '/v1/auth/otp/verify', { email, code })).status).toBe(200);
  });
});
