import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { dayOf } from '../../shared/domain/counters.ts';
import { features } from '../../shared/domain/plans.ts';
import { monthOf } from '../../shared/domain/usage/ports.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { bearer, createKey, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { apiClient, claimPair, startTestRuntime, textSecretBody } from '../support/runtime.ts';

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let db: ReturnType<typeof createDocumentClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
});
afterAll(() => runtime?.stop());

/** The owners' live counters follow the table's stream: relay what is pending, then read. */
const usageOf = async (auth: Record<string, string>) => {
  await runtime.stream.drain();
  const reply = await api.get('/v1/usage', auth);
  expect(reply.status).toBe(200);
  return reply.body as { live_secrets: number; bytes_stored: number; calls_this_month: number; month: string; plan: string };
};

const expectProblem = (reply: { status: number; headers: Headers; body: any }, status: number, code: string) => {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reply.body.code).toBe(code);
};

/** The hourly rollup, once the stream has moved the live counters (as it has by then in AWS). */
const rollup = async () => {
  await runtime.stream.drain();
  return runtime.scheduler.run('rollup-usage');
};

/**
 * Moves the runtime's clock to 06:00 UTC of a coming day whose next day is in the same month,
 * so a test's day cannot roll over midway and its two days share a month.
 */
function advanceToMorning() {
  const now = runtime.clock.now();
  let target = Date.parse(`${dayOf(now)}T06:00:00Z`) + 86_400_000;
  while (monthOf(target) !== monthOf(target + 86_400_000)) target += 86_400_000;
  runtime.clock.advance((target - now) / 1000);
}

describe('GET /v1/usage', () => {
  let user: SignedIn;
  beforeAll(async () => {
    user = await signIn(runtime, newEmail('usage'));
  });

  it('401 without a credential, or with one that is not valid', async () => {
    expectProblem(await api.get('/v1/usage'), 401, 'unauthorized');
    expectProblem(await api.get('/v1/usage', bearer('not-a-token')), 401, 'unauthorized');
    expectProblem(
      await api.get('/v1/usage', bearer('hlk_key_AAAAAAAAAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')),
      401,
      'unauthorized',
    );
  });

  it("a new account: nothing stored, this month's calls, the free plan", async () => {
    const usage = await usageOf(user.auth);
    expect(usage).toEqual({
      live_secrets: 0,
      bytes_stored: 0,
      calls_this_month: usage.calls_this_month,
      month: monthOf(runtime.clock.now()),
      plan: 'free',
    });
    expect(usage.month).toMatch(/^\d{4}-\d{2}$/);
    // This very call was counted before the reply was made.
    expect(usage.calls_this_month).toBeGreaterThanOrEqual(1);
  });

  it('counts every authenticated call this month, the reads of usage included', async () => {
    const first = (await usageOf(user.auth)).calls_this_month;
    expect((await api.get('/v1/flags', user.auth)).status).toBe(200);
    expect((await api.get('/v1/auth/sessions', user.auth)).status).toBe(200);
    expect((await usageOf(user.auth)).calls_this_month).toBe(first + 3);
    // Public routes read no credential, so they are not the caller's calls.
    await api.get('/v1/regions', user.auth);
    expect((await usageOf(user.auth)).calls_this_month).toBe(first + 4);
  });

  it('moves with the secrets the user creates, and with their ends (revoke, last view, expiry)', async () => {
    const who = await signIn(runtime, newEmail('owner'));
    const a = await api.post('/v1/secrets', textSecretBody({}, 64), who.auth);
    expect(a.status).toBe(201);
    expect(await usageOf(who.auth)).toMatchObject({ live_secrets: 1, bytes_stored: 64 });

    const pair = claimPair();
    const b = await api.post(
      '/v1/secrets',
      textSecretBody({ claim_verifier: pair.verifier, link_verifier: claimPair().verifier }, 300),
      who.auth,
    );
    expect(b.status).toBe(201);
    expect(await usageOf(who.auth)).toMatchObject({ live_secrets: 2, bytes_stored: 364 });

    // Anonymous secrets belong to nobody's usage.
    expect((await api.post('/v1/secrets', textSecretBody({}, 1000))).status).toBe(201);
    expect(await usageOf(who.auth)).toMatchObject({ live_secrets: 2, bytes_stored: 364 });

    // Revoked as its owner: one fewer, its bytes gone.
    expect((await api.delete(`/v1/secrets/${a.body.id}`, who.auth)).status).toBe(204);
    expect(await usageOf(who.auth)).toMatchObject({ live_secrets: 1, bytes_stored: 300 });

    // Revoking it again changes nothing.
    await api.delete(`/v1/secrets/${a.body.id}`, who.auth);
    expect(await usageOf(who.auth)).toMatchObject({ live_secrets: 1, bytes_stored: 300 });

    // The last view burns the secret: no longer live.
    expect((await api.post(`/v1/secrets/${b.body.id}/claim`, { claim_token: pair.token })).status).toBe(200);
    expect(await usageOf(who.auth)).toMatchObject({ live_secrets: 0, bytes_stored: 0 });

    // Expiry ends it too (here by the sweep).
    expect((await api.post('/v1/secrets', textSecretBody({ expires_in: 60 }, 50), who.auth)).status).toBe(201);
    expect(await usageOf(who.auth)).toMatchObject({ live_secrets: 1, bytes_stored: 50 });
    runtime.clock.advance(61);
    await runtime.scheduler.run('expire-secrets');
    expect(await usageOf(who.auth)).toMatchObject({ live_secrets: 0, bytes_stored: 0 });
  });

  it('answers an API key of any scope with its owner’s usage, and counts the key’s calls too', async () => {
    const who = await signIn(runtime, newEmail('keyed'));
    expect((await api.post('/v1/secrets', textSecretBody({}, 10), who.auth)).status).toBe(201);
    const key = await createKey(runtime, who, ['receipts:read']);
    const before = await usageOf(who.auth);
    const byKey = await usageOf(key.auth);
    expect(byKey).toMatchObject({ live_secrets: 1, bytes_stored: 10, plan: 'free', month: before.month });
    expect(byKey.calls_this_month).toBe(before.calls_this_month + 1);
  });
});

describe('GET /v1/usage/history and the hourly rollup', () => {
  it('401 without a credential', async () => {
    expectProblem(await api.get('/v1/usage/history'), 401, 'unauthorized');
    expectProblem(await api.get('/v1/usage/history', bearer('nope')), 401, 'unauthorized');
  });

  it('400 for a days parameter outside 1..90, or a parameter it does not know', async () => {
    const who = await signIn(runtime, newEmail('history-bad'));
    for (const query of ['days=0', 'days=91', 'days=abc', 'days=1.5', 'days=', 'limit=5']) {
      const reply = await api.get(`/v1/usage/history?${query}`, who.auth);
      expectProblem(reply, 400, 'invalid_request');
      expect(reply.body.errors[0].path).toMatch(/^query\./);
    }
    for (const query of ['days=1', 'days=90', '']) expect((await api.get(`/v1/usage/history?${query}`, who.auth)).status).toBe(200);
  });

  it('is empty until the rollup has run, then shows one row per day, newest first', async () => {
    advanceToMorning();
    const who = await signIn(runtime, newEmail('history'));
    // Access tokens last 15 minutes; the key (no expiry) carries the calls of the later days.
    const key = await createKey(runtime, who, ['secrets:write']);
    const empty = await api.get('/v1/usage/history', who.auth);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ items: [], next_cursor: null });

    // Day 1: two secrets, 164 bytes.
    expect((await api.post('/v1/secrets', textSecretBody({}, 100), who.auth)).status).toBe(201);
    expect((await api.post('/v1/secrets', textSecretBody({}, 64), key.auth)).status).toBe(201);
    const day1 = dayOf(runtime.clock.now());
    const callsDay1 = (await usageOf(who.auth)).calls_this_month;
    const run = await rollup();
    expect(run.task).toBe('rollup-usage');
    expect(run.processed).toBeGreaterThanOrEqual(1);

    const first = await api.get('/v1/usage/history', who.auth);
    expect(first.body).toEqual({ items: [{ date: day1, live_secrets: 2, bytes_stored: 164, calls: callsDay1 }], next_cursor: null });
    // Running again the same day rewrites the same row: now with the history read above.
    await rollup();

    // Day 2: one secret created and revoked, one kept; this day's calls only.
    runtime.clock.advance(24 * 3600);
    const day2 = dayOf(runtime.clock.now());
    const created = await api.post('/v1/secrets', textSecretBody({}, 36), key.auth);
    expect(created.status).toBe(201);
    expect((await api.delete(`/v1/secrets/${created.body.id}`, key.auth)).status).toBe(204);
    expect((await api.post('/v1/secrets', textSecretBody({}, 36), key.auth)).status).toBe(201);
    await rollup();

    // Day 2's calls: create, revoke, create. The read below comes after the run: not in any row yet.
    const history = await api.get('/v1/usage/history', key.auth);
    expect(history.status).toBe(200);
    expect(history.body).toEqual({
      items: [
        { date: day2, live_secrets: 3, bytes_stored: 200, calls: 3 },
        { date: day1, live_secrets: 2, bytes_stored: 164, calls: callsDay1 + 1 },
      ],
      next_cursor: null,
    });
    // A call made after a day's last run counts on the day of the next run (the read just above).
    await rollup();
    expect((await api.get('/v1/usage/history?days=1', key.auth)).body.items).toEqual([
      { date: day2, live_secrets: 3, bytes_stored: 200, calls: 4 },
    ]);

    // 30 days on, day 1 and day 2 are out of the default 30-day window, in a 90-day one.
    runtime.clock.advance(30 * 24 * 3600);
    await rollup();
    const today = dayOf(runtime.clock.now());
    const later = await api.get('/v1/usage/history', key.auth);
    expect(later.body.items.map((row: { date: string }) => row.date)).toEqual([today]);
    expect(later.body.items[0]).toMatchObject({ live_secrets: 3, bytes_stored: 200 });
    const wide = await api.get('/v1/usage/history?days=90', key.auth);
    expect(wide.body.items.map((row: { date: string }) => row.date)).toEqual([today, day2, day1]);
  });
});

describe('POST /v1/events', () => {
  let user: SignedIn;
  beforeAll(async () => {
    user = await signIn(runtime, newEmail('events'));
  });

  const eventsOf = async (userId: string) => {
    const day = dayOf(runtime.clock.now());
    const { Items } = await db.send(
      new QueryCommand({
        TableName: runtime.config.TABLE_NAME,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `PRODUCT_EVENT#${day}` },
      }),
    );
    return (Items ?? []).filter((item) => item.user_id === userId);
  };

  it('202 for a named event with flat properties, stored with the user and a 90-day TTL', async () => {
    const reply = await api.post(
      '/v1/events',
      { name: 'compose.opened', properties: { surface: 'web', step: 2, passphrase: true } },
      user.auth,
    );
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: true });
    expect((await api.post('/v1/events', { name: 'settings_viewed' }, user.auth)).status).toBe(202);

    const stored = await eventsOf(user.user.id);
    expect(stored.map((item) => item.name).sort()).toEqual(['compose.opened', 'settings_viewed']);
    const opened = stored.find((item) => item.name === 'compose.opened')!;
    expect(Object.keys(opened).sort()).toEqual(['created_at', 'id', 'name', 'pk', 'properties', 'sk', 'ttl', 'type', 'user_id']);
    expect(opened.properties).toEqual({ surface: 'web', step: 2, passphrase: true });
    const ttlDays = (opened.ttl * 1000 - runtime.clock.now()) / 86_400_000;
    expect(ttlDays).toBeGreaterThan(89.9);
    expect(ttlDays).toBeLessThanOrEqual(90);
  });

  it('401 without a credential; 403 for an API key (session only)', async () => {
    expectProblem(await api.post('/v1/events', { name: 'compose.opened' }), 401, 'unauthorized');
    expectProblem(await api.post('/v1/events', { name: 'compose.opened' }, bearer('expired.or.forged')), 401, 'unauthorized');
    const key = await createKey(runtime, user, ['secrets:write', 'secrets:read', 'receipts:read']);
    expectProblem(await api.post('/v1/events', { name: 'compose.opened' }, key.auth), 403, 'forbidden');
  });

  const manyProperties = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, i]));
  const refused: Array<[string, unknown]> = [
    ['no name', { properties: {} }],
    ['a name with capitals', { name: 'Compose.Opened' }],
    ['a name too short', { name: 'ab' }],
    ['a name too long', { name: `a${'b'.repeat(64)}` }],
    ['a name starting with a digit', { name: '1abc' }],
    ['a name with spaces', { name: 'compose opened' }],
    ['a name that is not a string', { name: 42 }],
    ['properties that are not an object', { name: 'compose.opened', properties: ['a'] }],
    ['a nested property', { name: 'compose.opened', properties: { nested: { a: 1 } } }],
    ['an array property', { name: 'compose.opened', properties: { list: [1, 2] } }],
    ['a null property', { name: 'compose.opened', properties: { gone: null } }],
    ['a string property over 200 characters', { name: 'compose.opened', properties: { text: 'x'.repeat(201) } }],
    ['a property name that is not a plain name', { name: 'compose.opened', properties: { 'Bad Key': 1 } }],
    ['more than 20 properties', { name: 'compose.opened', properties: manyProperties }],
    ['an unknown field', { name: 'compose.opened', secret: 'hunter2' }],
    ['a body that is not an object', ['compose.opened']],
  ];
  it.each(refused)('400 for %s, and nothing is stored', async (_label, body) => {
    const who = await signIn(runtime, newEmail('events-bad'));
    const reply = await api.post('/v1/events', body, who.auth);
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.errors.length).toBeGreaterThan(0);
    expect(await eventsOf(who.user.id)).toEqual([]);
  });

  it('400 for a body that is not JSON, or not sent as JSON', async () => {
    expectProblem(
      await api.call('POST', '/v1/events', { body: '{"name":', headers: { ...user.auth, 'content-type': 'application/json' } }),
      400,
      'invalid_json',
    );
    expectProblem(await api.call('POST', '/v1/events', { headers: user.auth }), 400, 'invalid_json');
    expectProblem(
      await api.call('POST', '/v1/events', {
        body: 'name=compose.opened',
        headers: { ...user.auth, 'content-type': 'application/x-www-form-urlencoded' },
      }),
      400,
      'unsupported_media_type',
    );
  });

  it('accepts the limits themselves: 20 properties, 200-character strings, 64-character names', async () => {
    const properties = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, 'y'.repeat(200)]));
    expect((await api.post('/v1/events', { name: `a${'b'.repeat(63)}`, properties }, user.auth)).status).toBe(202);
    expect((await api.post('/v1/events', { name: 'abc', properties: {} }, user.auth)).status).toBe(202);
  });
});

describe('GET /v1/flags', () => {
  const freeFlags = {
    receipts_time: true,
    receipts_channel: true,
    receipts_location: false,
    receipts_device: false,
    seats: false,
    workspaces: false,
    policy: false,
    branding: false,
    sso: false,
    scim: false,
    custom_domains: false,
    audit: false,
  };

  it('anonymous callers get the free plan’s flags, signed_in false', async () => {
    const reply = await api.get('/v1/flags');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ flags: { ...freeFlags, signed_in: false } });
    expect(Object.keys(reply.body.flags).sort()).toEqual([...features, 'signed_in'].sort());
    expect(Object.values(reply.body.flags).every((value) => typeof value === 'boolean')).toBe(true);
  });

  it('a signed-in free account: the same flags, signed_in true; an API key of its user too', async () => {
    const who = await signIn(runtime, newEmail('flags'));
    expect((await api.get('/v1/flags', who.auth)).body).toEqual({ flags: { ...freeFlags, signed_in: true } });
    const key = await createKey(runtime, who, ['receipts:read']);
    expect((await api.get('/v1/flags', key.auth)).body).toEqual({ flags: { ...freeFlags, signed_in: true } });
  });

  it('follows the account’s plan (pro, team), and usage names it', async () => {
    const who = await signIn(runtime, newEmail('flags-paid'));
    // No route changes a plan yet (billing does); set it where the user store keeps it.
    const setPlan = (plan: string) =>
      db.send(
        new UpdateCommand({
          TableName: runtime.config.TABLE_NAME,
          Key: { pk: `USER#${who.user.id}`, sk: 'PROFILE' },
          UpdateExpression: 'SET #plan = :plan',
          ExpressionAttributeNames: { '#plan': 'plan' },
          ExpressionAttributeValues: { ':plan': plan },
        }),
      );

    await setPlan('pro');
    expect((await api.get('/v1/flags', who.auth)).body.flags).toEqual({
      ...freeFlags,
      receipts_location: true,
      receipts_device: true,
      signed_in: true,
    });
    expect((await usageOf(who.auth)).plan).toBe('pro');

    await setPlan('team');
    const team = (await api.get('/v1/flags', who.auth)).body.flags;
    expect(Object.values(team).every((value) => value === true)).toBe(true);
    expect((await usageOf(who.auth)).plan).toBe('team');
  });

  it('a credential that is sent must be valid: 403 (the route lists no 401)', async () => {
    expectProblem(await api.get('/v1/flags', bearer('not-a-token')), 403, 'forbidden');
  });
});

describe('GET /v1/regions', () => {
  it('names the region this API serves, and every region, with no credential', async () => {
    const reply = await api.get('/v1/regions');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      current: { id: 'local', api_url: runtime.url },
      regions: [{ id: 'local', api_url: runtime.url, current: true }],
    });
    // A credential is not read at all, even a bad one.
    expect((await api.get('/v1/regions', bearer('nonsense'))).status).toBe(200);
  });
});

describe('POST /v1/cli/install', () => {
  it('202, counted by day per source and OS, and per version', async () => {
    const day = dayOf(runtime.clock.now());
    const before = await runtime.stores.counters.read('cli_install', day);
    const versionsBefore = await runtime.stores.counters.read('cli_install_version', day);
    const reply = await api.post('/v1/cli/install', { source: 'homebrew', os: 'macos', version: '1.4.2' });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: true });
    expect((await api.post('/v1/cli/install', { source: 'homebrew', os: 'macos', version: 'v1.5.0-beta.1' })).status).toBe(202);
    expect((await api.post('/v1/cli/install', { source: 'apt', os: 'linux', version: '1.4.2' })).status).toBe(202);

    const after = await runtime.stores.counters.read('cli_install', day);
    expect((after['homebrew.macos'] ?? 0) - (before['homebrew.macos'] ?? 0)).toBe(2);
    expect((after['apt.linux'] ?? 0) - (before['apt.linux'] ?? 0)).toBe(1);
    const versions = await runtime.stores.counters.read('cli_install_version', day);
    expect((versions['1.4.2'] ?? 0) - (versionsBefore['1.4.2'] ?? 0)).toBe(2);
    expect((versions['v1.5.0-beta.1'] ?? 0) - (versionsBefore['v1.5.0-beta.1'] ?? 0)).toBe(1);
  });

  const refused: Array<[string, unknown]> = [
    ['an unknown source', { source: 'curl', os: 'linux', version: '1.0.0' }],
    ['an unknown OS', { source: 'npm', os: 'beos', version: '1.0.0' }],
    ['a version that is not a version', { source: 'npm', os: 'linux', version: 'latest' }],
    ['a version over 32 characters', { source: 'npm', os: 'linux', version: `1.0.0-${'a'.repeat(27)}` }],
    ['no version', { source: 'npm', os: 'linux' }],
    ['an unknown field', { source: 'npm', os: 'linux', version: '1.0.0', hostname: 'laptop' }],
  ];
  it.each(refused)('400 for %s, and nothing is counted', async (_label, body) => {
    const day = dayOf(runtime.clock.now());
    const before = await runtime.stores.counters.read('cli_install', day);
    expectProblem(await api.post('/v1/cli/install', body), 400, 'invalid_request');
    expect(await runtime.stores.counters.read('cli_install', day)).toEqual(before);
  });

  it('needs no credential and reads none', async () => {
    expect((await api.post('/v1/cli/install', { source: 'script', os: 'other', version: '2.0' }, bearer('whatever'))).status).toBe(202);
  });
});
