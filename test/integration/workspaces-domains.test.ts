import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { callFrom, createKey, mailsTo, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime, textSecretBody } from '../support/runtime.ts';
import { joinAs, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// Custom domains (issue 17, interface §4.7, rule 5) against the local DNS server (local/dns.ts):
// a claim is verified by its own TXT record, whoever verifies a hostname first holds it, and a
// hostname serves only while its claim is verified.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  // A DNS server that never answers costs 200 ms here, not the 6 s a deployment waits.
  runtime = await startTestRuntime({ dnsLookup: { timeoutMs: 100, tries: 1, deadlineMs: 300 } });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

let names = 0;
/** A hostname no other test uses. */
const freshHostname = (label = 'links') => `${label}-${process.pid}-${++names}.acme-corp.example`;
const claim = (who: Pick<SignedIn, 'auth'>, workspaceId: string, hostname: string) =>
  api.post('/v1/domains', { workspace_id: workspaceId, hostname }, who.auth);
const verify = (who: Pick<SignedIn, 'auth'>, id: string) => api.post(`/v1/domains/${id}/verify`, undefined, who.auth);
const list = (who: Pick<SignedIn, 'auth'>, workspaceId: string) => api.get(`/v1/domains?workspace_id=${workspaceId}`, who.auth);
/** Publishes a claim's TXT record at the local DNS server, as the claimant would at their DNS provider. */
const publish = (verification: { name: string; value: string }, ...others: string[]) =>
  runtime.dns.setRecords(verification.name, [
    { type: 'TXT', data: verification.value },
    ...others.map((data) => ({ type: 'TXT' as const, data })),
  ]);

/** A Team workspace with a verified hostname. */
async function verifiedDomain(label?: string): Promise<{ workspace: TeamWorkspace; id: string; hostname: string }> {
  const workspace = await teamWorkspace(runtime);
  const hostname = freshHostname(label);
  const claimed = await claim(workspace.owner, workspace.id, hostname);
  expect(claimed.status).toBe(201);
  publish(claimed.body.verification);
  expect((await verify(workspace.owner, claimed.body.id)).body.state).toBe('verified');
  return { workspace, id: claimed.body.id, hostname };
}

describe('POST /v1/domains', () => {
  it('claims a hostname: 201, pending, with the claim’s own TXT challenge; lower case, IDNs in punycode', async () => {
    const workspace = await teamWorkspace(runtime);
    const claimed = await claim(workspace.owner, workspace.id, '  Links.BÜCHER.example. ');
    expect(claimed.status).toBe(201);
    expect(claimed.body).toEqual({
      id: expect.stringMatching(/^dom_/),
      hostname: 'links.xn--bcher-kva.example',
      state: 'pending',
      verification: {
        type: 'TXT',
        name: '_hushlink-challenge.links.xn--bcher-kva.example',
        value: expect.stringMatching(/^hushlink-verification=[A-Za-z0-9_-]{43}$/),
      },
      created_at: expect.any(String),
    });
    // One challenge per claim: another workspace's claim of the same hostname has its own.
    const other = await teamWorkspace(runtime);
    const second = await claim(other.owner, other.id, 'links.xn--bcher-kva.example');
    expect(second.status).toBe(201);
    expect(second.body.verification.value).not.toBe(claimed.body.verification.value);
    // Claimed twice by one workspace: 409.
    const again = await claim(workspace.owner, workspace.id, 'links.bücher.example');
    expectProblem(again, 409, 'conflict');
    expect(again.body.reason).toBe('already_claimed');
  });

  it('answers 400 for what is not a hostname a workspace may claim', async () => {
    const workspace = await teamWorkspace(runtime);
    const own = new URL(runtime.config.WEB_ORIGIN).hostname;
    for (const hostname of [
      '192.0.2.1',
      '[2001:db8::1]',
      '0x7f.1',
      'intranet',
      'https://links.example.com',
      'links.example.com/path',
      'links.example.com:8443',
      'a..b.example',
      `${'a'.repeat(64)}.example.com`,
      '-bad.example.com',
      '*.example.com',
      own,
      `sub.${own}`,
      'user@links.example.com',
      `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.example`,
    ]) {
      const refused = await claim(workspace.owner, workspace.id, hostname);
      expectProblem(refused, 400, 'invalid_request');
      expect(refused.body.errors[0].path, hostname).toBe('body.hostname');
    }
    for (const body of [
      {},
      { workspace_id: workspace.id },
      { hostname: 'a.example.com' },
      { workspace_id: workspace.id, hostname: 'a.example.com', extra: 1 },
      { workspace_id: workspace.id, hostname: 'x'.repeat(301) },
    ]) {
      expectProblem(await api.post('/v1/domains', body, workspace.owner.auth), 400, 'invalid_request');
    }
  });

  it('answers 403 to a member, to a workspace without Team, and to an API key; 404 for a non-member or an unknown workspace; 401 without a session', async () => {
    const workspace = await teamWorkspace(runtime);
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    const admin = await joinAs(runtime, workspace, workspace.owner, 'admin');
    const denied = await claim(member, workspace.id, freshHostname());
    expectProblem(denied, 403, 'forbidden');
    expect(denied.body.reason).toBe('role');
    expect((await claim(admin, workspace.id, freshHostname())).status).toBe(201);
    const free = await teamWorkspace(runtime, 1, 'free');
    const unpaid = await claim(free.owner, free.id, freshHostname());
    expectProblem(unpaid, 403, 'forbidden');
    expect(unpaid.body.reason).toBe('plan');
    expectProblem(await claim(await signIn(runtime, newEmail('outsider')), workspace.id, freshHostname()), 404, 'not_found');
    expectProblem(await claim(workspace.owner, 'wks_AAAAAAAAAAAAAAAAAAAAAA', freshHostname()), 404, 'not_found');
    const key = await createKey(runtime, workspace.owner, ['secrets:write', 'secrets:read', 'receipts:read']);
    expectProblem(await claim(key, workspace.id, freshHostname()), 403, 'forbidden');
    expectProblem(await api.post('/v1/domains', { workspace_id: workspace.id, hostname: freshHostname() }), 401, 'unauthorized');
  });
});

describe('POST /v1/domains/{id}/verify', () => {
  it('looks the TXT record up now: not there, beside others, wrong, servers failing, then found; safe to repeat', async () => {
    const workspace = await teamWorkspace(runtime);
    const hostname = freshHostname();
    const claimed = await claim(workspace.owner, workspace.id, hostname);
    const { id, verification } = claimed.body;
    const check = async () => (await verify(workspace.owner, id)).body;

    expect(await check()).toEqual({ id, state: 'pending', checked_at: expect.any(String), last_error: 'txt_not_found' });
    runtime.dns.setRecords(verification.name, [
      { type: 'TXT', data: 'v=spf1 -all' },
      { type: 'TXT', data: 'hushlink-verification=someone-elses-token' },
    ]);
    expect((await check()).last_error).toBe('txt_mismatch');
    runtime.dns.fail(verification.name, 'servfail');
    expect((await check()).last_error).toBe('dns_unavailable');
    runtime.dns.fail(verification.name, 'timeout');
    expect((await check()).last_error).toBe('dns_unavailable');
    runtime.dns.fail(verification.name, null);
    // Ours among other records, split into strings as DNS providers split long values.
    runtime.dns.setRecords(verification.name, [
      { type: 'TXT', data: 'v=spf1 -all' },
      { type: 'TXT', data: [verification.value.slice(0, 30), verification.value.slice(30)] },
    ]);
    runtime.clock.advance(60);
    const verified = await check();
    expect(verified).toEqual({ id, state: 'verified', checked_at: expect.any(String), last_error: null });
    // Repeated: still verified, nothing asked of DNS.
    runtime.dns.clear();
    expect((await check()).state).toBe('verified');
    expect(runtime.dns.queries()).toEqual([]);
    const listed = await list(workspace.owner, workspace.id);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      {
        id,
        hostname,
        state: 'verified',
        verification,
        verified_at: verified.checked_at,
        last_checked_at: verified.checked_at,
        last_error: null,
      },
    ]);
  });

  it('answers 403 to a member, 404 to a non-member and for an unknown id', async () => {
    const workspace = await teamWorkspace(runtime);
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    const { id } = (await claim(workspace.owner, workspace.id, freshHostname())).body;
    expectProblem(await verify(member, id), 403, 'forbidden');
    expectProblem(await verify(await signIn(runtime, newEmail('outsider')), id), 404, 'not_found');
    expectProblem(await verify(workspace.owner, 'dom_AAAAAAAAAAAAAAAAAAAAAA'), 404, 'not_found');
    expectProblem(await verify(workspace.owner, 'nonsense'), 404, 'not_found');
  });
});

describe('a person and the schedule verifying at once', () => {
  it('verifies once: one audit row, one start of its hosting', async () => {
    const workspace = await teamWorkspace(runtime);
    const claimed = (await claim(workspace.owner, workspace.id, freshHostname('raced'))).body;
    publish(claimed.verification);
    const [reply] = await Promise.all([verify(workspace.owner, claimed.id), runtime.scheduler.run('check-domains')]);
    expect(reply.body.state).toBe('verified');
    const audit = (await api.get(`/v1/workspaces/${workspace.id}/audit`, workspace.owner.auth)).body.items as Array<{
      action: string;
      target: string;
    }>;
    expect(audit.filter((row) => row.action === 'domain.verified' && row.target === claimed.id)).toHaveLength(1);
  });
});

describe('takeovers', () => {
  it('two workspaces claim one hostname: the first whose own record is found holds it; a third cannot claim it', async () => {
    const hostname = freshHostname('contested');
    const [a, b] = await Promise.all([teamWorkspace(runtime), teamWorkspace(runtime)]);
    const claimA = (await claim(a.owner, a.id, hostname)).body;
    const claimB = (await claim(b.owner, b.id, hostname)).body;
    // Both records at the name (a squatter may publish theirs too): each claim proves only itself.
    runtime.dns.setRecords(claimA.verification.name, [
      { type: 'TXT', data: claimA.verification.value },
      { type: 'TXT', data: claimB.verification.value },
    ]);
    const [first, second] = await Promise.all([verify(a.owner, claimA.id), verify(b.owner, claimB.id)]);
    const states = [first.body.state, second.body.state].sort();
    expect(states).toEqual(['pending', 'verified']);
    const loser = first.body.state === 'pending' ? first : second;
    expect(loser.body.last_error).toBe('verified_elsewhere');
    const c = await teamWorkspace(runtime);
    const refused = await claim(c.owner, c.id, hostname);
    expectProblem(refused, 409, 'conflict');
    expect(refused.body.reason).toBe('hostname_verified');
  });
});

describe('the hostname serves only while its claim is verified (rule 5)', () => {
  /** A public read of a secret, on a host. */
  const metadataOn = (host: string, id: string) =>
    callFrom(runtime, '127.0.0.1', 'GET', `/v1/secrets/${id}`, undefined, { host: `${host}:${runtime.port}` });

  it('answers 404 unknown_host on a hostname never verified, and the web client says so; serves once verified; stops at once when deleted', async () => {
    const secret = (await api.post('/v1/secrets', textSecretBody())).body;
    const workspace = await teamWorkspace(runtime);
    const hostname = freshHostname('served');
    const claimed = (await claim(workspace.owner, workspace.id, hostname)).body;

    const pending = await metadataOn(hostname, secret.id);
    expectProblem(pending, 404, 'not_found');
    expect(pending.body.reason).toBe('unknown_host');
    const page = await callFrom(runtime, '127.0.0.1', 'GET', `/s/${secret.id}`, undefined, { host: hostname });
    expect(page.status).toBe(404);
    expect(page.body).toContain('This address serves no Hushlink links');
    expectProblem(await metadataOn('never-claimed.example', secret.id), 404, 'not_found');

    publish(claimed.verification);
    await verify(workspace.owner, claimed.id);
    // The secrets function read the hostname as unclaimed a moment ago: within the bound it still may.
    runtime.clock.advance(5.001);
    // It serves the links made on it (workspaces-link-hosts.test.ts).
    const madeOnHost = (await api.post('/v1/secrets', textSecretBody({ workspace_id: workspace.id, hostname }), workspace.owner.auth)).body;
    expect((await metadataOn(hostname, madeOnHost.id)).status).toBe(200);
    expect((await callFrom(runtime, '127.0.0.1', 'GET', `/s/${madeOnHost.id}`, undefined, { host: hostname })).status).toBe(200);

    // Deleted: the workspaces function, which deleted it, refuses the host at once…
    await api.delete(`/v1/domains/${claimed.id}`, workspace.owner.auth);
    const onHost = await callFrom(runtime, '127.0.0.1', 'GET', `/v1/domains?workspace_id=${workspace.id}`, undefined, {
      host: hostname,
      ...workspace.owner.auth,
    });
    expectProblem(onHost, 404, 'not_found');
    expect(onHost.body.reason).toBe('unknown_host');
    // …and so does every other instance, at once: a verified claim is read on every request (issue 26).
    expectProblem(await metadataOn(hostname, madeOnHost.id), 404, 'not_found');
    expect((await callFrom(runtime, '127.0.0.1', 'GET', `/s/${madeOnHost.id}`, undefined, { host: hostname })).status).toBe(404);
    // Any route of the service, listed 404 or not, answers so on that host (the document says so).
    const report = await callFrom(
      runtime,
      '127.0.0.1',
      'POST',
      '/v1/reports',
      { secret_id: secret.id, reason: 'other' },
      { host: hostname },
    );
    expectProblem(report, 404, 'not_found');
    expect(report.body.reason).toBe('unknown_host');
    // This deployment's own host is never in question.
    expect((await api.get(`/v1/secrets/${secret.id}`)).status).toBe(200);
  });
});

describe('a deleted domain’s links stop opening at once (issue 26)', () => {
  const on = (host: string, method: string, path: string, json?: unknown) =>
    callFrom(runtime, '127.0.0.1', method, path, json, { host: `${host}:${runtime.port}` });

  it('claims and gate codes on the hostname are refused the moment it is deleted, with no view taken and no code mailed, though every function read it a moment before', async () => {
    // The finding: 14 claims took views in the 5 s after a delete, served from the instances' caches.
    const { workspace, id, hostname } = await verifiedDomain('deleted');
    const secret = (
      await api.post('/v1/secrets', textSecretBody({ workspace_id: workspace.id, hostname, max_views: 20 }), workspace.owner.auth)
    ).body;
    const email = newEmail('gated');
    const gated = (
      await api.post(
        '/v1/secrets',
        textSecretBody({ workspace_id: workspace.id, hostname, recipients: [{ email, restricted: true }] }),
        workspace.owner.auth,
      )
    ).body;
    const recipientId = gated.recipients[0].recipient_id as string;
    // Served, and read, on the hostname right before: a cache, if any, holds the claim now.
    expect((await on(hostname, 'GET', `/v1/secrets/${secret.id}`)).status).toBe(200);
    expect((await on(hostname, 'POST', `/v1/secrets/${secret.id}/claim`, {})).status).toBe(200);
    expect((await on(hostname, 'GET', `/v1/secrets/${gated.id}?recipient_id=${recipientId}`)).status).toBe(200);

    expect((await api.delete(`/v1/domains/${id}`, workspace.owner.auth)).status).toBe(200);
    // The clock does not move: nothing may wait for a cache to run out.
    const claims = await Promise.all(Array.from({ length: 20 }, () => on(hostname, 'POST', `/v1/secrets/${secret.id}/claim`, {})));
    for (const refused of claims) {
      expectProblem(refused, 404, 'not_found');
      expect(refused.body.reason).toBe('unknown_host');
    }
    const gate = await on(hostname, 'POST', `/v1/secrets/${gated.id}/gate/start`, { recipient_id: recipientId, email });
    expectProblem(gate, 404, 'not_found');
    expect(gate.body.reason).toBe('unknown_host');
    expect(mailsTo(runtime, email)).toEqual([]);
    expect((await callFrom(runtime, '127.0.0.1', 'GET', `/s/${secret.id}`, undefined, { host: hostname })).status).toBe(404);
    // Only the claim before the delete took a view; this service's own host still serves the link.
    expect((await api.get(`/v1/secrets/${secret.id}`)).body).toMatchObject({ state: 'active', views_left: 19 });
    expect((await api.post(`/v1/secrets/${secret.id}/claim`, {})).status).toBe(200);
  });
});

describe('DELETE /v1/domains/{id} and GET /v1/domains', () => {
  it('deletes a pending or verified claim with its audit rows; members list, outsiders and keys are refused', async () => {
    const held = await verifiedDomain('audited');
    const { workspace } = held;
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    expect((await list(member, workspace.id)).body.items.map((item: { id: string }) => item.id)).toEqual([held.id]);
    expectProblem(await api.delete(`/v1/domains/${held.id}`, member.auth), 403, 'forbidden');
    expectProblem(await list(await signIn(runtime, newEmail('outsider')), workspace.id), 404, 'not_found');
    const key = await createKey(runtime, workspace.owner, ['secrets:read']);
    expectProblem(await list(key, workspace.id), 403, 'forbidden');
    expectProblem(await api.get('/v1/domains'), 401, 'unauthorized');
    expectProblem(await api.get('/v1/domains', workspace.owner.auth), 400, 'invalid_request');
    expect((await api.delete(`/v1/domains/${held.id}`, workspace.owner.auth)).status).toBe(200);
    expectProblem(await api.delete(`/v1/domains/${held.id}`, workspace.owner.auth), 404, 'not_found');
    expect((await list(workspace.owner, workspace.id)).body.items).toEqual([]);
    const audit = (await api.get(`/v1/workspaces/${workspace.id}/audit`, workspace.owner.auth)).body.items as Array<{
      action: string;
      details: Record<string, unknown>;
    }>;
    expect(audit.filter((row) => row.action.startsWith('domain.')).map((row) => [row.action, row.details.hostname])).toEqual([
      ['domain.deleted', held.hostname],
      ['domain.verified', held.hostname],
      ['domain.claimed', held.hostname],
    ]);
  });
});
