import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import type { RateLimits } from '../../shared/limits.ts';
import { callFrom, latestCode, mailsTo, newEmail, type SignedIn } from '../support/accounts.ts';
import { apiClient, generousRateLimits, startTestRuntime, textSecretBody, type Reply } from '../support/runtime.ts';

/**
 * Rate limits of the account and report routes, with a window of 2 calls. Each route is called
 * from its own loopback address (the gateway takes the caller's address from the socket), so
 * the per-address windows of different tests never share a count.
 */

const windowSeconds = 600;
const two = { perIp: { limit: 2, windowSeconds } };
const rateLimits: RateLimits = { ...generousRateLimits, otp_start: two, otp_verify: two, adopt: two, report: two, feedback: two };

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({ rateLimits });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

let nextHost = 10;
/** A loopback address no other test has called from. */
const freshAddress = () => `127.0.0.${nextHost++}`;

function expectLimited(reply: Reply) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(429);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reply.body).toMatchObject({ status: 429, code: 'rate_limited' });
  const retryAfter = Number(reply.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

/**
 * Moves the clock to just after the start of a window, unless it is there already: windows are
 * fixed and aligned to the epoch, so calls made across a boundary would count in two windows.
 */
function atWindowStart(): void {
  const windowMs = windowSeconds * 1000;
  const into = runtime.clock.now() % windowMs;
  if (into > 60_000) runtime.clock.advance((windowMs - into) / 1000 + 1);
}

/** Calls three times from one address: two pass with `allowed`, the third is 429. */
async function thirdIsLimited(address: string, call: (address: string, i: number) => Promise<Reply>, allowed: number) {
  atWindowStart();
  for (let i = 0; i < 2; i++) {
    const reply = await call(address, i);
    expect(reply.status, JSON.stringify(reply.body)).toBe(allowed);
  }
  const third = await call(address, 2);
  expectLimited(third);
  return third;
}

describe('rate limits (2 per window)', () => {
  it('otp/start: the third call from an address is 429 and mails nothing; another address is not affected', async () => {
    const address = freshAddress();
    const emails = [newEmail('s'), newEmail('s'), newEmail('s')];
    await thirdIsLimited(address, (from, i) => callFrom(runtime, from, 'POST', '/v1/auth/otp/start', { email: emails[i] }), 200);
    expect(mailsTo(runtime, emails[0]!)).toHaveLength(1);
    expect(mailsTo(runtime, emails[2]!)).toEqual([]);
    expect((await callFrom(runtime, freshAddress(), 'POST', '/v1/auth/otp/start', { email: emails[2] })).status).toBe(200);
    expect(mailsTo(runtime, emails[2]!)).toHaveLength(1);
  });

  it('otp/resend: the third call from an address is 429', async () => {
    const address = freshAddress();
    // A fresh address each time, so no cooldown or cap of an address applies: only the rate limit can refuse.
    const emails = [newEmail('r'), newEmail('r'), newEmail('r')];
    await thirdIsLimited(address, (from, i) => callFrom(runtime, from, 'POST', '/v1/auth/otp/resend', { email: emails[i] }), 200);
  });

  it('otp/start and otp/resend share one window', async () => {
    const address = freshAddress();
    atWindowStart();
    expect((await callFrom(runtime, address, 'POST', '/v1/auth/otp/start', { email: newEmail('m') })).status).toBe(200);
    expect((await callFrom(runtime, address, 'POST', '/v1/auth/otp/resend', { email: newEmail('m') })).status).toBe(200);
    expectLimited(await callFrom(runtime, address, 'POST', '/v1/auth/otp/start', { email: newEmail('m') }));
  });

  it('otp/verify: the third call from an address is 429, even with the right code', async () => {
    // Before the code is sent: moving the clock afterwards could outlive its 10 minutes.
    atWindowStart();
    const email = newEmail('v');
    expect((await callFrom(runtime, freshAddress(), 'POST', '/v1/auth/otp/start', { email })).status).toBe(200);
    const code = latestCode(runtime, email)!;
    const wrong = String((Number(code) + 1) % 100_000_000).padStart(8, '0');
    const address = freshAddress();
    await thirdIsLimited(
      address,
      (from, i) => callFrom(runtime, from, 'POST', '/v1/auth/otp/verify', { email, code: i < 2 ? wrong : code }),
      401,
    );
    // The refused call did not count an attempt: the code still works from elsewhere.
    const elsewhere = await callFrom(runtime, freshAddress(), 'POST', '/v1/auth/otp/verify', { email, code });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
  });

  it('adopt-secrets: the third call is 429', async () => {
    // Sign in from an address of its own, so its start and verify do not count here.
    const signedIn: SignedIn = await signInFrom(freshAddress(), newEmail('a'));
    const address = freshAddress();
    await thirdIsLimited(
      address,
      async (from) => {
        const secret = await api.post('/v1/secrets', textSecretBody());
        return callFrom(
          runtime,
          from,
          'POST',
          '/v1/auth/adopt-secrets',
          { secrets: [{ id: secret.body.id, delete_token: secret.body.delete_token }] },
          signedIn.auth,
        );
      },
      200,
    );
  });

  it('reports: the third call from an address is 429', async () => {
    const secret = await api.post('/v1/secrets', textSecretBody());
    await thirdIsLimited(
      freshAddress(),
      (from) => callFrom(runtime, from, 'POST', '/v1/reports', { secret_id: secret.body.id, reason: 'other' }),
      202,
    );
  });

  it('feedback/reveal: the third call from an address is 429', async () => {
    await thirdIsLimited(
      freshAddress(),
      (from, i) => callFrom(runtime, from, 'POST', '/v1/feedback/reveal', { rating: i % 2 ? 'up' : 'down' }),
      202,
    );
  });

  it('the window ends after retry-after seconds', async () => {
    const address = freshAddress();
    const third = await thirdIsLimited(address, (from) => callFrom(runtime, from, 'POST', '/v1/feedback/reveal', { rating: 'up' }), 202);
    runtime.clock.advance(Number(third.headers.get('retry-after')));
    expect((await callFrom(runtime, address, 'POST', '/v1/feedback/reveal', { rating: 'up' })).status).toBe(202);
  });
});

/** `signIn` over a chosen loopback address. */
async function signInFrom(address: string, email: string): Promise<SignedIn> {
  expect((await callFrom(runtime, address, 'POST', '/v1/auth/otp/start', { email })).status).toBe(200);
  const reply = await callFrom(runtime, address, 'POST', '/v1/auth/otp/verify', { email, code: latestCode(runtime, email) });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { ...reply.body, auth: { authorization: `Bearer ${reply.body.access_token}` } };
}
