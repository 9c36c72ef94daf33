import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { errorSchema, patchOpSchema } from '../../shared/domain/scim/model.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { createKey, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { injectDynamoFaults, transactionConflict, type DynamoCall } from '../support/faults.ts';
import { apiClient, startTestRuntime, textSecretBody, type Reply } from '../support/runtime.ts';
import { directoryWorkspace, membersOf, oktaUser, rosterOf, scimClient, type DirectoryWorkspace } from '../support/scim/directory.ts';
import { joinAs, send, setWorkspace } from '../support/workspaces.ts';

// The directory key, the Team tier and seats as a SCIM client meets them over HTTP (issue 18):
// nothing but the workspace's own key is accepted, and before anything else; seats taken and
// freed under conditions however many requests race; and a provisioned account is given no
// secret. The seat rules, the owner's and admins' memberships and the audit trail are the use
// cases' (test/usecases/scim-seats.test.ts).

/**
 * While on, each transaction writing a SCIM User is answered as AWS answers one that met another
 * transaction (DynamoDB Local serializes them and never does) on its first two attempts.
 */
let conflicting = false;
let conflictsAnswered = 0;
const attemptsOf = new Map<string, number>();
function fault({ command, input }: DynamoCall): Error | null {
  if (!conflicting || command !== 'TransactWriteItems') return null;
  const items = input.TransactItems as Array<Record<string, { Item?: { sk?: { S?: string } }; Key?: { sk?: { S?: string } } }>>;
  const sortKeys = items.map((item) => Object.values(item)[0]).map((part) => part?.Item?.sk?.S ?? part?.Key?.sk?.S ?? '');
  if (!sortKeys.some((sk) => sk.startsWith('SCIM_USER#'))) return null;
  // A retry sends the same transaction again (its audit row's id makes each one unique).
  const key = JSON.stringify(input);
  const attempt = (attemptsOf.get(key) ?? 0) + 1;
  attemptsOf.set(key, attempt);
  if (attempt > 2) return null;
  conflictsAnswered += 1;
  // The roster is the item concurrent seat changes meet on.
  return transactionConflict(items.length, Math.max(0, sortKeys.indexOf('ROSTER')));
}

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let db: ReturnType<typeof createDocumentClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({ instrumentDynamo: injectDynamoFaults(fault) });
  api = apiClient(runtime);
  db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
});
afterAll(async () => {
  db?.destroy();
  await runtime?.stop();
});

type Directory = ReturnType<typeof scimClient>;

/** An address in the directory's own domain, as Okta and Entra send them. */
const addressIn = (workspace: DirectoryWorkspace, label = 'scim') => newEmail(label, workspace.domain);

const deactivation = { schemas: [patchOpSchema], Operations: [{ op: 'replace', value: { active: false } }] };
/** Entra without its aadOptscim062020 flag: `Replace` and a string. */
const entraActive = (value: 'True' | 'False') => ({ schemas: [patchOpSchema], Operations: [{ op: 'Replace', path: 'active', value }] });

function expectScimError(reply: Reply, status: number, scimType?: string) {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
  expect(reply.body).toMatchObject({ schemas: [errorSchema], status: String(status), detail: expect.any(String) });
  if (scimType !== undefined) expect(reply.body.scimType).toBe(scimType);
}

function expectUnauthorized(reply: Reply) {
  expectScimError(reply, 401);
  expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
}

/** Makes a User and answers it (201 expected). */
async function provision(directory: Directory, email: string, overrides: Record<string, unknown> = {}) {
  const made = await directory.post('/Users', oktaUser(email, overrides));
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body as { id: string; userName: string; active: boolean };
}

const roster = (workspace: DirectoryWorkspace) => rosterOf(runtime, workspace);
const members = (workspace: DirectoryWorkspace) => membersOf(runtime, workspace);
const memberFor = async (workspace: DirectoryWorkspace, email: string) =>
  (await members(workspace)).find((member) => member.email === email.toLowerCase());

/** The roster agrees with the roll: one seat per member, never more members than seats. */
async function expectConsistent(workspace: DirectoryWorkspace, expectedMembers: number) {
  const [counted, roll] = await Promise.all([roster(workspace), members(workspace)]);
  expect(counted.members).toBe(expectedMembers);
  expect(roll).toHaveLength(expectedMembers);
  expect(counted.members).toBeLessThanOrEqual(counted.seats);
}

/** What the directory's listing holds for one userName (0 or 1 User). */
const findByUserName = async (directory: Directory, userName: string) =>
  (await directory.get(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).body.Resources as Array<{
    id: string;
    active: boolean;
  }>;

const statuses = (replies: Reply[]) => replies.map((reply) => reply.status).sort((a, b) => a - b);
const count = (replies: Reply[], status: number) => replies.filter((reply) => reply.status === status).length;

describe('the directory key', () => {
  let workspace: DirectoryWorkspace;
  let userId: string;
  beforeAll(async () => {
    workspace = await directoryWorkspace(runtime, 10);
    userId = (await provision(scimClient(runtime, workspace.key), addressIn(workspace))).id;
  });

  /** Every directory route, with a body each accepts. */
  const everyRoute = (directory: Directory, id: string) => [
    directory.get('/Users'),
    directory.post('/Users', oktaUser(addressIn(workspace))),
    directory.get(`/Users/${id}`),
    directory.put(`/Users/${id}`, oktaUser(addressIn(workspace))),
    directory.patch(`/Users/${id}`, { schemas: [patchOpSchema], Operations: [{ op: 'replace', path: 'displayName', value: 'Changed' }] }),
    directory.delete(`/Users/${id}`),
  ];

  it('is required on every directory route: none, no scheme, a wrong key, a session or an API key is 401 with WWW-Authenticate', async () => {
    const owner = workspace.owner;
    const apiKey = await createKey(runtime, owner, ['secrets:read']);
    const wrongKey = `hlscim_${'A'.repeat(43)}`;
    const refused = [
      scimClient(runtime, null),
      scimClient(runtime, 'non-token'),
      scimClient(runtime, wrongKey),
      scimClient(runtime, owner.access_token),
      scimClient(runtime, apiKey.key),
    ];
    for (const directory of refused) {
      for (const reply of await Promise.all(everyRoute(directory, userId))) expectUnauthorized(reply);
    }
    // Before any lookup: an id that names no User is 401 too, not 404.
    for (const reply of await Promise.all(everyRoute(scimClient(runtime, null), '010101001010101011001010101011')))
      expectUnauthorized(reply);
    // Okta's probe sends the header with no scheme at all.
    const probe = scimClient(runtime, null);
    for (const authorization of [
      'non-token',
      workspace.key,
      `Basic ${Buffer.from(`x:${workspace.key}`).toString('base64')}`,
      'Bearer',
      `Bearer ${workspace.key} extra`,
    ]) {
      expectUnauthorized(await probe.call('GET', '/Users', undefined, { authorization }));
    }
    // Nothing was changed by the refused requests.
    const user = await scimClient(runtime, workspace.key).get(`/Users/${userId}`);
    expect(user.status).toBe(200);
    expect(user.body.displayName).not.toBe('Changed');
  });

  it('is read before the body: a POST of invalid JSON without a key is 401, with the key 400', async () => {
    const post = (headers: Record<string, string>) =>
      api.call('POST', '/scim/v2/Users', { body: '{"userName": ', headers: { 'content-type': 'application/scim+json', ...headers } });
    expectUnauthorized(await post({}));
    expectUnauthorized(await post({ authorization: `Bearer hlscim_${'B'.repeat(43)}` }));
    expectScimError(await post({ authorization: `Bearer ${workspace.key}` }), 400);
  });

  it('takes the Bearer scheme in any case', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const reply = await api.get(`/scim/v2/Users/${userId}`, { authorization: `${scheme} ${workspace.key}` });
      expect(reply.status).toBe(200);
      expect(reply.body.id).toBe(userId);
    }
  });

  it('acts on its own workspace only: another workspace’s key neither sees nor changes its Users', async () => {
    const other = await directoryWorkspace(runtime, 10);
    const theirs = scimClient(runtime, other.key);
    const ours = scimClient(runtime, workspace.key);
    const mine = (await ours.get(`/Users/${userId}`)).body;
    const own = await provision(theirs, addressIn(other));
    expectScimError(await theirs.get(`/Users/${userId}`), 404);
    expectScimError(await theirs.put(`/Users/${userId}`, oktaUser(mine.userName, { active: false })), 404);
    expectScimError(await theirs.patch(`/Users/${userId}`, deactivation), 404);
    expectScimError(await theirs.delete(`/Users/${userId}`), 404);
    const listed = await theirs.get('/Users');
    expect(listed.body.Resources.map((user: { id: string }) => user.id)).toEqual([own.id]);
    expect(await findByUserName(theirs, mine.userName)).toEqual([]);
    // Ours is as it was, and the other's User is not ours to see.
    expect((await ours.get(`/Users/${userId}`)).body).toEqual(mine);
    expectScimError(await ours.get(`/Users/${own.id}`), 404);
    // The same address in the other workspace is another User there (userName is unique per workspace).
    expect((await theirs.post('/Users', oktaUser(mine.userName))).status).toBe(201);
  });

  it('stops at once when rotated; the new key works', async () => {
    const rotated = await send(
      runtime,
      'PUT',
      `/v1/workspaces/${workspace.id}/sso`,
      { issuer: 'https://acme.okta.com', email_domain: workspace.domain, rotate_directory_key: true },
      workspace.owner.auth,
    );
    expect(rotated.status).toBe(200);
    const key = rotated.body.scim.directory_key as string;
    expect(key).not.toBe(workspace.key);
    for (const reply of await Promise.all(everyRoute(scimClient(runtime, workspace.key), userId))) expectUnauthorized(reply);
    const fresh = scimClient(runtime, key);
    expect((await fresh.get(`/Users/${userId}`)).status).toBe(200);
    expect((await fresh.post('/Users', oktaUser(addressIn(workspace)))).status).toBe(201);
    workspace = { ...workspace, key };
  });
});

describe('the Team tier', () => {
  async function everyRouteAnswers(workspace: DirectoryWorkspace, id: string): Promise<number[]> {
    const directory = scimClient(runtime, workspace.key);
    const replies = [
      await directory.get('/Users'),
      await directory.post('/Users', oktaUser(addressIn(workspace))),
      await directory.get(`/Users/${id}`),
      await directory.put(`/Users/${id}`, oktaUser((await directory.get(`/Users/${id}`)).body.userName ?? addressIn(workspace))),
      await directory.patch(`/Users/${id}`, {
        schemas: [patchOpSchema],
        Operations: [{ op: 'replace', path: 'displayName', value: 'Tiered' }],
      }),
    ];
    return replies.map((reply) => reply.status);
  }

  it('is needed on every directory route: a workspace back on free is 403, on team again it works', async () => {
    const workspace = await directoryWorkspace(runtime, 10);
    const directory = scimClient(runtime, workspace.key);
    const user = await provision(directory, addressIn(workspace));
    await setWorkspace(runtime, workspace.id, { plan: 'free' });
    const refused = [
      await directory.get('/Users'),
      await directory.post('/Users', oktaUser(addressIn(workspace))),
      await directory.get(`/Users/${user.id}`),
      await directory.put(`/Users/${user.id}`, oktaUser(user.userName)),
      await directory.patch(`/Users/${user.id}`, deactivation),
      await directory.delete(`/Users/${user.id}`),
    ];
    for (const reply of refused) expectScimError(reply, 403);
    expectScimError(await directory.get('/Users/010101001010101011001010101011'), 403);
    await setWorkspace(runtime, workspace.id, { plan: 'pro' });
    expectScimError(await directory.get('/Users'), 403);
    // Refused before anything was read or changed: the User is as it was, and still a member.
    await setWorkspace(runtime, workspace.id, { plan: 'team' });
    expect((await directory.get(`/Users/${user.id}`)).body.active).toBe(true);
    expect(await memberFor(workspace, user.userName)).toMatchObject({ source: 'scim' });
    expect(await everyRouteAnswers(workspace, user.id)).toEqual([200, 201, 200, 200, 200]);
    expect((await directory.delete(`/Users/${user.id}`)).status).toBe(204);
  });

  it('is given by an Enterprise contract, whatever the subscription’s plan says', async () => {
    const workspace = await directoryWorkspace(runtime, 10);
    const directory = scimClient(runtime, workspace.key);
    const user = await provision(directory, addressIn(workspace));
    // Sales' command writes contract_plan (scripts/set-plan.ts); the subscription ended meanwhile.
    await db.send(
      new UpdateCommand({
        TableName: runtime.config.TABLE_NAME,
        Key: { pk: `WORKSPACE#${workspace.id}`, sk: 'WORKSPACE' },
        UpdateExpression: 'SET contract_plan = :plan',
        ExpressionAttributeValues: { ':plan': 'enterprise' },
      }),
    );
    await setWorkspace(runtime, workspace.id, { plan: 'free' });
    expect(await everyRouteAnswers(workspace, user.id)).toEqual([200, 201, 200, 200, 200]);
    expect((await directory.delete(`/Users/${user.id}`)).status).toBe(204);
  });
});

describe('races', () => {
  it('100 concurrent creates within 100 free seats all succeed', async () => {
    const workspace = await directoryWorkspace(runtime, 101);
    const directory = scimClient(runtime, workspace.key);
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => directory.post('/Users', oktaUser(addressIn(workspace, `bulk${i}`)))),
    );
    expect(statuses(replies)).toEqual(Array(100).fill(201));
    expect(await roster(workspace)).toEqual({ seats: 101, members: 101 });
    const listed = await directory.get('/Users?startIndex=1&count=200');
    expect(listed.body.totalResults).toBe(100);
  });

  it('100 concurrent creates with 10 seats left: exactly 10 succeed, the rest are 403, and no User is kept for them', async () => {
    const workspace = await directoryWorkspace(runtime, 11);
    const directory = scimClient(runtime, workspace.key);
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => directory.post('/Users', oktaUser(addressIn(workspace, `rush${i}`)))),
    );
    expect(count(replies, 201)).toBe(10);
    for (const reply of replies.filter((each) => each.status !== 201)) expectScimError(reply, 403);
    await expectConsistent(workspace, 11);
    expect((await directory.get('/Users')).body.totalResults).toBe(10);
  });

  it('20 concurrent reactivations with 5 free seats: exactly 5 succeed', async () => {
    const workspace = await directoryWorkspace(runtime, 6);
    const directory = scimClient(runtime, workspace.key);
    const users = await Promise.all(
      Array.from({ length: 20 }, (_, i) => provision(directory, addressIn(workspace, `idle${i}`), { active: false })),
    );
    await expectConsistent(workspace, 1);
    const replies = await Promise.all(users.map((user) => directory.patch(`/Users/${user.id}`, entraActive('True'))));
    expect(count(replies, 200)).toBe(5);
    for (const reply of replies.filter((each) => each.status !== 200)) expectScimError(reply, 403);
    await expectConsistent(workspace, 6);
    const active = ((await directory.get('/Users')).body.Resources as Array<{ id: string; active: boolean }>).filter((user) => user.active);
    expect(active.map((user) => user.id).sort()).toEqual(
      replies.flatMap((reply) => (reply.status === 200 ? [reply.body.id as string] : [])).sort(),
    );
  });

  it('a PATCH racing a DELETE of one User: never a 500, one end state, seats counted right', async () => {
    const workspace = await directoryWorkspace(runtime, 20);
    const directory = scimClient(runtime, workspace.key);
    const users = await Promise.all(Array.from({ length: 8 }, (_, i) => provision(directory, addressIn(workspace, `race${i}`))));
    await expectConsistent(workspace, 9);
    const outcomes = await Promise.all(
      users.map(async (user, i) => {
        // Half rename, half deactivate (a seat freed by either side of the race).
        const patch =
          i % 2 === 0
            ? { schemas: [patchOpSchema], Operations: [{ op: 'replace', path: 'displayName', value: `Raced ${i}` }] }
            : deactivation;
        const [patched, deleted] = await Promise.all([directory.patch(`/Users/${user.id}`, patch), directory.delete(`/Users/${user.id}`)]);
        return { user, patched, deleted };
      }),
    );
    for (const { user, patched, deleted } of outcomes) {
      expect([200, 404, 409]).toContain(patched.status);
      expect([204, 409]).toContain(deleted.status);
      if (patched.status !== 200) expectScimError(patched, patched.status);
      if (deleted.status !== 204) expectScimError(deleted, deleted.status);
      const after = await directory.get(`/Users/${user.id}`);
      if (deleted.status === 204) {
        expectScimError(after, 404);
        expect(await memberFor(workspace, user.userName)).toBeUndefined();
      } else {
        // The DELETE lost every attempt to the PATCH: the User is as the PATCH left it.
        expect(after.status).toBe(200);
        expect(await memberFor(workspace, user.userName)).toEqual(
          after.body.active ? expect.objectContaining({ source: 'scim' }) : undefined,
        );
      }
    }
    const left = ((await directory.get('/Users')).body.Resources as Array<{ active: boolean }>).filter((user) => user.active).length;
    await expectConsistent(workspace, 1 + left);
  });
});

describe('transaction conflicts, as AWS answers them under load', () => {
  it('are retried: creates, deactivations and deletes end as without them, seats counted right', async () => {
    const workspace = await directoryWorkspace(runtime, 11);
    const directory = scimClient(runtime, workspace.key);
    conflicting = true;
    try {
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, i) => directory.post('/Users', oktaUser(addressIn(workspace, `conflict${i}`)))),
      );
      expect(count(made, 201)).toBe(10);
      for (const reply of made.filter((each) => each.status !== 201)) expectScimError(reply, 403);
      await expectConsistent(workspace, 11);
      const users = made.filter((reply) => reply.status === 201).map((reply) => reply.body.id as string);
      const off = await Promise.all(users.slice(0, 5).map((id) => directory.patch(`/Users/${id}`, deactivation)));
      expect(statuses(off)).toEqual(Array(5).fill(200));
      const gone = await Promise.all(users.slice(5).map((id) => directory.delete(`/Users/${id}`)));
      expect(statuses(gone)).toEqual(Array(5).fill(204));
      await expectConsistent(workspace, 1);
      expect(conflictsAnswered).toBeGreaterThanOrEqual(2 * (20 + 10));
    } finally {
      conflicting = false;
    }
  });
});

describe('a provisioned account', () => {
  it('is given no secret: it lists none, and sees nothing of what the workspace’s members sent', async () => {
    const workspace = await directoryWorkspace(runtime, 5);
    const directory = scimClient(runtime, workspace.key);
    const colleague = await joinAs(runtime, workspace, workspace.owner, 'member');
    const sent = [];
    for (const sender of [workspace.owner, colleague]) {
      const made = await api.post(
        '/v1/secrets',
        textSecretBody({ workspace_id: workspace.id, recipients: [{ label: 'Ana', email: newEmail('recipient') }] }),
        sender.auth,
      );
      expect(made.status).toBe(201);
      sent.push(made.body.id as string);
    }
    const email = addressIn(workspace, 'provisioned');
    await provision(directory, email);
    const person: SignedIn = await signIn(runtime, email);
    const listed = await api.get('/v1/secrets', person.auth);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([]);
    for (const id of sent) {
      const read = await api.get(`/v1/secrets/${id}`, person.auth);
      expect(read.status).toBe(200);
      expect(read.body.owned).toBeUndefined();
      expect(read.body.recipients).toBeUndefined();
      expect((await api.get(`/v1/secrets/${id}/receipts`, person.auth)).status).toBe(404);
    }
    // A member of the workspace, and nothing more.
    const memberships = await api.get('/v1/workspaces', person.auth);
    expect(memberships.body.items.map((item: { id: string; role: string }) => [item.id, item.role])).toEqual([[workspace.id, 'member']]);
  });
});
