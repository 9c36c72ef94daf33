import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { credentialLimits, signInLimits } from '../../shared/limits.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { bearer, callFrom, createKey, jwtHeader, jwtPayload, latestCode, mailsTo, newEmail, signIn } from '../support/accounts.ts';
import { apiClient, type Reply, startTestRuntime, toFreshWindow } from '../support/runtime.ts';
import { expectProblem } from '../support/problem.ts';

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const start = (email: string) => api.post('/v1/auth/otp/start', { email });
const resend = (email: string) => api.post('/v1/auth/otp/resend', { email });
const verify = (email: string, code: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  api.post('/v1/auth/otp/verify', { email, code, ...extra }, headers);
const refresh = (token: string) => api.post('/v1/auth/refresh', { refresh_token: token });
/** A request only a live session passes. */
const sessions = (accessToken: string) => api.get('/v1/auth/sessions', bearer(accessToken));
const otherCode = (code: string) => String((Number(code) + 1) % 100_000_000).padStart(8, '0');

/** Starts a sign-in and returns the mailed code. */
async function codeFor(email: string): Promise<string> {
  expect((await start(email)).status).toBe(200);
  const code = latestCode(runtime, email);
  expect(code).toMatch(/^\d{8}$/);
  return code!;
}

describe('POST /v1/auth/otp/start', () => {
  it('answers the same {sent: true} for a new and a known address and mails an 8-digit code', async () => {
    const known = newEmail('known');
    await signIn(runtime, known);
    const fresh = newEmail('fresh');

    const forKnown = await start(known);
    const forFresh = await start(fresh);
    for (const reply of [forKnown, forFresh]) {
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ sent: true });
    }
    const headerNames = (reply: Reply) =>
      [...reply.headers.keys()].filter((name) => !['date', 'x-request-id', 'content-length'].includes(name)).sort();
    expect(headerNames(forFresh)).toEqual(headerNames(forKnown));

    for (const email of [known, fresh]) {
      const mail = mailsTo(runtime, email)[0]!;
      expect(mail.to).toBe(email);
      expect(mail.text).toMatch(/\b\d{8}\b/);
      expect(mail.subject).toContain(/\b(\d{8})\b/.exec(mail.text)![1]!);
    }
  });

  it('refuses an address that is not one with 400', async () => {
    expectProblem(await start('not an address'), 400, 'invalid_request');
    expectProblem(await api.post('/v1/auth/otp/start', { email: newEmail(), extra: 1 }), 400, 'invalid_request');
  });

  it('mails at most 3 codes an hour to one address at one source’s request, then answers that source 429', async () => {
    const email = newEmail('bombed');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await start(email)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(mailsTo(runtime, email)).toHaveLength(signInLimits.codesPerSource.limit);
  });
});

describe('POST /v1/auth/otp/verify', () => {
  it('creates the account on first sign-in and answers the token shape', async () => {
    const email = newEmail('first');
    const code = await codeFor(email);
    const reply = await verify(email, code, { device_name: 'Laptop' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type', 'user']);
    expect(reply.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, user: { id: expect.any(String), email } });
    expect(Object.keys(reply.body.user).sort()).toEqual(['email', 'id']);
    expect(reply.body.access_token.split('.')).toHaveLength(3);
    expect(jwtHeader(reply.body.access_token)).toMatchObject({ alg: 'ES256', kid: expect.any(String) });
    const claims = jwtPayload(reply.body.access_token);
    expect(claims.sub).toBe(reply.body.user.id);
    expect((claims.exp as number) - (claims.iat as number)).toBe(900);
    expect(reply.body.refresh_token).toEqual(expect.any(String));
    expect(reply.body.refresh_token).not.toBe(reply.body.access_token);

    const user = await runtime.stores.users.get(reply.body.user.id);
    expect(user).toMatchObject({ id: reply.body.user.id, email, plan: 'free' });
    expect((await sessions(reply.body.access_token)).status).toBe(200);
  });

  it('answers the same user the second time, whatever the case of the address', async () => {
    const email = newEmail('again');
    const first = await signIn(runtime, email);
    const second = await signIn(runtime, `  ${email.toUpperCase()}`.trim());
    expect(second.user).toEqual({ id: first.user.id, email });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(jwtPayload(second.access_token).sid).not.toBe(jwtPayload(first.access_token).sid);
    expect(await runtime.stores.users.findByEmail(email)).toMatchObject({ id: first.user.id });
  });

  it('answers 401 with attempts_left for a wrong code, and the right code still works', async () => {
    const email = newEmail('wrong');
    const code = await codeFor(email);
    const wrong = await verify(email, otherCode(code));
    expectProblem(wrong, 401, 'unauthorized');
    expect(wrong.body.attempts_left).toBe(4);
    expect((await verify(email, code)).status).toBe(200);
  });

  it('after 5 wrong codes from one source in 10 minutes, refuses that source even the right code (429); the code still works', async () => {
    const email = newEmail('five');
    const code = await codeFor(email);
    const left: number[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await verify(email, otherCode(code));
      expectProblem(reply, 401, 'unauthorized');
      left.push(reply.body.attempts_left);
    }
    expect(left).toEqual([4, 3, 2, 1, 0]);
    const right = await verify(email, code);
    expectProblem(right, 429, 'rate_limited');
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(right.headers.get('retry-after'))).toBeLessThanOrEqual(600);
    expect(right.body).not.toHaveProperty('access_token');
    // Only this source is out of tries: the code was never compared, and works from elsewhere.
    const elsewhere = await callFrom(runtime, '127.0.0.77', 'POST', '/v1/auth/otp/verify', { email, code });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
  });

  it('accepts the right code on the fifth try', async () => {
    const email = newEmail('fifth');
    const code = await codeFor(email);
    for (let i = 0; i < 4; i++) expect((await verify(email, otherCode(code))).status).toBe(401);
    const reply = await verify(email, code);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.user.email).toBe(email);
  });

  it('refuses an expired code (after 10 minutes)', async () => {
    const email = newEmail('late');
    const code = await codeFor(email);
    runtime.clock.advance(601);
    const reply = await verify(email, code);
    expectProblem(reply, 401, 'unauthorized');
    expect(reply.body).not.toHaveProperty('access_token');
  });

  it('accepts a code once', async () => {
    const email = newEmail('once');
    const code = await codeFor(email);
    expect((await verify(email, code)).status).toBe(200);
    expectProblem(await verify(email, code), 401, 'unauthorized');
  });

  it('answers 401 for an address that never asked for a code', async () => {
    expectProblem(await verify(newEmail('never'), '12345678'), 401, 'unauthorized');
  });

  it.each([
    ['a 6-digit code', { code: '123456' }],
    ['a 9-digit code', { code: '123456789' }],
    ['a code with letters', { code: '1234567a' }],
    ['a missing code', { code: undefined }],
    ['an unknown field', { code: '12345678', remember: true }],
    ['an empty device_name', { code: '12345678', device_name: '   ' }],
  ])('refuses %s with 400', async (_, fields) => {
    const reply = await api.post('/v1/auth/otp/verify', { email: newEmail(), ...fields });
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.errors.length).toBeGreaterThan(0);
  });

  it('answers 403 for an address whose domain enforces SSO; its start mails the way through the provider, never a code', async () => {
    const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    await db.send(
      new PutCommand({ TableName: runtime.config.TABLE_NAME, Item: { pk: 'SSO_DOMAIN#corp.example', sk: 'SSO', enforced: true } }),
    );
    const email = `sso-${Date.now()}@corp.example`;

    const started = await start(email);
    expect(started.status).toBe(200);
    expect(started.body).toEqual({ sent: true });
    const ssoMail = 'Sign in to Hushlink through your organization';
    expect(mailsTo(runtime, email).map((mail) => mail.subject)).toEqual([ssoMail]);
    expect(latestCode(runtime, email)).toBeNull();

    // A resend at once meets the same cooldown as any address's (nothing tells enforcement apart).
    const resent = await resend(email);
    expect(resent.status).toBe(429);
    expect(mailsTo(runtime, email).map((mail) => mail.subject)).toEqual([ssoMail]);

    const verified = await verify(email, '12345678');
    expectProblem(verified, 403, 'forbidden');
    expect(verified.body.reason).toBe('sso_required');
    expect(await runtime.stores.users.findByEmail(email)).toBeNull();
    // The domain matches whatever the case.
    expectProblem(await verify(email.toUpperCase(), '12345678'), 403, 'forbidden');
  });
});

describe('POST /v1/auth/otp/resend', () => {
  it('answers 429 with retry-after within 60 s of this source asking, then sends another code; the first still works', async () => {
    const email = newEmail('resend');
    const oldCode = await codeFor(email);
    const mailsBefore = mailsTo(runtime, email).length;

    const early = await resend(email);
    expectProblem(early, 429, 'rate_limited');
    const retryAfter = Number(early.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(mailsTo(runtime, email)).toHaveLength(mailsBefore);

    runtime.clock.advance(61);
    const later = await resend(email);
    expect(later.status).toBe(200);
    expect(later.body).toEqual({ sent: true });
    expect(mailsTo(runtime, email)).toHaveLength(mailsBefore + 1);
    const newCode = latestCode(runtime, email)!;
    expect(newCode).toMatch(/^\d{8}$/);

    expect(newCode).not.toBe(oldCode);
    const signedIn = await verify(email, oldCode);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.email).toBe(email);
    // Each code works once: the first is used, the second still works.
    expectProblem(await verify(email, oldCode), 401, 'unauthorized');
    expect((await verify(email, newCode)).status).toBe(200);
  });

  it('answers 400 naming the field for an address that is not one, or a body it does not know', async () => {
    for (const body of [{ email: 'not-an-address' }, { email: newEmail('typo'), mail: 'x' }, {}]) {
      const reply = await api.post('/v1/auth/otp/resend', body);
      expectProblem(reply, 400, 'invalid_request');
      expect(reply.body.errors.length).toBeGreaterThan(0);
    }
  });

  it('sends a code when no sign-in is pending, as when one is: the same answer and the same work', async () => {
    const idle = newEmail('idle');
    const pending = newEmail('pending');
    // Asked for from another source: this one's cooldown is its own.
    expect((await callFrom(runtime, '127.0.0.78', 'POST', '/v1/auth/otp/start', { email: pending })).status).toBe(200);
    const replies = [await resend(idle), await resend(pending)];
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ sent: true });
    }
    expect(mailsTo(runtime, idle)).toHaveLength(1);
    expect(mailsTo(runtime, pending)).toHaveLength(2);
    expect((await verify(idle, latestCode(runtime, idle)!)).status).toBe(200);
  });

  it('gives no new tries: a source’s wrong guesses count across codes', async () => {
    // The guess budgets count in 10-minute and hour windows of the clock: all of this in one.
    toFreshWindow(runtime.clock, 3600);
    const email = newEmail('carry');
    const code = await codeFor(email);
    for (let i = 0; i < 3; i++) expect((await verify(email, otherCode(code))).status).toBe(401);
    runtime.clock.advance(61);
    expect((await resend(email)).status).toBe(200);
    const fresh = latestCode(runtime, email)!;
    const wrong = await verify(email, otherCode(fresh));
    expect(wrong.body.attempts_left).toBe(1);
  });
});

describe('POST /v1/auth/refresh', () => {
  it('rotates the refresh token and issues a working access token', async () => {
    const signedIn = await signIn(runtime, newEmail('rotate'));
    const reply = await refresh(signedIn.refresh_token);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, user: signedIn.user });
    expect(reply.body.refresh_token).not.toBe(signedIn.refresh_token);
    expect(jwtPayload(reply.body.access_token).sid).toBe(jwtPayload(signedIn.access_token).sid);
    expect((await sessions(reply.body.access_token)).status).toBe(200);
    // The new one rotates again.
    const again = await refresh(reply.body.refresh_token);
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).not.toBe(reply.body.refresh_token);
  });

  it('on reuse of a rotated token after the grace window answers 401 and signs the whole session out', async () => {
    const signedIn = await signIn(runtime, newEmail('reuse'));
    const other = await signIn(runtime, signedIn.user.email);
    const rotated = await refresh(signedIn.refresh_token);
    expect(rotated.status).toBe(200);

    runtime.clock.advance(credentialLimits.refreshGraceSeconds + 1);
    const reused = await refresh(signedIn.refresh_token);
    expectProblem(reused, 401, 'unauthorized');
    expect(reused.body.reason).toBe('refresh_token_reused');

    expectProblem(await refresh(rotated.body.refresh_token), 401, 'unauthorized');
    expectProblem(await sessions(rotated.body.access_token), 401, 'unauthorized');
    expectProblem(await sessions(signedIn.access_token), 401, 'unauthorized');
    // Another device of the same user is not affected.
    expect((await sessions(other.access_token)).status).toBe(200);
  });

  it('gives the same new token to the old one presented again within the grace window (a reload racing a refresh)', async () => {
    const signedIn = await signIn(runtime, newEmail('grace'));
    const first = await refresh(signedIn.refresh_token);
    expect(first.status).toBe(200);
    runtime.clock.advance(credentialLimits.refreshGraceSeconds - 2);
    const second = await refresh(signedIn.refresh_token);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.refresh_token).toBe(first.body.refresh_token);
    expect(jwtPayload(second.body.access_token).sid).toBe(jwtPayload(first.body.access_token).sid);
    // The session is whole: both access tokens work, and the shared new token rotates as usual.
    expect((await sessions(second.body.access_token)).status).toBe(200);
    expect((await sessions(first.body.access_token)).status).toBe(200);
    const third = await refresh(first.body.refresh_token);
    expect(third.status).toBe(200);
    // Once rotated again, the first token is two rotations old: reuse, even inside the window.
    const stale = await refresh(signedIn.refresh_token);
    expectProblem(stale, 401, 'unauthorized');
    expect(stale.body.reason).toBe('refresh_token_reused');
    expectProblem(await sessions(third.body.access_token), 401, 'unauthorized');
  });

  it('answers two refreshes racing with one token the same new token, and keeps the session', async () => {
    const signedIn = await signIn(runtime, newEmail('race'));
    const replies = await Promise.all(Array.from({ length: 4 }, () => refresh(signedIn.refresh_token)));
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(replies.map((reply) => reply.body.refresh_token)).size).toBe(1);
    expect((await refresh(replies[0]!.body.refresh_token)).status).toBe(200);
  });

  it('stores no usable copy of the token it gives again: the table holds it sealed under the old one', async () => {
    const signedIn = await signIn(runtime, newEmail('sealed'));
    const { body } = await refresh(signedIn.refresh_token);
    const stored = await runtime.stores.sessions.get(jwtPayload(body.access_token).sid as string);
    expect(JSON.stringify(stored)).not.toContain(body.refresh_token.split('.')[1]);
    expect(JSON.stringify(stored)).not.toContain(signedIn.refresh_token.split('.')[1]);
    expect(stored?.grace?.until).toBeGreaterThan(runtime.clock.now());
  });

  it.each([
    ['an unknown token', 'hlr_ses_AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['garbage', 'not-a-refresh-token'],
  ])('answers 401 for %s', async (_, token) => {
    expectProblem(await refresh(token), 401, 'unauthorized');
  });

  it('answers 401 without a refresh_token or the browser’s cookie (ADR 0178), and 400 for a malformed one', async () => {
    expectProblem(await api.post('/v1/auth/refresh', {}), 401, 'unauthorized');
    expectProblem(await api.post('/v1/auth/refresh', { refresh_token: '' }), 400, 'invalid_request');
  });
});

describe('access tokens', () => {
  it('expire after 15 minutes; the refresh token still gets a new one', async () => {
    const signedIn = await signIn(runtime, newEmail('expiry'));
    expect((await sessions(signedIn.access_token)).status).toBe(200);
    runtime.clock.advance(901);
    const expired = await sessions(signedIn.access_token);
    expectProblem(expired, 401, 'unauthorized');
    expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const refreshed = await refresh(signedIn.refresh_token);
    expect(refreshed.status).toBe(200);
    expect((await sessions(refreshed.body.access_token)).status).toBe(200);
  });

  it('a token with a tampered payload or signature is refused', async () => {
    const signedIn = await signIn(runtime, newEmail('tamper'));
    const [header, payload, signature] = signedIn.access_token.split('.') as [string, string, string];
    const claims = jwtPayload(signedIn.access_token);
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'usr_someone_else' })).toString('base64url');
    expectProblem(await sessions(`${header}.${forged}.${signature}`), 401, 'unauthorized');
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expectProblem(await sessions(`${header}.${payload}.${flipped}`), 401, 'unauthorized');
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expectProblem(await sessions(`${none}.${payload}.`), 401, 'unauthorized');
  });
});

describe('GET /v1/auth/jwks', () => {
  it('publishes the ES256 public keys the tokens are signed with, without private parts', async () => {
    const signedIn = await signIn(runtime, newEmail('jwks'));
    const reply = await api.get('/v1/auth/jwks');
    expect(reply.status).toBe(200);
    const keys = reply.body.keys as Array<Record<string, unknown>>;
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const key of keys) {
      expect(key).toMatchObject({
        kty: 'EC',
        crv: 'P-256',
        alg: 'ES256',
        use: 'sig',
        kid: expect.any(String),
        x: expect.any(String),
        y: expect.any(String),
      });
      expect(key).not.toHaveProperty('d');
    }
    const kid = jwtHeader(signedIn.access_token).kid;
    expect(keys.map((key) => key.kid)).toContain(kid);

    // The published set really verifies the token.
    const { payload } = await jwtVerify(signedIn.access_token, createLocalJWKSet(reply.body), {
      currentDate: new Date(runtime.clock.now()),
    });
    expect(payload.sub).toBe(signedIn.user.id);
  });
});

describe('GET /v1/auth/sessions', () => {
  it('lists the devices, named by device_name or the user agent, with the current one flagged', async () => {
    const email = newEmail('devices');
    const laptop = await signIn(runtime, email, 'Work laptop');
    const firefox = await signIn(runtime, email, undefined, {
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    });
    const reply = await sessions(firefox.access_token);
    expect(reply.status).toBe(200);
    expect(reply.body.next_cursor).toBeNull();
    const items = reply.body.items as Array<{
      id: string;
      device_name: string;
      current: boolean;
      created_at: string;
      last_used_at: string;
    }>;
    expect(items).toHaveLength(2);
    const byId = new Map(items.map((item) => [item.id, item]));
    expect(byId.get(jwtPayload(laptop.access_token).sid as string)).toMatchObject({ device_name: 'Work laptop', current: false });
    expect(byId.get(jwtPayload(firefox.access_token).sid as string)).toMatchObject({ device_name: 'Firefox on Linux', current: true });
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(['created_at', 'current', 'device_name', 'id', 'last_used_at']);
      expect(Number.isNaN(Date.parse(item.created_at))).toBe(false);
    }
    // From the other device, the flag moves.
    const fromLaptop = await sessions(laptop.access_token);
    expect(fromLaptop.body.items.find((item: { current: boolean }) => item.current).device_name).toBe('Work laptop');
  });

  it('answers 401 without a session, and 403 to an API key', async () => {
    expectProblem(await api.get('/v1/auth/sessions'), 401, 'unauthorized');
    const signedIn = await signIn(runtime, newEmail('keyholder'));
    const key = await createKey(runtime, signedIn, ['secrets:read', 'secrets:write', 'receipts:read']);
    expectProblem(await api.get('/v1/auth/sessions', key.auth), 403, 'forbidden');
  });
});

describe('POST /v1/auth/logout and /v1/auth/logout-all', () => {
  it('logout with the refresh token signs that device out at once; others keep working', async () => {
    const email = newEmail('logout');
    const one = await signIn(runtime, email, 'one');
    const two = await signIn(runtime, email, 'two');
    const reply = await api.post('/v1/auth/logout', { refresh_token: one.refresh_token });
    expect(reply.status).toBe(200);
    expectProblem(await sessions(one.access_token), 401, 'unauthorized');
    expectProblem(await refresh(one.refresh_token), 401, 'unauthorized');
    const left = await sessions(two.access_token);
    expect(left.status).toBe(200);
    expect(left.body.items.map((item: { device_name: string }) => item.device_name)).toEqual(['two']);
  });

  it('logout with the bearer token signs that device out', async () => {
    const email = newEmail('logout-bearer');
    const one = await signIn(runtime, email, 'one');
    const two = await signIn(runtime, email, 'two');
    expect((await api.post('/v1/auth/logout', undefined, one.auth)).status).toBe(200);
    expectProblem(await sessions(one.access_token), 401, 'unauthorized');
    expectProblem(await refresh(one.refresh_token), 401, 'unauthorized');
    expect((await sessions(two.access_token)).status).toBe(200);
  });

  it('logout always answers 200, even with nothing or a stale token', async () => {
    expect((await api.post('/v1/auth/logout')).status).toBe(200);
    expect((await api.post('/v1/auth/logout', { refresh_token: 'hlr_nothing' })).status).toBe(200);
    expect((await api.post('/v1/auth/logout', undefined, bearer('not-a-token'))).status).toBe(200);
  });

  it('logout-all signs every session of the user out, and no one else', async () => {
    const email = newEmail('everywhere');
    const devices = [await signIn(runtime, email, 'a'), await signIn(runtime, email, 'b'), await signIn(runtime, email, 'c')];
    const stranger = await signIn(runtime, newEmail('stranger'));
    const reply = await api.post('/v1/auth/logout-all', undefined, devices[1]!.auth);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ signed_out: 3 });
    for (const device of devices) {
      expectProblem(await sessions(device.access_token), 401, 'unauthorized');
      expectProblem(await refresh(device.refresh_token), 401, 'unauthorized');
    }
    expect((await sessions(stranger.access_token)).status).toBe(200);
  });

  it('logout-all also signs out a session opened a moment before, which the listing index has not caught up with', async () => {
    const email = newEmail('lagging');
    const older = await signIn(runtime, email, 'older');
    const store = runtime.functions.account.sessions;
    const listed = store.listForUser.bind(store);
    // The index as real DynamoDB can answer it right after a write: without the newest session.
    const newest = await signIn(runtime, email, 'newest');
    const newestId = jwtPayload(newest.access_token).sid;
    store.listForUser = async (userId) => (await listed(userId)).filter((session) => session.id !== newestId);
    try {
      expect((await store.listForUser(older.user.id)).map((session) => session.id)).not.toContain(newestId);
      const reply = await api.post('/v1/auth/logout-all', undefined, older.auth);
      expect(reply.body).toEqual({ signed_out: 2 });
    } finally {
      store.listForUser = listed;
    }
    expectProblem(await sessions(newest.access_token), 401, 'unauthorized');
    expectProblem(await refresh(newest.refresh_token), 401, 'unauthorized');
  });
});

describe('POST /v1/auth/tos', () => {
  it('records the accepted version', async () => {
    const signedIn = await signIn(runtime, newEmail('tos'));
    const reply = await api.post('/v1/auth/tos', { version: '2025-01-01' }, signedIn.auth);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ version: '2025-01-01', accepted_at: expect.any(String) });
    const user = await runtime.stores.users.get(signedIn.user.id);
    expect(user?.tosVersion).toBe('2025-01-01');
    expect(user?.tosAcceptedAt).toBe(Date.parse(reply.body.accepted_at));
  });

  it('refuses a missing or empty version with 400', async () => {
    const signedIn = await signIn(runtime, newEmail('tos-bad'));
    expectProblem(await api.post('/v1/auth/tos', {}, signedIn.auth), 400, 'invalid_request');
    expectProblem(await api.post('/v1/auth/tos', { version: ' ' }, signedIn.auth), 400, 'invalid_request');
  });
});

describe('/v1/api-keys', () => {
  it('creates a key (value once), lists it without the value, and revoking it takes effect at once', async () => {
    const signedIn = await signIn(runtime, newEmail('keys'));
    const created = await api.post('/v1/api-keys', { name: 'CI', scopes: ['secrets:read'] }, signedIn.auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(expect.arrayContaining(['created_at', 'id', 'key', 'name', 'prefix', 'scopes']));
    expect(created.body).toMatchObject({ name: 'CI', scopes: ['secrets:read'] });
    expect(created.body.key).toMatch(/^hlk_/);
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
    expect(created.body.prefix.length).toBeLessThan(created.body.key.length);
    expect(Number.isNaN(Date.parse(created.body.created_at))).toBe(false);

    const stored = await runtime.stores.apiKeys.get(created.body.id);
    expect(stored?.keyHash).toBeDefined();
    expect(stored?.keyHash).not.toContain(created.body.key);

    const listed = await api.get('/v1/api-keys', signedIn.auth);
    expect(listed.status).toBe(200);
    expect(listed.body.next_cursor).toBeNull();
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).toMatchObject({ id: created.body.id, name: 'CI', prefix: created.body.prefix, scopes: ['secrets:read'] });
    expect(listed.body.items[0]).not.toHaveProperty('key');
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

    const key = bearer(created.body.key);
    expect((await api.get('/v1/secrets', key)).status).toBe(200);
    const revoked = await api.delete(`/v1/api-keys/${created.body.id}`, signedIn.auth);
    expect(revoked.status).toBe(200);
    expectProblem(await api.get('/v1/secrets', key), 401, 'unauthorized');
    expect((await api.get('/v1/api-keys', signedIn.auth)).body.items).toEqual([]);
    // Revoking it again: it is no longer there.
    expectProblem(await api.delete(`/v1/api-keys/${created.body.id}`, signedIn.auth), 404, 'not_found');
  });

  it('answers 404 for an unknown key and for another user’s key, which keeps working', async () => {
    const owner = await signIn(runtime, newEmail('key-owner'));
    const other = await signIn(runtime, newEmail('key-other'));
    const key = await createKey(runtime, owner, ['secrets:read']);
    expectProblem(await api.delete('/v1/api-keys/key_AAAAAAAAAAAAAAAA', owner.auth), 404, 'not_found');
    expectProblem(await api.delete(`/v1/api-keys/${key.id}`, other.auth), 404, 'not_found');
    expect((await api.get('/v1/secrets', key.auth)).status).toBe(200);
    expect((await api.get('/v1/api-keys', other.auth)).body.items).toEqual([]);
  });

  it('an API key cannot create another key (403)', async () => {
    const signedIn = await signIn(runtime, newEmail('key-admin'));
    const key = await createKey(runtime, signedIn, ['secrets:read', 'secrets:write', 'receipts:read']);
    expectProblem(await api.post('/v1/api-keys', { name: 'x', scopes: ['secrets:read'] }, key.auth), 403, 'forbidden');
    expectProblem(await api.get('/v1/api-keys', key.auth), 403, 'forbidden');
  });

  it.each<[string, unknown]>([
    ['an unknown scope', { name: 'k', scopes: ['admin'] }],
    ['no scopes', { name: 'k', scopes: [] }],
    ['repeated scopes', { name: 'k', scopes: ['secrets:read', 'secrets:read'] }],
    ['scopes missing', { name: 'k' }],
    ['an empty name', { name: '', scopes: ['secrets:read'] }],
    ['a blank name', { name: '   ', scopes: ['secrets:read'] }],
    ['a name over 100 characters', { name: 'n'.repeat(101), scopes: ['secrets:read'] }],
    ['an unknown field', { name: 'k', scopes: ['secrets:read'], admin: true }],
    ['expires_in under an hour', { name: 'k', scopes: ['secrets:read'], expires_in: 60 }],
  ])('refuses %s with 400', async (_, body) => {
    const signedIn = await signIn(runtime, newEmail('key-bad'));
    const reply = await api.post('/v1/api-keys', body, signedIn.auth);
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.errors.length).toBeGreaterThan(0);
    expect((await api.get('/v1/api-keys', signedIn.auth)).body.items).toEqual([]);
  });

  it('a key with expires_in stops working when it expires', async () => {
    const signedIn = await signIn(runtime, newEmail('key-expiry'));
    const created = await api.post('/v1/api-keys', { name: 'short', scopes: ['secrets:read'], expires_in: 3600 }, signedIn.auth);
    expect(created.status).toBe(201);
    const key = bearer(created.body.key);
    expect((await api.get('/v1/secrets', key)).status).toBe(200);
    runtime.clock.advance(3601);
    expectProblem(await api.get('/v1/secrets', key), 401, 'unauthorized');
  });
});

// Last: moves the clock by a month, which ends every earlier session.
describe('signing key rotation', () => {
  it('signs with a new key after 30 days; the old key stays published and its tokens verify until they expire', async () => {
    const email = newEmail('rotation');
    const before = await signIn(runtime, email);
    const oldKid = jwtHeader(before.access_token).kid as string;
    const [newest] = await runtime.stores.signingKeys.list();
    expect(newest?.kid).toBe(oldKid);

    // Two minutes before the key is due for rotation: a token signed with the old key.
    const rotationMs = 30 * 24 * 3600 * 1000;
    runtime.clock.advance(Math.floor((newest!.createdAt + rotationMs - runtime.clock.now()) / 1000) - 120);
    const lastOld = await signIn(runtime, email, 'old key');
    expect(jwtHeader(lastOld.access_token).kid).toBe(oldKid);

    // Three minutes later the key is due: the next sign-in makes and uses a new one.
    runtime.clock.advance(180);
    const after = await signIn(runtime, email, 'new key');
    const newKid = jwtHeader(after.access_token).kid as string;
    expect(newKid).not.toBe(oldKid);

    const jwks = await api.get('/v1/auth/jwks');
    const kids = (jwks.body.keys as Array<{ kid: string; d?: string }>).map((key) => key.kid);
    expect(kids).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect(kids[0]).toBe(newKid);

    // The token signed with the old key is unexpired and still accepted.
    expect((await sessions(lastOld.access_token)).status).toBe(200);
    expect((await sessions(after.access_token)).status).toBe(200);
    const set = createLocalJWKSet(jwks.body);
    const at = { currentDate: new Date(runtime.clock.now()) };
    expect((await jwtVerify(lastOld.access_token, set, at)).payload.sub).toBe(before.user.id);
    expect((await jwtVerify(after.access_token, set, at)).payload.sub).toBe(before.user.id);

    // Refresh now issues tokens with the new key.
    const refreshed = await refresh(lastOld.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(jwtHeader(refreshed.body.access_token).kid).toBe(newKid);

    // Once its 15 minutes are over, the old token is refused like any expired one.
    runtime.clock.advance(15 * 60);
    expectProblem(await sessions(lastOld.access_token), 401, 'unauthorized');
  });

  it('a month later still: sign-in uses a newer key, and jwks lists the previous ones', async () => {
    const email = newEmail('rotation2');
    const first = await signIn(runtime, email);
    runtime.clock.advance(31 * 24 * 3600);
    const second = await signIn(runtime, email);
    const kids = (await api.get('/v1/auth/jwks')).body.keys.map((key: { kid: string }) => key.kid);
    expect(jwtHeader(second.access_token).kid).not.toBe(jwtHeader(first.access_token).kid);
    expect(kids).toEqual(expect.arrayContaining([jwtHeader(first.access_token).kid, jwtHeader(second.access_token).kid]));
    expect((await sessions(second.access_token)).status).toBe(200);
  });
});
