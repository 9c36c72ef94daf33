import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { routeKey, routes, scopes, type Route, type Scope } from '../../shared/routes.ts';
import { bearer, createKey, newEmail, signIn, type CreatedKey, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime, textSecretBody, type Reply } from '../support/runtime.ts';
import { directoryWorkspace, oktaUser, scimClient, type DirectoryWorkspace } from '../support/scim/directory.ts';
import { invitationToken, joinAs, setWorkspace, teamWorkspace } from '../support/workspaces.ts';

/**
 * The credential matrix, built from the route table: every row that reads a credential is
 * called with none, an expired token, malformed ones, a key without the row's scope, a key with
 * it, and a session, and must answer as its `credential` and `scope` say.
 */

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
/** The matrix's caller. */
let main: SignedIn;
/** A token issued, then left to expire (the clock moved 901 s). */
let expired: SignedIn;
/** Keys of the main user, by the scopes they hold. */
const keys = new Map<string, CreatedKey>();
const keyWith = (list: readonly Scope[]) => keys.get([...list].sort().join(' '))!;

beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  expired = await signIn(runtime, newEmail('expired'));
  runtime.clock.advance(901);
  main = await signIn(runtime, newEmail('main'));
  // Every key the matrix needs: each single scope, each "all but one", and all of them.
  const wanted = new Set<string>();
  for (const scope of scopes) {
    wanted.add(scope);
    wanted.add(
      scopes
        .filter((other) => other !== scope)
        .sort()
        .join(' '),
    );
  }
  wanted.add([...scopes].sort().join(' '));
  for (const list of wanted) keys.set(list, await createKey(runtime, main, list.split(' ') as Scope[], `key ${list}`));
});
afterAll(() => runtime?.stop());

type Caller = 'anonymous' | 'session' | 'api_key';

interface Prepared {
  path: string;
  json?: unknown;
  headers?: Record<string, string>;
  /** The credential to use instead of the matrix's own (for calls that would end it). */
  auth?: Record<string, string>;
}

interface Case {
  success: number;
  /** Makes the request; `caller` tells whose call it is, so a fresh resource can be made. */
  prepare: (caller: Caller) => Promise<Prepared>;
}

/** An anonymous secret, with its delete token. */
async function anonymousSecret() {
  const reply = await api.post('/v1/secrets', textSecretBody());
  expect(reply.status).toBe(201);
  return reply.body as { id: string; delete_token: string };
}
/** A secret owned by the main user. */
async function ownedSecret() {
  const reply = await api.post('/v1/secrets', textSecretBody(), main.auth);
  expect(reply.status).toBe(201);
  return reply.body as { id: string; delete_token: string };
}

/** Minimal valid requests per route, so the success status is reachable. */
const cases: Record<string, Case> = {
  'POST /v1/secrets': { success: 201, prepare: async () => ({ path: '/v1/secrets', json: textSecretBody() }) },
  'GET /v1/secrets': { success: 200, prepare: async () => ({ path: '/v1/secrets' }) },
  'GET /v1/secrets/{id}': { success: 200, prepare: async () => ({ path: `/v1/secrets/${(await ownedSecret()).id}` }) },
  'GET /v1/secrets/{id}/receipts': { success: 200, prepare: async () => ({ path: `/v1/secrets/${(await ownedSecret()).id}/receipts` }) },
  'DELETE /v1/secrets/{id}/recipients/{recipientId}': {
    success: 200,
    prepare: async (caller) => {
      // Anonymous callers revoke a link with the delete token; the owner needs none.
      const reply = await api.post('/v1/secrets', textSecretBody({ recipients: [{}, {}] }), caller === 'anonymous' ? undefined : main.auth);
      expect(reply.status).toBe(201);
      const path = `/v1/secrets/${reply.body.id}/recipients/${reply.body.recipients[0].recipient_id}`;
      return caller === 'anonymous' ? { path, headers: { 'x-delete-token': reply.body.delete_token } } : { path };
    },
  },
  'DELETE /v1/secrets/{id}': {
    success: 204,
    prepare: async (caller) => {
      // Anonymous callers revoke with the delete token; the owner needs none.
      if (caller === 'anonymous') {
        const secret = await anonymousSecret();
        return { path: `/v1/secrets/${secret.id}`, headers: { 'x-delete-token': secret.delete_token } };
      }
      return { path: `/v1/secrets/${(await ownedSecret()).id}` };
    },
  },
  'POST /v1/files/multipart': {
    success: 200,
    prepare: async () => ({ path: '/v1/files/multipart', json: { size_bytes: 1024, salt: textSecretBody().salt } }),
  },
  'GET /v1/requests': { success: 200, prepare: async () => ({ path: '/v1/requests' }) },
  'POST /v1/requests': {
    success: 201,
    prepare: async () => ({ path: '/v1/requests', json: { public_key: randomBytes(32).toString('base64url'), kem: 'x25519' } }),
  },
  'DELETE /v1/requests/{id}': { success: 200, prepare: async () => ({ path: `/v1/requests/${await requestOfMain()}` }) },
  'GET /v1/requests/{id}/inbox': { success: 200, prepare: async () => ({ path: `/v1/requests/${await requestOfMain()}/inbox` }) },
  'GET /v1/auth/sessions': { success: 200, prepare: async () => ({ path: '/v1/auth/sessions' }) },
  'GET /v1/auth/account': { success: 200, prepare: async () => ({ path: '/v1/auth/account' }) },
  // No language saved: the matrix's own mails stay in English.
  'PATCH /v1/auth/account': { success: 200, prepare: async () => ({ path: '/v1/auth/account', json: { locale: null } }) },
  'POST /v1/auth/logout-all': {
    success: 200,
    // Signing everyone out would end the matrix's own session: a user of its own.
    prepare: async (caller) => ({
      path: '/v1/auth/logout-all',
      ...(caller === 'session' ? { auth: (await signIn(runtime, newEmail('leaver'))).auth } : {}),
    }),
  },
  'POST /v1/auth/tos': { success: 200, prepare: async () => ({ path: '/v1/auth/tos', json: { version: '2025-01-01' } }) },
  'POST /v1/auth/adopt-secrets': {
    success: 200,
    prepare: async () => {
      const secret = await anonymousSecret();
      return { path: '/v1/auth/adopt-secrets', json: { secrets: [{ id: secret.id, delete_token: secret.delete_token }] } };
    },
  },
  'GET /v1/api-keys': { success: 200, prepare: async () => ({ path: '/v1/api-keys' }) },
  'POST /v1/api-keys': {
    success: 201,
    prepare: async () => ({ path: '/v1/api-keys', json: { name: 'made by the matrix', scopes: ['secrets:read'] } }),
  },
  'DELETE /v1/api-keys/{id}': {
    success: 200,
    prepare: async () => ({ path: `/v1/api-keys/${(await createKey(runtime, main, ['receipts:read'], 'to revoke')).id}` }),
  },
  'GET /v1/usage': { success: 200, prepare: async () => ({ path: '/v1/usage' }) },
  'GET /v1/usage/history': { success: 200, prepare: async () => ({ path: '/v1/usage/history' }) },
  'POST /v1/events': { success: 202, prepare: async () => ({ path: '/v1/events', json: { name: 'app.opened' } }) },
  'GET /v1/flags': { success: 200, prepare: async () => ({ path: '/v1/flags' }) },
  'GET /v1/webhooks': { success: 200, prepare: async () => ({ path: '/v1/webhooks' }) },
  'POST /v1/webhooks': {
    success: 201,
    prepare: async () => {
      await pruneEndpoints();
      return { path: '/v1/webhooks', json: { url: 'http://127.0.0.1:9/matrix' } };
    },
  },
  'DELETE /v1/webhooks/{id}': { success: 200, prepare: async () => ({ path: `/v1/webhooks/${await endpointOfMain()}` }) },
  'GET /v1/webhooks/{id}/deliveries': {
    success: 200,
    prepare: async () => ({ path: `/v1/webhooks/${await endpointOfMain()}/deliveries` }),
  },
  'POST /v1/webhooks/{id}/test': { success: 202, prepare: async () => ({ path: `/v1/webhooks/${await endpointOfMain()}/test` }) },
  'GET /v1/workspaces': { success: 200, prepare: async () => ({ path: '/v1/workspaces' }) },
  'POST /v1/workspaces': { success: 201, prepare: async () => ({ path: '/v1/workspaces', json: { name: 'Matrix team' } }) },
  'GET /v1/workspaces/{id}/audit': { success: 200, prepare: async () => ({ path: `/v1/workspaces/${await workspaceOfMain()}/audit` }) },
  'GET /v1/workspaces/{id}/audit/export': {
    success: 200,
    prepare: async () => ({ path: `/v1/workspaces/${await workspaceOfMain()}/audit/export?format=json` }),
  },
  'PUT /v1/workspaces/{id}/branding': {
    success: 200,
    prepare: async () => ({ path: `/v1/workspaces/${await workspaceOfMain()}/branding`, json: { display_name: 'Matrix' } }),
  },
  'PUT /v1/workspaces/{id}/policy': {
    success: 200,
    prepare: async () => ({ path: `/v1/workspaces/${await workspaceOfMain()}/policy`, json: { max_views: 5 } }),
  },
  'POST /v1/workspaces/{id}/invitations': {
    success: 201,
    prepare: async () => ({
      path: `/v1/workspaces/${await workspaceOfMain()}/invitations`,
      json: { email: newEmail('matrix-invitee'), role: 'member' },
    }),
  },
  'GET /v1/workspaces/{id}/members': { success: 200, prepare: async () => ({ path: `/v1/workspaces/${await workspaceOfMain()}/members` }) },
  'DELETE /v1/workspaces/{id}/members/{userId}': {
    success: 200,
    prepare: async () => {
      const id = await workspaceOfMain();
      return { path: `/v1/workspaces/${id}/members/${(await joinAs(runtime, { id }, main, 'member')).user.id}` };
    },
  },
  'PATCH /v1/workspaces/{id}/members/{userId}': {
    success: 200,
    prepare: async () => {
      const id = await workspaceOfMain();
      return { path: `/v1/workspaces/${id}/members/${(await joinAs(runtime, { id }, main, 'member')).user.id}`, json: { role: 'admin' } };
    },
  },
  'POST /v1/workspaces/{id}/transfer': {
    success: 200,
    // Handing over a workspace of its own, so the matrix's stays the main user's.
    prepare: async () => {
      const id = await workspaceOfMain(true);
      return { path: `/v1/workspaces/${id}/transfer`, json: { user_id: (await joinAs(runtime, { id }, main, 'admin')).user.id } };
    },
  },
  'POST /v1/workspaces/invitations/accept': {
    success: 200,
    // An invitation to the main user's address, from someone else's workspace.
    prepare: async () => {
      const other = await teamWorkspace(runtime, 3);
      await api.post(`/v1/workspaces/${other.id}/invitations`, { email: main.user.email, role: 'member' }, other.owner.auth);
      return { path: '/v1/workspaces/invitations/accept', json: { token: invitationToken(runtime, main.user.email) } };
    },
  },
  // A Pro checkout for the main user, a fresh session at the emulator each time (never paid, so never 409).
  'POST /v1/billing/checkout': { success: 201, prepare: async () => ({ path: '/v1/billing/checkout', json: { plan: 'pro' } }) },
  'GET /v1/billing/subscription': { success: 200, prepare: async () => ({ path: '/v1/billing/subscription' }) },
  // The portal and invoices are the main user's customer's: one exists once a checkout was started.
  'POST /v1/billing/portal': {
    success: 201,
    prepare: async () => ({ path: '/v1/billing/portal', json: { return_path: '/billing' }, ...(await customerOfMain()) }),
  },
  'GET /v1/billing/invoices': { success: 200, prepare: async () => ({ path: '/v1/billing/invoices', ...(await customerOfMain()) }) },
  'GET /v1/domains': { success: 200, prepare: async () => ({ path: `/v1/domains?workspace_id=${await workspaceOfMain()}` }) },
  'POST /v1/domains': {
    success: 201,
    prepare: async () => ({
      path: '/v1/domains',
      json: { workspace_id: await workspaceOfMain(true), hostname: `matrix-${++hostnames}.example` },
    }),
  },
  // A claim of its own each time (the main user's workspace's), checked or deleted.
  'POST /v1/domains/{id}/verify': { success: 200, prepare: async () => ({ path: `/v1/domains/${await domainOfMain()}/verify` }) },
  'DELETE /v1/domains/{id}': { success: 200, prepare: async () => ({ path: `/v1/domains/${await domainOfMain()}` }) },
  // The SSO directory of a workspace of the main user with a verified domain (made once).
  'PUT /v1/workspaces/{id}/sso': {
    success: 200,
    prepare: async () => {
      const { workspaceId, hostname } = await verifiedDomainOfMain();
      return { path: `/v1/workspaces/${workspaceId}/sso`, json: { issuer: 'https://matrix.okta.example', email_domain: hostname } };
    },
  },
  // The seats of a workspace the main user bought Team for (once), set to a count of the attempt.
  'PATCH /v1/billing/seats': {
    success: 200,
    prepare: async () => ({ path: '/v1/billing/seats', json: { workspace_id: await teamBoughtByMain(), seats: 2 + (++seatChanges % 5) } }),
  },
  'POST /v1/chat/install': { success: 200, prepare: async () => ({ path: '/v1/chat/install' }) },
  // SCIM: the routes of a directory (a workspace with its SSO directory, made once), each on a User of its own.
  'GET /scim/v2/Users': { success: 200, prepare: async () => ({ path: '/scim/v2/Users' }) },
  'POST /scim/v2/Users': { success: 201, prepare: async () => ({ path: '/scim/v2/Users', json: oktaUser(await newDirectoryAddress()) }) },
  'GET /scim/v2/Users/{id}': { success: 200, prepare: async () => ({ path: `/scim/v2/Users/${(await directoryUser()).id}` }) },
  'PUT /scim/v2/Users/{id}': {
    success: 200,
    prepare: async () => {
      const user = await directoryUser();
      return { path: `/scim/v2/Users/${user.id}`, json: oktaUser(user.userName, { displayName: 'Replaced' }) };
    },
  },
  'PATCH /scim/v2/Users/{id}': {
    success: 200,
    prepare: async () => ({
      path: `/scim/v2/Users/${(await directoryUser()).id}`,
      json: { Operations: [{ op: 'replace', path: 'displayName', value: 'Patched' }] },
    }),
  },
  'DELETE /scim/v2/Users/{id}': { success: 204, prepare: async () => ({ path: `/scim/v2/Users/${(await directoryUser()).id}` }) },
  // SCIM Groups (issue 30), each on a Group of its own.
  'GET /scim/v2/Groups': { success: 200, prepare: async () => ({ path: '/scim/v2/Groups?excludedAttributes=members' }) },
  'POST /scim/v2/Groups': {
    success: 201,
    prepare: async () => ({ path: '/scim/v2/Groups', json: { displayName: `Matrix ${++groupNames}` } }),
  },
  'GET /scim/v2/Groups/{id}': { success: 200, prepare: async () => ({ path: `/scim/v2/Groups/${await directoryGroup()}` }) },
  'PUT /scim/v2/Groups/{id}': {
    success: 200,
    prepare: async () => ({ path: `/scim/v2/Groups/${await directoryGroup()}`, json: { displayName: `Matrix ${++groupNames}` } }),
  },
  'PATCH /scim/v2/Groups/{id}': {
    success: 200,
    prepare: async () => ({
      path: `/scim/v2/Groups/${await directoryGroup()}`,
      json: { Operations: [{ op: 'replace', path: 'displayName', value: `Matrix ${++groupNames}` }] },
    }),
  },
  'DELETE /scim/v2/Groups/{id}': { success: 204, prepare: async () => ({ path: `/scim/v2/Groups/${await directoryGroup()}` }) },
};

let groupNames = 0;
/** A fresh Group of the matrix's directory: its id. */
async function directoryGroup(): Promise<string> {
  const reply = await scimClient(runtime, (await directoryOfMatrix()).key).post('/Groups', { displayName: `Matrix ${++groupNames}` });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id as string;
}

let directory: Promise<DirectoryWorkspace> | undefined;
/** The matrix's SCIM directory: a Team workspace with a verified domain and its directory key (made once). */
const directoryOfMatrix = () => (directory ??= directoryWorkspace(runtime, 500));
let directoryAddresses = 0;
const newDirectoryAddress = async () => `matrix-${++directoryAddresses}@${(await directoryOfMatrix()).domain}`;
/** A fresh User of the matrix's directory. */
async function directoryUser(): Promise<{ id: string; userName: string }> {
  const reply = await scimClient(runtime, (await directoryOfMatrix()).key).post('/Users', oktaUser(await newDirectoryAddress()));
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

let hostnames = 0;
/** A fresh claim of a hostname by the main user, in a workspace of its own (a workspace holds 20 at most). */
async function domainOfMain(): Promise<string> {
  const reply = await api.post(
    '/v1/domains',
    { workspace_id: await workspaceOfMain(true), hostname: `matrix-${++hostnames}.example` },
    main.auth,
  );
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id as string;
}

let mainVerified: Promise<{ workspaceId: string; hostname: string }> | undefined;
/** A workspace of the main user with a hostname verified against the local DNS server. */
function verifiedDomainOfMain(): Promise<{ workspaceId: string; hostname: string }> {
  mainVerified ??= (async () => {
    const workspaceId = await workspaceOfMain(true);
    const hostname = `matrix-sso-${process.pid}.example`;
    const claimed = await api.post('/v1/domains', { workspace_id: workspaceId, hostname }, main.auth);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
    runtime.dns.setRecords(claimed.body.verification.name, [{ type: 'TXT', data: claimed.body.verification.value }]);
    expect((await api.post(`/v1/domains/${claimed.body.id}/verify`, undefined, main.auth)).body.state).toBe('verified');
    return { workspaceId, hostname };
  })();
  return mainVerified;
}

let seatChanges = 0;
let mainTeam: Promise<string> | undefined;
/** A workspace of the main user with a Team subscription, bought and paid at the Stripe emulator. */
function teamBoughtByMain(): Promise<string> {
  mainTeam ??= (async () => {
    const made = await api.post('/v1/workspaces', { name: 'Matrix Team' }, main.auth);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const started = await api.post('/v1/billing/checkout', { plan: 'team', workspace_id: made.body.id, seats: 2 }, main.auth);
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await runtime.stripe.completeCheckout(started.body.id);
    await runtime.stripe.settled();
    return made.body.id as string;
  })();
  return mainTeam;
}

let mainCustomer: Promise<void> | undefined;
/** The main user's customer at the payment provider, made by a checkout started once. */
function customerOfMain(): Promise<Record<string, never>> {
  mainCustomer ??= api.post('/v1/billing/checkout', { plan: 'pro' }, main.auth).then((reply) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  });
  return mainCustomer.then(() => ({}));
}

let mainWorkspace: Promise<string> | undefined;
/** A Team workspace the main user owns (made once; `fresh` makes another), with seats to spare. */
function workspaceOfMain(fresh = false): Promise<string> {
  const make = async () => {
    const reply = await api.post('/v1/workspaces', { name: 'Matrix' }, main.auth);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    await setWorkspace(runtime, reply.body.id, { seats: 500, plan: 'team' });
    return reply.body.id as string;
  };
  if (fresh) return make();
  return (mainWorkspace ??= make());
}

/** A fresh request link of the main user. */
async function requestOfMain(): Promise<string> {
  const reply = await api.post('/v1/requests', { public_key: randomBytes(32).toString('base64url'), kem: 'x25519' }, main.auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id as string;
}

/** A fresh webhook endpoint of the main user (a loopback URL nothing listens on: local mode allows it). */
async function endpointOfMain(): Promise<string> {
  await pruneEndpoints();
  const reply = await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/matrix' }, main.auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id as string;
}

/** Keeps the main user well under the endpoint limit (ten), whatever the matrix made before. */
async function pruneEndpoints(): Promise<void> {
  const listed = await api.get('/v1/webhooks', main.auth);
  for (const endpoint of listed.body.items.slice(0, -3)) await api.delete(`/v1/webhooks/${endpoint.id}`, main.auth);
}

const guarded = (routes as readonly Route[]).filter((route) => route.credential !== 'public');

async function send(route: Route, caller: Caller, auth: Record<string, string> | undefined): Promise<Reply> {
  const prepared = await cases[routeKey(route)]!.prepare(caller);
  // A stand-in credential replaces only the matrix's own session.
  const headers = { ...prepared.headers, ...(prepared.auth && auth === main.auth ? prepared.auth : auth) };
  return api.call(route.method, prepared.path, { ...(prepared.json === undefined ? {} : { json: prepared.json }), headers });
}

const described = (reply: Reply) => `${reply.status} ${JSON.stringify(reply.body)}`;

describe('the route table', () => {
  it('has a request case for every row that reads a credential', () => {
    expect(guarded.map(routeKey).sort()).toEqual(Object.keys(cases).sort());
  });
});

/** What a credential that is not good enough gets: refused (403 where a route open to anyone lists no 401), or (lenient routes) taken as no credential. */
const invalidStatusOf = (route: Route) =>
  route.credential === 'lenient' ? cases[routeKey(route)]!.success : route.credential === 'optional' && !listed(route, 401) ? 403 : 401;
/** What a key without the route's scope gets: 403, or 401 where the route lists no 403. */
const scopeRefusalOf = (route: Route) => (listed(route, 403) ? 403 : 401);
const listed = (route: Route, status: number) => (route.errors as readonly number[]).includes(status);
const lenientOnes = guarded.filter((route) => route.credential === 'lenient');

/** The directory key's routes (SCIM): that key and nothing else, refused in SCIM's shape. */
const directoryRoutes = guarded.filter((route) => route.credential === 'directory');
describe.each(directoryRoutes.map((route) => [routeKey(route), route] as const))('%s', (_, route) => {
  const success = () => cases[routeKey(route)]!.success;
  const refusedAsScim = (reply: Reply) => {
    expect(reply.status, described(reply)).toBe(401);
    expect(reply.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' });
    expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
  };

  it('answers 401 without a credential', async () => refusedAsScim(await send(route, 'anonymous', undefined)));

  it.each([
    ['an expired access token', () => expired.auth],
    ['a session', () => main.auth],
    ['an API key with every scope', () => keyWith(scopes).auth],
    ['garbage', () => ({ authorization: 'Bearer not-a-token' })],
    ['Okta’s probe, with no scheme', () => ({ authorization: 'non-token' })],
    ['a directory key that does not exist', () => ({ authorization: `Bearer hlscim_${'A'.repeat(43)}` })],
    [
      'the key as a Basic credential',
      async () => ({ authorization: `Basic ${Buffer.from(`x:${(await directoryOfMatrix()).key}`).toString('base64')}` }),
    ],
    ['an empty bearer', () => ({ authorization: 'Bearer ' })],
  ])('answers 401 to %s', async (_, auth) => refusedAsScim(await send(route, 'session', await auth())));

  it.each(['Bearer', 'bearer', 'BEARER'])('accepts the directory key, with the scheme written %s', async (scheme) => {
    const reply = await send(route, 'session', { authorization: `${scheme} ${(await directoryOfMatrix()).key}` });
    expect(reply.status, described(reply)).toBe(success());
  });
});

describe.each(guarded.filter((route) => route.credential !== 'directory').map((route) => [routeKey(route), route] as const))(
  '%s',
  (_, route) => {
    const success = () => cases[routeKey(route)]!.success;
    const anonymousWorks = route.credential === 'optional' || route.credential === 'lenient';

    it(anonymousWorks ? 'works without a credential' : 'answers 401 without a credential', async () => {
      const reply = await send(route, 'anonymous', undefined);
      if (anonymousWorks) {
        expect(reply.status, described(reply)).toBe(success());
      } else {
        expect(reply.status, described(reply)).toBe(401);
        expect(reply.body).toMatchObject({ status: 401, code: 'unauthorized' });
        expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    });

    const invalidStatus = invalidStatusOf(route);

    it(`answers ${invalidStatus} to an expired access token`, async () => {
      const reply = await send(route, 'session', expired.auth);
      expect(reply.status, described(reply)).toBe(invalidStatus);
      if (invalidStatus >= 400) expect(reply.body.code).toBe(invalidStatus === 401 ? 'unauthorized' : 'forbidden');
    });

    it.each([
      ['garbage', 'Bearer not-a-token'],
      [
        'a JWT that is not signed by us',
        `Bearer ${Buffer.from('{"alg":"ES256","kid":"x"}').toString('base64url')}.${Buffer.from('{"sub":"u"}').toString('base64url')}.c2ln`,
      ],
      ['an API key that does not exist', 'Bearer hlk_key_AAAAAAAAAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['a Basic credential', `Basic ${Buffer.from('user:pass').toString('base64')}`],
      ['an empty bearer', 'Bearer '],
    ])(`answers ${invalidStatus} to a malformed credential: %s`, async (_, header) => {
      const reply = await send(route, 'session', { authorization: header });
      expect(reply.status, described(reply)).toBe(invalidStatus);
    });

    if (route.credential === 'key') {
      it('answers 401 to a session: only an API key will do', async () => {
        const reply = await send(route, 'session', main.auth);
        expect(reply.status, described(reply)).toBe(401);
        expect(reply.body).toMatchObject({ code: 'unauthorized', reason: 'api_key_required' });
      });
    }

    if (route.credential === 'session') {
      it('answers 403 to an API key, even one with every scope', async () => {
        const reply = await send(route, 'api_key', keyWith(scopes).auth);
        expect(reply.status, described(reply)).toBe(403);
        expect(reply.body.code).toBe('forbidden');
      });
    } else {
      if (route.scope && route.credential === 'lenient') {
        const scope = route.scope;
        it(`takes an API key without ${scope} as no credential`, async () => {
          const reply = await send(route, 'api_key', keyWith(scopes.filter((other) => other !== scope)).auth);
          expect(reply.status, described(reply)).toBe(success());
        });
      } else if (route.scope) {
        const scope = route.scope;
        const refusal = scopeRefusalOf(route);
        it(`answers ${refusal} to an API key without ${scope}`, async () => {
          const reply = await send(route, 'api_key', keyWith(scopes.filter((other) => other !== scope)).auth);
          expect(reply.status, described(reply)).toBe(refusal);
          expect(reply.body).toMatchObject({ code: refusal === 403 ? 'forbidden' : 'unauthorized', required_scope: scope });
        });
      }
      it(`accepts an API key with ${route.scope ?? 'any scope'}`, async () => {
        const reply = await send(route, 'api_key', keyWith([route.scope ?? 'receipts:read']).auth);
        expect(reply.status, described(reply)).toBe(success());
      });
    }

    if (route.credential !== 'key') {
      it('accepts a session', async () => {
        const reply = await send(route, 'session', main.auth);
        expect(reply.status, described(reply)).toBe(success());
      });
    }
  },
);

describe('another user’s session', () => {
  let a: SignedIn;
  let b: SignedIn;
  beforeAll(async () => {
    a = await signIn(runtime, newEmail('alice'));
    b = await signIn(runtime, newEmail('bob'));
  });

  it('cannot revoke a secret of another user without its delete token (403), and the secret stays active', async () => {
    const created = await api.post('/v1/secrets', textSecretBody(), a.auth);
    expect(created.status).toBe(201);
    const reply = await api.delete(`/v1/secrets/${created.body.id}`, b.auth);
    expect(reply.status, described(reply)).toBe(403);
    expect(reply.body.code).toBe('forbidden');
    expect((await api.get(`/v1/secrets/${created.body.id}`)).body.state).toBe('active');
    // With the delete token anyone may.
    expect((await api.delete(`/v1/secrets/${created.body.id}`, { ...b.auth, 'x-delete-token': created.body.delete_token })).status).toBe(
      204,
    );
  });

  it('cannot revoke another user’s API key (404), which keeps working', async () => {
    const key = await createKey(runtime, a, ['secrets:read']);
    const reply = await api.delete(`/v1/api-keys/${key.id}`, b.auth);
    expect(reply.status, described(reply)).toBe(404);
    expect((await api.get('/v1/secrets', key.auth)).status).toBe(200);
    expect((await api.get('/v1/api-keys', a.auth)).body.items.map((item: { id: string }) => item.id)).toContain(key.id);
  });

  it('does not see another user’s secrets', async () => {
    const mine = await api.post('/v1/secrets', textSecretBody(), a.auth);
    expect(mine.status).toBe(201);
    const bList = await api.get('/v1/secrets', b.auth);
    expect(bList.status).toBe(200);
    expect(bList.body.items.map((item: { id: string }) => item.id)).not.toContain(mine.body.id);
    const aList = await api.get('/v1/secrets', a.auth);
    expect(aList.body.items.map((item: { id: string }) => item.id)).toContain(mine.body.id);
  });

  it('another user’s API key cannot revoke a secret it does not own (403)', async () => {
    const created = await api.post('/v1/secrets', textSecretBody(), a.auth);
    const bKey = await createKey(runtime, b, ['secrets:write']);
    expect((await api.delete(`/v1/secrets/${created.body.id}`, bKey.auth)).status).toBe(403);
    expect((await api.get(`/v1/secrets/${created.body.id}`)).body.state).toBe('active');
  });

  it('a session ended by logout is refused at once on every row that reads a credential', async () => {
    const leaving = await signIn(runtime, newEmail('gone'));
    expect((await api.post('/v1/auth/logout', undefined, leaving.auth)).status).toBe(200);
    for (const route of guarded) {
      const reply = await send(route, 'session', leaving.auth);
      expect(reply.status, `${routeKey(route)}: ${described(reply)}`).toBe(invalidStatusOf(route));
    }
  });

  it('a revoked API key is refused at once on every row that reads a credential', async () => {
    const key = await createKey(runtime, main, [...scopes], 'short-lived');
    expect((await api.delete(`/v1/api-keys/${key.id}`, main.auth)).status).toBe(200);
    for (const route of guarded) {
      const reply = await send(route, 'api_key', bearer(key.key));
      expect(reply.status, `${routeKey(route)}: ${described(reply)}`).toBe(invalidStatusOf(route));
    }
  });

  it.each(lenientOnes.map((route) => [routeKey(route), route] as const))(
    '%s: an ended credential sees only what anyone sees',
    async (_, route) => {
      // The steps below are the metadata read's: another lenient route needs steps of its own.
      expect(routeKey(route)).toBe('GET /v1/secrets/{id}');
      const leaving = await signIn(runtime, newEmail('gone-lenient'));
      const owned = await api.post('/v1/secrets', textSecretBody(), leaving.auth);
      expect((await api.get(`/v1/secrets/${owned.body.id}`, leaving.auth)).body.owned).toBe(true);
      expect((await api.post('/v1/auth/logout', undefined, leaving.auth)).status).toBe(200);
      const reply = await api.get(`/v1/secrets/${owned.body.id}`, leaving.auth);
      expect(reply.status).toBe(200);
      expect(reply.body).not.toHaveProperty('owned');
    },
  );
});
