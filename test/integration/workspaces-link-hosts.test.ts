import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { callFrom, mailsTo, newEmail, type SignedIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, linkPair, startTestRuntime, textSecretBody } from '../support/runtime.ts';
import { setWorkspace, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// Links on a workspace's own hostname (issue 17, rule 5): a secret, file or request link made
// with `hostname` has its url_base there; on a workspace's hostname only the links made under
// that very claim are there (anything else is 404, as an unknown id), while this service's own
// host serves every link; a deleted claim stops its links on the hostname, and a later claim of
// the same hostname never brings them back.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

let names = 0;
const freshHostname = (label = 'links') => `${label}-${process.pid}-${++names}.acme-corp.example`;
const b64url = (bytes: number) => randomBytes(bytes).toString('base64url');

/** Claims `hostname` for the workspace and verifies it against the local DNS server; answers the claim's id. */
async function verifiedClaim(workspace: TeamWorkspace, hostname: string): Promise<string> {
  const claimed = await api.post('/v1/domains', { workspace_id: workspace.id, hostname }, workspace.owner.auth);
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
  runtime.dns.setRecords(claimed.body.verification.name, [{ type: 'TXT', data: claimed.body.verification.value }]);
  expect((await api.post(`/v1/domains/${claimed.body.id}/verify`, undefined, workspace.owner.auth)).body.state).toBe('verified');
  return claimed.body.id;
}

/** A Team workspace with a verified hostname. */
async function withHostname(label?: string): Promise<{ workspace: TeamWorkspace; hostname: string; domainId: string }> {
  const workspace = await teamWorkspace(runtime);
  const hostname = freshHostname(label);
  return { workspace, hostname, domainId: await verifiedClaim(workspace, hostname) };
}

/** Where links on `hostname` are in a local run: WEB_ORIGIN's scheme and port, on that name. */
const originOn = (hostname: string) => {
  const own = new URL(runtime.config.WEB_ORIGIN);
  return `${own.protocol}//${hostname}:${own.port}`;
};
/** A request that arrived on `hostname`, as a browser on a link of it sends it. */
const on = (hostname: string, method: string, path: string, json?: unknown, from = '127.0.0.1') =>
  callFrom(runtime, from, method, path, json, { host: `${hostname}:${runtime.port}` });
/** The gate code mailed last to `email`. */
const gateCode = (email: string) => /\b(\d{6})\b/.exec(mailsTo(runtime, email)[0]?.text ?? '')?.[1] ?? null;

const openUpload = (body: Record<string, unknown>, auth?: Record<string, string>) =>
  api.post('/v1/files/multipart', { size_bytes: 100, salt: b64url(16), ...body }, auth);
const requestLink = (body: Record<string, unknown>, who: Pick<SignedIn, 'auth'>) =>
  api.post('/v1/requests', { public_key: b64url(32), kem: 'x25519', ...body }, who.auth);
const textResponse = () => ({
  kind: 'text',
  envelope: randomBytes(32).toString('base64'),
  salt: b64url(16),
  size_bytes: 32,
  enc: b64url(32),
  wrapped_key: b64url(48),
});
const fileResponse = (requestId: string) => ({
  size_bytes: 100,
  salt: b64url(16),
  request_id: requestId,
  enc: b64url(32),
  wrapped_key: b64url(48),
});

describe('links made with a hostname', () => {
  it('a secret: url_base and each link’s on the hostname; read, gated and claimed there, and on this service’s own host', async () => {
    const { workspace, hostname } = await withHostname();
    const email = newEmail('recipient');
    // Normalized as a claim is: case and a trailing dot do not matter.
    const body = textSecretBody({
      workspace_id: workspace.id,
      hostname: `${hostname.toUpperCase()}.`,
      max_views: 2,
      recipients: [{ label: 'Ana' }, { email, restricted: true }],
    });
    const made = await api.post('/v1/secrets', body, workspace.owner.auth);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const { id, recipients } = made.body as { id: string; recipients: Array<{ recipient_id: string; url_base: string }> };
    const origin = originOn(hostname);
    expect(made.body.url_base).toBe(`${origin}/s/${id}`);
    expect(recipients.map((link) => link.url_base)).toEqual(recipients.map((link) => `${origin}/s/${id}/r/${link.recipient_id}`));
    const [open, restricted] = recipients as [(typeof recipients)[0], (typeof recipients)[0]];

    // The link as a browser follows it: the page, then the API, on the hostname.
    const page = new URL(open.url_base);
    expect((await callFrom(runtime, '127.0.0.1', 'GET', page.pathname, undefined, { host: page.host })).status).toBe(200);
    expect((await on(hostname, 'GET', `/v1/secrets/${id}?recipient_id=${open.recipient_id}`)).body).toMatchObject({
      id,
      state: 'active',
      recipient: { recipient_id: open.recipient_id },
    });
    expect((await on(hostname, 'POST', `/v1/secrets/${id}/gate/start`, { recipient_id: restricted.recipient_id, email })).body).toEqual({
      sent: true,
    });
    const gate = await on(hostname, 'POST', `/v1/secrets/${id}/gate/verify`, {
      recipient_id: restricted.recipient_id,
      email,
      code: gateCode(email),
    });
    expect(gate.status, JSON.stringify(gate.body)).toBe(200);
    const claimed = await on(hostname, 'POST', `/v1/secrets/${id}/claim`, {
      recipient_id: restricted.recipient_id,
      gate_token: gate.body.gate_token,
    });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body.envelope).toBe(body.envelope);

    // This service's own host serves it too.
    expect((await api.post(`/v1/secrets/${id}/claim`, { recipient_id: open.recipient_id })).body).toMatchObject({
      kind: 'text',
      recipient_id: open.recipient_id,
    });
    expect((await api.get(`/v1/secrets/${id}`)).body.views_left).toBe(2);
  });

  it('a file: url_base on the hostname, and its download claimed there', async () => {
    const { workspace, hostname } = await withHostname('files');
    const bytes = randomBytes(100);
    const opened = await openUpload({ workspace_id: workspace.id, hostname, recipients: [{ label: 'Bo' }] }, workspace.owner.auth);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const { id } = opened.body;
    expect(opened.body.url_base).toBe(`${originOn(hostname)}/s/${id}`);
    expect(opened.body.recipients[0].url_base).toBe(`${originOn(hostname)}/s/${id}/r/${opened.body.recipients[0].recipient_id}`);
    const put = await fetch(opened.body.parts[0].url, { method: 'PUT', body: new Blob([bytes as Uint8Array<ArrayBuffer>]) });
    const parts = [{ part_number: 1, etag: put.headers.get('etag')! }];
    expect(
      (
        await api.post('/v1/files/multipart/complete', {
          id,
          upload_id: opened.body.upload_id,
          delete_token: opened.body.delete_token,
          parts,
        })
      ).status,
    ).toBe(200);

    const claimed = await on(hostname, 'POST', `/v1/secrets/${id}/claim`, { recipient_id: opened.body.recipients[0].recipient_id });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(Buffer.from(await (await fetch(claimed.body.download.url)).arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('a request link: url_base on the hostname; read and answered there (a text, a file), and on this service’s own host', async () => {
    const { workspace, hostname } = await withHostname('requests');
    const made = await requestLink({ workspace_id: workspace.id, hostname, max_responses: 5 }, workspace.owner);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const { id } = made.body;
    expect(made.body.url_base).toBe(`${originOn(hostname)}/q/${id}`);
    expect((await on(hostname, 'GET', `/v1/requests/${id}`)).body).toMatchObject({ id, open: true });
    expect((await on(hostname, 'POST', `/v1/requests/${id}/responses`, textResponse())).status).toBe(201);
    expect((await on(hostname, 'POST', '/v1/files/multipart', fileResponse(id))).status).toBe(200);
    expect((await api.get(`/v1/requests/${id}`)).body.responses_left).toBe(4);
    expect((await api.post(`/v1/requests/${id}/responses`, textResponse())).status).toBe(201);
  });
});

describe('on a workspace’s hostname, only links made under its claim are there (rule 5)', () => {
  it('404 for a link made without it, on another workspace’s hostname, or anonymously; untouched, and served on this service’s own host', async () => {
    const { workspace, hostname } = await withHostname('bound');
    const other = await withHostname('other');
    const link = linkPair();
    const emails = [newEmail('recipient'), newEmail('recipient'), newEmail('recipient')] as const;
    const linked = (email: string) => ({ link_verifier: link.verifier, recipients: [{ label: 'open' }, { email, restricted: true }] });
    const made = await Promise.all([
      // The workspace's own secret, made without the hostname…
      api.post('/v1/secrets', textSecretBody({ workspace_id: workspace.id, ...linked(emails[0]) }), workspace.owner.auth),
      // …another workspace's, on its hostname, and one outside any workspace.
      api.post(
        '/v1/secrets',
        textSecretBody({ workspace_id: other.workspace.id, hostname: other.hostname, ...linked(emails[1]) }),
        other.workspace.owner.auth,
      ),
      api.post('/v1/secrets', textSecretBody(linked(emails[2]))),
    ]);
    for (const [i, { body }] of made.entries()) {
      const { id } = body;
      const email = emails[i]!;
      const [open, restricted] = (body.recipients as Array<{ recipient_id: string }>).map((recipient) => recipient.recipient_id);
      expectProblem(await on(hostname, 'GET', `/v1/secrets/${id}`), 404, 'not_found');
      expectProblem(await on(hostname, 'GET', `/v1/secrets/${id}?recipient_id=${open}`), 404, 'not_found');
      expectProblem(await on(hostname, 'POST', `/v1/secrets/${id}/gate/start`, { recipient_id: restricted, email }), 404, 'not_found');
      expectProblem(
        await on(hostname, 'POST', `/v1/secrets/${id}/gate/verify`, { recipient_id: restricted, email, code: '000000' }),
        404,
        'not_found',
      );
      expectProblem(
        await on(hostname, 'POST', `/v1/secrets/${id}/claim`, { recipient_id: open, link_token: link.token }),
        404,
        'not_found',
      );
      // Reports of it from three addresses that hold the link would lock it here: there it is not there.
      for (const from of ['127.0.0.2', '127.0.0.3', '127.0.0.4']) {
        expect(
          (await on(hostname, 'POST', '/v1/reports', { secret_id: id, reason: 'phishing', link_token: link.token }, from)).status,
        ).toBe(202);
      }
      // Nothing was taken, denied or locked; this service's own host serves it.
      const metadata = await api.get(`/v1/secrets/${id}`);
      expect(metadata.body).toMatchObject({ state: 'active', views_left: 2 });
      expect(mailsTo(runtime, email)).toEqual([]);
      expect((await api.post(`/v1/secrets/${id}/gate/start`, { recipient_id: restricted, email })).body).toEqual({ sent: true });
      expect(mailsTo(runtime, email)).toHaveLength(1);
    }
    // The other workspace's secret is served on its own hostname.
    expect((await on(other.hostname, 'GET', `/v1/secrets/${made[1].body.id}`)).status).toBe(200);

    const links = await Promise.all([
      requestLink({ workspace_id: workspace.id }, workspace.owner),
      requestLink({ workspace_id: other.workspace.id, hostname: other.hostname }, other.workspace.owner),
    ]);
    for (const { body } of links) {
      expectProblem(await on(hostname, 'GET', `/v1/requests/${body.id}`), 404, 'not_found');
      expectProblem(await on(hostname, 'POST', `/v1/requests/${body.id}/responses`, textResponse()), 404, 'not_found');
      const file = await on(hostname, 'POST', '/v1/files/multipart', fileResponse(body.id));
      expectProblem(file, 403, 'forbidden');
      expect(file.body.reason).toBe('request_not_found');
      expect((await api.get(`/v1/requests/${body.id}`)).body).toMatchObject({ open: true, responses_left: 10 });
    }
  });

  it('a deleted claim stops its links on the hostname; a later claim of it, by the workspace or another, never brings them back', async () => {
    const { workspace, hostname, domainId } = await withHostname('reclaimed');
    const secret = (
      await api.post('/v1/secrets', textSecretBody({ workspace_id: workspace.id, hostname, max_views: 5 }), workspace.owner.auth)
    ).body;
    const request = (await requestLink({ workspace_id: workspace.id, hostname }, workspace.owner)).body;
    expect((await on(hostname, 'GET', `/v1/secrets/${secret.id}`)).status).toBe(200);

    // At once: a verified claim is read on every request (issue 26).
    expect((await api.delete(`/v1/domains/${domainId}`, workspace.owner.auth)).status).toBe(200);
    const stopped = await on(hostname, 'GET', `/v1/secrets/${secret.id}`);
    expectProblem(stopped, 404, 'not_found');
    expect(stopped.body.reason).toBe('unknown_host');
    expect((await api.get(`/v1/secrets/${secret.id}`)).status).toBe(200);

    // Claimed and verified again by the same workspace, then by another: a new claim each time.
    const again = await verifiedClaim(workspace, hostname);
    runtime.clock.advance(5.001);
    const newer = (await api.post('/v1/secrets', textSecretBody({ workspace_id: workspace.id, hostname }), workspace.owner.auth)).body;
    expect((await on(hostname, 'GET', `/v1/secrets/${newer.id}`)).status).toBe(200);
    const expectGone = async () => {
      const read = await on(hostname, 'GET', `/v1/secrets/${secret.id}`);
      expectProblem(read, 404, 'not_found');
      expect(read.body.reason).toBeUndefined();
      expectProblem(await on(hostname, 'POST', `/v1/secrets/${secret.id}/claim`, {}), 404, 'not_found');
      expectProblem(await on(hostname, 'GET', `/v1/requests/${request.id}`), 404, 'not_found');
    };
    await expectGone();

    await api.delete(`/v1/domains/${again}`, workspace.owner.auth);
    const taker = await teamWorkspace(runtime);
    await verifiedClaim(taker, hostname);
    runtime.clock.advance(5.001);
    const theirs = (await api.post('/v1/secrets', textSecretBody({ workspace_id: taker.id, hostname }), taker.owner.auth)).body;
    expect((await on(hostname, 'GET', `/v1/secrets/${theirs.id}`)).status).toBe(200);
    await expectGone();
    expectProblem(await on(hostname, 'GET', `/v1/secrets/${newer.id}`), 404, 'not_found');

    // This service's own host still serves every one of them.
    expect((await api.get(`/v1/secrets/${secret.id}`)).body).toMatchObject({ state: 'active', views_left: 5 });
    expect((await api.get(`/v1/requests/${request.id}`)).status).toBe(200);
  });
});

describe('asking for a hostname', () => {
  it('400 on body.hostname for one not verified, another workspace’s, not a hostname, or without workspace_id; 403 first for a non-member', async () => {
    const { workspace, hostname } = await withHostname('asked');
    const other = await withHostname('theirs');
    const pending = freshHostname('pending');
    expect((await api.post('/v1/domains', { workspace_id: workspace.id, hostname: pending }, workspace.owner.auth)).status).toBe(201);
    const own = new URL(runtime.config.WEB_ORIGIN).hostname;
    const create = {
      secret: (body: Record<string, unknown>, auth?: Record<string, string>) => api.post('/v1/secrets', textSecretBody(body), auth),
      file: openUpload,
      request: (body: Record<string, unknown>, auth?: Record<string, string>) =>
        api.post('/v1/requests', { public_key: b64url(32), kem: 'x25519', ...body }, auth),
    };
    for (const [kind, make] of Object.entries(create)) {
      for (const asked of [pending, other.hostname, 'never-claimed.acme-corp.example', '192.0.2.1', own, 'https://x.example/']) {
        const refused = await make({ workspace_id: workspace.id, hostname: asked }, workspace.owner.auth);
        expectProblem(refused, 400, 'invalid_request');
        expect(refused.body.errors[0].path, `${kind} on ${asked}`).toBe('body.hostname');
      }
      const hostless = await make({ hostname }, workspace.owner.auth);
      expectProblem(hostless, 400, 'invalid_request');
      expect(hostless.body.errors[0].path, kind).toBe('body.hostname');
      // Which hostnames a workspace holds is not told to someone outside it.
      expectProblem(await make({ workspace_id: workspace.id, hostname }, other.workspace.owner.auth), 403, 'forbidden');
    }
  });

  it('below Team, no new link on the hostname (403 plan); links made on it keep opening there; Team again makes them at once', async () => {
    // The finding (issue 26): POST /v1/secrets with `hostname` answered 201 for a workspace whose Team plan had ended.
    const { workspace, hostname, domainId } = await withHostname('lapsed');
    const made = await api.post(
      '/v1/secrets',
      textSecretBody({ workspace_id: workspace.id, hostname, max_views: 3 }),
      workspace.owner.auth,
    );
    expect(made.status).toBe(201);
    const request = (await requestLink({ workspace_id: workspace.id, hostname }, workspace.owner)).body;

    await setWorkspace(runtime, workspace.id, { plan: 'free' });
    const create = {
      secret: (body: Record<string, unknown>) => api.post('/v1/secrets', textSecretBody(body), workspace.owner.auth),
      file: (body: Record<string, unknown>) => openUpload(body, workspace.owner.auth),
      request: (body: Record<string, unknown>) => requestLink(body, workspace.owner),
    };
    for (const [kind, make] of Object.entries(create)) {
      const refused = await make({ workspace_id: workspace.id, hostname });
      expectProblem(refused, 403, 'forbidden');
      expect(refused.body, kind).toMatchObject({ reason: 'plan', plan: 'free', required: 'team' });
      // Sent in the workspace without the hostname, it is made, on this service's own host.
      const hostless = await make({ workspace_id: workspace.id });
      expect(hostless.status, `${kind}: ${JSON.stringify(hostless.body)}`).toBeLessThan(300);
      expect(new URL(hostless.body.url_base).origin).toBe(new URL(runtime.config.WEB_ORIGIN).origin);
    }
    // What was made on it keeps opening there; the claim stays verified.
    expect((await on(hostname, 'GET', `/v1/secrets/${made.body.id}`)).body).toMatchObject({ state: 'active', views_left: 3 });
    expect((await on(hostname, 'POST', `/v1/secrets/${made.body.id}/claim`, {})).status).toBe(200);
    expect((await on(hostname, 'GET', `/v1/requests/${request.id}`)).body).toMatchObject({ id: request.id, open: true });
    const listed = await api.get(`/v1/domains?workspace_id=${workspace.id}`, workspace.owner.auth);
    expect(listed.body.items).toMatchObject([{ id: domainId, hostname, state: 'verified' }]);

    await setWorkspace(runtime, workspace.id, { plan: 'team' });
    for (const [kind, make] of Object.entries(create)) {
      const again = await make({ workspace_id: workspace.id, hostname });
      expect(again.status, `${kind}: ${JSON.stringify(again.body)}`).toBeLessThan(300);
      expect(new URL(again.body.url_base).origin).toBe(originOn(hostname));
    }
  });
});
