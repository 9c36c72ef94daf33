import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { oidcDiscovery } from '../../shared/adapters/oidcDiscovery.ts';
import { sha256Base64Url } from '../../shared/ids.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { createKey, latestCode, mailsTo, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { startDiscoveryServer } from '../support/discoveryServer.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { joinAs, send, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// A workspace's SSO directory and its discovery (issue 17, interface §4.7, §5.6): the identity
// provider and the email domain it speaks for, a domain the workspace has verified; the
// directory key (shown once, stored as a hash, rotated at once); discovery for anyone. Issue 29:
// the issuer's discovery document read at save (the real reading, against identity providers
// on loopback), the OIDC client (its secret sealed, never answered) and enforcement.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let db: ReturnType<typeof createDocumentClient>;
let idp: Awaited<ReturnType<typeof startDiscoveryServer>>;
/** The check's deadline here: 3 s in the product (discoveryLimits), shorter so the slow provider's test is quick. */
const deadlineMs = 1_000;
beforeAll(async () => {
  idp = await startDiscoveryServer();
  runtime = await startTestRuntime({ issuerDiscovery: oidcDiscovery({ local: true, timeoutMs: deadlineMs }) });
  api = apiClient(runtime);
  db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
});
afterAll(async () => {
  db?.destroy();
  await runtime?.stop();
  await idp?.stop();
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
    const first = await setSso(workspace.owner, workspace.id, { issuer: idp.issuer('acme'), email_domain: domain.toUpperCase() });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      issuer: idp.issuer('acme'),
      email_domain: domain,
      client_id: null,
      client_secret_set: false,
      enforce: false,
      sso_jit: false,
      scim: { base_url: `${runtime.config.WEB_ORIGIN}/scim/v2`, directory_key: expect.stringMatching(/^hlscim_[A-Za-z0-9_-]{43}$/) },
    });
    const key = first.body.scim.directory_key as string;
    // Stored as its SHA-256 only: the lookup item is the hash's, and neither item holds the key.
    expect(await item(`SCIM_KEY#${sha256Base64Url(key)}`, 'SCIM_KEY')).toMatchObject({ workspace_id: workspace.id });
    const directory = await item(`WORKSPACE#${workspace.id}`, 'SSO');
    expect(JSON.stringify(directory)).not.toContain(key.slice(7));

    // Changed without rotating: the key stays, and is not shown again.
    const changed = await setSso(workspace.owner, workspace.id, {
      issuer: idp.issuer('tenant-id'),
      email_domain: domain,
    });
    expect(changed.body).toEqual({
      issuer: idp.issuer('tenant-id'),
      email_domain: domain,
      client_id: null,
      client_secret_set: false,
      enforce: false,
      sso_jit: false,
      scim: { base_url: `${runtime.config.WEB_ORIGIN}/scim/v2` },
    });
    expect(await item(`SCIM_KEY#${sha256Base64Url(key)}`, 'SCIM_KEY')).toBeDefined();

    const rotated = await setSso(workspace.owner, workspace.id, {
      issuer: idp.issuer('acme'),
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
    expect((await setSso(first.owner, first.id, { issuer: idp.issuer('first'), email_domain: `mail.${parent}` })).status).toBe(200);
    // The second verified that very name (a hostname under the first's domain): both proved it, the first spoke first.
    await verified(second, `mail.${parent}`);
    const claimed = await setSso(second.owner, second.id, { issuer: idp.issuer('second'), email_domain: `mail.${parent}` });
    expectProblem(claimed, 409, 'conflict');
    expect(claimed.body.reason).toBe('domain_claimed');
    expect((await discover(`ana@mail.${parent}`)).body).toMatchObject({ sso: true, issuer: idp.issuer('first') });
  });

  it('answers 400 for a bad body, 403 to a member, without Team and to an API key, 404 to a non-member, 401 without a session', async () => {
    const workspace = await teamWorkspace(runtime);
    const domain = freshDomain();
    await verified(workspace, domain);
    for (const body of [
      {},
      { issuer: 'http://acme.okta.com', email_domain: domain },
      { issuer: idp.issuer('acme'), email_domain: domain, client_secret: 'no-client-id' },
      { issuer: idp.issuer('acme'), email_domain: domain, enforce: true },
      { issuer: idp.issuer('acme'), email_domain: domain, client_id: 'has space ', client_secret: 's' },
      { issuer: idp.issuer('acme'), email_domain: domain, client_id: 'c', client_secret: 'bad\u0000char' },
      { issuer: idp.issuer('acme'), email_domain: domain, client_id: 'c', client_secret: 's', enforce: 'yes' },
      { issuer: idp.issuer('acme'), email_domain: domain, client_id: '', client_secret: 's' },
      { issuer: 'https://user:pw@acme.okta.com', email_domain: domain },
      { issuer: 'https://acme.okta.com#x', email_domain: domain },
      { issuer: 'not a url', email_domain: domain },
      { issuer: idp.issuer('acme'), email_domain: '*.acme.example' },
      { issuer: idp.issuer('acme'), email_domain: domain, rotate_directory_key: 'yes' },
      { issuer: idp.issuer('acme'), email_domain: domain, extra: 1 },
    ]) {
      expectProblem(await setSso(workspace.owner, workspace.id, body), 400, 'invalid_request');
    }
    const good = { issuer: idp.issuer('acme'), email_domain: domain };
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

describe('PUT /v1/workspaces/{id}/sso: the OIDC client and enforcement (issue 29)', () => {
  const verify = (email: string, code = '12345678') => api.post('/v1/auth/otp/verify', { email, code });

  it('seals the client secret, never answers it, keeps it for the same client_id; enforce refuses codes (403 sso_required) until saved without it', async () => {
    const workspace = await teamWorkspace(runtime);
    const domain = freshDomain();
    await verified(workspace, domain);
    const secret = `sso-secret-${process.pid}-${Date.now()}-canary`;
    const answers: unknown[] = [];
    const put = async (body: Record<string, unknown>) => {
      const reply = await setSso(workspace.owner, workspace.id, body);
      answers.push(reply.body);
      return reply;
    };
    const settings = { issuer: idp.issuer('acme'), email_domain: domain };
    const enforced = await put({ ...settings, client_id: '0oa1acme', client_secret: secret, enforce: true });
    expect(enforced.status).toBe(200);
    expect(enforced.body).toMatchObject({ client_id: '0oa1acme', client_secret_set: true, enforce: true });
    const directory = (await item(`WORKSPACE#${workspace.id}`, 'SSO'))!;
    expect(directory).toMatchObject({ client_id: '0oa1acme', sealed_client_secret: expect.stringMatching(/^local:/), enforce: true });
    expect(JSON.stringify(directory)).not.toContain(secret);
    expect(await item(`SSO_DOMAIN#${domain}`, 'SSO')).toMatchObject({ workspace_id: workspace.id, enforced: true });
    // The domain's addresses: no code mailed (a link to the provider instead), and a code refused as sign-in by code is.
    const ana = `ana@${domain}`;
    expect((await api.post('/v1/auth/otp/start', { email: ana })).status).toBe(200);
    expect(mailsTo(runtime, ana).map((mail) => mail.subject)).toEqual(['Sign in to Hushlink through your organization']);
    expect(latestCode(runtime, ana)).toBeNull();
    const refused = await verify(ana);
    expectProblem(refused, 403, 'forbidden');
    expect(refused.body.reason).toBe('sso_required');

    // Saved without enforce, the same client without its secret (kept): codes work again.
    const relaxed = await put({ ...settings, client_id: '0oa1acme' });
    expect(relaxed.body).toMatchObject({ client_id: '0oa1acme', client_secret_set: true, enforce: false });
    expect((await item(`WORKSPACE#${workspace.id}`, 'SSO'))!.sealed_client_secret).toBe(directory.sealed_client_secret);
    expect(await item(`SSO_DOMAIN#${domain}`, 'SSO')).not.toHaveProperty('enforced');
    expect((await api.post('/v1/auth/otp/start', { email: ana })).status).toBe(200);
    expect((await verify(ana, latestCode(runtime, ana)!)).status).toBe(200);

    // Another client id needs its own secret; without a client id there is no client.
    const renamed = await put({ ...settings, client_id: '0oa2other' });
    expectProblem(renamed, 400, 'invalid_request');
    expect(JSON.stringify(renamed.body.errors)).toContain('client_secret');
    const dropped = await put(settings);
    expect(dropped.body).toMatchObject({ client_id: null, client_secret_set: false, enforce: false });
    expect(await item(`WORKSPACE#${workspace.id}`, 'SSO')).not.toHaveProperty('sealed_client_secret');

    // Never answered, never in the trail (which says what happened to it).
    const audit = (await api.get(`/v1/workspaces/${workspace.id}/audit`, workspace.owner.auth)).body.items as Array<{
      action: string;
      details: Record<string, unknown>;
    }>;
    expect(audit.filter((row) => row.action === 'sso.updated').map((row) => row.details.client_secret)).toEqual(['none', 'kept', 'set']);
    expect(JSON.stringify([answers, audit])).not.toContain(secret);
  });

  it('stops enforcing a domain the directory moves away from', async () => {
    const workspace = await teamWorkspace(runtime);
    const parent = freshDomain();
    await verified(workspace, parent);
    const enforced = { issuer: idp.issuer('acme'), client_id: '0oa1acme', client_secret: 'moving-secret', enforce: true };
    expect((await setSso(workspace.owner, workspace.id, { ...enforced, email_domain: parent })).status).toBe(200);
    expect((await verify(`ana@${parent}`)).body.reason).toBe('sso_required');
    expect((await setSso(workspace.owner, workspace.id, { ...enforced, email_domain: `eu.${parent}` })).status).toBe(200);
    expect(await item(`SSO_DOMAIN#${parent}`, 'SSO')).toBeUndefined();
    // A wrong code at the old domain is a wrong code again; the new one refuses codes.
    expectProblem(await verify(`ana@${parent}`), 401, 'unauthorized');
    expect((await verify(`ana@eu.${parent}`)).body.reason).toBe('sso_required');
  });
});

describe('PUT /v1/workspaces/{id}/sso: the issuer’s discovery document (issue 29)', () => {
  it('answers 409 issuer_unreachable or issuer_mismatch, saying what was found, and changes nothing', async () => {
    const workspace = await teamWorkspace(runtime);
    const domain = freshDomain();
    await verified(workspace, domain);
    const put = (issuer: string) => setSso(workspace.owner, workspace.id, { issuer, email_domain: domain });
    const broken = await put(idp.issuer('broken'));
    expectProblem(broken, 409, 'conflict');
    expect(broken.body).toMatchObject({ reason: 'issuer_unreachable', found: 'http_500', detail: expect.stringContaining('HTTP 500') });
    expect(await item(`WORKSPACE#${workspace.id}`, 'SSO')).toBeUndefined();
    expect((await put(idp.issuer('acme'))).status).toBe(200);
    const cases: Array<[string, string, string | null]> = [
      [idp.issuer('elsewhere'), 'issuer_mismatch', 'https://idp.elsewhere.example/elsewhere'],
      [idp.issuer('nameless'), 'issuer_mismatch', null],
      [`${idp.issuer('acme')}/`, 'issuer_mismatch', idp.issuer('acme')],
      [idp.issuer('html'), 'issuer_unreachable', 'not_json'],
      [idp.issuer('huge'), 'issuer_unreachable', 'too_large'],
      [idp.issuer('away'), 'issuer_unreachable', 'redirect'],
      [`${idp.base}/missing/deeper`, 'issuer_unreachable', 'http_404'],
      // Only public addresses, as for webhooks (loopback in a local run): never the metadata service or the VPC.
      ['https://169.254.169.254/latest', 'issuer_unreachable', 'forbidden_address'],
      ['https://10.0.0.7/idp', 'issuer_unreachable', 'forbidden_address'],
    ];
    for (const [issuer, reason, found] of cases) {
      const refused = await put(issuer);
      expectProblem(refused, 409, 'conflict');
      expect(refused.body, issuer).toMatchObject({ reason, found });
    }
    // The redirect to another origin was not followed.
    expect(idp.requests.filter((path) => path.startsWith('/away/'))).toHaveLength(1);
    const started = performance.now();
    const slow = await put(idp.issuer('slow'));
    expect(slow.body).toMatchObject({ reason: 'issuer_unreachable', found: 'timeout' });
    expect(performance.now() - started).toBeLessThan(deadlineMs + 1_500);
    expect((await item(`WORKSPACE#${workspace.id}`, 'SSO'))!.issuer).toBe(idp.issuer('acme'));
  });

  it('follows a redirect within the issuer’s own origin', async () => {
    const workspace = await teamWorkspace(runtime);
    const domain = freshDomain();
    await verified(workspace, domain);
    const moved = await setSso(workspace.owner, workspace.id, { issuer: idp.issuer('moved'), email_domain: domain });
    expect(moved.status).toBe(200);
    expect(idp.requests).toContain('/documents/moved');
  });
});

describe('changes racing', () => {
  it('makes one key of two first saves at once, and of two rotations at once leaves only the key the directory names', async () => {
    const workspace = await teamWorkspace(runtime);
    const domain = freshDomain();
    await verified(workspace, domain);
    const body = { issuer: idp.issuer('acme'), email_domain: domain };
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
    await setSso(workspace.owner, workspace.id, { issuer: idp.issuer('acme'), email_domain: domain });
    const name = (await api.get('/v1/workspaces', workspace.owner.auth)).body.items.find(
      (entry: { id: string }) => entry.id === workspace.id,
    ).name;
    const known = await discover(`Someone.Else@${domain.toUpperCase()}`);
    expect(known.status).toBe(200);
    expect(known.body).toEqual({
      sso: true,
      workspace: { id: workspace.id, name },
      issuer: idp.issuer('acme'),
      sign_in: false,
      enforced: false,
    });
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
