import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { defaultRateLimits, signInLimits } from '../../shared/limits.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { bearer, callFrom, latestCode, mailsTo, newEmail } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { generousRateLimits, startTestRuntime, type Reply } from '../support/runtime.ts';

/**
 * The sign-in link mailed with every code (issue 28, item 7; ADR 0167): it opens the web client's
 * `/signin` page with the address and a 256-bit token in the fragment, and the page's button posts
 * them to `POST /v1/auth/otp/link`, which opens the session otp/verify opens. No guess budget holds
 * it back, so a storm of wrong codes that keeps the right code out (429) leaves the link working.
 * Each source is a loopback address of its own (127.0.x.y), as in signin-codes.test.ts.
 */

let runtime: Runtime;
beforeAll(async () => {
  // The link's own class as shipped (every call here but the last test's comes from a source of its own).
  runtime = await startTestRuntime({ rateLimits: { ...generousRateLimits, otp_link: defaultRateLimits.otp_link } });
});
afterAll(() => runtime?.stop());

let sources = 0;
/** A loopback address no other test of this file has called from. */
const freshSource = () => {
  sources += 1;
  return `127.0.${Math.floor(sources / 250) + 1}.${(sources % 250) + 1}`;
};

const start = (email: string, source = freshSource()) => callFrom(runtime, source, 'POST', '/v1/auth/otp/start', { email });
const verify = (email: string, code: string, source = freshSource()) =>
  callFrom(runtime, source, 'POST', '/v1/auth/otp/verify', { email, code });
const useLink = (body: unknown, source = freshSource()) => callFrom(runtime, source, 'POST', '/v1/auth/otp/link', body);

/** The link of the newest mail to `email`: its URL and what its fragment carries. */
function mailedLink(email: string) {
  const text = mailsTo(runtime, email)[0]!.text;
  const url = new URL(/^http:\/\/\S+$/m.exec(text)![0]);
  const fragment = new URLSearchParams(url.hash.slice(1));
  return { url, email: fragment.get('email')!, token: fragment.get('token')! };
}

/** Starts a sign-in and answers the mailed code and link. */
async function mailed(email: string) {
  expect((await start(email)).status).toBe(200);
  return { code: latestCode(runtime, email)!, ...mailedLink(email) };
}

const unknownToken = () => `hls_${randomBytes(32).toString('base64url')}`;
const statusesOf = (replies: Reply[]) => replies.map((reply) => reply.status);
const count = (statuses: number[], status: number) => statuses.filter((each) => each === status).length;
const refusedLink = 'This sign-in link does not work: it has expired, or it or its code was used. Ask for a new code.';

function expectRefusedLink(reply: Reply): void {
  expectProblem(reply, 401, 'unauthorized');
  expect(reply.body.detail).toBe(refusedLink);
  // Nothing tells an unknown token from a used or expired one.
  expect(Object.keys(reply.body).sort()).toEqual(['code', 'detail', 'request_id', 'status', 'title', 'type']);
}

const hourMs = 3_600_000;
/** Just after the start of an hour: every guess window (10 minutes, an hour) starts afresh there. */
function atHourStart(): void {
  runtime.clock.advance((hourMs - (runtime.clock.now() % hourMs)) / 1000 + 1);
}

describe('the sign-in link', () => {
  it('is mailed with the code: /signin on the web origin, the address and a 256-bit token in the fragment only', async () => {
    const email = newEmail('mail');
    const { url, email: linked, token, code } = await mailed(email);
    expect(`${url.origin}${url.pathname}`).toBe(`${runtime.url}/signin`);
    expect(url.search).toBe('');
    expect(linked).toBe(email);
    expect(token).toMatch(/^hls_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32);
    const [mail] = mailsTo(runtime, email);
    expect(mail!.subject).toBe(`Your Hushlink sign-in code: ${code}`);
    // The page it opens is the sign-in page; the fragment never reaches the server.
    const page = await fetch(url.href);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('id="step-link"');
  });

  it('signs in from the mailed message, with the reply otp/verify gives; opening its page first uses nothing', async () => {
    const email = newEmail('link');
    const { url, email: linked, token } = await mailed(email);
    const signIns = runtime.metrics.total('SignIns');
    // A mail scanner follows the link: a GET of the page, which changes nothing.
    expect((await fetch(url.href)).status).toBe(200);
    const signedIn = await useLink({ email: linked, token, device_name: 'Work laptop' }, freshSource());
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.stringMatching(/^hlr_ses_/),
      token_type: 'Bearer',
      expires_in: 900,
      user: { id: expect.stringMatching(/^usr_/), email },
    });
    expect(runtime.metrics.total('SignIns')).toBe(signIns + 1);
    // A real session: its access token works, and the device is listed.
    const sessions = await callFrom(runtime, freshSource(), 'GET', '/v1/auth/sessions', undefined, bearer(signedIn.body.access_token));
    expect(sessions.status).toBe(200);
    expect(sessions.body.items).toEqual([expect.objectContaining({ device_name: 'Work laptop', current: true })]);
    // The same account a code signs in to.
    const again = await mailed(email);
    expect((await verify(email, again.code)).body.user.id).toBe(signedIn.body.user.id);
  });

  it('works once, and uses its code with it', async () => {
    const email = newEmail('once');
    const { code, token } = await mailed(email);
    expect((await useLink({ email, token })).status).toBe(200);
    expectRefusedLink(await useLink({ email, token }));
    expectProblem(await verify(email, code), 401, 'unauthorized');
  });

  it('is dead once its code signed in; another mail’s link still works', async () => {
    const email = newEmail('code-first');
    const first = await mailed(email);
    const second = await mailed(email);
    expect((await verify(email, first.code)).status).toBe(200);
    expectRefusedLink(await useLink({ email, token: first.token }));
    expect((await useLink({ email, token: second.token })).status).toBe(200);
  });

  it('expires with its code, after 10 minutes', async () => {
    const email = newEmail('expired');
    const { token } = await mailed(email);
    runtime.clock.advance(signInLimits.codeSeconds);
    expectRefusedLink(await useLink({ email, token }));
  });

  it('refuses an unknown token, and a token with another address than its own, as it refuses a used one', async () => {
    const email = newEmail('unknown');
    const { token } = await mailed(email);
    expectRefusedLink(await useLink({ email, token: unknownToken() }));
    expectRefusedLink(await useLink({ email: newEmail('other'), token }));
    expectRefusedLink(await useLink({ email: email.replace('@', '+tag@'), token }));
    // None of them used it.
    expect((await useLink({ email, token })).status).toBe(200);
  });

  it.each([
    ['no token', { email: 'ana@example.com' }],
    ['no address', { token: `hls_${'A'.repeat(43)}` }],
    ['a token without its prefix', { email: 'ana@example.com', token: 'A'.repeat(47) }],
    ['a short token', { email: 'ana@example.com', token: `hls_${'A'.repeat(42)}` }],
    ['a token with other characters', { email: 'ana@example.com', token: `hls_${'A'.repeat(42)}=` }],
    ['an address that is not one', { email: 'ana', token: `hls_${'A'.repeat(43)}` }],
    ['an unknown field', { email: 'ana@example.com', token: `hls_${'A'.repeat(43)}`, code: '12345678' }],
    ['a body that is not an object', ['ana@example.com']],
  ])('refuses a body with %s: 400 problem', async (_, body) => {
    const reply = await useLink(body);
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.errors.length).toBeGreaterThan(0);
  });

  it('answers 429 to a source past its window of uses (30 in 10 minutes), whatever it sends', async () => {
    const source = freshSource();
    const { limit } = defaultRateLimits.otp_link.perIp;
    const email = newEmail('link-rate');
    const body = { email, token: `hls_${randomBytes(32).toString('base64url')}` };
    for (let i = 0; i < limit; i++) expect((await useLink(body, source)).status).toBe(401);
    const limited = await useLink(body, source);
    expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another source is not held back.
    expect((await useLink(body)).status).toBe(401);
  });

  it('of parallel uses, signs in exactly one', async () => {
    const email = newEmail('parallel');
    const { token } = await mailed(email);
    const replies = await Promise.all(Array.from({ length: 6 }, () => useLink({ email, token })));
    const statuses = statusesOf(replies);
    expect(count(statuses, 200)).toBe(1);
    expect(count(statuses, 401)).toBe(5);
    for (const refused of replies.filter((reply) => reply.status === 401)) expectRefusedLink(refused);
  });

  it('is forbidden once the address’s domain enforces SSO, like its code', async () => {
    const domain = `corp-${Date.now().toString(36)}.example`;
    const email = newEmail('sso', domain);
    const { token } = await mailed(email);
    const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    try {
      await db.send(
        new PutCommand({ TableName: runtime.config.TABLE_NAME, Item: { pk: `SSO_DOMAIN#${domain}`, sk: 'SSO', enforced: true } }),
      );
    } finally {
      db.destroy();
    }
    const refused = await useLink({ email, token });
    expectProblem(refused, 403, 'forbidden');
    expect(refused.body.reason).toBe('sso_required');
  });
});

describe('a guessing storm (issue 28, item 7)', () => {
  it('72 wrong codes from 6 sources keep the right code out for the hour (429), and the link still signs in', async () => {
    atHourStart();
    const email = newEmail('storm');
    const victim = freshSource();
    expect((await start(email, victim)).status).toBe(200);
    const code = latestCode(runtime, email)!;
    const { token } = mailedLink(email);
    const statuses: number[] = [];
    for (let source = 0; source < 6; source++) {
      const attacker = freshSource();
      for (let guess = 0; guess < 12; guess++)
        statuses.push((await verify(email, String((Number(code) + 1 + statuses.length) % 10 ** 8).padStart(8, '0'), attacker)).status);
    }
    expect(statuses).toHaveLength(72);
    expect(count(statuses, 401)).toBe(signInLimits.guessesPerAddress.limit);
    expect(count(statuses, 429)).toBe(72 - signInLimits.guessesPerAddress.limit);
    // The person's own right code, from the person's own address: refused for the rest of the hour.
    const refused = await verify(email, code, victim);
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The link from the same mail signs in at once.
    const signedIn = await useLink({ email, token }, victim);
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.body.user.email).toBe(email);
  });
});
