import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { signInAt } from '../../local/oidc/provider.ts';
import { bearer, mailsTo, signIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { ssoDirectory } from '../support/sso.ts';
import { setWorkspace, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

/**
 * Signing in through a workspace's identity provider (issue 29) on the local runtime, against
 * the real OpenID Provider `npm start` runs (oidc-provider, local/oidc/): the start's redirect
 * (PKCE S256, state, nonce), the provider's login page, the callback (the code exchanged, the ID
 * token validated), the one-time code in the fragment and its exchange for a session. Then each
 * refusal the service makes itself: state forged, replayed or expired; a code replayed; the
 * provider's refusal; an address outside the directory's domain or unverified; an open
 * `return_to`; a provider that is down; a native client's code without its verifier. The ID
 * token's own checks against a provider that misbehaves: test/unit/oidc-relying-party.test.ts.
 */

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let workspace: TeamWorkspace;
let domain: string;
/** The directory key the SSO settings made: SCIM provisions with it. */
let directoryKey: string;
const clientId = 'hushlink-local';
const clientSecret = randomBytes(24).toString('base64url');

/** A request that does not follow redirects: the 302s are what is under test. */
const get = (path: string) => fetch(new URL(path, runtime.url), { redirect: 'manual' });
const start = (email: string, extra: Record<string, string> = {}) =>
  get(`/v1/auth/sso/start?${new URLSearchParams({ email, ...extra }).toString()}`);
const exchange = (body: Record<string, unknown>) => api.post('/v1/auth/sso/exchange', body);

/** Starts a sign-in for `email` and signs in at the provider: the provider's redirect back to the callback. */
async function atProvider(email: string, extra: Record<string, string> = {}, loginAs = email): Promise<URL> {
  const started = await start(email, extra);
  expect(started.status, await started.clone().text()).toBe(302);
  return signInAt(runtime.oidc, started.headers.get('location')!, loginAs);
}

/** The callback's answer to the provider's redirect. */
const callback = (redirect: URL) => get(`${redirect.pathname}${redirect.search}`);
const fragmentOf = (response: Response) => new URLSearchParams(new URL(response.headers.get('location')!).hash.slice(1));

beforeAll(async () => {
  runtime = await startTestRuntime({ identityProvider: true });
  api = apiClient(runtime);
  workspace = await teamWorkspace(runtime);
  domain = `sso-${process.pid}.example`;
  const saved = await ssoDirectory(runtime, workspace, { domain, clientId, clientSecret });
  directoryKey = saved.scim.directory_key;
});
afterAll(() => runtime?.stop());

describe('signing in through the workspace’s provider', () => {
  it('redirects with PKCE, a state and a nonce; the callback hands a one-time code in the fragment; the code opens a session of that workspace’s SSO', async () => {
    const email = `ana@${domain}`;
    // Discovery tells the sign-in page this address signs in through the provider (a client is set), codes still allowed.
    const discovered = await api.get(`/v1/workspaces/sso/discover?email=${encodeURIComponent(email)}`);
    expect(discovered.body).toMatchObject({ sso: true, workspace: { id: workspace.id }, sign_in: true, enforced: false });
    const started = await start(email, { return_to: '/account?tab=keys' });
    expect(started.status).toBe(302);
    expect(started.headers.get('cache-control')).toBe('no-store');
    const authorize = new URL(started.headers.get('location')!);
    expect(`${authorize.origin}`).toBe(runtime.oidc.origin);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: clientId,
      response_type: 'code',
      scope: 'openid email',
      redirect_uri: `${runtime.config.WEB_ORIGIN}/v1/auth/sso/callback`,
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: expect.any(String),
    });

    const redirect = await signInAt(runtime.oidc, authorize, email);
    expect(redirect.searchParams.get('iss')).toBe(runtime.oidc.issuer);
    const answered = await callback(redirect);
    expect(answered.status, await answered.clone().text()).toBe(302);
    const landing = new URL(answered.headers.get('location')!);
    expect(`${landing.origin}${landing.pathname}`).toBe(`${runtime.config.WEB_ORIGIN}/signin/sso`);
    expect(landing.search).toBe('');
    const fragment = fragmentOf(answered);
    expect(fragment.get('return_to')).toBe('/account?tab=keys');
    const code = fragment.get('code')!;
    expect(code).toMatch(/^hlx_[A-Za-z0-9_-]{43}$/);

    const tokens = await exchange({ code });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.user.email).toBe(email);
    const sessions = await api.get('/v1/auth/sessions', bearer(tokens.body.access_token));
    expect(sessions.status).toBe(200);
    // The session remembers the workspace whose directory opened it (a SCIM deactivation ends it).
    const [listed] = await runtime.functions.account.sessions.listForUser(tokens.body.user.id);
    expect((await runtime.functions.account.sessions.get(listed!.id))?.sso).toEqual({ workspaceId: workspace.id });

    // Each step works once.
    expectProblem(await exchange({ code }), 401, 'unauthorized');
    const replayed = await callback(redirect);
    expect(replayed.status).toBe(401);
    expect(((await replayed.json()) as { reason: string }).reason).toBe('sso_state');
  });

  it('refuses a forged, missing or expired state, and the provider’s own refusal (403)', async () => {
    const email = `bo@${domain}`;
    const redirect = await atProvider(email);
    const forged = new URL(redirect);
    const state = forged.searchParams.get('state')!;
    forged.searchParams.set('state', `${state.slice(0, -4)}AAAA`);
    expect((await callback(forged)).status).toBe(401);
    const stateless = new URL(redirect);
    stateless.searchParams.delete('state');
    expect((await callback(stateless)).status).toBe(401);

    // Ten minutes and more between the start and the callback.
    const late = await atProvider(email);
    runtime.clock.advance(11 * 60);
    expect((await callback(late)).status).toBe(401);

    // The provider said no (the person pressed Cancel): 403, and its state is spent.
    const started = await start(email);
    const denied = new URL(`${runtime.config.WEB_ORIGIN}/v1/auth/sso/callback`);
    denied.search = new URLSearchParams({
      error: 'access_denied',
      state: new URL(started.headers.get('location')!).searchParams.get('state')!,
      iss: runtime.oidc.issuer,
    }).toString();
    const refused = await callback(denied);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { reason: string }).reason).toBe('sso_refused');
    // A browser lands here: it gets a page saying what happened, with the same status (ADR 0173).
    const page = await fetch(`${runtime.url}${denied.pathname}${denied.search}`, {
      redirect: 'manual',
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const text = await page.text();
    expect(text).toContain('<h1>This sign-in has expired or was used already</h1>');
    expect(text).toContain('<a href="/signin">Back to sign-in</a>');
    expect(text).toContain(page.headers.get('x-request-id')!);
  });

  it('refuses an identity outside the directory’s domain, or whose address is not verified', async () => {
    // The provider signs in someone of another domain (any address works at the local provider).
    const elsewhere = await callback(await atProvider(`cy@${domain}`, {}, 'cy@elsewhere.example'));
    expect(elsewhere.status).toBe(401);
    expect(((await elsewhere.json()) as { reason: string }).reason).toBe('sso_identity');
    runtime.oidc.setUser(`di@${domain}`, { email_verified: false });
    expect((await callback(await atProvider(`di@${domain}`))).status).toBe(401);
  });

  it('answers 400 for an address no directory speaks for, an open return_to, a loopback without its challenge', async () => {
    expectProblem(
      await apiClient(runtime).get(`/v1/auth/sso/start?email=${encodeURIComponent('ed@nowhere.example')}`),
      400,
      'invalid_request',
    );
    for (const returnTo of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'account']) {
      const refused = await start(`ed@${domain}`, { return_to: returnTo });
      expect(refused.status, returnTo).toBe(400);
    }
    expect((await start(`ed@${domain}`, { loopback: 'http://127.0.0.1:5555/cb' })).status).toBe(400);
    const challenge = createHash('sha256').update('v'.repeat(43)).digest('base64url');
    expect((await start(`ed@${domain}`, { loopback: 'http://evil.example:5555/cb', client_challenge: challenge })).status).toBe(400);
  });

  it('binds a native client’s code to its verifier (RFC 8252 loopback): without it the code is useless, and not used up', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const loopback = 'http://127.0.0.1:48123/callback';
    const answered = await callback(await atProvider(`fa@${domain}`, { loopback, client_challenge: challenge }));
    expect(answered.status).toBe(302);
    expect(answered.headers.get('location')!.startsWith(`${loopback}#`)).toBe(true);
    const code = fragmentOf(answered).get('code')!;
    expectProblem(await exchange({ code }), 401, 'unauthorized');
    expectProblem(await exchange({ code, code_verifier: randomBytes(32).toString('base64url') }), 401, 'unauthorized');
    const tokens = await exchange({ code, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    expect(tokens.body.user.email).toBe(`fa@${domain}`);
  });

  it('answers 503 when the workspace’s provider does not answer', async () => {
    const other = await teamWorkspace(runtime);
    const downDomain = `down-${process.pid}.example`;
    await ssoDirectory(runtime, other, { domain: downDomain, issuer: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's'.repeat(24) });
    const started = await start(`gu@${downDomain}`);
    expect(started.status).toBe(503);
    expect(started.headers.get('retry-after')).toBe('60');
  });

  it('under enforcement: a code is refused (403) and the start mails a link to the provider instead; the owners keep the code, audited', async () => {
    // A workspace whose owner's own address is of the enforced domain.
    const enforcedDomain = `enforced-${process.pid}.example`;
    const boss = await signIn(runtime, `boss@${enforcedDomain}`);
    const made = await api.post('/v1/workspaces', { name: 'Enforced' }, boss.auth);
    await setWorkspace(runtime, made.body.id, { seats: 10, plan: 'team' });
    await ssoDirectory(runtime, { id: made.body.id, owner: boss }, { domain: enforcedDomain, clientId, clientSecret, enforce: true });

    // Anyone else of the domain: the same answer as for any address, a mail with the provider's link and no code.
    const member = `hal@${enforcedDomain}`;
    expect((await api.get(`/v1/workspaces/sso/discover?email=${encodeURIComponent(member)}`)).body).toMatchObject({
      sign_in: true,
      enforced: true,
    });
    expect(await api.post('/v1/auth/otp/start', { email: member })).toMatchObject({ status: 200, body: { sent: true } });
    const [mail] = mailsTo(runtime, member);
    expect(mail!.text).toContain(`${runtime.config.WEB_ORIGIN}/v1/auth/sso/start?email=${encodeURIComponent(member)}`);
    expect(mail!.text).not.toMatch(/\b\d{8}\b/);
    expectProblem(await api.post('/v1/auth/otp/verify', { email: member, code: '12345678' }), 403, 'forbidden');
    // The link leads through the provider, as the start does.
    const link = new URL(/https?:\/\/\S+/.exec(mail!.text)![0]);
    const answered = await callback(
      await signInAt(runtime.oidc, (await get(`${link.pathname}${link.search}`)).headers.get('location')!, member),
    );
    expect((await exchange({ code: fragmentOf(answered).get('code')! })).status).toBe(200);

    // The owner breaks the glass with an emailed code, and the workspace's audit trail says so.
    const owner = await signIn(runtime, `boss@${enforcedDomain}`);
    expect(owner.user.email).toBe(`boss@${enforcedDomain}`);
    const audit = await api.get(`/v1/workspaces/${made.body.id}/audit`, boss.auth);
    expect(audit.body.items.map((row: { action: string }) => row.action)).toContain('sso.break_glass');
  });

  it('ends the sessions this workspace’s SSO opened when SCIM deactivates the User, and only those', async () => {
    const email = `ivy@${domain}`;
    const scim = (method: string, path: string, json?: unknown) =>
      apiClient(runtime).call(method, `/scim/v2${path}`, {
        ...(json === undefined ? {} : { json }),
        headers: { authorization: `Bearer ${directoryKey}` },
      });
    const provisioned = await scim('POST', '/Users', { userName: email, emails: [{ value: email, primary: true }], active: true });
    expect(provisioned.status).toBe(201);
    const throughSso = (await exchange({ code: fragmentOf(await callback(await atProvider(email))).get('code')! })).body;
    const byCode = await signIn(runtime, email);
    const deactivated = await scim('PATCH', `/Users/${provisioned.body.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(deactivated.status).toBe(200);
    expectProblem(await api.post('/v1/auth/refresh', { refresh_token: throughSso.refresh_token }), 401, 'unauthorized');
    expect((await api.post('/v1/auth/refresh', { refresh_token: byCode.refresh_token })).status).toBe(200);
  });

  it('with sso_jit, makes someone signing in a member (source sso, audited) while a seat is free; past that, signs them in without one', async () => {
    const jitDomain = `jit-${process.pid}.example`;
    const jit = await teamWorkspace(runtime, 2);
    const saved = await ssoDirectory(runtime, jit, { domain: jitDomain, clientId, clientSecret, sso_jit: true });
    expect(saved).toMatchObject({ sso_jit: true, enforce: false });

    const signInThrough = async (email: string) =>
      (await exchange({ code: fragmentOf(await callback(await atProvider(email))).get('code')! })).body as { access_token: string };
    const first = await signInThrough(`kim@${jitDomain}`);
    const members = (await api.get(`/v1/workspaces/${jit.id}/members`, jit.owner.auth)).body.items as Array<{
      email: string;
      source: string;
      role: string;
    }>;
    expect(members.find((member) => member.email === `kim@${jitDomain}`)).toMatchObject({ source: 'sso', role: 'member' });
    expect((await api.get(`/v1/workspaces/${jit.id}/members`, bearer(first.access_token))).status).toBe(200);
    const audit = await api.get(`/v1/workspaces/${jit.id}/audit`, jit.owner.auth);
    expect(audit.body.items.find((row: { action: string }) => row.action === 'member.joined')).toMatchObject({ details: { via: 'sso' } });
    // Signing in again changes nothing; with the seats taken, the next person signs in without joining.
    await signInThrough(`kim@${jitDomain}`);
    const second = await signInThrough(`lou@${jitDomain}`);
    expect([403, 404]).toContain((await api.get(`/v1/workspaces/${jit.id}/members`, bearer(second.access_token))).status);
    const after = (await api.get(`/v1/workspaces/${jit.id}/members`, jit.owner.auth)).body.items as Array<{ email: string }>;
    expect(after.map((member) => member.email).sort()).toEqual([jit.owner.user.email, `kim@${jitDomain}`].sort());
  });
});
