import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { seal } from '../../shared/envelope/envelope.ts';
import { fileSealer } from '../../shared/envelope/stream.ts';
import { createKey, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { secretEventsOf } from '../support/events.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime, textSecretBody, type Reply } from '../support/runtime.ts';
import { joinAs, send, setWorkspace, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// A workspace's policy enforced where something is created with its workspace_id (interface
// §4.7): text secrets, files (at opening, on the passphrase the client declares, and at
// completion, where the header must say the same) and request links. Only members send inside
// a workspace; the policy's own rules are unit-tested (test/unit/workspace-policy.test.ts).

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const hour = 3600;

/** A Team workspace with one member besides its owner. */
async function workspaceWithMember(): Promise<{ workspace: TeamWorkspace; member: SignedIn }> {
  const workspace = await teamWorkspace(runtime);
  return { workspace, member: await joinAs(runtime, workspace, workspace.owner, 'member') };
}

async function setPolicy(workspace: TeamWorkspace, policy: Record<string, unknown>): Promise<void> {
  const reply = await send(runtime, 'PUT', `/v1/workspaces/${workspace.id}/policy`, policy, workspace.owner.auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

/** 403 `policy_violation` naming exactly these rules at these fields, in order. */
function expectViolations(reply: Reply, broken: Array<[rule: string, path: string]>): void {
  expectProblem(reply, 403, 'policy_violation');
  expect(reply.body.errors.map((error: { path: string }) => error.path)).toEqual(broken.map(([, path]) => path));
  expect(reply.body.rules).toEqual(broken.map(([rule]) => rule));
}

function expectNotAMember(reply: Reply): void {
  expectProblem(reply, 403, 'forbidden');
  expect(reply.body.reason).toBe('not_a_member');
}

/** A well-formed id of a workspace that does not exist. */
const unknownWorkspaceId = () => `wks_${randomBytes(16).toString('base64url')}`;
const restrictedAt = (domain: string) => ({ email: newEmail('to', domain), restricted: true });

// Sealing with a passphrase runs PBKDF2 (600,000 rounds): each envelope is made once and sent as
// often as needed (the server checks a header, never that a salt is fresh).
type TextEnvelope = { envelope: string; salt: string; size_bytes: number };
let textWithPassphrase: TextEnvelope;
let textWithout: TextEnvelope;
let fileWithPassphrase: { envelope: Uint8Array; salt: string };
let fileWithout: { envelope: Uint8Array; salt: string };

async function sealedText(passphrase?: string): Promise<TextEnvelope> {
  const sealed = await seal({ kind: 'text', plaintext: randomBytes(40), ...(passphrase ? { passphrase } : {}) });
  return { envelope: Buffer.from(sealed.envelope).toString('base64'), salt: sealed.salt, size_bytes: sealed.envelope.length };
}

async function sealedFile(passphrase?: string): Promise<{ envelope: Uint8Array; salt: string }> {
  const plaintext = randomBytes(50_000);
  const sealer = await fileSealer({
    meta: { name: 'plan.pdf', type: 'application/pdf', size: plaintext.length },
    ...(passphrase ? { passphrase } : {}),
  });
  const chunks: Uint8Array[] = [];
  const count = sealer.chunkCount(plaintext.length);
  for (let index = 0, start = 0; index < count; index++, start += sealer.chunkBytes) {
    chunks.push(await sealer.encryptChunk(index, index === count - 1, plaintext.subarray(start, start + sealer.chunkBytes)));
  }
  return { envelope: Buffer.concat([sealer.prefix, ...chunks]), salt: sealer.salt };
}

beforeAll(async () => {
  [textWithPassphrase, textWithout, fileWithPassphrase, fileWithout] = await Promise.all([
    sealedText('correct horse battery'),
    sealedText(),
    sealedFile('correct horse battery'),
    sealedFile(),
  ]);
});

const createText = (body: Record<string, unknown>, auth?: Record<string, string>) =>
  api.post('/v1/secrets', { kind: 'text', ...textWithout, ...body }, auth);
const openFile = (body: Record<string, unknown>, auth?: Record<string, string>) =>
  api.post('/v1/files/multipart', { size_bytes: fileWithout.envelope.length, salt: fileWithout.salt, ...body }, auth);
const createLink = (body: Record<string, unknown>, auth: Record<string, string>) =>
  api.post('/v1/requests', { public_key: randomBytes(32).toString('base64url'), kem: 'x25519', ...body }, auth);

/** Opens, uploads (one part) and completes a sealed file with `opening` as its opening body. */
async function sendFile(file: { envelope: Uint8Array; salt: string }, opening: Record<string, unknown>, auth: Record<string, string>) {
  const opened = await api.post('/v1/files/multipart', { size_bytes: file.envelope.length, salt: file.salt, ...opening }, auth);
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const put = await fetch(opened.body.parts[0].url, { method: 'PUT', body: new Blob([file.envelope as Uint8Array<ArrayBuffer>]) });
  expect(put.status).toBe(200);
  const ref = { id: opened.body.id, upload_id: opened.body.upload_id, delete_token: opened.body.delete_token };
  return {
    id: opened.body.id as string,
    completed: await api.post('/v1/files/multipart/complete', { ...ref, parts: [{ part_number: 1, etag: put.headers.get('etag') }] }),
  };
}

const storedSecret = (id: string) => runtime.functions.secrets.secrets.get(id);
const objectExists = async (id: string) => (await runtime.functions.files.uploads.size(`files/${id}`)) !== null;

describe('text secrets (POST /v1/secrets with workspace_id)', () => {
  it('a member sends inside the workspace: the secret records the workspace, and its events carry workspace_id', async () => {
    const { workspace, member } = await workspaceWithMember();
    const created = await createText({ workspace_id: workspace.id }, member.auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await storedSecret(created.body.id))?.workspaceId).toBe(workspace.id);
    const outside = await createText({}, member.auth);
    expect((await storedSecret(outside.body.id))?.workspaceId).toBeUndefined();
    // A view too: every event of the secret carries it, none of the other's.
    await api.post(`/v1/secrets/${created.body.id}/claim`, {});
    const events = await secretEventsOf(runtime, created.body.id);
    expect(events.map((event) => [event.type, event.workspace_id])).toEqual([
      ['secret.created', workspace.id],
      ['secret.viewed', workspace.id],
      ['secret.burned', workspace.id],
    ]);
    expect((await secretEventsOf(runtime, outside.body.id)).every((event) => !('workspace_id' in event))).toBe(true);
  });

  it('refuses each rule alone with its errors entry and rule; exactly at every limit passes', async () => {
    const { workspace, member } = await workspaceWithMember();
    await setPolicy(workspace, {
      max_expires_in: hour,
      max_views: 2,
      require_passphrase: true,
      allowed_recipient_domains: ['team.example'],
    });
    const atLimits = {
      ...textWithPassphrase,
      workspace_id: workspace.id,
      expires_in: hour,
      max_views: 2,
      recipients: [restrictedAt('team.example'), restrictedAt('team.example')],
    };
    const allowed = await createText(atLimits, member.auth);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(201);
    expect((await storedSecret(allowed.body.id))?.workspaceId).toBe(workspace.id);

    const cases: Array<[string, Record<string, unknown>, Array<[string, string]>]> = [
      ['a longer life', { expires_in: hour + 1 }, [['max_expires_in', 'body.expires_in']]],
      ['more views', { max_views: 3 }, [['max_views', 'body.max_views']]],
      ['no passphrase', { ...textWithout }, [['require_passphrase', 'body.envelope']]],
      [
        'an unrestricted recipient',
        { recipients: [restrictedAt('team.example'), { email: newEmail('to', 'team.example') }] },
        [['allowed_recipient_domains', 'body.recipients.1.restricted']],
      ],
      [
        'a recipient at another domain',
        { recipients: [restrictedAt('sub.team.example')] },
        [['allowed_recipient_domains', 'body.recipients.0.email']],
      ],
      ['no recipients', { recipients: undefined }, [['allowed_recipient_domains', 'body.recipients']]],
    ];
    for (const [what, change, broken] of cases) {
      const reply = await createText({ ...atLimits, ...change }, member.auth);
      expect(reply.status, what).toBe(403);
      expectViolations(reply, broken);
    }
  });

  it('reports every rule broken at once, one entry each', async () => {
    const { workspace, member } = await workspaceWithMember();
    await setPolicy(workspace, {
      max_expires_in: hour,
      max_views: 1,
      require_passphrase: true,
      allowed_recipient_domains: ['team.example'],
    });
    const reply = await createText(
      { workspace_id: workspace.id, expires_in: 2 * hour, max_views: 2, recipients: [{ email: newEmail('to', 'elsewhere.example') }] },
      member.auth,
    );
    expectViolations(reply, [
      ['max_expires_in', 'body.expires_in'],
      ['max_views', 'body.max_views'],
      ['require_passphrase', 'body.envelope'],
      ['allowed_recipient_domains', 'body.recipients.0.restricted'],
      ['allowed_recipient_domains', 'body.recipients.0.email'],
    ]);
  });

  it('an envelope of another format has no passphrase flag to show: a passphrase rule refuses it', async () => {
    const { workspace, member } = await workspaceWithMember();
    await setPolicy(workspace, { require_passphrase: true });
    expectViolations(await api.post('/v1/secrets', textSecretBody({ workspace_id: workspace.id }), member.auth), [
      ['require_passphrase', 'body.envelope'],
    ]);
    // Without the rule it is sent as anywhere else.
    await setPolicy(workspace, {});
    expect((await api.post('/v1/secrets', textSecretBody({ workspace_id: workspace.id }), member.auth)).status).toBe(201);
  });

  it('403 not_a_member for anonymous callers, non-members, removed members, unknown and malformed ids; a bad body is 400 first', async () => {
    const { workspace, member } = await workspaceWithMember();
    const outsider = await signIn(runtime, newEmail('outsider'));
    expectNotAMember(await createText({ workspace_id: workspace.id }));
    expectNotAMember(await createText({ workspace_id: workspace.id }, outsider.auth));
    expectNotAMember(await createText({ workspace_id: unknownWorkspaceId() }, member.auth));
    expectNotAMember(await createText({ workspace_id: 'wks_team' }, member.auth));
    expectProblem(await createText({ workspace_id: workspace.id, max_views: 0 }, outsider.auth), 400, 'invalid_request');
    expect(
      (await send(runtime, 'DELETE', `/v1/workspaces/${workspace.id}/members/${member.user.id}`, undefined, workspace.owner.auth)).status,
    ).toBe(200);
    expectNotAMember(await createText({ workspace_id: workspace.id }, member.auth));
  });

  it('an API key of a member (secrets:write) sends inside the workspace, held to the same policy; a non-member’s key is refused', async () => {
    const { workspace, member } = await workspaceWithMember();
    await setPolicy(workspace, { max_views: 1 });
    const key = await createKey(runtime, member, ['secrets:write']);
    const created = await createText({ workspace_id: workspace.id }, key.auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await storedSecret(created.body.id)).toMatchObject({ workspaceId: workspace.id, ownerId: member.user.id });
    expectViolations(await createText({ workspace_id: workspace.id, max_views: 2 }, key.auth), [['max_views', 'body.max_views']]);
    const outsiderKey = await createKey(runtime, await signIn(runtime, newEmail('outsider')), ['secrets:write']);
    expectNotAMember(await createText({ workspace_id: workspace.id }, outsiderKey.auth));
  });

  it('a workspace without Team has no policy, and members send in it; a policy set under Team keeps applying after the plan drops', async () => {
    const free = await teamWorkspace(runtime, 10, 'free');
    const freeMember = await joinAs(runtime, free, free.owner, 'member');
    expectProblem(await send(runtime, 'PUT', `/v1/workspaces/${free.id}/policy`, { max_views: 1 }, free.owner.auth), 403, 'forbidden');
    const sent = await createText({ workspace_id: free.id, max_views: 5 }, freeMember.auth);
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect((await storedSecret(sent.body.id))?.workspaceId).toBe(free.id);

    const { workspace, member } = await workspaceWithMember();
    await setPolicy(workspace, { max_views: 1 });
    await setWorkspace(runtime, workspace.id, { plan: 'free' });
    expectViolations(await createText({ workspace_id: workspace.id, max_views: 5 }, member.auth), [['max_views', 'body.max_views']]);
  });
});

describe('files (POST /v1/files/multipart with workspace_id)', () => {
  it('refuses each rule alone at opening, before anything is uploaded; exactly at every limit opens', async () => {
    const { workspace, member } = await workspaceWithMember();
    const size = fileWithout.envelope.length;
    await setPolicy(workspace, {
      max_expires_in: hour,
      max_views: 2,
      require_passphrase: true,
      allowed_recipient_domains: ['team.example'],
      max_file_bytes: size,
    });
    const atLimits = {
      workspace_id: workspace.id,
      expires_in: hour,
      max_views: 2,
      passphrase: true,
      recipients: [restrictedAt('team.example')],
    };
    const opened = await openFile(atLimits, member.auth);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(await storedSecret(opened.body.id)).toMatchObject({ state: 'pending', workspaceId: workspace.id });

    const cases: Array<[string, Record<string, unknown>, Array<[string, string]>]> = [
      ['a longer life', { expires_in: hour + 1 }, [['max_expires_in', 'body.expires_in']]],
      ['more views', { max_views: 3 }, [['max_views', 'body.max_views']]],
      ['a bigger file', { size_bytes: size + 1 }, [['max_file_bytes', 'body.size_bytes']]],
      ['no passphrase declared', { passphrase: undefined }, [['require_passphrase', 'body.passphrase']]],
      [
        'a recipient at another domain',
        { recipients: [restrictedAt('elsewhere.example')] },
        [['allowed_recipient_domains', 'body.recipients.0.email']],
      ],
    ];
    for (const [what, change, broken] of cases) {
      const reply = await openFile({ ...atLimits, ...change }, member.auth);
      expect(reply.status, what).toBe(403);
      expectViolations(reply, broken);
    }
  });

  it('refuses files where the policy allows none, with every other rule broken at once', async () => {
    const { workspace, member } = await workspaceWithMember();
    await setPolicy(workspace, { allow_files: false, max_views: 1, max_file_bytes: 100 });
    expectViolations(await openFile({ workspace_id: workspace.id, max_views: 2 }, member.auth), [
      ['allow_files', 'body.workspace_id'],
      ['max_views', 'body.max_views'],
      ['max_file_bytes', 'body.size_bytes'],
    ]);
  });

  it('completes an honest upload: the file records the workspace, with its passphrase as its header says', async () => {
    const { workspace, member } = await workspaceWithMember();
    await setPolicy(workspace, { require_passphrase: true });
    const { id, completed } = await sendFile(fileWithPassphrase, { workspace_id: workspace.id, passphrase: true }, member.auth);
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect((await api.get(`/v1/secrets/${id}`)).body).toMatchObject({ kind: 'file', state: 'active', passphrase: true });
    expect((await storedSecret(id))?.workspaceId).toBe(workspace.id);
    expect((await secretEventsOf(runtime, id)).map((event) => event.workspace_id)).toEqual([workspace.id]);
  });

  it('a header that contradicts the declaration is 409 envelope_mismatch at completion, and the upload ends', async () => {
    const { workspace, member } = await workspaceWithMember();
    await setPolicy(workspace, { require_passphrase: true });
    // Declared a passphrase to pass the rule, uploaded a file without one.
    const lie = await sendFile(fileWithout, { workspace_id: workspace.id, passphrase: true }, member.auth);
    expectProblem(lie.completed, 409, 'conflict');
    expect(lie.completed.body.reason).toBe('envelope_mismatch');
    expect((await api.get(`/v1/secrets/${lie.id}`)).body.state).toBe('revoked');
    expect(await objectExists(lie.id)).toBe(false);
    // The declaration must be exact either way, rule or not.
    await setPolicy(workspace, {});
    const understated = await sendFile(fileWithPassphrase, { workspace_id: workspace.id }, member.auth);
    expectProblem(understated.completed, 409, 'conflict');
    expect(understated.completed.body.reason).toBe('envelope_mismatch');
    expect((await api.get(`/v1/secrets/${understated.id}`)).body.state).toBe('revoked');
  });

  it('403 not_a_member at opening for anonymous callers, non-members and unknown workspaces; an API key of a member opens', async () => {
    const { workspace, member } = await workspaceWithMember();
    const outsider = await signIn(runtime, newEmail('outsider'));
    expectNotAMember(await openFile({ workspace_id: workspace.id }));
    expectNotAMember(await openFile({ workspace_id: workspace.id }, outsider.auth));
    expectNotAMember(await openFile({ workspace_id: unknownWorkspaceId() }, member.auth));
    const key = await createKey(runtime, member, ['secrets:write']);
    const opened = await openFile({ workspace_id: workspace.id }, key.auth);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect((await storedSecret(opened.body.id))?.workspaceId).toBe(workspace.id);
  });

  it('a response to a request link is not sent in a workspace (400)', async () => {
    const { workspace, member } = await workspaceWithMember();
    const body = { workspace_id: workspace.id, request_id: 'rql_x', enc: 'AAAA', wrapped_key: 'AAAA' };
    const reply = await openFile(body, member.auth);
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.errors.map((error: { path: string }) => error.path)).toContain('body.workspace_id');
  });
});

describe('request links (POST /v1/requests with workspace_id)', () => {
  it('a member publishes inside the workspace: the link records it; exactly at the longest life passes', async () => {
    const { workspace, member } = await workspaceWithMember();
    // Views and recipients are no rules of a request link.
    await setPolicy(workspace, {
      max_expires_in: hour,
      max_views: 1,
      require_passphrase: true,
      allowed_recipient_domains: ['team.example'],
    });
    const created = await createLink({ workspace_id: workspace.id, expires_in: hour, max_responses: 5 }, member.auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await runtime.functions.requests.requests.get(created.body.id))?.workspaceId).toBe(workspace.id);
    expectViolations(await createLink({ workspace_id: workspace.id, expires_in: hour + 1 }, member.auth), [
      ['max_expires_in', 'body.expires_in'],
    ]);
  });

  it('refuses links where the policy allows none, with the lifetime rule at once', async () => {
    const { workspace, member } = await workspaceWithMember();
    await setPolicy(workspace, { allow_requests: false });
    expectViolations(await createLink({ workspace_id: workspace.id }, member.auth), [['allow_requests', 'body.workspace_id']]);
    await setPolicy(workspace, { allow_requests: false, max_expires_in: hour });
    expectViolations(await createLink({ workspace_id: workspace.id, expires_in: 2 * hour }, member.auth), [
      ['allow_requests', 'body.workspace_id'],
      ['max_expires_in', 'body.expires_in'],
    ]);
  });

  it('403 not_a_member for non-members and unknown workspaces (the route takes a session: 401 without, 403 to a key)', async () => {
    const { workspace, member } = await workspaceWithMember();
    const outsider = await signIn(runtime, newEmail('outsider'));
    expectNotAMember(await createLink({ workspace_id: workspace.id }, outsider.auth));
    expectNotAMember(await createLink({ workspace_id: unknownWorkspaceId() }, member.auth));
    expectProblem(await createLink({ workspace_id: workspace.id }, {}), 401, 'unauthorized');
    const key = await createKey(runtime, member, ['secrets:write']);
    expectProblem(await createLink({ workspace_id: workspace.id }, key.auth), 403, 'forbidden');
  });
});
