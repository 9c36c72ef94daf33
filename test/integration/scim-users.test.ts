import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { callFrom, newEmail, signIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime, textSecretBody, type Reply } from '../support/runtime.ts';
import { directoryWorkspace, oktaUser, scimClient, type DirectoryWorkspace } from '../support/scim/directory.ts';

// The SCIM Users routes (issue 18) over HTTP, every status and every request shape Okta and
// Microsoft Entra send: create, read, list, replace, PATCH as both clients write it, delete, the
// methods and paths not served, and discovery without a key. Seats under races and the
// credential are scim-seats.test.ts's; the rules of each use case (accounts, filters and pages,
// activation, renames) are test/usecases/scim-*.test.ts's.

const userSchema = 'urn:ietf:params:scim:schemas:core:2.0:User';
const enterprise = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const listSchema = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const errorSchema = 'urn:ietf:params:scim:api:messages:2.0:Error';
const patchSchema = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

let runtime: Runtime;
let db: ReturnType<typeof createDocumentClient>;
let directory: DirectoryWorkspace;
let scim: ReturnType<typeof scimClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  directory = await directoryWorkspace(runtime, 200);
  scim = scimClient(runtime, directory.key);
});
afterAll(async () => {
  db?.destroy();
  await runtime?.stop();
});

const described = (reply: Reply) => `${reply.status} ${JSON.stringify(reply.body)}`;

/** A SCIM error message (RFC 7644 §3.12) with `status` as a string, in SCIM's media type. */
function expectScimError(reply: Reply, status: number, scimType?: string) {
  expect(reply.status, described(reply)).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
  expect(reply.body).toMatchObject({ schemas: [errorSchema], status: String(status), detail: expect.stringMatching(/\S/) });
  if (scimType !== undefined) expect(reply.body.scimType).toBe(scimType);
}

/** A fresh address in the directory's domain. */
const address = (label = 'scim') => newEmail(label, directory.domain);

/** A User made over POST (201 expected); its answer. */
async function created(body: Record<string, unknown>, client = scim) {
  const reply = await client.post('/Users', body);
  expect(reply.status, described(reply)).toBe(201);
  return reply.body;
}

const patch = (id: string, operations: unknown[], client = scim) =>
  client.patch(`/Users/${id}`, { schemas: [patchSchema], Operations: operations });

/** The workspace's members as its owner reads them. */
async function members(workspace: DirectoryWorkspace = directory) {
  const reply = await apiClient(runtime).get(`/v1/workspaces/${workspace.id}/members`, workspace.owner.auth);
  expect(reply.status).toBe(200);
  return reply.body.items as { user_id: string; email: string; role: string; source: string }[];
}

/** The roster's seats and members, as the owner's list of workspaces shows them. */
async function roster(workspace: DirectoryWorkspace = directory) {
  const reply = await apiClient(runtime).get('/v1/workspaces', workspace.owner.auth);
  const item = (reply.body.items as { id: string; seats: number; members: number }[]).find((entry) => entry.id === workspace.id)!;
  return { seats: item.seats, members: item.members };
}

const memberOf = async (email: string, workspace: DirectoryWorkspace = directory) =>
  (await members(workspace)).find((member) => member.email === email.toLowerCase());

/** A query string's value as a form encodes it for `%2B`/`%20`; `+` written by a test stays a `+`. */
const q = encodeURIComponent;

describe('POST /scim/v2/Users', () => {
  it('answers 201 with the full User in application/scim+json, its Location its absolute meta.location', async () => {
    const email = address('full');
    const body = oktaUser(email, { externalId: '00u1full' });
    const reply = await scim.post('/Users', body);
    expect(reply.status, described(reply)).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    const id = reply.body.id as string;
    expect(reply.body).toEqual({
      schemas: [userSchema],
      id: expect.stringMatching(/\S/),
      externalId: '00u1full',
      userName: email,
      name: body.name,
      displayName: body.displayName,
      emails: body.emails,
      active: true,
      locale: 'en-US',
      meta: {
        resourceType: 'User',
        created: expect.any(String),
        lastModified: reply.body.meta.created,
        location: `${directory.base}/Users/${id}`,
        version: 'W/"1"',
      },
    });
    expect(new URL(reply.body.meta.location).href).toBe(reply.body.meta.location);
    expect(new Date(reply.body.meta.created).toISOString()).toBe(reply.body.meta.created);
    expect(reply.headers.get('location')).toBe(reply.body.meta.location);
    // What the Location names is the User.
    const read = await scim.get(`/Users/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(reply.body);
  });

  it('ignores the read-only id, meta and groups sent', async () => {
    const user = await created(
      oktaUser(address('readonly'), {
        id: 'chosen-by-the-client',
        meta: { resourceType: 'User', created: '2001-01-01T00:00:00Z', location: 'https://elsewhere.example/Users/1', version: 'W/"99"' },
        groups: [{ value: 'admins', display: 'Admins' }],
      }),
    );
    expect(user.id).not.toBe('chosen-by-the-client');
    expect(user.meta).toMatchObject({ location: `${directory.base}/Users/${user.id}`, version: 'W/"1"' });
    expect(user.meta.created).not.toBe('2001-01-01T00:00:00Z');
    expect(user).not.toHaveProperty('groups');
    expect((await scim.get('/Users/chosen-by-the-client')).status).toBe(404);
  });

  it('echoes the enterprise extension as sent, its manager with an absolute $ref, and the other core attributes', async () => {
    const extension = {
      employeeNumber: '701984',
      costCenter: '4130',
      organization: 'Universal Studios',
      division: 'Theme Park',
      department: 'Tour Operations',
      manager: {
        value: '26118915-6090-4610-87e4-49d8ca9f808d',
        $ref: '../Users/26118915-6090-4610-87e4-49d8ca9f808d',
        displayName: 'John Smith',
      },
      unlistedByTheRfc: { nested: [1, 'two', { three: true }] },
    };
    const extras = {
      phoneNumbers: [
        { value: '555-555-8377', type: 'work' },
        { value: '555-555-0000', type: 'mobile', primary: true },
      ],
      addresses: [
        {
          type: 'work',
          streetAddress: '100 Universal City Plaza',
          locality: 'Hollywood',
          region: 'CA',
          postalCode: '91608',
          country: 'USA',
          formatted: '100 Universal City Plaza\nHollywood, CA 91608 USA',
          primary: true,
        },
      ],
      title: 'Tour Guide',
      locale: 'en-US',
    };
    const user = await created({
      ...oktaUser(address('enterprise')),
      schemas: [userSchema, enterprise],
      [enterprise]: extension,
      ...extras,
    });
    expect(user.schemas).toEqual([userSchema, enterprise]);
    // The relative $ref sent is the manager's User URL: answers give it absolute, under this service (issue 30).
    const managerId = extension.manager.value;
    const shown = { ...extension, manager: { ...extension.manager, $ref: `${directory.base}/Users/${managerId}` } };
    expect(user[enterprise]).toEqual(shown);
    expect(user).toMatchObject(extras);
    const read = (await scim.get(`/Users/${user.id}`)).body;
    expect(read[enterprise]).toEqual(shown);
    expect(read).toMatchObject(extras);
  });

  it('makes the account of a new address: a member holding a seat, signing in later to the same account, with no secret', async () => {
    const secret = await apiClient(runtime).post('/v1/secrets', textSecretBody({ workspace_id: directory.id }), directory.owner.auth);
    expect(secret.status, described(secret)).toBe(201);
    const before = await roster();
    const email = address('new');
    await created(oktaUser(email));
    // The account exists before any sign-in: the membership names it.
    const member = await memberOf(email);
    expect(member).toMatchObject({ role: 'member', source: 'scim' });
    expect(await roster()).toEqual({ seats: before.seats, members: before.members + 1 });

    const person = await signIn(runtime, email);
    expect(person.user.id).toBe(member!.user_id);
    const workspaces = await apiClient(runtime).get('/v1/workspaces', person.auth);
    expect(workspaces.body.items).toEqual([expect.objectContaining({ id: directory.id, role: 'member' })]);
    // A seat is no access to anything sent in the workspace: its list is empty, the owner's is not.
    expect((await apiClient(runtime).get('/v1/secrets', person.auth)).body.items).toEqual([]);
    expect((await apiClient(runtime).get('/v1/secrets', directory.owner.auth)).body.items.map((item: { id: string }) => item.id)).toContain(
      secret.body.id,
    );
  });

  it('answers 400 invalidSyntax to a body that is not JSON, and 400 to one that is not a User', async () => {
    const raw = (body: string, contentType: string) =>
      apiClient(runtime).call('POST', '/scim/v2/Users', {
        body,
        headers: { authorization: `Bearer ${directory.key}`, 'content-type': contentType },
      });
    expectScimError(await raw('{"userName": "half', 'application/scim+json'), 400, 'invalidSyntax');
    expectScimError(await raw('', 'application/scim+json'), 400, 'invalidSyntax');
    expectScimError(await raw('[]', 'application/scim+json'), 400, 'invalidSyntax');
    expectScimError(await raw('"a string"', 'application/scim+json'), 400, 'invalidSyntax');
    expectScimError(
      await scim.post('/Users', { ...oktaUser(address('group')), schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'] }),
      400,
      'invalidSyntax',
    );
    expectScimError(await scim.post('/Users', { ...oktaUser(address('bad-active')), active: 'maybe' }), 400, 'invalidValue');
    expectScimError(await scim.post('/Users', { schemas: [userSchema], emails: [{ value: address('nousername') }] }), 400, 'invalidValue');
    expectScimError(await scim.post('/Users', { ...oktaUser(address('schemas')), schemas: userSchema }), 400, 'invalidSyntax');
    expectScimError(await scim.post('/Users', { ...oktaUser(address('twice')), USERNAME: address('twice') }), 400, 'invalidSyntax');
    expectScimError(await scim.post('/Users', { ...oktaUser(address('name')), name: 'Ana Tester' }), 400, 'invalidValue');
  });

  it('answers 400 to a body that is not sent as JSON, and takes either JSON media type', async () => {
    const email = address('media');
    const asText = await scim.call('POST', '/Users', oktaUser(email), { 'content-type': 'text/plain' });
    expectScimError(asText, 400);
    expectScimError(await scim.call('POST', '/Users', oktaUser(email), { 'content-type': 'application/x-www-form-urlencoded' }), 400);
    expect((await scim.get(`/Users?filter=${q(`userName eq "${email}"`)}`)).body.totalResults).toBe(0);
    // Okta's spec test POSTs application/json; Entra's validator adds a charset.
    expect((await scim.call('POST', '/Users', oktaUser(email), { 'content-type': 'application/json' })).status).toBe(201);
    expect(
      (await scim.call('POST', '/Users', oktaUser(address('charset')), { 'content-type': 'application/scim+json; charset=utf-8' })).status,
    ).toBe(201);
  });

  it('makes exactly one of 20 concurrent creates of one userName in different cases; the others are 409', async () => {
    const email = address('race');
    const spelled = (index: number) => [...email].map((char, at) => ((index >> (at % 5)) & 1 ? char.toUpperCase() : char)).join('');
    const replies = await Promise.all(Array.from({ length: 20 }, (_, index) => scim.post('/Users', oktaUser(spelled(index)))));
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1);
    for (const reply of replies.filter((reply) => reply.status !== 201)) expectScimError(reply, 409, 'uniqueness');
    expect((await scim.get(`/Users?filter=${q(`userName eq "${email}"`)}`)).body.totalResults).toBe(1);
    expect((await members()).filter((member) => member.email === email)).toHaveLength(1);
  });
});

describe('GET /scim/v2/Users', () => {
  let listing: DirectoryWorkspace;
  let client: ReturnType<typeof scimClient>;
  let all: { id: string; userName: string }[];
  const stamp = Date.now().toString(36);
  const plus = () => `first+tag-${stamp}@${listing.domain}`;
  beforeAll(async () => {
    listing = await directoryWorkspace(runtime, 20);
    client = scimClient(runtime, listing.key);
    const users = [
      oktaUser(`ana-${stamp}@${listing.domain}`, { externalId: `ext-ana-${stamp}` }),
      oktaUser(plus(), { externalId: `ext-plus-${stamp}` }),
      { schemas: [userSchema], userName: `Ann Smith ${stamp}`, emails: [{ value: `ann-${stamp}@${listing.domain}`, type: 'home' }] },
      oktaUser(`bo-${stamp}@${listing.domain}`, {
        emails: [
          { value: `bo-work-${stamp}@${listing.domain}`, type: 'work' },
          { value: `bo-home-${stamp}@${listing.domain}`, type: 'home', primary: true },
        ],
      }),
      oktaUser(`cy-${stamp}@${listing.domain}`, { active: false }),
      oktaUser(`di-${stamp}@${listing.domain}`),
      oktaUser(`ed-${stamp}@${listing.domain}`),
    ];
    all = [];
    for (const user of users) {
      all.push(await created(user, client));
      runtime.clock.advance(1);
    }
    // A list's order is the table's, by id (issue 30): the same every time.
    all.sort((a, b) => (a.id < b.id ? -1 : 1));
  });

  const list = (query: string) => client.get(`/Users${query}`);
  const ids = (reply: Reply) => (reply.body.Resources as { id: string }[]).map((user) => user.id);
  const idOf = (prefix: string) => all.find((user) => user.userName.toLowerCase().startsWith(prefix.toLowerCase()))!.id;
  /** A filter's answer: 200 and the ids it lists. */
  async function filtered(filter: string) {
    const reply = await list(`?filter=${filter}`);
    expect(reply.status, described(reply)).toBe(200);
    expect(reply.body.totalResults).toBe(reply.body.Resources.length);
    return ids(reply);
  }

  it('lists every User in id order as a ListResponse with integer counts', async () => {
    const reply = await list('');
    expect(reply.status, described(reply)).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(reply.body).toMatchObject({ schemas: [listSchema], totalResults: 7, startIndex: 1, itemsPerPage: 7 });
    expect(ids(reply)).toEqual(all.map((user) => user.id));
    // A deactivated User is listed, with active false.
    expect(reply.body.Resources.find((user: { userName: string }) => user.userName === `cy-${stamp}@${listing.domain}`)).toMatchObject({
      active: false,
    });
    for (const user of reply.body.Resources) expect(user.meta.location).toBe(`${listing.base}/Users/${user.id}`);
  });

  it('reads + in the query as a space and %2B as a plus', async () => {
    // `%2B` is the plus of the userName.
    expect(await filtered(q(`userName eq "${plus()}"`))).toEqual([idOf('first+tag')]);
    // A `+` written in the query is a space: the same characters name no User.
    expect(await filtered(`userName+eq+%22${plus().replace('@', '%40')}%22`)).toEqual([]);
    // Entra's validator writes spaces as `+`.
    expect(await filtered(`userName+eq+%22Ann+Smith+${stamp}%22`)).toEqual([idOf('Ann Smith')]);
    expect(await filtered(`userName%20eq%20%22Ann%20Smith%20${stamp}%22`)).toEqual([idOf('Ann Smith')]);
  });

  it('answers 400 invalidFilter to a filter given twice, in any spelling of its name', async () => {
    expectScimError(await list(`?filter=${q('userName eq "a"')}&filter=${q('userName eq "b"')}`), 400, 'invalidFilter');
    expectScimError(await list(`?filter=${q('userName eq "a"')}&Filter=${q('userName eq "b"')}`), 400, 'invalidFilter');
  });

  it('lists only the Users of the key’s own workspace', async () => {
    const reply = await scim.get(`/Users?filter=${q(`userName eq "ana-${stamp}@${listing.domain}"`)}`);
    expect(reply.body.totalResults).toBe(0);
    expectScimError(await scim.get(`/Users/${idOf('ana-')}`), 404);
  });
});

describe('GET /scim/v2/Users/{id}', () => {
  it('answers 200 with the User', async () => {
    const user = await created(oktaUser(address('read')));
    const reply = await scim.get(`/Users/${user.id}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(reply.headers.get('location')).toBe(user.meta.location);
    expect(reply.body).toEqual(user);
  });

  it.each(['010101001010101011001010101011', '00919288221112222', 'scu_AAAAAAAAAAAAAAAAAAAAAA', 'a%20b', '..%2F..%2Fv1'])(
    'answers 404 in SCIM’s shape to the unknown or malformed id %s',
    async (id) => {
      expectScimError(await scim.get(`/Users/${id}`), 404);
    },
  );
});

describe('PUT /scim/v2/Users/{id}', () => {
  it('replaces the User: what is not sent is dropped, active kept when not sent', async () => {
    const email = address('put');
    const user = await created({
      ...oktaUser(email, { externalId: 'put-ext-1', title: 'Guide', phoneNumbers: [{ value: '555-0100', type: 'work' }] }),
      schemas: [userSchema, enterprise],
      [enterprise]: { department: 'Tours' },
    });
    const { active: _active, ...withoutActive } = oktaUser(email, { externalId: 'put-ext-2', displayName: 'Replaced', locale: undefined });
    const reply = await scim.put(`/Users/${user.id}`, { ...withoutActive, id: user.id, meta: user.meta, name: { givenName: 'Only' } });
    expect(reply.status, described(reply)).toBe(200);
    expect(reply.headers.get('location')).toBe(user.meta.location);
    expect(reply.body).toEqual({
      schemas: [userSchema],
      id: user.id,
      externalId: 'put-ext-2',
      userName: email,
      name: { givenName: 'Only' },
      displayName: 'Replaced',
      emails: user.emails,
      active: true,
      meta: { ...user.meta, lastModified: expect.any(String), version: 'W/"2"' },
    });
    expect((await scim.get(`/Users/${user.id}`)).body).toEqual(reply.body);
    // The externalId moved: the old one finds nothing, the new one the User.
    expect((await scim.get(`/Users?filter=${q('externalId eq "put-ext-1"')}`)).body.totalResults).toBe(0);
    expect((await scim.get(`/Users?filter=${q('externalId eq "put-ext-2"')}`)).body.Resources[0].id).toBe(user.id);
  });

  it('answers 404 to an unknown id', async () => {
    expectScimError(await scim.put('/Users/010101001010101011001010101011', oktaUser(address('put-404'))), 404);
  });

  it('answers 409 uniqueness to a rename to another User’s userName, and changes nothing', async () => {
    const taken = await created(oktaUser(address('taken')));
    const email = address('renamed');
    const user = await created(oktaUser(email));
    expectScimError(
      await scim.put(`/Users/${user.id}`, oktaUser(taken.userName.toUpperCase(), { emails: user.emails })),
      409,
      'uniqueness',
    );
    expectScimError(await scim.put(`/Users/${user.id}`, oktaUser(email, { externalId: taken.externalId })), 409, 'uniqueness');
    expect((await scim.get(`/Users/${user.id}`)).body).toEqual(user);
    // Its own userName in another case is no conflict.
    const recased = await scim.put(
      `/Users/${user.id}`,
      oktaUser(email.toUpperCase(), { externalId: user.externalId, emails: user.emails }),
    );
    expect(recased.status, described(recased)).toBe(200);
    expect(recased.body.userName).toBe(email.toUpperCase());
  });

  it('answers 400 to a body that is not a User, and changes nothing', async () => {
    const email = address('put-400');
    const user = await created(oktaUser(email));
    const put = (body: unknown) => scim.put(`/Users/${user.id}`, body);
    expectScimError(await put({ schemas: [userSchema], displayName: 'no userName' }), 400, 'invalidValue');
    expectScimError(await put({ ...oktaUser(email), active: 'sometimes' }), 400, 'invalidValue');
    expectScimError(await put({ ...oktaUser(email), emails: [{ value: 'nowhere' }] }), 400, 'invalidValue');
    expectScimError(await put({ ...oktaUser(email), schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'] }), 400, 'invalidSyntax');
    expectScimError(await put([oktaUser(email)]), 400, 'invalidSyntax');
    const raw = await apiClient(runtime).call('PUT', `/scim/v2/Users/${user.id}`, {
      body: '{',
      headers: { authorization: `Bearer ${directory.key}`, 'content-type': 'application/scim+json' },
    });
    expectScimError(raw, 400, 'invalidSyntax');
    expect((await scim.get(`/Users/${user.id}`)).body).toEqual(user);
  });
});

describe('PATCH /scim/v2/Users/{id}', () => {
  it('takes Remove, and Entra’s operations written in any case', async () => {
    const user = await created(oktaUser(address('remove'), { title: 'Guide' }));
    const reply = await patch(user.id, [
      { op: 'Remove', path: 'displayName' },
      { op: 'REMOVE', path: 'title' },
    ]);
    expect(reply.status, described(reply)).toBe(200);
    expect(reply.body).not.toHaveProperty('displayName');
    expect(reply.body).not.toHaveProperty('title');
  });

  it('takes Entra’s path-less value whose keys are paths', async () => {
    const user = await created(oktaUser(address('entra-keys')));
    const reply = await patch(user.id, [
      {
        op: 'replace',
        value: {
          'name.givenName': 'Bea',
          'name.familyName': 'Ortiz',
          [`${enterprise}:employeeNumber`]: '1234',
          displayName: 'Bea Ortiz',
          'emails[type eq "work"].value': user.emails[0].value.toUpperCase(),
        },
      },
    ]);
    expect(reply.status, described(reply)).toBe(200);
    expect(reply.body).toMatchObject({
      name: { givenName: 'Bea', familyName: 'Ortiz' },
      displayName: 'Bea Ortiz',
      emails: [{ value: user.emails[0].value.toUpperCase(), type: 'work', primary: true }],
      [enterprise]: { employeeNumber: '1234' },
    });
    expect(reply.body.schemas).toEqual([userSchema, enterprise]);
  });

  it('loses no change to concurrent PATCHes of one User: each is applied or answered 409', async () => {
    const user = await created(oktaUser(address('concurrent')));
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        patch(user.id, [{ op: 'add', path: 'phoneNumbers', value: [{ value: `555-01${index}`, type: 'work' }] }]),
      ),
    );
    const applied = replies.filter((reply) => reply.status === 200);
    for (const reply of replies.filter((reply) => reply.status !== 200)) expectScimError(reply, 409);
    expect(applied.length).toBeGreaterThan(0);
    const after = (await scim.get(`/Users/${user.id}`)).body;
    expect(after.meta.version).toBe(`W/"${1 + applied.length}"`);
    expect(after.phoneNumbers.map((phone: { value: string }) => phone.value).sort()).toEqual(
      applied.map((reply) => (reply.body.phoneNumbers as { value: string }[]).at(-1)!.value).sort(),
    );
  });

  it('sets each path both clients send', async () => {
    const user = await created(oktaUser(address('paths'), { externalId: `old-${Date.now().toString(36)}` }));
    const workEmail = address('new-work');
    const newExternal = `new-${Date.now().toString(36)}`;
    const reply = await patch(user.id, [
      { op: 'Replace', path: 'emails[type eq "work"].value', value: workEmail },
      { op: 'Replace', path: 'name.givenName', value: 'Cy' },
      { op: 'Replace', path: 'displayName', value: 'Cy Tester' },
      { op: 'Replace', path: 'externalId', value: newExternal },
      { op: 'Add', path: `${enterprise}:department`, value: 'Tours' },
      { op: 'Add', path: `${enterprise}:manager`, value: { value: 'mgr-1' } },
      { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '555-0199' },
    ]);
    expect(reply.status, described(reply)).toBe(200);
    expect(reply.body).toMatchObject({
      externalId: newExternal,
      name: { givenName: 'Cy', familyName: 'Tester' },
      displayName: 'Cy Tester',
      emails: [{ value: workEmail, type: 'work', primary: true }],
      phoneNumbers: [{ type: 'work', value: '555-0199' }],
      [enterprise]: { department: 'Tours', manager: { value: 'mgr-1' } },
    });
    expect((await scim.get(`/Users?filter=${q(`externalId eq "${newExternal}"`)}`)).body.Resources[0].id).toBe(user.id);
    expect((await scim.get(`/Users?filter=${q(`emails[type eq "work"].value eq "${workEmail}"`)}`)).body.totalResults).toBe(1);

    // The manager cleared as Entra does, by an empty value, then the department removed.
    const cleared = await patch(user.id, [{ op: 'Replace', path: `${enterprise}:manager`, value: { value: '' } }]);
    expect(cleared.body[enterprise]).toEqual({ department: 'Tours' });
    const removed = await patch(user.id, [{ op: 'Remove', path: `${enterprise}:department` }]);
    expect(removed.body).not.toHaveProperty(enterprise);
    expect(removed.body.schemas).toEqual([userSchema]);
  });

  it.each([
    ['an attribute no User has', [{ op: 'replace', path: 'favoriteColor', value: 'blue' }], 'invalidPath'],
    ['a filter other than eq', [{ op: 'replace', path: 'emails[type co "work"].value', value: 'x@example.com' }], 'invalidPath'],
    ['a sub-attribute of no attribute', [{ op: 'replace', path: 'name.nickname', value: 'x' }], 'invalidPath'],
    ['an unclosed filter', [{ op: 'replace', path: 'emails[type eq "work".value', value: 'x@example.com' }], 'invalidPath'],
    ['a remove without a path', [{ op: 'remove' }], 'noTarget'],
    ['a remove of a value that is not there', [{ op: 'remove', path: 'emails', value: [{ value: 'absent@example.com' }] }], 'noTarget'],
    ['the read-only id', [{ op: 'replace', path: 'id', value: 'mine' }], 'mutability'],
    ['the read-only groups', [{ op: 'add', path: 'groups', value: [{ value: 'admins' }] }], 'mutability'],
  ])('answers 400, never 500, to %s', async (_, operations, scimType) => {
    const user = await created(oktaUser(address('bad-path')));
    expectScimError(await patch(user.id, operations), 400, scimType);
    expect((await scim.get(`/Users/${user.id}`)).body).toEqual(user);
  });

  it.each([
    [
      'an op that is none',
      { schemas: [patchSchema], Operations: [{ op: 'frobnicate', path: 'displayName', value: 'x' }] },
      'invalidSyntax',
    ],
    ['no Operations', { schemas: [patchSchema] }, 'invalidSyntax'],
    ['empty Operations', { schemas: [patchSchema], Operations: [] }, 'invalidSyntax'],
    ['an operation that is not an object', { schemas: [patchSchema], Operations: ['replace'] }, 'invalidSyntax'],
    [
      'a path-less replace whose value is no object',
      { schemas: [patchSchema], Operations: [{ op: 'replace', value: 'x' }] },
      'invalidSyntax',
    ],
    [
      'a User sent as a PATCH',
      { schemas: [userSchema], Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] },
      'invalidSyntax',
    ],
    [
      'Operations that are no array',
      { schemas: [patchSchema], Operations: { op: 'replace', path: 'displayName', value: 'x' } },
      'invalidSyntax',
    ],
    [
      'an operation naming op twice',
      { schemas: [patchSchema], Operations: [{ op: 'replace', OP: 'add', path: 'displayName', value: 'x' }] },
      'invalidSyntax',
    ],
    [
      'active that is no boolean',
      { schemas: [patchSchema], Operations: [{ op: 'replace', path: 'active', value: 'nope' }] },
      'invalidValue',
    ],
    ['userName removed', { schemas: [patchSchema], Operations: [{ op: 'remove', path: 'userName' }] }, 'invalidValue'],
  ])('answers 400 to %s', async (_, body, scimType) => {
    const user = await created(oktaUser(address('bad-op')));
    expectScimError(await scim.patch(`/Users/${user.id}`, body), 400, scimType);
    expect((await scim.get(`/Users/${user.id}`)).body).toEqual(user);
  });

  it('answers 409 uniqueness to a userName taken by another User', async () => {
    const taken = await created(oktaUser(address('patch-taken')));
    const user = await created(oktaUser(address('patch-rename')));
    expectScimError(await patch(user.id, [{ op: 'replace', path: 'userName', value: taken.userName.toUpperCase() }]), 409, 'uniqueness');
    expectScimError(await patch(user.id, [{ op: 'replace', value: { externalId: taken.externalId } }]), 409, 'uniqueness');
    expect((await scim.get(`/Users/${user.id}`)).body).toEqual(user);
  });

  it('answers 404 to an unknown id', async () => {
    expectScimError(await patch('010101001010101011001010101011', [{ op: 'replace', path: 'displayName', value: 'x' }]), 404);
  });
});

describe('DELETE /scim/v2/Users/{id}', () => {
  it('answers 204 with no body: the membership and the User go, the seat is freed, the account stays', async () => {
    const email = address('delete');
    const user = await created(oktaUser(email));
    const member = await memberOf(email);
    const before = await roster();
    const reply = await scim.delete(`/Users/${user.id}`);
    expect(reply.status, described(reply)).toBe(204);
    expect(reply.body).toBe('');
    expect(await memberOf(email)).toBeUndefined();
    expect(await roster()).toEqual({ seats: before.seats, members: before.members - 1 });
    expectScimError(await scim.get(`/Users/${user.id}`), 404);
    expectScimError(await scim.delete(`/Users/${user.id}`), 404);
    expect((await scim.get(`/Users?filter=${q(`userName eq "${email}"`)}`)).body.totalResults).toBe(0);
    // The account stays: signing in finds it.
    expect((await signIn(runtime, email)).user.id).toBe(member!.user_id);
    // Its userName and externalId are free again.
    const again = await created(oktaUser(email, { externalId: user.externalId }));
    expect(again.id).not.toBe(user.id);
    expect(await memberOf(email)).toMatchObject({ user_id: member!.user_id });
  });

  it('answers 404 to an unknown id', async () => {
    expectScimError(await scim.delete('/Users/010101001010101011001010101011'), 404);
  });
});

describe('what is not served', () => {
  const allowed = (reply: Reply) => (reply.headers.get('allow') ?? '').split(/,\s*/).sort();

  it.each([
    ['POST', '/Users/scu_AAAAAAAAAAAAAAAAAAAAAA', ['DELETE', 'GET', 'PATCH', 'PUT']],
    ['DELETE', '/Users', ['GET', 'POST']],
    ['PUT', '/Users', ['GET', 'POST']],
    ['PATCH', '/ServiceProviderConfig', ['GET']],
    ['POST', '/Schemas', ['GET']],
  ])('answers %s %s with 405 naming what is served', async (method, path, methods) => {
    const reply = await scim.call(method, path, method === 'DELETE' ? undefined : {});
    expectScimError(reply, 405);
    expect(allowed(reply)).toEqual(methods);
  });

  // Groups are served since issue 30 (an unknown Group's id is still 404).
  it.each(['/Groups/abc', '/Bulk', '/Me'])('answers GET %s with 404 in SCIM’s shape', async (path) => {
    expectScimError(await scim.get(path), 404);
  });
});

describe('discovery', () => {
  it.each(['/ServiceProviderConfig', '/Schemas', '/ResourceTypes'])('answers GET %s without a key, and with a wrong one', async (path) => {
    for (const client of [scimClient(runtime, null), scimClient(runtime, `hlscim_${'A'.repeat(43)}`), scimClient(runtime, 'garbage')]) {
      const reply = await client.get(path);
      expect(reply.status, described(reply)).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
      expect(reply.body.schemas).toEqual([expect.stringMatching(/^urn:ietf:params:scim:/)]);
    }
  });
});

describe('on a workspace’s verified hostname', () => {
  const on = (host: string, key: string, method: string, path: string, json?: unknown) =>
    callFrom(runtime, '127.0.0.1', method, `/scim/v2${path}`, json, { host: `${host}:${runtime.port}`, authorization: `Bearer ${key}` });

  it('serves the workspace’s own directory, its Locations on that hostname', async () => {
    const made = await on(directory.domain, directory.key, 'POST', '/Users', oktaUser(address('on-host')));
    expect(made.status).toBe(201);
    const location = `http://${directory.domain}:${runtime.port}/scim/v2/Users/${made.body.id}`;
    expect(made.headers.get('location')).toBe(location);
    expect(made.body.meta.location).toBe(location);
    expect((await on(directory.domain, directory.key, 'GET', `/Users/${made.body.id}`)).body.meta.location).toBe(location);
  });

  it('refuses another workspace’s directory key there (404), and changes nothing of its Users', async () => {
    const other = await directoryWorkspace(runtime, 5);
    const refused = await on(directory.domain, other.key, 'POST', '/Users', oktaUser(`x@${other.domain}`));
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '404' });
    expect((await scimClient(runtime, other.key).get('/Users')).body.totalResults).toBe(0);
    // On its own hostname it works.
    expect((await on(other.domain, other.key, 'GET', '/Users')).status).toBe(200);
  });

  it('answers a hostname no workspace verified with a SCIM 404 (unknown_host), before the key is read', async () => {
    const reply = await on('nobody-verified-this.example', directory.key, 'GET', '/Users');
    expect(reply.status).toBe(404);
    expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(reply.body.status).toBe('404');
  });
});
