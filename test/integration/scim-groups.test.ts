import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { apiClient, startTestRuntime, type Reply } from '../support/runtime.ts';
import { injectDynamoFaults, transactionConflict, type DynamoCall } from '../support/faults.ts';
import { entraTutorialGroups, galleryGroupTests, galleryScimGroupTests, oktaGroupPush } from '../support/scim/groupReplays.ts';
import { directoryWorkspace, membersOf, oktaUser, rosterOf, scimClient, type DirectoryWorkspace } from '../support/scim/directory.ts';
import { runScimSteps, type ScimExchange } from '../support/scim/runner.ts';
import { expectProblem } from '../support/problem.ts';
import { joinAs, setWorkspace } from '../support/workspaces.ts';

// SCIM Groups (issue 30) over HTTP: every status and request shape of /Groups, the roles the
// admin Group gives (policy.scim_admin_group), exact under parallel PATCHes and a deletion racing
// them, transaction conflicts retried, and three clients' published Group sequences replayed
// step for step (test/support/scim/groupReplays.ts) with roles, seats and audit after each.

const groupSchema = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const listSchema = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const errorSchema = 'urn:ietf:params:scim:api:messages:2.0:Error';
const patchSchema = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** TransactionConflict on the first attempt of each Group transaction, while on (the client's retry sends it again). */
let conflicting = false;
let conflictsAnswered = 0;
const attempted = new Set<string>();
/** The Limit of each Query of a workspace's Groups (a page's read), in order. */
const groupQueries: number[] = [];
/** TransactionConflict on every attempt of each role settlement (a policy's or a User's), while on. */
let settleConflicts = false;
function fault({ command, input }: DynamoCall): Error | null {
  if (settleConflicts && command === 'TransactWriteItems' && JSON.stringify(input).includes('ADD role_settles')) {
    return transactionConflict((input.TransactItems as unknown[]).length, 0);
  }
  if (command === 'Query' && input.ExpressionAttributeValues?.[':prefix']?.S === 'SCIM_GROUP#') groupQueries.push(Number(input.Limit));
  if (!conflicting || command !== 'TransactWriteItems') return null;
  const items = input.TransactItems as Array<Record<string, { Item?: { sk?: { S?: string } }; Key?: { sk?: { S?: string } } }>>;
  const sortKeys = items.map((item) => Object.values(item)[0]).map((part) => part?.Item?.sk?.S ?? part?.Key?.sk?.S ?? '');
  if (!sortKeys.some((sk) => sk.startsWith('SCIM_GROUP#'))) return null;
  const key = JSON.stringify(input);
  if (attempted.has(key)) return null;
  attempted.add(key);
  conflictsAnswered += 1;
  // The member item is where a role change meets another (or the Group item when none moves).
  const memberAt = sortKeys.findIndex((sk) => sk.startsWith('MEMBER#'));
  return transactionConflict(items.length, Math.max(memberAt, 0));
}

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let directory: DirectoryWorkspace;
let scim: ReturnType<typeof scimClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({ instrumentDynamo: injectDynamoFaults(fault) });
  api = apiClient(runtime);
  directory = await directoryWorkspace(runtime, 200);
  scim = scimClient(runtime, directory.key);
});
afterAll(async () => {
  await runtime?.stop();
});

const described = (reply: Pick<Reply, 'status' | 'body'>) => `${reply.status} ${JSON.stringify(reply.body)}`;

function expectScimError(reply: Pick<Reply, 'status' | 'headers' | 'body'>, status: number, scimType?: string) {
  expect(reply.status, described(reply)).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
  expect(reply.body).toMatchObject({ schemas: [errorSchema], status: String(status), detail: expect.stringMatching(/\S/) });
  if (scimType !== undefined) expect(reply.body.scimType).toBe(scimType);
}

let labels = 0;
const label = (prefix: string) => `${prefix} ${++labels}-${Date.now().toString(36)}`;

/** A User provisioned in `workspace`: its SCIM id, userName and account id. */
async function provision(workspace: DirectoryWorkspace = directory, email = `g${++labels}-${Date.now().toString(36)}@${workspace.domain}`) {
  const reply = await scimClient(runtime, workspace.key).post('/Users', oktaUser(email));
  expect(reply.status, described(reply)).toBe(201);
  const member = (await membersOf(runtime, workspace)).find((each) => each.email === email)!;
  return { id: reply.body.id as string, userName: email, userId: member.user_id };
}

async function createGroup(body: Record<string, unknown>, client = scim) {
  const reply = await client.post('/Groups', { schemas: [groupSchema], ...body });
  expect(reply.status, described(reply)).toBe(201);
  return reply.body as { id: string; displayName: string; members: { value: string }[] };
}

const patch = (id: string, operations: unknown[], client = scim) =>
  client.patch(`/Groups/${id}`, { schemas: [patchSchema], Operations: operations });

/** The owner names the admin Group (null: none). */
async function adminGroup(workspace: DirectoryWorkspace, groupId: string | null, by = workspace.owner.auth) {
  return api.call('PUT', `/v1/workspaces/${workspace.id}/policy`, {
    body: JSON.stringify({ scim_admin_group: groupId }),
    headers: { ...by, 'content-type': 'application/json' },
  });
}

const roleOf = async (userId: string, workspace: DirectoryWorkspace = directory) =>
  (await membersOf(runtime, workspace)).find((member) => member.user_id === userId)?.role;

interface AuditItem {
  action: string;
  actor: { via: string };
  target: string;
  details: Record<string, unknown>;
}
async function roleRows(workspace: DirectoryWorkspace): Promise<AuditItem[]> {
  const page = await api.get(`/v1/workspaces/${workspace.id}/audit?limit=200`, workspace.owner.auth);
  expect(page.status).toBe(200);
  return (page.body.items as AuditItem[]).filter((row) => row.action === 'member.role_changed').reverse();
}

describe('POST /scim/v2/Groups', () => {
  it('answers 201 with the Group in application/scim+json, its Location its meta.location, members as sent', async () => {
    const user = await provision();
    const name = label('Engineering');
    const reply = await scim.post('/Groups', {
      schemas: [groupSchema],
      displayName: name,
      externalId: `ext-${name}`,
      members: [{ value: user.id }],
    });
    expect(reply.status, described(reply)).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(reply.body).toEqual({
      schemas: [groupSchema],
      id: expect.stringMatching(/^scg_/),
      externalId: `ext-${name}`,
      displayName: name,
      members: [{ value: user.id, $ref: `${directory.base}/Users/${user.id}`, type: 'User' }],
      meta: {
        resourceType: 'Group',
        created: expect.any(String),
        lastModified: reply.body.meta.created,
        location: `${directory.base}/Groups/${reply.body.id}`,
        version: 'W/"1"',
      },
    });
    expect(reply.headers.get('location')).toBe(reply.body.meta.location);
    expect((await scim.get(`/Groups/${reply.body.id}`)).body).toEqual(reply.body);
  });

  it('answers 409 uniqueness for a displayName in any case, or an externalId, another Group holds', async () => {
    const name = label('Sales');
    await createGroup({ displayName: name, externalId: `x-${name}` });
    expectScimError(await scim.post('/Groups', { displayName: name.toUpperCase() }), 409, 'uniqueness');
    expectScimError(await scim.post('/Groups', { displayName: label('Other'), externalId: `x-${name}` }), 409, 'uniqueness');
  });

  it('answers 400 for a body without displayName, a member that is no User of this workspace, and a bad schemas', async () => {
    expectScimError(await scim.post('/Groups', { schemas: [groupSchema] }), 400, 'invalidValue');
    expectScimError(
      await scim.post('/Groups', { displayName: label('Ghosts'), members: [{ value: 'scu_nobodynobodynobodynobo' }] }),
      400,
      'invalidValue',
    );
    const elsewhere = await directoryWorkspace(runtime, 5);
    const stranger = await provision(elsewhere);
    const name = label('Strangers');
    expectScimError(await scim.post('/Groups', { displayName: name, members: [{ value: stranger.id }] }), 400, 'invalidValue');
    // Nothing was made: the name is free.
    expect((await scim.get(`/Groups?filter=${encodeURIComponent(`displayName eq "${name}"`)}`)).body.totalResults).toBe(0);
    expectScimError(
      await scim.post('/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], displayName: 'x' }),
      400,
      'invalidSyntax',
    );
    expectScimError(await scim.post('/Groups', [1, 2]), 400);
    // Within 256 characters, past the 1,024 bytes of the key its uniqueness is kept under.
    expectScimError(await scim.post('/Groups', { displayName: '😀'.repeat(256) }), 400, 'invalidValue');
    expectScimError(await scim.post('/Groups', { displayName: label('Wide'), externalId: '😀'.repeat(256) }), 400, 'invalidValue');
  });
});

describe('GET /scim/v2/Groups', () => {
  it('pages by startIndex and count in one stable order, every Group once, members left out when excluded', async () => {
    const workspace = await directoryWorkspace(runtime, 5);
    const client = scimClient(runtime, workspace.key);
    const made = [];
    for (let i = 0; i < 7; i++) made.push((await createGroup({ displayName: `Page ${i}` }, client)).id);
    const seen: string[] = [];
    groupQueries.length = 0;
    for (let start = 1; start <= 7; start += 3) {
      const page = await client.get(`/Groups?startIndex=${start}&count=3&excludedAttributes=members`);
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ schemas: [listSchema], totalResults: 7, startIndex: start, itemsPerPage: Math.min(3, 8 - start) });
      for (const group of page.body.Resources) expect(group.members).toBeUndefined();
      seen.push(...page.body.Resources.map((group: { id: string }) => group.id));
    }
    expect([...seen].sort()).toEqual([...made].sort());
    // Linear: each page read from where the one before ended, never the Groups before it.
    expect(groupQueries).toEqual([3, 3, 3]);
    // The same pages again, the same order.
    const again = await client.get('/Groups?startIndex=4&count=3');
    expect(again.body.Resources.map((group: { id: string }) => group.id)).toEqual(seen.slice(3, 6));
    expect(again.body.Resources[0].members).toEqual([]);
    expect((await client.get('/Groups?startIndex=20')).body).toMatchObject({ totalResults: 7, itemsPerPage: 0, Resources: [] });
    expect((await client.get('/Groups?count=0')).body).toMatchObject({ totalResults: 7, itemsPerPage: 0 });
  });

  it('finds a Group by displayName (any case, + or %20 for a space) or externalId, and nothing else', async () => {
    const name = label('Find me');
    const group = await createGroup({ displayName: name, externalId: `ext-${name}` });
    for (const query of [
      `filter=${encodeURIComponent(`displayName eq "${name.toLowerCase()}"`)}`,
      `filter=displayName+eq+%22${encodeURIComponent(name).replace(/%20/g, '+')}%22&excludedAttributes=members`,
      `filter=${encodeURIComponent(`externalId eq "ext-${name}"`)}`,
    ]) {
      const reply = await scim.get(`/Groups?${query}`);
      expect(reply.status, query).toBe(200);
      expect(reply.body).toMatchObject({ totalResults: 1, itemsPerPage: 1, Resources: [{ id: group.id }] });
    }
    expect((await scim.get(`/Groups?filter=${encodeURIComponent(`externalId eq "EXT-${name}"`)}`)).body.totalResults).toBe(0);
  });

  it('answers 400 invalidFilter for a filter it cannot read, and 400 for a startIndex that is not a number', async () => {
    expectScimError(await scim.get(`/Groups?filter=${encodeURIComponent('displayName co "x"')}`), 400, 'invalidFilter');
    expectScimError(await scim.get(`/Groups?filter=${encodeURIComponent('members[value eq "x"]')}`), 400, 'invalidFilter');
    expectScimError(await scim.get('/Groups?startIndex=first'), 400, 'invalidValue');
  });
});

describe('GET, PUT, PATCH and DELETE /scim/v2/Groups/{id}', () => {
  it('GET leaves members out for excludedAttributes=members, and answers 400 for a parameter given twice', async () => {
    const user = await provision();
    const group = await createGroup({ displayName: label('Read'), members: [{ value: user.id }] });
    const lean = await scim.get(`/Groups/${group.id}?excludedAttributes=members`);
    expect(lean.status).toBe(200);
    expect(lean.body.members).toBeUndefined();
    expect((await scim.get(`/Groups/${group.id}?attributes=displayName,members`)).body.members).toHaveLength(1);
    expectScimError(await scim.get(`/Groups/${group.id}?excludedAttributes=members&ExcludedAttributes=members`), 400, 'invalidValue');
  });

  it('answers 404 for a Group that is not there (or another workspace’s), on every method', async () => {
    const elsewhere = await directoryWorkspace(runtime, 5);
    const theirs = await createGroup({ displayName: label('Theirs') }, scimClient(runtime, elsewhere.key));
    for (const id of ['scg_missingmissingmissing', 'nonsense', theirs.id]) {
      expectScimError(await scim.get(`/Groups/${id}`), 404);
      expectScimError(await scim.put(`/Groups/${id}`, { displayName: label('Put') }), 404);
      expectScimError(await patch(id, [{ op: 'replace', path: 'displayName', value: label('Patch') }]), 404);
      expectScimError(await scim.delete(`/Groups/${id}`), 404);
    }
  });

  it('PUT replaces displayName, externalId and members; 409 for a name taken, 400 for a bad body', async () => {
    const [a, b] = [await provision(), await provision()];
    const group = await createGroup({ displayName: label('Put'), members: [{ value: a.id }] });
    const name = label('Put renamed');
    const reply = await scim.put(`/Groups/${group.id}`, {
      schemas: [groupSchema],
      id: group.id,
      displayName: name,
      members: [{ value: b.id, display: b.userName }],
    });
    expect(reply.status, described(reply)).toBe(200);
    expect(reply.body).toMatchObject({ displayName: name, members: [{ value: b.id }], meta: { version: 'W/"2"' } });
    expect(reply.body.externalId).toBeUndefined();
    const other = await createGroup({ displayName: label('Taken') });
    expectScimError(await scim.put(`/Groups/${group.id}`, { displayName: other.displayName }), 409, 'uniqueness');
    expectScimError(await scim.put(`/Groups/${group.id}`, { members: [] }), 400, 'invalidValue');
  });

  it('PATCH takes every shape Okta and Entra send, all operations or none', async () => {
    const [a, b, c] = [await provision(), await provision(), await provision()];
    const group = await createGroup({ displayName: label('Patch') });
    const read = async () => (await scim.get(`/Groups/${group.id}`)).body;
    const members = async () => (await read()).members.map((member: { value: string }) => member.value);
    expect(
      (await patch(group.id, [{ op: 'add', path: 'members', value: [{ value: a.id, display: a.userName }, { value: b.id }] }])).status,
    ).toBe(200);
    expect(await members()).toEqual([a.id, b.id]);
    // Entra: op in capitals, $ref null, a member already there is no change.
    expect((await patch(group.id, [{ op: 'Add', path: 'members', value: [{ $ref: null, value: a.id }] }])).status).toBe(200);
    expect(await members()).toEqual([a.id, b.id]);
    expect((await patch(group.id, [{ op: 'remove', path: `members[value eq "${a.id}"]` }])).status).toBe(200);
    expect(await members()).toEqual([b.id]);
    expect((await patch(group.id, [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: b.id }] }])).status).toBe(200);
    expect(await members()).toEqual([]);
    expect((await patch(group.id, [{ op: 'replace', path: 'members', value: [{ value: c.id }, { value: a.id }] }])).status).toBe(200);
    expect(await members()).toEqual([c.id, a.id]);
    const renamed = label('Renamed');
    expect((await patch(group.id, [{ op: 'replace', value: { id: group.id, displayName: renamed } }])).status).toBe(200);
    expect((await read()).displayName).toBe(renamed);
    const again = label('Renamed again');
    expect(
      (
        await patch(group.id, [
          { op: 'Replace', path: 'displayName', value: again },
          { op: 'add', path: 'externalId', value: 'e-1' },
        ])
      ).status,
    ).toBe(200);
    expect(await read()).toMatchObject({ displayName: again, externalId: 'e-1' });
    expect((await patch(group.id, [{ op: 'remove', path: 'members' }])).status).toBe(200);
    expect(await members()).toEqual([]);
    // A member that is no User of this workspace: 400 invalidValue, and the operation before it not applied either.
    const before = await read();
    expectScimError(
      await patch(group.id, [
        { op: 'add', path: 'members', value: [{ value: a.id }] },
        { op: 'add', path: 'members', value: [{ value: 'scu_nobodynobodynobodynobo' }] },
      ]),
      400,
      'invalidValue',
    );
    expect(await read()).toEqual(before);
    expectScimError(await patch(group.id, [{ op: 'remove', path: 'displayName' }]), 400, 'mutability');
    expectScimError(await patch(group.id, [{ op: 'move', path: 'displayName' }]), 400, 'invalidSyntax');
    expectScimError(await patch(group.id, [{ op: 'add', path: 'members[value eq "x"]', value: 'y' }]), 400, 'invalidPath');
    expectScimError(await patch(group.id, [{ op: 'remove' }]), 400, 'noTarget');
    expectScimError(await scim.patch(`/Groups/${group.id}`, { schemas: [patchSchema], Operations: [] }), 400, 'invalidSyntax');
    const taken = await createGroup({ displayName: label('Taken too') });
    expectScimError(await patch(group.id, [{ op: 'replace', path: 'displayName', value: taken.displayName }]), 409, 'uniqueness');
  });

  it('DELETE answers 204 and the Group is gone, its name free again', async () => {
    const group = await createGroup({ displayName: label('Deleted') });
    const reply = await scim.delete(`/Groups/${group.id}`);
    expect(reply.status).toBe(204);
    expectScimError(await scim.get(`/Groups/${group.id}`), 404);
    expectScimError(await scim.delete(`/Groups/${group.id}`), 404);
    await createGroup({ displayName: group.displayName });
  });
});

describe('the Team tier', () => {
  it('is needed on every Groups route: 403 on free', async () => {
    const workspace = await directoryWorkspace(runtime, 5);
    const client = scimClient(runtime, workspace.key);
    const group = await createGroup({ displayName: label('Tiered') }, client);
    await setWorkspace(runtime, workspace.id, { plan: 'free' });
    const refused = [
      await client.get('/Groups'),
      await client.post('/Groups', { displayName: label('Refused') }),
      await client.get(`/Groups/${group.id}`),
      await client.put(`/Groups/${group.id}`, { displayName: label('Refused') }),
      await patch(group.id, [{ op: 'replace', path: 'displayName', value: label('Refused') }], client),
      await client.delete(`/Groups/${group.id}`),
    ];
    for (const reply of refused) expectScimError(reply, 403);
    await setWorkspace(runtime, workspace.id, { plan: 'team' });
    expect((await client.get(`/Groups/${group.id}`)).status).toBe(200);
  });

  it('answers 401 without the directory key', async () => {
    const anonymous = scimClient(runtime, null);
    for (const reply of [
      await anonymous.get('/Groups'),
      await anonymous.post('/Groups', { displayName: 'x' }),
      await anonymous.get('/Groups/scg_missingmissingmissing'),
      await anonymous.put('/Groups/scg_missingmissingmissing', { displayName: 'x' }),
      await anonymous.patch('/Groups/scg_missingmissingmissing', { Operations: [] }),
      await anonymous.delete('/Groups/scg_missingmissingmissing'),
    ])
      expectScimError(reply, 401);
  });
});

describe('roles from the admin Group (policy.scim_admin_group)', () => {
  it('is named by owners alone, only as one of the workspace’s Groups', async () => {
    const workspace = await directoryWorkspace(runtime, 20);
    const client = scimClient(runtime, workspace.key);
    const group = await createGroup({ displayName: label('Admins') }, client);
    const admin = await joinAs(runtime, workspace, workspace.owner, 'admin');
    const refused = await adminGroup(workspace, group.id, admin.auth);
    expect(refused.status, described(refused)).toBe(403);
    // An admin's policy change that leaves the admin Group as it is still works.
    const unchanged = await api.call('PUT', `/v1/workspaces/${workspace.id}/policy`, {
      body: JSON.stringify({ max_views: 3 }),
      headers: { ...admin.auth, 'content-type': 'application/json' },
    });
    expect(unchanged.status, described(unchanged)).toBe(200);
    expect((await adminGroup(workspace, 'scg_missingmissingmissing')).status).toBe(400);
    const set = await adminGroup(workspace, group.id);
    expect(set.status, described(set)).toBe(200);
    expect(set.body.scim_admin_group).toBe(group.id);
    // Left out of a later policy, it stays.
    const later = await api.call('PUT', `/v1/workspaces/${workspace.id}/policy`, {
      body: JSON.stringify({ max_views: 5 }),
      headers: { ...admin.auth, 'content-type': 'application/json' },
    });
    expect(later.body.scim_admin_group).toBe(group.id);
    expect((await adminGroup(workspace, null, admin.auth)).status).toBe(403);
  });

  it('makes members who join admins, and members again when they leave or the Group goes; owners, seats untouched', async () => {
    const workspace = await directoryWorkspace(runtime, 20);
    const client = scimClient(runtime, workspace.key);
    const [a, b] = [await provision(workspace), await provision(workspace)];
    const group = await createGroup({ displayName: label('Admins'), members: [{ value: a.id }] }, client);
    const seats = await rosterOf(runtime, workspace);
    expect((await adminGroup(workspace, group.id)).status).toBe(200);
    // Naming the Group makes its members admins.
    expect(await roleOf(a.userId, workspace)).toBe('admin');
    expect(await roleOf(b.userId, workspace)).toBe('member');
    expect((await patch(group.id, [{ op: 'add', path: 'members', value: [{ value: b.id }] }], client)).status).toBe(200);
    expect(await roleOf(b.userId, workspace)).toBe('admin');
    expect((await patch(group.id, [{ op: 'remove', path: `members[value eq "${a.id}"]` }], client)).status).toBe(200);
    expect(await roleOf(a.userId, workspace)).toBe('member');
    expect((await client.delete(`/Groups/${group.id}`)).status).toBe(204);
    expect(await roleOf(b.userId, workspace)).toBe('member');
    expect(await rosterOf(runtime, workspace)).toEqual(seats);
    const owner = (await membersOf(runtime, workspace)).find((member) => member.role === 'owner')!;
    expect(owner).toBeDefined();
    const rows = await roleRows(workspace);
    expect(rows.map((row) => [row.target, row.details.from, row.details.to, row.actor.via])).toEqual([
      [a.userId, 'member', 'admin', 'scim'],
      [b.userId, 'member', 'admin', 'scim'],
      [a.userId, 'admin', 'member', 'scim'],
      [b.userId, 'admin', 'member', 'scim'],
    ]);
  });

  it('takes the admin role back before a deactivation or deletion, gives it again on reactivation; a deleted User leaves its Groups', async () => {
    const workspace = await directoryWorkspace(runtime, 20);
    const client = scimClient(runtime, workspace.key);
    const a = await provision(workspace);
    const group = await createGroup({ displayName: label('Admins'), members: [{ value: a.id }] }, client);
    expect((await adminGroup(workspace, group.id)).status).toBe(200);
    expect(await roleOf(a.userId, workspace)).toBe('admin');
    const off = await client.patch(`/Users/${a.id}`, {
      schemas: [patchSchema],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(off.status, described(off)).toBe(200);
    expect(await roleOf(a.userId, workspace)).toBeUndefined();
    // Still in the Group (both directories keep a deactivated User's groups).
    expect((await client.get(`/Groups/${group.id}`)).body.members).toEqual([expect.objectContaining({ value: a.id })]);
    const on = await client.patch(`/Users/${a.id}`, {
      schemas: [patchSchema],
      Operations: [{ op: 'replace', path: 'active', value: true }],
    });
    expect(on.status, described(on)).toBe(200);
    expect(await roleOf(a.userId, workspace)).toBe('admin');
    expect((await client.delete(`/Users/${a.id}`)).status).toBe(204);
    expect((await client.get(`/Groups/${group.id}`)).body.members).toEqual([]);
  });

  it('stays exact under parallel PATCHes of the admin Group’s members, and a deletion racing them', async () => {
    const workspace = await directoryWorkspace(runtime, 40);
    const client = scimClient(runtime, workspace.key);
    const users = [];
    for (let i = 0; i < 8; i++) users.push(await provision(workspace));
    const group = await createGroup({ displayName: label('Admins') }, client);
    expect((await adminGroup(workspace, group.id)).status).toBe(200);
    const changes = users.flatMap((user) => [
      patch(group.id, [{ op: 'add', path: 'members', value: [{ value: user.id }] }], client),
      patch(group.id, [{ op: 'remove', path: `members[value eq "${user.id}"]` }], client),
    ]);
    const replies = await Promise.all(changes);
    for (const reply of replies) expect([200, 409], described(reply)).toContain(reply.status);
    const final = new Set(((await client.get(`/Groups/${group.id}`)).body.members as { value: string }[]).map((member) => member.value));
    for (const user of users) expect(await roleOf(user.userId, workspace)).toBe(final.has(user.id) ? 'admin' : 'member');
    // A deletion racing more changes: whatever wins, nobody is left an admin by the Group.
    const race = await Promise.all([
      ...users.map((user) => patch(group.id, [{ op: 'add', path: 'members', value: [{ value: user.id }] }], client)),
      client.delete(`/Groups/${group.id}`),
    ]);
    for (const reply of race) expect([200, 204, 404, 409], described(reply)).toContain(reply.status);
    expect((await client.get(`/Groups/${group.id}`)).status).toBe(404);
    for (const user of users) expect(await roleOf(user.userId, workspace)).toBe('member');
  });

  it('stays exact when an owner switches the admin Group while admins leave the old one, or it is deleted', async () => {
    for (const round of ['another', 'none', 'deleted', 'another', 'deleted'] as const) {
      const workspace = await directoryWorkspace(runtime, 20);
      const client = scimClient(runtime, workspace.key);
      const users = [];
      for (let i = 0; i < 6; i++) users.push(await provision(workspace));
      const first = await createGroup({ displayName: label('First'), members: users.map((user) => ({ value: user.id })) }, client);
      const second = await createGroup(
        { displayName: label('Second'), members: users.slice(4).map((user) => ({ value: user.id })) },
        client,
      );
      expect((await adminGroup(workspace, first.id)).status).toBe(200);
      const replies = await Promise.all([
        adminGroup(workspace, round === 'none' ? null : second.id),
        ...users.slice(0, 3).map((user) => patch(first.id, [{ op: 'remove', path: `members[value eq "${user.id}"]` }], client)),
        ...(round === 'deleted' ? [client.delete(`/Groups/${first.id}`)] : []),
      ]);
      expect(replies[0]!.status, described(replies[0]!)).toBe(200);
      for (const reply of replies.slice(1)) expect([200, 204, 404, 409], described(reply)).toContain(reply.status);
      // The roles are the final admin Group's membership: the second Group's two, or nobody.
      const admins = round === 'none' ? new Set<string>() : new Set(users.slice(4).map((user) => user.userId));
      for (const user of users) expect(await roleOf(user.userId, workspace), round).toBe(admins.has(user.userId) ? 'admin' : 'member');
      if (round === 'deleted') expect((await client.get(`/Groups/${first.id}`)).status).toBe(404);
    }
  }, 60_000);

  it('deletes the admin Group whatever its size: its 100 admins are members again, and the policy names none', async () => {
    const workspace = await directoryWorkspace(runtime, 110);
    const client = scimClient(runtime, workspace.key);
    const users = [];
    for (let i = 0; i < 100; i++) users.push(await provision(workspace));
    const group = await createGroup({ displayName: label('Everyone'), members: users.map((user) => ({ value: user.id })) }, client);
    const named = await adminGroup(workspace, group.id);
    expect(named.status, described(named)).toBe(200);
    const roles = async () => new Map((await membersOf(runtime, workspace)).map((member) => [member.user_id, member.role]));
    const before = await roles();
    expect(users.filter((user) => before.get(user.userId) === 'admin')).toHaveLength(100);
    const deleted = await client.delete(`/Groups/${group.id}`);
    expect(deleted.status, described(deleted)).toBe(204);
    const after = await roles();
    expect(users.filter((user) => after.get(user.userId) === 'member')).toHaveLength(100);
    expect([...after.values()].filter((role) => role === 'owner')).toHaveLength(1);
    // The policy names none: a later save keeps none.
    const later = await api.call('PUT', `/v1/workspaces/${workspace.id}/policy`, {
      body: JSON.stringify({ max_views: 5 }),
      headers: { ...workspace.owner.auth, 'content-type': 'application/json' },
    });
    expect(later.status, described(later)).toBe(200);
    expect(later.body.scim_admin_group).toBeNull();
  }, 60_000);

  it('answers 409 when the admin Group’s roles never settle after the policy is saved, and a save again settles them', async () => {
    const workspace = await directoryWorkspace(runtime, 20);
    const client = scimClient(runtime, workspace.key);
    const a = await provision(workspace);
    const group = await createGroup({ displayName: label('Admins'), members: [{ value: a.id }] }, client);
    settleConflicts = true;
    try {
      expectProblem(await adminGroup(workspace, group.id), 409, 'conflict');
    } finally {
      settleConflicts = false;
    }
    expect(await roleOf(a.userId, workspace)).toBe('member');
    const again = await adminGroup(workspace, group.id);
    expect(again.status, described(again)).toBe(200);
    expect(await roleOf(a.userId, workspace)).toBe('admin');
  }, 60_000);

  it('retries transaction conflicts on Group and role writes, ending as without them', async () => {
    const workspace = await directoryWorkspace(runtime, 20);
    const client = scimClient(runtime, workspace.key);
    const [a, b] = [await provision(workspace), await provision(workspace)];
    const admins = await createGroup({ displayName: label('Admins') }, client);
    expect((await adminGroup(workspace, admins.id)).status).toBe(200);
    conflicting = true;
    const before = conflictsAnswered;
    try {
      const made = await createGroup({ displayName: label('Conflicted'), members: [{ value: a.id }] }, client);
      expect((await patch(admins.id, [{ op: 'add', path: 'members', value: [{ value: a.id }, { value: b.id }] }], client)).status).toBe(
        200,
      );
      expect(await roleOf(a.userId, workspace)).toBe('admin');
      expect((await patch(admins.id, [{ op: 'remove', path: `members[value eq "${b.id}"]` }], client)).status).toBe(200);
      expect(await roleOf(b.userId, workspace)).toBe('member');
      expect((await client.delete(`/Groups/${admins.id}`)).status).toBe(204);
      expect(await roleOf(a.userId, workspace)).toBe('member');
      expect((await client.delete(`/Groups/${made.id}`)).status).toBe(204);
    } finally {
      conflicting = false;
    }
    expect(conflictsAnswered - before).toBeGreaterThanOrEqual(5);
    expect((await roleRows(workspace)).length).toBe(4);
  });
});

describe('replays', () => {
  /** After each step: seats never move with Groups, and every role change the step made is audited via scim. */
  function watch(workspace: DirectoryWorkspace) {
    let seats: { seats: number; members: number } | null = null;
    return async (exchange: ScimExchange) => {
      const now = await rosterOf(runtime, workspace);
      if (seats !== null && exchange.step.path.startsWith('/Groups')) expect(now, exchange.step.name).toEqual(seats);
      seats = now;
      for (const row of await roleRows(workspace)) expect(row.actor.via).toBe('scim');
    };
  }

  /** `substring(guid(), 0, 8)`, as the gallery workflows suffix their names. */
  const hex8 = () => crypto.randomUUID().slice(0, 8);

  it('Microsoft’s gallery Group tests pass, step for step, with the admin Group’s roles following', async () => {
    const workspace = await directoryWorkspace(runtime, 20);
    // Entra provisions the two member Users before it provisions their groups.
    const user1 = await provision(workspace, `lamem1${hex8()}@${workspace.domain}`);
    const user2 = await provision(workspace, `lamem2${hex8()}@${workspace.domain}`);
    const variables = {
      secretToken: workspace.key,
      createGroup: `LACreateGroup-(${hex8()})`,
      updateGroup: `LAUpdateGroup-${hex8()}`,
      deleteGroup: `LADeleteGroup-${hex8()}`,
      memberGroup: `LAMemberGroup-${hex8()}`,
      memberUser1: user1.userName,
      memberUser2: user2.userName,
      memberUser2Id: user2.id,
      podGroup: `PODTestGroup_${hex8()}`,
      restoreGroup: `RestoreGrp-${hex8()}`,
    };
    const check = watch(workspace);
    const run = await runScimSteps(runtime, galleryGroupTests, variables, {
      afterStep: async (exchange, vars) => {
        await check(exchange);
        // Each member group is the admin Group: an owner names it as soon as it exists.
        const name = exchange.step.name;
        if (name === 'Entra: Create Group (memberGroup)') expect((await adminGroup(workspace, vars.memberGroupId!)).status).toBe(200);
        if (name === 'Entra: Create Group (memberGroup-Remove)')
          expect((await adminGroup(workspace, vars.removeGroupId!)).status).toBe(200);
        const roles = { 1: await roleOf(user1.userId, workspace), 2: await roleOf(user2.userId, workspace) };
        if (name === 'Entra: Update Group [Add Members] (memberGroup)') expect(roles[1]).toBe('admin');
        // Add_Cleanup_Delete_Group: the admin Group deleted, its member is a member again.
        if (name === 'Entra: Delete Group (memberGroup)') expect(roles[1]).toBe('member');
        if (name === 'Entra: Update Group [Add Members] (memberGroup-Remove)') expect(roles[2]).toBe('admin');
        if (name === 'Entra: Update Group [Remove Members] (memberGroup-Remove)') expect(roles[2]).toBe('member');
      },
    });
    expect(run.exchanges.every((exchange) => exchange.failures.length === 0)).toBe(true);
    // The conditions the workflow's polls end on, which the steps state in words.
    const text = (name: string) => JSON.stringify(run.exchange(name).body);
    expect(text('Update_Group_Query_Group_By_Id_After_Attributes_Update')).toContain('-Modified');
    expect(run.variables.memberUser1Id).toBe(user1.id);
    expect(JSON.stringify(run.exchange('Add_Step6_Query_Group_With_Members').body.Resources[0].members)).toContain(user1.id);
    expect(run.variables.removeUserId).toBe(user2.id);
    expect(text('Remove_Step4a_Check_Group_With_Member')).toContain(user2.id);
    expect(text('Remove_Step6_Query_Group_After_Remove')).not.toContain(user2.id);
    expect((await roleRows(workspace)).map((row) => [row.target, row.details.from, row.details.to])).toEqual([
      [user1.userId, 'member', 'admin'],
      [user1.userId, 'admin', 'member'],
      [user2.userId, 'member', 'admin'],
      [user2.userId, 'admin', 'member'],
    ]);
    // Every Group the workflow made is gone again.
    expect((await scimClient(runtime, workspace.key).get('/Groups')).body.totalResults).toBe(0);
  });

  it('Microsoft’s gallery SCIM Group tests (create, update, pagination) pass, step for step', async () => {
    const workspace = await directoryWorkspace(runtime, 5);
    const variables: Record<string, string> = {
      secretToken: workspace.key,
      scimDirectGroup: `LASCDirectGroup-${hex8()}`,
      updateGroupName: `LASUpdGroup-${hex8()}`,
      updatedDisplayName: `upd-${hex8()}`,
      updatedExternalId: `upd-${hex8()}`,
    };
    for (let i = 1; i <= 11; i++) {
      variables[`pagGroup${i}`] = hex8();
      variables[`pagGroupExternalId${i}`] = crypto.randomUUID();
    }
    const run = await runScimSteps(runtime, galleryScimGroupTests, variables, { afterStep: watch(workspace) });
    expect(run.exchanges.every((exchange) => exchange.failures.length === 0)).toBe(true);
    // The path the pagination test takes: none at first, so 11 made; then pages of 5, 5 and 1 of 11.
    expect(run.exchange('SCIM_Group_Pagination_Check_Count').body.totalResults).toBe(0);
    const pages = [1, 2, 3].map((page) => run.exchange(`SCIM_Group_Pagination_Get_Page (page ${page})`).body);
    expect(pages.map((page) => [page.totalResults, page.Resources.length])).toEqual([
      [11, 5],
      [11, 5],
      [11, 1],
    ]);
    expect(new Set(pages.flatMap((page) => page.Resources.map((group: { id: string }) => group.id))).size).toBe(11);
    expect((await scimClient(runtime, workspace.key).get('/Groups')).body.totalResults).toBe(0);
  });

  it('Okta’s Group Push sequence passes, with roles, seats and audit after each step', async () => {
    const workspace = await directoryWorkspace(runtime, 20);
    const [a, b] = [await provision(workspace), await provision(workspace)];
    const suffix = Date.now().toString(36);
    const check = watch(workspace);
    let groupId = '';
    await runScimSteps(
      runtime,
      oktaGroupPush,
      {
        secretToken: workspace.key,
        groupName: `Okta Admins ${suffix}`,
        renamed: `Okta Admins renamed ${suffix}`,
        userA: a.id,
        userAName: a.userName,
        userB: b.id,
        userBName: b.userName,
      },
      {
        afterStep: async (exchange, vars) => {
          await check(exchange);
          if (exchange.step.name.startsWith('Okta: create')) {
            groupId = vars.groupId!;
            expect((await adminGroup(workspace, groupId)).status).toBe(200);
          }
          if (exchange.step.name === 'Okta: add members') {
            expect([await roleOf(a.userId, workspace), await roleOf(b.userId, workspace)]).toEqual(['admin', 'admin']);
          }
          if (exchange.step.name.startsWith('Okta: remove')) {
            expect([await roleOf(a.userId, workspace), await roleOf(b.userId, workspace)]).toEqual(['member', 'admin']);
          }
          if (exchange.step.name === 'Okta: delete the group') expect(await roleOf(b.userId, workspace)).toBe('member');
        },
      },
    );
    expect((await roleRows(workspace)).length).toBe(4);
  });

  it('Entra’s group requests from the tutorial pass', async () => {
    const workspace = await directoryWorkspace(runtime, 20);
    const member = await provision(workspace);
    const check = watch(workspace);
    const run = await runScimSteps(
      runtime,
      entraTutorialGroups,
      { secretToken: workspace.key, groupName: `Entra Group ${Date.now().toString(36)}`, member: member.id },
      { afterStep: check },
    );
    expect(run.exchange('Entra: Get Group').body.members).toBeUndefined();
    expect(await roleOf(member.userId, workspace)).toBe('member');
  });
});
