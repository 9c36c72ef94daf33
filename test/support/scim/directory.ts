import type { Runtime } from '../../../local/runtime.ts';
import { apiClient, type Reply } from '../runtime.ts';
import { send, teamWorkspace, type TeamWorkspace } from '../workspaces.ts';

type DirectoryRuntime = Pick<Runtime, 'url' | 'outbox' | 'dynamo' | 'config' | 'dns'>;

/** A Team workspace with its SSO directory set up over HTTP, as an admin does before connecting Okta or Entra. */
export interface DirectoryWorkspace extends TeamWorkspace {
  /** The email domain its directory speaks for (verified against the local DNS server). */
  domain: string;
  /** The directory key, as the SSO settings showed it once. */
  key: string;
  /** The SCIM base URL, as the SSO settings show it. */
  base: string;
}

let domains = 0;

/**
 * A Team workspace of `seats` seats, a domain claimed and verified through the local DNS server
 * (a TXT record published there), and its SSO directory saved: its directory key is what a SCIM
 * client is given.
 */
export async function directoryWorkspace(runtime: DirectoryRuntime, seats = 10): Promise<DirectoryWorkspace> {
  const workspace = await teamWorkspace(runtime, seats);
  const api = apiClient(runtime);
  const domain = `scim-${process.pid}-${++domains}-${Date.now().toString(36)}.example`;
  const claimed = await api.post('/v1/domains', { workspace_id: workspace.id, hostname: domain }, workspace.owner.auth);
  if (claimed.status !== 201) throw new Error(`domain claim answered ${claimed.status}`);
  runtime.dns.setRecords(claimed.body.verification.name, [{ type: 'TXT', data: claimed.body.verification.value }]);
  const verified = await api.post(`/v1/domains/${claimed.body.id}/verify`, undefined, workspace.owner.auth);
  if (verified.body.state !== 'verified') throw new Error(`domain verification answered ${JSON.stringify(verified.body)}`);
  const sso = await send(
    runtime,
    'PUT',
    `/v1/workspaces/${workspace.id}/sso`,
    { issuer: 'https://acme.okta.com', email_domain: domain },
    workspace.owner.auth,
  );
  if (sso.status !== 200) throw new Error(`PUT sso answered ${sso.status}: ${JSON.stringify(sso.body)}`);
  return { ...workspace, domain, key: sso.body.scim.directory_key, base: sso.body.scim.base_url };
}

/** A workspace's seats and members, as its owner's listing shows them. */
export async function rosterOf(
  runtime: Pick<Runtime, 'url'>,
  workspace: Pick<TeamWorkspace, 'id' | 'owner'>,
): Promise<{ seats: number; members: number }> {
  const listed = await apiClient(runtime).get('/v1/workspaces', workspace.owner.auth);
  if (listed.status !== 200) throw new Error(`GET /v1/workspaces answered ${listed.status}`);
  const item = (listed.body.items as Array<{ id: string; seats: number; members: number }>).find((entry) => entry.id === workspace.id)!;
  return { seats: item.seats, members: item.members };
}

export interface MemberItem {
  user_id: string;
  email: string;
  role: string;
  source: string;
}

/** A workspace's member roll, as its owner reads it. */
export async function membersOf(runtime: Pick<Runtime, 'url'>, workspace: Pick<TeamWorkspace, 'id' | 'owner'>): Promise<MemberItem[]> {
  const roll = await apiClient(runtime).get(`/v1/workspaces/${workspace.id}/members`, workspace.owner.auth);
  if (roll.status !== 200) throw new Error(`GET members answered ${roll.status}`);
  return roll.body.items as MemberItem[];
}

/** A SCIM client of one directory: requests to `/scim/v2…` with its key, bodies as application/scim+json, as Entra sends them. */
export function scimClient(runtime: Pick<Runtime, 'url'>, key: string | null) {
  const api = apiClient(runtime);
  const auth: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
  const call = <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> =>
    api.call<T>(method, `/scim/v2${path}`, {
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }), ...headers },
    });
  return {
    call,
    get: <T = any>(path: string) => call<T>('GET', path),
    post: <T = any>(path: string, body: unknown) => call<T>('POST', path, body),
    put: <T = any>(path: string, body: unknown) => call<T>('PUT', path, body),
    patch: <T = any>(path: string, body: unknown) => call<T>('PATCH', path, body),
    delete: <T = any>(path: string) => call<T>('DELETE', path),
  };
}

/** A User body as Okta's provisioning sends one for `email` (userName the address, a random password). */
export function oktaUser(email: string, overrides: Record<string, unknown> = {}) {
  const [local] = email.split('@');
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: email,
    name: { givenName: local, familyName: 'Tester' },
    emails: [{ primary: true, value: email, type: 'work' }],
    displayName: `${local} Tester`,
    locale: 'en-US',
    externalId: `00u${Math.random().toString(36).slice(2, 12)}`,
    groups: [],
    password: 'Okta-random-password-1!',
    active: true,
    ...overrides,
  };
}
