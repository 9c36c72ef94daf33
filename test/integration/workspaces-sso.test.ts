import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { sha256Base64Url } from '../../shared/ids.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { createKey, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { joinAs, send, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// A workspace's SSO directory and its discovery (issue 17, interface §4.7, §5.6): the identity
// provider and the email domain it speaks for, a domain the workspace has verified; the
// directory key (shown once, stored as a hash, rotated at once); discovery for anyone.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let db: ReturnType<typeof createDocumentClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
});
afterAll(async () => {
  db?.destroy();
  await runtime?.stop();
});

let names = 0;
const freshDomain = () => `acme-${process.pid}-${++names}.example`;
const setSso = (who: Pick<SignedIn, 'auth'>, workspaceId: string, body: Record<string, unknown>) =>
  send(runtime, 'PUT', `/v1/workspaces/${workspaceId}/sso`, body, who.auth);
const discover = (email: string) => api.get(`/v1/workspaces/sso/discover?email=${encodeURIComponent(email)}`);
const item = async (pk: string, sk: string) =>
  (await db.send(new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: { pk, sk }, ConsistentRead: true }))).Item;

/** Claims `hostname` for the workspace and verifies it against the local DNS server. */
async function verified(workspace: TeamWorkspace, hostname: string): Promise<string> {
  const claimed = await api.post('/v1/domains', { workspace_id: workspace.id, hostname }, workspace.owner.auth);
  expect(claimed.status).toBe(201);
  runtime.dns.setRecords(claimed.body.verification.name, [{ type: 'TXT', data: claimed.body.verification.value }]);
  expect((await api.post(`/v1/domains/${claimed.body.id}/verify`, undefined, workspace.owner.auth)).body.state).toBe('verified');
  return claimed.body.id as string;
}

describe('PUT /v1/workspaces/{id}/sso', () => {
  it('names the directory for a verified domain; its key is shown once, kept as a hash, and rotating stops the old one at once', async () => {
    const workspace = await teamWorkspace(runtime);
    const domain = freshDomain();
    await verified(workspace, domain);
    const first = await setSso(workspace.owner, workspace.id, { issuer: 'https://acme.okta.com', email_domain: domain.toUpperCase() });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      issuer: 'https://acme.okta.com',
      email_domain: domain,
      scim: { base_url: `${runtime.config.WEB_ORIGIN}/scim/v2`, directory_key: expect.stringMatching(/^hlscim_[A-Za-z0-9_-]{43}$/) },
    });
    const key = first.body.scim.directory_key as string;
    // Stored as its SHA-256 only: the lookup item is the hash's, and neither item holds the key.
    expect(await item(`SCIM_KEY#${sha256Base64Url(key)}`, 'SCIM_KEY')).toMatchObject({ workspace_id: workspace.id });
    const directory = await item(`WORKSPACE#${workspace.id}`, 'SSO');
    expect(JSON.stringify(directory)).not.toContain(key.slice(7));

    // Changed without rotating: the key stays, and is not shown again.
    const changed = await setSso(workspace.owner, workspace.id, {
      issuer: 'https://login.microsoftonline.com/tenant-id/v2.0',
      email_domain: domain,
    });
    expect(changed.body).toEqual({
      issuer: 'https://login.microsoftonline.com/tenant-id/v2.0',
      email_domain: domain,
      scim: { base_url: `${runtime.config.WEB_ORIGIN}/scim/v2` },
    });
    expect(await item(`SCIM_KEY#${sha256Base64Url(key)}`, 'SCIM_KEY')).toBeDefined();

    const rotated = await setSso(workspace.owner, workspace.id, {
      issuer: 'https://acme.okta.com',
      email_domain: domain,
      rotate_directory_key: true,
    });
    const next = rotated.body.scim.directory_key as string;
    expect(next).toMatch(/^hlscim_/);
    expect(next).not.toBe(key);
    expect(await item(`SCIM_KEY#${sha256Base64Url(key)}`, 'SCIM_KEY')).toBeUndefined();
    expect(await item(`SCIM_KEY#${sha256Base64Url(next)}`, 'SCIM_KEY')).toMatchObject({ workspace_id: workspace.id });

    const audit = (await api.get(`/v1/workspaces/${workspace.id}/audit`, workspace.owner.auth)).body.items as Array<{
      action: string;
      details: Record<string, unknown>;
    }>;
    expect(audit.filter((row) => row.action === 'sso.updated').map((row) => row.details.directory_key)).toEqual([
      'rotated',
      'kept',
      'created',
    ]);
    expect(JSON.stringify(audit)).not.toContain(next.slice(7));
  });

  it('answers 409 domain_claimed when another workspace’s directory speaks for the domain', async () => {
    const [first, second] = await Promise.all([teamWorkspace(runtime), teamWorkspace(runtime)]);
    const parent = freshDomain();
    await verified(first, parent);
    expect((await setSso(first.owner, first.id, { issuer: 'https://first.okta.com', email_domain: `mail.${parent}` })).status).toBe(200);
    // The second verified that very name (a hostname under the first's domain): both proved it, the first spoke first.
    await verified(second, `mail.${parent}`);
    const claimed = await setSso(second.owner, second.id, { issuer: 'https://second.okta.com', email_domain: `mail.${parent}` });
    expectProblem(claimed, 409, 'conflict');
    expect(claimed.body.reason).toBe('domain_claimed');
    expect((await discover(`ana@mail.${parent}`)).body).toMatchObject({ sso: true, issuer: 'https://first.okta.com' });
  });

  it('answers 400 for a bad body, 403 to a member, without Team and to an API key, 404 to a non-member, 401 without a session', async () => {
    const workspace = await teamWorkspace(runtime);
    const domain = freshDomain();
    await verified(workspace, domain);
    for (const body of [
      {},
      { issuer: 'http://acme.okta.com', email_domain: domain },
      { issuer: 'https://user:pw@acme.okta.com', email_domain: domain },
      { issuer: 'https://acme.okta.com#x', email_domain: domain },
      { issuer: 'not a url', email_domain: domain },
      { issuer: 'https://acme.okta.com', email_domain: '*.acme.example' },
      { issuer: 'https://acme.okta.com', email_domain: domain, rotate_directory_key: 'yes' },
      { issuer: 'https://acme.okta.com', email_domain: domain, extra: 1 },
    ]) {
      expectProblem(await setSso(workspace.owner, workspace.id, body), 400, 'invalid_request');
    }
    const good = { issuer: 'https://acme.okta.com', email_domain: domain };
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    expectProblem(await setSso(member, workspace.id, good), 403, 'forbidden');
    const admin = await joinAs(runtime, workspace, workspace.owner, 'admin');
    expect((await setSso(admin, workspace.id, good)).status).toBe(200);
    const free = await teamWorkspace(runtime, 1, 'free');
    const unpaid = await setSso(free.owner, free.id, good);
    expectProblem(unpaid, 403, 'forbidden');
    expect(unpaid.body.reason).toBe('plan');
    const key = await createKey(runtime, workspace.owner, ['secrets:write', 'secrets:read', 'receipts:read']);
    expectProblem(await setSso(key, workspace.id, good), 403, 'forbidden');
    expectProblem(await setSso(await signIn(runtime, newEmail('outsider')), workspace.id, good), 404, 'not_found');
    expectProblem(await send(runtime, 'PUT', `/v1/workspaces/${workspace.id}/sso`, good, {}), 401, 'unauthorized');
  });
});

describe('changes racing', () => {
  it('makes one key of two first saves at once, and of two rotations at once leaves only the key the directory names', async () => {
    const workspace = await teamWorkspace(runtime);
    const domain = freshDomain();
    await verified(workspace, domain);
    const body = { issuer: 'https://acme.okta.com', email_domain: domain };
    const firsts = await Promise.all([setSso(workspace.owner, workspace.id, body), setSso(workspace.owner, workspace.id, body)]);
    expect(firsts.map((reply) => reply.status)).toEqual([200, 200]);
    const shown = firsts.map((reply) => reply.body.scim.directory_key as string | undefined).filter((key) => key !== undefined);
    expect(shown).toHaveLength(1);
    const rotations = await Promise.all([0, 1].map(() => setSso(workspace.owner, workspace.id, { ...body, rotate_directory_key: true })));
    const keys = rotations.map((reply) => reply.body.scim.directory_key as string);
    expect(keys.every((key) => key.startsWith('hlscim_'))).toBe(true);
    const named = (await item(`WORKSPACE#${workspace.id}`, 'SSO'))!.key_hash;
    const live = [shown[0]!, ...keys].filter((key) => sha256Base64Url(key) === named);
    expect(live).toHaveLength(1);
    for (const key of [shown[0]!, ...keys]) {
      expect(
        await item(`SCIM_KEY#${sha256Base64Url(key)}`, 'SCIM_KEY'),
        key === live[0] ? 'the directory’s key' : 'a replaced key',
      ).toEqual(key === live[0] ? expect.objectContaining({ workspace_id: workspace.id }) : undefined);
    }
  });
});

describe('GET /v1/workspaces/sso/discover', () => {
  it('tells an address of a directory’s domain its workspace and identity provider, and nothing about any other; stops when the domain is deleted', async () => {
    const workspace = await teamWorkspace(runtime);
    const domain = freshDomain();
    const domainId = await verified(workspace, domain);
    await setSso(workspace.owner, workspace.id, { issuer: 'https://acme.okta.com', email_domain: domain });
    const name = (await api.get('/v1/workspaces', workspace.owner.auth)).body.items.find(
      (entry: { id: string }) => entry.id === workspace.id,
    ).name;
    const known = await discover(`Someone.Else@${domain.toUpperCase()}`);
    expect(known.status).toBe(200);
    expect(known.body).toEqual({ sso: true, workspace: { id: workspace.id, name }, issuer: 'https://acme.okta.com' });
    // Anyone at the domain, whether or not they have an account; nothing for any other domain.
    expect((await discover(`never-signed-up@${domain}`)).body).toEqual(known.body);
    expect((await discover('ana@unknown-domain.example')).body).toEqual({ sso: false });
    expect((await discover(`ana@sub.${domain}`)).body).toEqual({ sso: false });
    for (const email of ['not-an-address', '', 'a@', '@b.example'])
      expectProblem(await api.get(`/v1/workspaces/sso/discover?email=${encodeURIComponent(email)}`), 400, 'invalid_request');
    expectProblem(await api.get('/v1/workspaces/sso/discover'), 400, 'invalid_request');
    // The domain's claim deleted: the directory no longer speaks for it.
    expect((await api.delete(`/v1/domains/${domainId}`, workspace.owner.auth)).status).toBe(200);
    expect((await discover(`ana@${domain}`)).body).toEqual({ sso: false });
    // Sign-in stays the emailed code for the domain's addresses.
    expect((await api.post('/v1/auth/otp/start', { email: `ana@${domain}` })).status).toBe(200);
  });
});
