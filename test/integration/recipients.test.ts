import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { defaultRateLimits } from '../../shared/limits.ts';
import { callFrom, createKey, mailsTo, newEmail, signIn } from '../support/accounts.ts';
import {
  apiClient,
  claimPair,
  generousRateLimits,
  linkPair,
  type Reply,
  startTestRuntime,
  textSecretBody,
  toFreshWindow,
} from '../support/runtime.ts';
import { expectProblem } from '../support/problem.ts';

// Per-recipient links, restricted recipients and their gate, and receipts (interface §4.1,
// §2.2, rules 3 and 8). The gate's own rate classes run at low limits here so their 429 is
// reachable; everything else keeps the generous test limits. The links' and the gate's rules
// one call at a time (budgets, revoking, sessions, the code's life and caps): test/usecases/
// secrets-recipients.test.ts and gate.test.ts.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({
    rateLimits: {
      ...generousRateLimits,
      gate_start: { perIp: { limit: 12, windowSeconds: 3600 } },
      gate_verify: { perIp: { limit: 25, windowSeconds: 600 } },
    },
  });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

interface Link {
  recipient_id: string;
  label: string | null;
  email: string | null;
  restricted: boolean;
  url_base: string;
}

/** A secret with links, made anonymously or with `auth`, with its claim and link proofs. */
async function withLinks(
  recipients: unknown[],
  overrides: Record<string, unknown> = {},
  auth: Record<string, string> | undefined = undefined,
) {
  const claimProof = claimPair();
  const linkProof = linkPair();
  const body = textSecretBody({ recipients, claim_verifier: claimProof.verifier, link_verifier: linkProof.verifier, ...overrides });
  const reply = await api.post('/v1/secrets', body, auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  const proof = { claim_token: claimProof.token, link_token: linkProof.token };
  return {
    id: reply.body.id as string,
    deleteToken: reply.body.delete_token as string,
    links: reply.body.recipients as Link[],
    proof,
    envelope: body.envelope,
  };
}

const claim = (id: string, json: Record<string, unknown>, headers?: Record<string, string>) =>
  api.post(`/v1/secrets/${id}/claim`, json, headers);
/**
 * Gate calls come from a source address of the test's own (127.0.1.n), so the low per-address
 * limits this file runs the gate with are met only where a test means to meet them.
 */
let sources = 0;
let source = '127.0.1.1';
beforeEach(() => {
  source = `127.0.1.${++sources}`;
});
const gateCall = (path: string, json: unknown) => callFrom(runtime, source, 'POST', path, json);
const unknownLink = () => `rcp_${randomBytes(16).toString('base64url')}`;
const unknownSecret = () => `sec_${randomBytes(16).toString('base64url')}`;
/** The gate code mailed last to `email`. */
const gateCode = (email: string) => /\b(\d{6})\b/.exec(mailsTo(runtime, email)[0]?.text ?? '')?.[1] ?? null;

describe('POST /v1/secrets with recipients', () => {
  it('answers one link per recipient, all on one envelope, each with its own budget', async () => {
    const email = newEmail('alice');
    const made = await api.post(
      '/v1/secrets',
      textSecretBody({ max_views: 2, recipients: [{ label: 'Alice', email, restricted: true }, { label: 'Bob' }, {}] }),
    );
    expect(made.status).toBe(201);
    const links = made.body.recipients as Link[];
    expect(links).toHaveLength(3);
    expect(links[0]).toEqual({
      recipient_id: expect.stringMatching(/^rcp_[A-Za-z0-9_-]{22}$/),
      label: 'Alice',
      email,
      restricted: true,
      url_base: `${runtime.url}/s/${made.body.id}/r/${links[0]!.recipient_id}`,
    });
    expect(links[1]).toMatchObject({ label: 'Bob', email: null, restricted: false });
    expect(links[2]).toMatchObject({ label: null, email: null, restricted: false });
    expect(new Set(links.map((link) => link.recipient_id)).size).toBe(3);
    expect(made.body).toMatchObject({ max_views: 2, views_left: 6 });
  });

  it.each<[string, unknown]>([
    ['an empty list', []],
    ['21 recipients', Array.from({ length: 21 }, () => ({}))],
    ['a label over 64 characters', [{ label: 'x'.repeat(65) }]],
    ['an empty label', [{ label: '' }]],
    ['restricted without an email', [{ restricted: true }]],
    ['an address that is not one', [{ email: 'not-an-address' }]],
    ['an unknown field', [{ label: 'a', phone: '123' }]],
    ['not a list', { label: 'a' }],
  ])('refuses %s with 400 naming the field', async (_, recipients) => {
    const reply = await api.post('/v1/secrets', textSecretBody({ recipients }));
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.errors.map((error: { path: string }) => error.path).join(' ')).toContain('body.recipients');
  });
});

describe('claiming through a link', () => {
  it('200 parallel claims over 3 links of 2 views each give exactly 6 payloads; a link revoked mid-storm leaves the others exact', async () => {
    for (const revokeOne of [false, true]) {
      const secret = await withLinks([{}, {}, {}], { max_views: 2 });
      const ids = secret.links.map((link) => link.recipient_id);
      const claims = Array.from({ length: 200 }, (_, i) => claim(secret.id, { ...secret.proof, recipient_id: ids[i % 3] }));
      const revoked = revokeOne
        ? api.delete(`/v1/secrets/${secret.id}/recipients/${ids[2]}`, { 'x-delete-token': secret.deleteToken })
        : null;
      const replies = await Promise.all(claims);
      if (revoked) expect((await revoked).status).toBe(200);
      const served = ids.map((id) => replies.filter((reply, i) => reply.status === 200 && i % 3 === ids.indexOf(id)).length);
      expect(
        replies.every((reply) => [200, 410].includes(reply.status)),
        JSON.stringify(replies.map((reply) => reply.status)),
      ).toBe(true);
      expect(served.slice(0, 2)).toEqual([2, 2]);
      if (revokeOne) expect(served[2]).toBeLessThanOrEqual(2);
      else expect(served[2]).toBe(2);
      expect((await api.get(`/v1/secrets/${secret.id}`)).body).toMatchObject({ state: 'burned', views_left: 0 });
    }
  });
});

describe('DELETE /v1/secrets/{id}/recipients/{recipientId}', () => {
  it('revokes one link for its owner (session, or a secrets:write key) or the delete token; the others keep working', async () => {
    const owner = await signIn(runtime, newEmail('revoker'));
    const key = await createKey(runtime, owner, ['secrets:write']);
    const secret = await withLinks([{}, {}, {}, {}], {}, owner.auth);
    const [a, b, c, d] = secret.links.map((link) => link.recipient_id) as [string, string, string, string];
    expect((await api.delete(`/v1/secrets/${secret.id}/recipients/${a}`, owner.auth)).body).toEqual({ recipient_id: a, state: 'revoked' });
    expect((await api.delete(`/v1/secrets/${secret.id}/recipients/${b}`, key.auth)).status).toBe(200);
    expect((await api.delete(`/v1/secrets/${secret.id}/recipients/${c}`, { 'x-delete-token': secret.deleteToken })).status).toBe(200);
    const refused = await claim(secret.id, { ...secret.proof, recipient_id: a });
    expectProblem(refused, 410, 'recipient_revoked');
    expect((await claim(secret.id, { ...secret.proof, recipient_id: d })).status).toBe(200);
    // Revoking again says the same and changes nothing.
    expect((await api.delete(`/v1/secrets/${secret.id}/recipients/${a}`, owner.auth)).status).toBe(200);
    const read = await api.get(`/v1/secrets/${secret.id}`, owner.auth);
    expect(read.body.recipients.map((link: { state: string }) => link.state)).toEqual(['revoked', 'revoked', 'revoked', 'used']);
    expect(read.body.state).toBe('burned');
  });

  it('answers 401 with neither a credential nor a delete token, and 404 to anyone who is not the owner', async () => {
    const owner = await signIn(runtime, newEmail('keeper'));
    const secret = await withLinks([{}], {}, owner.auth);
    const link = secret.links[0]!.recipient_id;
    const path = `/v1/secrets/${secret.id}/recipients/${link}`;
    expectProblem(await api.delete(path), 401, 'unauthorized');
    expectProblem(await api.delete(path, { authorization: 'Bearer nonsense' }), 401, 'unauthorized');
    const stranger = await signIn(runtime, newEmail('stranger'));
    expectProblem(await api.delete(path, stranger.auth), 404, 'not_found');
    expectProblem(await api.delete(path, { 'x-delete-token': 'hdt_wrong' }), 404, 'not_found');
    expectProblem(await api.delete(`/v1/secrets/${secret.id}/recipients/${unknownLink()}`, owner.auth), 404, 'not_found');
    expectProblem(await api.delete(`/v1/secrets/${unknownSecret()}/recipients/${link}`, owner.auth), 404, 'not_found');
    // A key without secrets:write may not (the route lists no 403).
    const reader = await createKey(runtime, owner, ['secrets:read']);
    expectProblem(await api.delete(path, reader.auth), 401, 'unauthorized');
    expect((await claim(secret.id, { ...secret.proof, recipient_id: link })).status).toBe(200);
  });
});

describe('GET /v1/secrets/{id} with links', () => {
  it('shows the owner every link with its state and address; anyone else no address; a link’s holder its own link', async () => {
    const email = newEmail('only-owner-sees');
    const owner = await signIn(runtime, newEmail('shower'));
    const secret = await withLinks([{ label: 'Ann', email, restricted: true }, { label: 'Ben' }], { max_views: 3 }, owner.auth);
    const [a, b] = secret.links.map((link) => link.recipient_id) as [string, string];
    expect((await claim(secret.id, { ...secret.proof, recipient_id: b })).status).toBe(200);

    const mine = await api.get(`/v1/secrets/${secret.id}`, owner.auth);
    expect(mine.body).toMatchObject({ owned: true, has_recipients: true, views_left: 5 });
    expect(mine.body.recipients).toEqual([
      { recipient_id: a, label: 'Ann', email, restricted: true, state: 'active', views_left: 3 },
      { recipient_id: b, label: 'Ben', email: null, restricted: false, state: 'active', views_left: 2 },
    ]);
    const anyone = await api.get(`/v1/secrets/${secret.id}`);
    expect(anyone.body).toMatchObject({ has_recipients: true });
    expect(anyone.body).not.toHaveProperty('recipients');
    expect(JSON.stringify(anyone.body)).not.toContain(email);
    const holder = await api.get(`/v1/secrets/${secret.id}?recipient_id=${a}`);
    expect(holder.body.recipient).toEqual({ recipient_id: a, restricted: true, state: 'active', views_left: 3 });
    expect(JSON.stringify(holder.body)).not.toContain(email);
    expectProblem(await api.get(`/v1/secrets/${secret.id}?recipient_id=${unknownLink()}`), 404, 'not_found');
    expectProblem(await api.get(`/v1/secrets/${secret.id}?recipient_id=${'r'.repeat(65)}`), 400, 'invalid_request');
    expectProblem(await api.get(`/v1/secrets/${secret.id}?unknown=1`), 400, 'invalid_request');
  });
});

describe('restricted links and the gate', () => {
  it('asks for the gate (401), mails a code only to the link’s address, and opens with the session', async () => {
    const email = newEmail('gated');
    const secret = await withLinks([{ email, restricted: true }, {}]);
    const link = secret.links[0]!.recipient_id;
    expectProblem(await claim(secret.id, { ...secret.proof, recipient_id: link }), 401, 'gate_required');

    // The same answer whatever the address; a mail only to the right one (any case).
    const wrong = await gateCall(`/v1/secrets/${secret.id}/gate/start`, { recipient_id: link, email: newEmail('not-them') });
    const right = await gateCall(`/v1/secrets/${secret.id}/gate/start`, { recipient_id: link, email: email.toUpperCase() });
    expect(wrong.status).toBe(200);
    expect(right.status).toBe(200);
    expect(right.body).toEqual(wrong.body);
    expect(right.body).toEqual({ sent: true });
    expect(mailsTo(runtime, email)).toHaveLength(1);
    const code = gateCode(email)!;
    expect(code).toMatch(/^\d{6}$/);

    const wrongCode = code === '000000' ? '000001' : '000000';
    const refused = await gateCall(`/v1/secrets/${secret.id}/gate/verify`, { recipient_id: link, email, code: wrongCode });
    expectProblem(refused, 401, 'unauthorized');
    expect(refused.body.attempts_left).toBe(4);
    // A wrong address is refused like a wrong code.
    expectProblem(
      await gateCall(`/v1/secrets/${secret.id}/gate/verify`, { recipient_id: link, email: newEmail('other'), code }),
      401,
      'unauthorized',
    );

    const verified = await gateCall(`/v1/secrets/${secret.id}/gate/verify`, { recipient_id: link, email, code });
    expect(verified.status).toBe(200);
    expect(verified.body.gate_token).toMatch(/^hlg_[A-Za-z0-9_-]{43}$/);
    const lasts = Date.parse(verified.body.expires_at) - runtime.clock.now();
    expect(lasts).toBeGreaterThan(15 * 60 * 1000 - 5000);
    expect(lasts).toBeLessThanOrEqual(15 * 60 * 1000);
    // A code works once.
    expectProblem(await gateCall(`/v1/secrets/${secret.id}/gate/verify`, { recipient_id: link, email, code }), 401, 'unauthorized');

    const opened = await claim(secret.id, { ...secret.proof, recipient_id: link, gate_token: verified.body.gate_token });
    expect(opened.status).toBe(200);
    expect(opened.body.envelope).toBe(secret.envelope);
  });

  it('answers 404 for an unknown secret or link, and 400 for a malformed body', async () => {
    const email = newEmail('gate404');
    const secret = await withLinks([{ email, restricted: true }]);
    const link = secret.links[0]!.recipient_id;
    for (const step of ['start', 'verify']) {
      const body = step === 'start' ? { recipient_id: link, email } : { recipient_id: link, email, code: '123456' };
      expectProblem(await gateCall(`/v1/secrets/${unknownSecret()}/gate/${step}`, body), 404, 'not_found');
      expectProblem(await gateCall(`/v1/secrets/${secret.id}/gate/${step}`, { ...body, recipient_id: unknownLink() }), 404, 'not_found');
      expectProblem(await gateCall(`/v1/secrets/${secret.id}/gate/${step}`, { ...body, email: 'nope' }), 400, 'invalid_request');
    }
    expectProblem(
      await gateCall(`/v1/secrets/${secret.id}/gate/verify`, { recipient_id: link, email, code: '12345' }),
      400,
      'invalid_request',
    );
  });

  it('answers 429 from the per-address limits of start and verify', async () => {
    toFreshWindow(runtime.clock, 3600);
    // Spread over several links, so the route's limits (12 starts, 25 tries) answer before any
    // link's own caps for this source (5 starts, 5 tries).
    const secrets = [];
    for (let i = 0; i < 6; i++) secrets.push(await withLinks([{ email: newEmail('flood'), restricted: true }]));
    let started: Reply | undefined;
    for (let i = 0; i < 13 && started?.status !== 429; i++) {
      const secret = secrets[i % 3]!;
      started = await gateCall(`/v1/secrets/${secret.id}/gate/start`, {
        recipient_id: secret.links[0]!.recipient_id,
        email: newEmail('x'),
      });
      if (i < 12) expect(started.status).toBe(200);
    }
    expectProblem(started!, 429, 'rate_limited');
    let verified: Reply | undefined;
    for (let i = 0; i < 26 && verified?.status !== 429; i++) {
      const secret = secrets[i % 6]!;
      verified = await gateCall(`/v1/secrets/${secret.id}/gate/verify`, {
        recipient_id: secret.links[0]!.recipient_id,
        email: newEmail('x'),
        code: '123456',
      });
      if (i < 25) expect(verified.status).toBe(401);
    }
    expectProblem(verified!, 429, 'rate_limited');
    expect(defaultRateLimits.gate_start.perIp.limit).toBeGreaterThan(0);
  });
});

describe('GET /v1/secrets/{id}/receipts', () => {
  const setPlan = async (userId: string, plan: string) => {
    const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    await db.send(
      new UpdateCommand({
        TableName: runtime.config.TABLE_NAME,
        Key: { pk: `USER#${userId}`, sk: 'PROFILE' },
        UpdateExpression: 'SET #plan = :plan',
        ExpressionAttributeNames: { '#plan': 'plan' },
        ExpressionAttributeValues: { ':plan': plan },
      }),
    );
    db.destroy();
  };
  const chrome = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

  it('records each view (link, time, channel) newest first; free sees no location or device, pro sees the device family', async () => {
    const buyer = await signIn(runtime, newEmail('receipts'));
    const secret = await withLinks([{ label: 'web' }, { label: 'cli' }], { max_views: 2 }, buyer.auth);
    const [a, b] = secret.links.map((link) => link.recipient_id) as [string, string];
    expect(
      (await claim(secret.id, { ...secret.proof, recipient_id: a }, { 'x-hushlink-client': 'web', 'user-agent': chrome })).status,
    ).toBe(200);
    runtime.clock.advance(5);
    expect(
      (await claim(secret.id, { ...secret.proof, recipient_id: b }, { 'x-hushlink-client': 'cli', 'user-agent': 'curl/8.5.0' })).status,
    ).toBe(200);
    runtime.clock.advance(5);
    expect((await claim(secret.id, { ...secret.proof, recipient_id: a }, { 'x-hushlink-client': 'something-else' })).status).toBe(200);
    await runtime.drainWork();

    const free = await api.get(`/v1/secrets/${secret.id}/receipts`, buyer.auth);
    expect(free.status).toBe(200);
    expect(free.body.items.map((item: { recipient_id: string; channel: string }) => [item.recipient_id, item.channel])).toEqual([
      [a, 'api'],
      [b, 'cli'],
      [a, 'web'],
    ]);
    for (const item of free.body.items) expect(item).toMatchObject({ location: null, device: null, opened_at: expect.any(String) });
    expect(free.body.next_cursor).toBeNull();

    await setPlan(buyer.user.id, 'pro');
    const pro = await api.get(`/v1/secrets/${secret.id}/receipts?limit=2`, buyer.auth);
    // A user agent no parser knows is no device at all.
    expect(pro.body.items[1]).toMatchObject({ channel: 'cli', device: null, location: null });
    const rest = await api.get(`/v1/secrets/${secret.id}/receipts?limit=2&cursor=${pro.body.next_cursor}`, buyer.auth);
    expect(rest.body.items).toEqual([expect.objectContaining({ channel: 'web', device: { browser: 'Chrome', os: 'macOS' } })]);
    expect(rest.body.next_cursor).toBeNull();
    // Never an address, never the user agent itself.
    const stored = JSON.stringify([...pro.body.items, ...rest.body.items]);
    expect(stored).not.toContain('127.0.0.1');
    expect(stored).not.toContain('Mozilla');
  });

  it('answers 401 without a credential, 403 to a key without receipts:read, 404 for a secret the caller does not own', async () => {
    const owner = await signIn(runtime, newEmail('receipt-owner'));
    const secret = await withLinks([{}], {}, owner.auth);
    const path = `/v1/secrets/${secret.id}/receipts`;
    expectProblem(await api.get(path), 401, 'unauthorized');
    expectProblem(await api.get(path, (await createKey(runtime, owner, ['secrets:read'])).auth), 403, 'forbidden');
    expect((await api.get(path, (await createKey(runtime, owner, ['receipts:read'])).auth)).status).toBe(200);
    expectProblem(await api.get(path, (await signIn(runtime, newEmail('nosy'))).auth), 404, 'not_found');
    expectProblem(await api.get(`/v1/secrets/${unknownSecret()}/receipts`, owner.auth), 404, 'not_found');
    const anonymous = await api.post('/v1/secrets', textSecretBody());
    expectProblem(await api.get(`/v1/secrets/${anonymous.body.id}/receipts`, owner.auth), 404, 'not_found');
    expectProblem(await api.get(`${path}?limit=0`, owner.auth), 400, 'invalid_request');
  });
});
