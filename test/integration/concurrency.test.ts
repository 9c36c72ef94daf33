/**
 * Concurrency suite (DESIGN.md §3 "Claim"): exactly one view per successful claim under any
 * concurrency, exactly one terminal event per secret, and never a payload handed out after
 * the secret ended. Everything goes over HTTP against one in-memory local runtime; the
 * stored item is then inspected through the store the runtime itself uses, and the events
 * the secret emitted are read from the table's stream, as the webhook relay gets them.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { isTerminal, type Secret, type SecretEvent, type SecretEventType } from '../../shared/domain/secrets/model.ts';
import { secretEventsOf } from '../support/events.ts';
import type { SecretStore } from '../../shared/domain/secrets/ports.ts';
import type { AppLogger } from '../../shared/logger.ts';
import { apiClient, claimPair, startTestRuntime, textSecretBody, type Reply } from '../support/runtime.ts';

/** Faults the service logged (it logs every 5xx with its cause); no test may leave any. */
const loggedErrors: Array<{ message: string; fields: unknown }> = [];
const captureLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (message: string, fields?: unknown) => {
    loggedErrors.push({ message, fields });
  },
} as unknown as AppLogger;

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({ logger: captureLogger });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());
beforeEach(() => {
  loggedErrors.length = 0;
});

/** The service logs every 5xx with its cause: a race must not have produced any. */
const expectNoFaults = () =>
  expect(loggedErrors.map((entry) => (entry.fields as { message?: string })?.message ?? entry.message)).toEqual([]);

const terminalTypes: readonly SecretEventType[] = ['secret.burned', 'secret.expired', 'secret.revoked', 'secret.locked'];

interface Created {
  id: string;
  deleteToken: string;
  envelope: string;
  maxViews: number;
}

async function createSecret(overrides: Record<string, unknown> = {}, size = 64): Promise<Created> {
  const body = textSecretBody(overrides, size);
  const created = await api.post('/v1/secrets', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.views_left).toBe(created.body.max_views);
  return { id: created.body.id, deleteToken: created.body.delete_token, envelope: body.envelope, maxViews: created.body.max_views };
}

const claim = (id: string, token?: string, linkToken?: string): Promise<Reply> =>
  api.post(
    `/v1/secrets/${id}/claim`,
    token === undefined ? undefined : { claim_token: token, ...(linkToken === undefined ? {} : { link_token: linkToken }) },
  );

/** Claims at once; with `linkToken`, each proves the link, so refused tokens count towards the lock. */
const claimMany = (id: string, count: number, token?: (index: number) => string | undefined, linkToken?: string): Promise<Reply[]> =>
  Promise.all(Array.from({ length: count }, (_, index) => claim(id, token?.(index), linkToken)));

async function stored(id: string): Promise<Secret> {
  const secret = await runtime.stores.secrets.get(id);
  expect(secret, `secret ${id} is stored`).not.toBeNull();
  return secret!;
}

/** Every refusal is an RFC 9457 problem whose `status` is the HTTP status. */
function expectProblem(reply: Reply, status: number, code: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reply.body).toMatchObject({ status, code });
  expect(typeof reply.body.detail).toBe('string');
  expect(JSON.stringify(reply.body)).not.toContain('envelope');
}

/** A 200 from a claim carries exactly the envelope that was created. */
function expectPayload(reply: Reply, secret: Created): void {
  expect(reply.status).toBe(200);
  expect(reply.body.id).toBe(secret.id);
  expect(reply.body.envelope).toBe(secret.envelope);
}

/**
 * The event invariants every ended secret must meet: exactly one terminal event, after every
 * view; the views count down from max_views - 1 one by one; no payload left in the item.
 * Returns the views and the terminal event.
 */
async function expectEndedOnce(secret: Secret): Promise<{ viewed: SecretEvent[]; terminal: SecretEvent }> {
  const events = await secretEventsOf(runtime, secret.id);
  expect(events[0]?.type).toBe('secret.created');
  expect(events.filter((event) => event.type === 'secret.created')).toHaveLength(1);
  const viewed = events.filter((event) => event.type === 'secret.viewed');
  const terminal = events.filter((event) => terminalTypes.includes(event.type));
  expect(terminal, `terminal events of ${secret.id}: ${terminal.map((event) => event.type).join(', ')}`).toHaveLength(1);
  expect(viewed.length).toBeLessThanOrEqual(secret.maxViews);
  expect(viewed.map((event) => event.views_left)).toEqual(Array.from({ length: viewed.length }, (_, i) => secret.maxViews - 1 - i));
  const terminalIndex = events.indexOf(terminal[0]!);
  const lastViewIndex = events.map((event) => event.type).lastIndexOf('secret.viewed');
  expect(lastViewIndex, 'no view is recorded after the secret ended').toBeLessThan(terminalIndex);
  expect(isTerminal(secret.state)).toBe(true);
  expect(`secret.${secret.state}`).toBe(terminal[0]!.type);
  expect(secret.envelope, 'the payload is deleted when the secret ends').toBeUndefined();
  expect(secret.viewsLeft).toBe(secret.maxViews - viewed.length);
  return { viewed, terminal: terminal[0]! };
}

/** The 200s of a race: each the exact envelope, one per recorded view, with distinct counters. */
function expectPayloadsMatchViews(replies: Reply[], created: Created, viewed: SecretEvent[]): Reply[] {
  const served = replies.filter((reply) => reply.status === 200);
  for (const reply of served) expectPayload(reply, created);
  expect(served.length, 'one payload per recorded view, and no more').toBe(viewed.length);
  expect(served.map((reply) => reply.body.views_left as number).sort((a, b) => b - a)).toEqual(viewed.map((event) => event.views_left));
  return served;
}

describe('200 simultaneous claims', () => {
  it('max_views=3: exactly 3 payloads, 197 × 410 gone, one burn', async () => {
    const created = await createSecret({ max_views: 3 });
    const replies = await claimMany(created.id, 200);

    const served = replies.filter((reply) => reply.status === 200);
    expect(served).toHaveLength(3);
    for (const reply of served) expectPayload(reply, created);
    const refused = replies.filter((reply) => reply.status !== 200);
    expect(refused).toHaveLength(197);
    for (const reply of refused) expectProblem(reply, 410, 'gone');

    const secret = await stored(created.id);
    expect(secret.viewsLeft).toBe(0);
    expect(secret.state).toBe('burned');
    expect(secret.envelope).toBeUndefined();
    const events = await secretEventsOf(runtime, created.id);
    expect(events.filter((event) => event.type === 'secret.viewed').map((event) => event.views_left)).toEqual([2, 1, 0]);
    expect(events.filter((event) => event.type === 'secret.burned')).toHaveLength(1);
    await expectEndedOnce(secret);
    expectPayloadsMatchViews(
      replies,
      created,
      events.filter((event) => event.type === 'secret.viewed'),
    );
    expectNoFaults();
  }, 60_000);

  it('10 secrets × 200 simultaneous claims with max_views 1..5: never over-consumed', async () => {
    // Each max_views twice, 200 claims per secret (as many as in the single-secret test), five
    // secrets at a time: 1,000 claims in flight. Twenty secrets took 30 s of a full run for no
    // case these do not make.
    const secrets = 10;
    const claimsPerSecret = 200;
    const inParallel = 5;
    const overConsumed: string[] = [];
    for (let start = 0; start < secrets; start += inParallel) {
      await Promise.all(
        Array.from({ length: Math.min(inParallel, secrets - start) }, async (_, offset) => {
          const maxViews = ((start + offset) % 5) + 1;
          const created = await createSecret({ max_views: maxViews });
          const replies = await claimMany(created.id, claimsPerSecret);

          const served = replies.filter((reply) => reply.status === 200);
          if (served.length > maxViews) overConsumed.push(`${created.id}: ${served.length} payloads for max_views ${maxViews}`);
          expect(served).toHaveLength(maxViews);
          for (const reply of replies) {
            if (reply.status === 200) expectPayload(reply, created);
            else expectProblem(reply, 410, 'gone');
          }

          const secret = await stored(created.id);
          expect(secret.state).toBe('burned');
          expect(secret.viewsLeft).toBe(0);
          const { viewed, terminal } = await expectEndedOnce(secret);
          expect(terminal.type).toBe('secret.burned');
          expect(viewed.map((event) => event.views_left)).toEqual(Array.from({ length: maxViews }, (_, i) => maxViews - 1 - i));
          expectPayloadsMatchViews(replies, created, viewed);
        }),
      );
    }
    expect(overConsumed).toEqual([]);
    expectNoFaults();
  }, 90_000); // 30 s for twenty secrets in a full run here
});

describe('claims racing a revoke (DELETE)', () => {
  it('every interleaving ends exactly once, with no payload after the end', async () => {
    for (let round = 0; round < 12; round++) {
      const maxViews = (round % 5) + 1;
      const created = await createSecret({ max_views: maxViews });
      const claims = 40;
      // The DELETE goes out at a different point of the burst each round.
      const deleteAt = Math.floor((round / 12) * claims);
      const requests: Array<Promise<Reply>> = [];
      let revoke: Promise<Reply> | undefined;
      for (let i = 0; i < claims; i++) {
        if (i === deleteAt) revoke = api.delete(`/v1/secrets/${created.id}`, { 'x-delete-token': created.deleteToken });
        requests.push(claim(created.id));
      }
      const [revoked, replies] = await Promise.all([revoke!, Promise.all(requests)]);

      expect(revoked.status, JSON.stringify(revoked.body)).toBe(204);
      for (const reply of replies) {
        if (reply.status !== 200) expectProblem(reply, 410, 'gone');
      }
      const secret = await stored(created.id);
      const { viewed, terminal } = await expectEndedOnce(secret);
      const eventsBefore = await secretEventsOf(runtime, created.id);
      const served = expectPayloadsMatchViews(replies, created, viewed);
      if (terminal.type === 'secret.burned') expect(served).toHaveLength(maxViews);
      else expect(terminal.type).toBe('secret.revoked');
      for (const reply of replies.filter((reply) => reply.status === 410)) {
        expect(['burned', 'revoked']).toContain(reply.body.state);
      }

      // Revoking again changes nothing: still 204, still one terminal event.
      const again = await api.delete(`/v1/secrets/${created.id}`, { 'x-delete-token': created.deleteToken });
      expect(again.status).toBe(204);
      expect(await secretEventsOf(runtime, created.id)).toHaveLength(eventsBefore.length);
      const read = await api.get(`/v1/secrets/${created.id}`);
      expect(read.status).toBe(200);
      expect(read.body.state).toBe(secret.state);
      expect(JSON.stringify(read.body)).not.toContain(created.envelope);
    }
    expectNoFaults();
  }, 60_000);
});

describe('claims racing a proof lock', () => {
  it('20 concurrent wrong proofs lock the secret once and hand out nothing', async () => {
    const { token, verifier } = claimPair();
    const link = claimPair();
    const created = await createSecret({ max_views: 5, claim_verifier: verifier, link_verifier: link.verifier });
    const replies = await claimMany(created.id, 20, () => randomBytes(32).toString('base64url'), link.token);

    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(0);
    for (const reply of replies) {
      expect([403, 423]).toContain(reply.status);
      if (reply.status === 403) expectProblem(reply, 403, 'proof_refused');
      else expectProblem(reply, 423, 'locked');
    }
    // Attempts 1..4 are refused, the 5th locks: at most four 403s, and the lock is reported.
    expect(replies.filter((reply) => reply.status === 403).length).toBeLessThanOrEqual(4);
    expect(replies.filter((reply) => reply.status === 423).length).toBeGreaterThanOrEqual(16);

    const secret = await stored(created.id);
    expect(secret.state).toBe('locked');
    expect(secret.viewsLeft).toBe(5);
    const { viewed, terminal } = await expectEndedOnce(secret);
    expect(viewed).toHaveLength(0);
    expect(terminal.type).toBe('secret.locked');

    // Even the right proof gets nothing now.
    const late = await claim(created.id, token);
    expectProblem(late, 423, 'locked');
    expect((await secretEventsOf(runtime, created.id)).filter((event) => event.type === 'secret.locked')).toHaveLength(1);
    expectNoFaults();
  });

  it('wrong proofs racing the right one: at most one payload, and only before the end', async () => {
    for (let round = 0; round < 6; round++) {
      const { token, verifier } = claimPair();
      const link = claimPair();
      const created = await createSecret({ max_views: 1, claim_verifier: verifier, link_verifier: link.verifier });
      const rightAt = round * 4;
      const replies = await claimMany(
        created.id,
        24,
        (index) => (index === rightAt ? token : randomBytes(32).toString('base64url')),
        link.token,
      );

      const secret = await stored(created.id);
      const { viewed, terminal } = await expectEndedOnce(secret);
      expectPayloadsMatchViews(replies, created, viewed);
      expect(['secret.burned', 'secret.locked']).toContain(terminal.type);
      replies.forEach((reply, index) => {
        if (index !== rightAt) expect(reply.status, 'a wrong proof never gets the payload').not.toBe(200);
        if (reply.status !== 200) {
          expect([403, 410, 423]).toContain(reply.status);
          expectProblem(
            reply,
            reply.status,
            ({ 403: 'proof_refused', 410: 'gone', 423: 'locked' } as Record<number, string>)[reply.status]!,
          );
        }
      });
    }
    expectNoFaults();
  });
});

describe('claims racing the not_before boundary', () => {
  it('a claim refused as too early while the clock passes not_before is never a 5xx', async () => {
    const created = await createSecret({ max_views: 2, not_before: new Date(runtime.clock.now() + 60_000).toISOString() });
    // Time moves on while the conditional update is in flight: the database refused with the
    // clock before not_before, the service decides why with the clock after it.
    const store = runtime.functions.secrets.secrets as SecretStore & { takeView: SecretStore['takeView'] };
    const original = store.takeView;
    let moved = false;
    store.takeView = async function (this: SecretStore, id, input) {
      const result = await original.call(this, id, input);
      if (!result.taken && id === created.id && !moved) {
        moved = true;
        runtime.clock.advance(120);
      }
      return result;
    };
    let reply: Reply;
    try {
      reply = await claim(created.id);
    } finally {
      delete (store as Partial<typeof store>).takeView;
    }
    expect(moved).toBe(true);
    expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(500);
    expect([200, 425]).toContain(reply.status);
    if (reply.status === 425) expectProblem(reply, 425, 'too_early');
    else expectPayload(reply, created);
    // Whatever was answered, the views left match the payloads handed out.
    const secret = await stored(created.id);
    expect(secret.viewsLeft).toBe(reply.status === 200 ? 1 : 2);
    expectNoFaults();
  });
});

describe('claims racing expiry', () => {
  it('claims and the expiry sweep fired together: one expired event, no payload', async () => {
    for (let round = 0; round < 8; round++) {
      const created = await createSecret({ max_views: 5, expires_in: 60 });
      // One view taken while it was alive, so the tombstone must keep views_left 4.
      expectPayload(await claim(created.id), created);
      runtime.clock.advance(61);

      // Alternate which side starts first.
      const fireClaims = () => Promise.all(Array.from({ length: 30 }, () => claim(created.id)));
      const fireSweep = () => runtime.scheduler.run('expire-secrets');
      const [swept, replies] =
        round % 2 === 0
          ? await (async () => {
              const s = fireSweep();
              return Promise.all([s, fireClaims()]);
            })()
          : await (async () => {
              const c = fireClaims();
              return Promise.all([fireSweep(), c]);
            })();

      for (const reply of replies) {
        expectProblem(reply, 410, 'gone');
        expect(reply.body.state).toBe('expired');
      }
      const secret = await stored(created.id);
      expect(secret.state).toBe('expired');
      expect(secret.viewsLeft).toBe(4);
      const { viewed, terminal } = await expectEndedOnce(secret);
      const eventsBefore = await secretEventsOf(runtime, created.id);
      expect(viewed).toHaveLength(1);
      expect(terminal.type).toBe('secret.expired');
      expect([0, 1]).toContain(swept.processed);

      // A later sweep finds nothing more to do for it.
      const again = await runtime.scheduler.run('expire-secrets');
      expect(again.processed).toBe(0);
      expect(await secretEventsOf(runtime, created.id)).toHaveLength(eventsBefore.length);
    }
    expectNoFaults();
  }, 60_000);
});
