import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { permissions, refusalFor, type WorkspaceAction } from '../../shared/domain/workspaces/permissions.ts';
import type { Role } from '../../shared/domain/workspaces/model.ts';
import { workspacesRoutes, routeKey } from '../../shared/routes.ts';
import { createKey, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime, type Reply } from '../support/runtime.ts';
import { joinAs, teamWorkspace } from '../support/workspaces.ts';

/**
 * The role matrix, generated from THE permission table (shared/domain/workspaces/permissions.ts,
 * printed in docs/adr/0037-the-workspace-permission-table.md): every route of a workspace called
 * by its owner, an admin, a member, a non-member and an API key of the owner. A role the table
 * lists gets the route's success; another role its refusal (403, or 404 for the audit trail); a
 * non-member 404; an API key 403. Each call gets a fresh workspace, since some of them hand it over
 * or remove someone.
 */

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

interface Scene {
  id: string;
  /** Someone to act on: a member none of the callers is. */
  target: SignedIn;
  /** A hostname the workspace's owner claimed and verified. */
  domainId: string;
  hostname: string;
}

let hostnames = 0;
const freshHostname = () => `roles-${process.pid}-${++hostnames}.example`;

/** Each route of a workspace, as a call, with the permission that governs it. */
const calls: Record<
  string,
  { action: WorkspaceAction; success: number; call: (scene: Scene, auth: Record<string, string>) => Promise<Reply> }
> = {
  'GET /v1/workspaces/{id}/members': {
    action: 'listMembers',
    success: 200,
    call: (scene, auth) => api.get(`/v1/workspaces/${scene.id}/members`, auth),
  },
  'POST /v1/workspaces/{id}/invitations': {
    action: 'invite',
    success: 201,
    call: (scene, auth) => api.post(`/v1/workspaces/${scene.id}/invitations`, { email: newEmail('matrix'), role: 'member' }, auth),
  },
  'DELETE /v1/workspaces/{id}/members/{userId}': {
    action: 'removeMember',
    success: 200,
    call: (scene, auth) => api.delete(`/v1/workspaces/${scene.id}/members/${scene.target.user.id}`, auth),
  },
  'PATCH /v1/workspaces/{id}/members/{userId}': {
    action: 'changeRole',
    success: 200,
    call: (scene, auth) =>
      api.call('PATCH', `/v1/workspaces/${scene.id}/members/${scene.target.user.id}`, { json: { role: 'admin' }, headers: auth }),
  },
  'POST /v1/workspaces/{id}/transfer': {
    action: 'transfer',
    success: 200,
    call: (scene, auth) => api.post(`/v1/workspaces/${scene.id}/transfer`, { user_id: scene.target.user.id }, auth),
  },
  'PUT /v1/workspaces/{id}/policy': {
    action: 'setPolicy',
    success: 200,
    call: (scene, auth) => api.call('PUT', `/v1/workspaces/${scene.id}/policy`, { json: { max_views: 3 }, headers: auth }),
  },
  'PUT /v1/workspaces/{id}/branding': {
    action: 'setBranding',
    success: 200,
    call: (scene, auth) => api.call('PUT', `/v1/workspaces/${scene.id}/branding`, { json: { display_name: 'Matrix' }, headers: auth }),
  },
  'GET /v1/workspaces/{id}/audit': {
    action: 'readAudit',
    success: 200,
    call: (scene, auth) => api.get(`/v1/workspaces/${scene.id}/audit`, auth),
  },
  'GET /v1/workspaces/{id}/audit/export': {
    action: 'readAudit',
    success: 200,
    call: (scene, auth) => api.get(`/v1/workspaces/${scene.id}/audit/export?format=csv`, auth),
  },
  'GET /v1/domains': { action: 'listDomains', success: 200, call: (scene, auth) => api.get(`/v1/domains?workspace_id=${scene.id}`, auth) },
  'POST /v1/domains': {
    action: 'manageDomains',
    success: 201,
    call: (scene, auth) => api.post('/v1/domains', { workspace_id: scene.id, hostname: freshHostname() }, auth),
  },
  'POST /v1/domains/{id}/verify': {
    action: 'manageDomains',
    success: 200,
    call: (scene, auth) => api.post(`/v1/domains/${scene.domainId}/verify`, undefined, auth),
  },
  'DELETE /v1/domains/{id}': {
    action: 'manageDomains',
    success: 200,
    call: (scene, auth) => api.delete(`/v1/domains/${scene.domainId}`, auth),
  },
  'PUT /v1/workspaces/{id}/sso': {
    action: 'setSso',
    success: 200,
    call: (scene, auth) =>
      api.call('PUT', `/v1/workspaces/${scene.id}/sso`, {
        json: { issuer: 'https://matrix.okta.example', email_domain: scene.hostname },
        headers: auth,
      }),
  },
};

/** A hostname the workspace's owner claimed and verified: the claim. */
async function verifiedHostname(workspace: { id: string; owner: SignedIn }, hostname: string): Promise<{ id: string }> {
  const claimed = (await api.post('/v1/domains', { workspace_id: workspace.id, hostname }, workspace.owner.auth)).body;
  runtime.dns.setRecords(claimed.verification.name, [{ type: 'TXT', data: claimed.verification.value }]);
  await api.post(`/v1/domains/${claimed.id}/verify`, undefined, workspace.owner.auth);
  return claimed;
}

type Caller = Role | 'non-member' | 'api key';
const callers: Caller[] = ['owner', 'admin', 'member', 'non-member', 'api key'];

function expected(action: WorkspaceAction, success: number, caller: Caller): number {
  if (caller === 'api key') return 403;
  if (caller === 'non-member') return 404;
  return (permissions[action] as readonly Role[]).includes(caller) ? success : refusalFor(action);
}

describe('the table', () => {
  it('has a call for every route of a workspace and of its domains (the three without one: list and create, and accepting)', () => {
    const ofAWorkspace = workspacesRoutes
      .filter((route) => route.path.includes('{id}') || route.path.startsWith('/v1/domains'))
      .map(routeKey);
    expect(Object.keys(calls).sort()).toEqual([...ofAWorkspace].sort());
  });
});

describe.each(Object.entries(calls))('%s', (_, { action, success, call }) => {
  it.each(callers)(`as %s`, async (caller) => {
    const workspace = await teamWorkspace(runtime, 10);
    // The scene's parts at once (they touch different items, seats to spare): the matrix is ~70 of them.
    const hostname = freshHostname();
    const [admin, member, target, claimed] = await Promise.all([
      joinAs(runtime, workspace, workspace.owner, 'admin'),
      joinAs(runtime, workspace, workspace.owner, 'member'),
      joinAs(runtime, workspace, workspace.owner, 'member'),
      verifiedHostname(workspace, hostname),
    ]);
    const auth = {
      owner: () => workspace.owner.auth,
      admin: () => admin.auth,
      member: () => member.auth,
      'non-member': async () => (await signIn(runtime, newEmail('outsider'))).auth,
      'api key': async () => (await createKey(runtime, workspace.owner, ['secrets:write', 'secrets:read', 'receipts:read'])).auth,
    }[caller];
    const reply = await call({ id: workspace.id, target, domainId: claimed.id, hostname }, await auth());
    const want = expected(action, success, caller);
    expect(reply.status, `${caller}: ${JSON.stringify(reply.body)}`).toBe(want);
    // A refusal changed nothing: the target is still a plain member, and the owner still owns it.
    if (want !== success) {
      const roll = (await api.get(`/v1/workspaces/${workspace.id}/members`, workspace.owner.auth)).body.items as {
        user_id: string;
        role: string;
      }[];
      expect(roll.find((entry) => entry.user_id === target.user.id)?.role).toBe('member');
      expect(roll.find((entry) => entry.user_id === workspace.owner.user.id)?.role).toBe('owner');
    }
  });
});
