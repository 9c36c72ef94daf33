import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { injectDynamoFaults, internalError, transactionConflict, type DynamoCall } from '../support/faults.ts';
import { apiClient, claimPair, startTestRuntime, textSecretBody } from '../support/runtime.ts';
import { directoryWorkspace, oktaUser, rosterOf, scimClient } from '../support/scim/directory.ts';
import { createHandler as createRelayHandler } from '../../functions/relay.ts';
import { LocalStream } from '../../local/streams.ts';
import { relayFilters } from '../../shared/store/relayRecords.ts';

// Real DynamoDB cancels a transaction that meets another one on the same item
// (TransactionConflict) and the SDK does not retry it; DynamoDB Local serializes transactions
// and never does. These tests make the runtime's client answer as AWS does.

/** Every TransactWriteItems loses to a concurrent transaction on its first two attempts. */
const attemptsOf = new Map<string, number>();
let conflictsAnswered = 0;
/** The burn of these secrets (their UpdateItem that removes the envelope) fails once, as a throttled write would. */
const failBurnOf = new Set<string>();

function fault({ command, input }: DynamoCall): Error | null {
  if (command === 'TransactWriteItems') {
    const key = JSON.stringify(input);
    const attempt = (attemptsOf.get(key) ?? 0) + 1;
    attemptsOf.set(key, attempt);
    if (attempt <= 2) {
      conflictsAnswered += 1;
      return transactionConflict(input.TransactItems.length);
    }
  }
  if (command === 'UpdateItem' && String(input.UpdateExpression).includes('REMOVE')) {
    const id = String(input.Key?.pk?.S ?? '').replace(/^SECRET#/, '');
    if (failBurnOf.delete(id)) return internalError();
  }
  return null;
}

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let owner: SignedIn;

beforeAll(async () => {
  runtime = await startTestRuntime({ instrumentDynamo: injectDynamoFaults(fault) });
  api = apiClient(runtime);
  // Signing up is a transaction (the user and its address, both unique): retried past its conflicts.
  owner = await signIn(runtime, newEmail('conflicts'));
});
afterAll(() => runtime?.stop());

const usage = async () => {
  await runtime.drainWork();
  return (await api.get('/v1/usage', owner.auth)).body as { live_secrets: number; bytes_stored: number };
};

describe('transaction conflicts, as AWS answers them', () => {
  it('signing up retries past them', () => {
    expect(owner.access_token).toEqual(expect.any(String));
    expect(conflictsAnswered).toBeGreaterThanOrEqual(2);
  });

  it('50 parallel creates, claims and revokes by one owner all succeed, and the usage counters end exact', async () => {
    const before = await usage();
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, i) => api.post('/v1/secrets', textSecretBody({ max_views: 2 }, 100 + i), owner.auth)),
    );
    expect(created.map((reply) => reply.status)).toEqual(Array(50).fill(201));
    const ids = created.map((reply) => reply.body.id as string);

    const conflictsBefore = conflictsAnswered;
    // Half of them are claimed twice (their last view burns them), the other half revoked, all at once.
    const [claimed, revoked] = await Promise.all([
      Promise.all(ids.slice(0, 25).flatMap((id) => [api.post(`/v1/secrets/${id}/claim`), api.post(`/v1/secrets/${id}/claim`)])),
      Promise.all(ids.slice(25).map((id) => api.delete(`/v1/secrets/${id}`, owner.auth))),
    ]);
    expect(claimed.map((reply) => reply.status)).toEqual(Array(50).fill(200));
    expect(revoked.map((reply) => reply.status)).toEqual(Array(25).fill(204));
    for (const id of ids) expect((await api.get(`/v1/secrets/${id}`)).body.state).toMatch(/^(burned|revoked)$/);

    // The counters moved through the relay's transactions, which met conflicts and retried.
    expect(await usage()).toEqual(expect.objectContaining({ live_secrets: before.live_secrets, bytes_stored: before.bytes_stored }));
    expect(conflictsAnswered).toBeGreaterThan(conflictsBefore);
  });

  it('counts the owner’s live secrets while they live, from the stream, each once', async () => {
    const before = await usage();
    const created = await Promise.all(Array.from({ length: 20 }, () => api.post('/v1/secrets', textSecretBody({}, 50), owner.auth)));
    expect(created.every((reply) => reply.status === 201)).toBe(true);
    expect(await usage()).toMatchObject({ live_secrets: before.live_secrets + 20, bytes_stored: before.bytes_stored + 1000 });
    // The stream handing every record over again (a second reader from its start, as Lambda's
    // retries would) moves nothing twice.
    const replay = new LocalStream({
      endpoint: runtime.dynamo.endpoint,
      tableName: runtime.config.TABLE_NAME,
      filters: relayFilters,
      batchSize: 100,
    });
    replay.consume(createRelayHandler(runtime.functions.relay));
    expect(await replay.drain()).toBeGreaterThan(20);
    await replay.stop();
    expect(await usage()).toMatchObject({ live_secrets: before.live_secrets + 20, bytes_stored: before.bytes_stored + 1000 });
  });
});

describe('SCIM provisioning under transaction conflicts', () => {
  it('30 parallel creates within 30 free seats, then deactivations, reactivations and deletes, all succeed past two conflicts each, and the roster ends exact', async () => {
    // 31 seats: the owner holds one.
    const directory = await directoryWorkspace(runtime, 31);
    const scim = scimClient(runtime, directory.key);
    const conflictsBefore = conflictsAnswered;
    const created = await Promise.all(Array.from({ length: 30 }, (_, i) => scim.post('/Users', oktaUser(`bulk-${i}@${directory.domain}`))));
    expect(
      created.map((reply) => reply.status),
      JSON.stringify(created.find((reply) => reply.status !== 201)?.body),
    ).toEqual(Array(30).fill(201));
    const ids = created.map((reply) => reply.body.id as string);
    const roster = () => rosterOf(runtime, directory);
    // The owner and the 30.
    expect(await roster()).toEqual({ seats: 31, members: 31 });
    const deactivate = { Operations: [{ op: 'replace', value: { active: false } }] };
    const deactivated = await Promise.all(ids.slice(0, 20).map((id) => scim.patch(`/Users/${id}`, deactivate)));
    expect(deactivated.map((reply) => [reply.status, reply.body.active])).toEqual(Array(20).fill([200, false]));
    const [reactivated, deleted] = await Promise.all([
      Promise.all(
        ids.slice(0, 10).map((id) => scim.patch(`/Users/${id}`, { Operations: [{ op: 'Replace', path: 'active', value: 'True' }] })),
      ),
      Promise.all(ids.slice(20).map((id) => scim.delete(`/Users/${id}`))),
    ]);
    expect(reactivated.map((reply) => reply.status)).toEqual(Array(10).fill(200));
    expect(deleted.map((reply) => reply.status)).toEqual(Array(10).fill(204));
    // 10 reactivated, 10 deactivated, 10 deleted: the owner and 10 members.
    expect(await roster()).toEqual({ seats: 31, members: 11 });
    expect(conflictsAnswered - conflictsBefore).toBeGreaterThanOrEqual(2 * (30 + 20 + 10 + 10));
  });
});

describe('a claim after its view is taken', () => {
  it('returns the payload even when the burn that follows fails; the next read finishes the burn', async () => {
    const pair = claimPair();
    const body = textSecretBody({ claim_verifier: pair.verifier, link_verifier: claimPair().verifier }, 64);
    const created = await api.post('/v1/secrets', body);
    failBurnOf.add(created.body.id);
    const claimed = await api.post(`/v1/secrets/${created.body.id}/claim`, { claim_token: pair.token });
    expect(claimed.status).toBe(200);
    expect(claimed.body.envelope).toBe(body.envelope);
    expect(claimed.body.views_left).toBe(0);
    expect(failBurnOf.has(created.body.id)).toBe(false);
    // Nobody else gets it, and the first read ends it as burned (not expired, not active).
    expect((await api.post(`/v1/secrets/${created.body.id}/claim`, { claim_token: pair.token })).status).toBe(410);
    expect((await api.get(`/v1/secrets/${created.body.id}`)).body).toMatchObject({ state: 'burned', views_left: 0 });
  });

  it('left alone, it is burned by the expiry sweep, its envelope deleted', async () => {
    const created = await api.post('/v1/secrets', textSecretBody({ expires_in: 60 }, 64));
    failBurnOf.add(created.body.id);
    expect((await api.post(`/v1/secrets/${created.body.id}/claim`)).status).toBe(200);
    const stored = await runtime.stores.secrets.get(created.body.id);
    expect(stored).toMatchObject({ state: 'active', viewsLeft: 0 });
    runtime.clock.advance(61);
    await runtime.scheduler.run('expire-secrets');
    const swept = await runtime.stores.secrets.get(created.body.id);
    expect(swept).toMatchObject({ state: 'burned' });
    expect(swept?.envelope).toBeUndefined();
  });
});
