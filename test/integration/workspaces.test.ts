import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Runtime } from '../../local/runtime.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { createKey, mailsTo, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime, type Reply } from '../support/runtime.ts';
import { invitationToken, joinAs, send, setWorkspace, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// Workspaces (interface §4.7) over HTTP against the local runtime: every route's statuses,
// seats and owners under parallel requests, invitations (reuse, expiry, the wrong address),
// and the audit row of every change. The role matrix is workspaces-roles.test.ts; the policy's
// enforcement on secrets, files and request links is workspaces-policy.test.ts; the use cases'
// rules (expiry, revoking, removing and leaving, exports) are test/usecases/workspaces-*.test.ts's.

const otherRegion = { id: 'eu-central-1', api_url: 'https://eu.hushlink.example' };

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({
    env: { REGION: 'us-east-1', REGIONS: JSON.stringify([{ id: 'us-east-1', api_url: 'http://localhost' }, otherRegion]) },
  });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const members = (workspace: Pick<TeamWorkspace, 'id'>, who: SignedIn) => api.get(`/v1/workspaces/${workspace.id}/members`, who.auth);
const auditOf = async (workspace: TeamWorkspace) =>
  (await api.get(`/v1/workspaces/${workspace.id}/audit?limit=200`, workspace.owner.auth)).body.items as any[];
const invite = (workspace: Pick<TeamWorkspace, 'id'>, who: SignedIn, email: string, role = 'member') =>
  api.post(`/v1/workspaces/${workspace.id}/invitations`, { email, role }, who.auth);
const accept = (who: SignedIn, token: string) => api.post('/v1/workspaces/invitations/accept', { token }, who.auth);
const roster = async (workspace: TeamWorkspace) => runtime.functions.workspaces.workspaces.roster(workspace.id);

describe('POST /v1/workspaces', () => {
  it('answers 201 with the caller as owner of one seat, a slug from the name, and lists it', async () => {
    const owner = await signIn(runtime, newEmail('maker'));
    const made = await api.post('/v1/workspaces', { name: 'Ünïcode Platform Team' }, owner.auth);
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^wks_/),
      name: 'Ünïcode Platform Team',
      slug: 'unicode-platform-team',
      region: 'us-east-1',
      role: 'owner',
      seats: 1,
      members: 1,
    });
    const listed = await api.get('/v1/workspaces', owner.auth);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      {
        id: made.body.id,
        name: 'Ünïcode Platform Team',
        slug: 'unicode-platform-team',
        role: 'owner',
        plan: 'free',
        seats: 1,
        members: 1,
        policy: {
          max_expires_in: null,
          max_views: null,
          require_passphrase: null,
          allowed_recipient_domains: null,
          allow_files: null,
          max_file_bytes: null,
          allow_requests: null,
          scim_admin_group: null,
        },
        branding: null,
      },
    ]);
    // The same name again gets a slug of its own.
    const again = await api.post('/v1/workspaces', { name: 'Ünïcode Platform Team' }, owner.auth);
    expect(again.status).toBe(201);
    expect(again.body.slug).toMatch(/^unicode-platform-team-[0-9a-f]{6}$/);
  });

  it('answers 409 for a slug that is taken', async () => {
    const owner = await signIn(runtime, newEmail('slug'));
    const slug = `acme-${Date.now().toString(36)}`;
    expect((await api.post('/v1/workspaces', { name: 'Acme', slug }, owner.auth)).status).toBe(201);
    const taken = await api.post('/v1/workspaces', { name: 'Other', slug }, owner.auth);
    expectProblem(taken, 409, 'conflict');
    expect(taken.body.errors).toEqual([{ path: 'body.slug', message: 'is taken' }]);
  });

  it('answers 421 naming the api_url of the region asked for, and 400 for a region that does not exist', async () => {
    const owner = await signIn(runtime, newEmail('region'));
    const elsewhere = await api.post('/v1/workspaces', { name: 'EU team', region: otherRegion.id }, owner.auth);
    expectProblem(elsewhere, 421, 'misdirected');
    expect(elsewhere.body).toMatchObject({ region: otherRegion.id, api_url: otherRegion.api_url });
    expect((await api.post('/v1/workspaces', { name: 'Here', region: 'us-east-1' }, owner.auth)).status).toBe(201);
    expectProblem(await api.post('/v1/workspaces', { name: 'Nowhere', region: 'mars-1' }, owner.auth), 400, 'invalid_request');
  });

  it('answers 400 for a bad body, 401 without a session and 403 to an API key', async () => {
    const owner = await signIn(runtime, newEmail('bad'));
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(81) },
      { name: 'A', slug: 'Not A Slug' },
      { name: 'A', slug: '-x-' },
      { name: 'A', extra: 1 },
    ]) {
      expectProblem(await api.post('/v1/workspaces', body, owner.auth), 400, 'invalid_request');
    }
    expectProblem(await api.post('/v1/workspaces', { name: 'A' }), 401, 'unauthorized');
    expectProblem(await api.get('/v1/workspaces'), 401, 'unauthorized');
    const key = await createKey(runtime, owner, ['secrets:write', 'secrets:read', 'receipts:read']);
    expectProblem(await api.post('/v1/workspaces', { name: 'A' }, key.auth), 403, 'forbidden');
    expectProblem(await api.get('/v1/workspaces', key.auth), 403, 'forbidden');
  });
});

describe('invitations', () => {
  it('mails a one-time /join link; accepting it makes a member listed with source invitation; the token is stored only as a hash', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const email = newEmail('invitee');
    const invited = await invite(workspace, workspace.owner, email.toUpperCase(), 'admin');
    expect(invited.status).toBe(201);
    expect(invited.body).toEqual({ id: expect.stringMatching(/^inv_/), email, role: 'admin', expires_at: expect.any(String) });
    expect(Math.abs(Date.parse(invited.body.expires_at) - runtime.clock.now() - workspaceLimits.invitationSeconds * 1000)).toBeLessThan(
      5000,
    );
    const token = invitationToken(runtime, email);
    expect(mailsTo(runtime, email)[0]!.text).toContain(`${runtime.config.WEB_ORIGIN}/join#${token}`);
    expect(JSON.stringify(await runtime.functions.workspaces.workspaces.roll(workspace.id))).not.toContain(token);
    expect((await members(workspace, workspace.owner)).body.invitations).toEqual([
      { id: invited.body.id, email, role: 'admin', expires_at: invited.body.expires_at },
    ]);

    const person = await signIn(runtime, email);
    const accepted = await accept(person, token);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ workspace_id: workspace.id, role: 'admin' });
    const roll = (await members(workspace, person)).body;
    expect(roll.invitations).toEqual([]);
    expect(roll.items.map((member: any) => [member.email, member.role, member.source])).toEqual([
      [workspace.owner.user.email, 'owner', 'owner'],
      [email, 'admin', 'invitation'],
    ]);
    expect((await api.get('/v1/workspaces', person.auth)).body.items).toEqual([
      expect.objectContaining({ id: workspace.id, role: 'admin', plan: 'team', seats: 3, members: 2 }),
    ]);
  });

  it('answers 410 for a token used already, 404 for an unknown one, 403 for another address, 400 for no token', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const email = newEmail('once');
    await invite(workspace, workspace.owner, email);
    const token = invitationToken(runtime, email);
    const stranger = await signIn(runtime, newEmail('stranger'));
    const wrong = await accept(stranger, token);
    expectProblem(wrong, 403, 'forbidden');
    expect(wrong.body.reason).toBe('wrong_address');
    const person = await signIn(runtime, email);
    expect((await accept(person, token)).status).toBe(200);
    const reused = await accept(person, token);
    expectProblem(reused, 410, 'gone');
    expect(reused.body.reason).toBe('used');
    expectProblem(await accept(person, 'hli_nope'), 404, 'not_found');
    expectProblem(await api.post('/v1/workspaces/invitations/accept', {}, person.auth), 400, 'invalid_request');
    expectProblem(await api.post('/v1/workspaces/invitations/accept', { token }), 401, 'unauthorized');
  });

  it('answers 400 for a member already in or invited, 403 for a member and with no free seat, 404 for a non-member', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    expectProblem(await invite(workspace, workspace.owner, member.user.email), 400, 'invalid_request');
    const pending = newEmail('pending');
    expect((await invite(workspace, workspace.owner, pending)).status).toBe(201);
    expectProblem(await invite(workspace, workspace.owner, pending), 400, 'invalid_request');
    expectProblem(await invite(workspace, workspace.owner, 'not an address'), 400, 'invalid_request');
    expectProblem(await invite(workspace, workspace.owner, newEmail('x'), 'owner'), 400, 'invalid_request');
    expectProblem(await invite(workspace, member, newEmail('by-member')), 403, 'forbidden');
    const full = await invite(workspace, workspace.owner, newEmail('full'));
    expectProblem(full, 403, 'forbidden');
    expect(full.body.reason).toBe('no_free_seat');
    const outsider = await signIn(runtime, newEmail('outsider'));
    expectProblem(await invite(workspace, outsider, newEmail('y')), 404, 'not_found');
    expectProblem(await invite({ id: 'wks_unknown' }, outsider, newEmail('y')), 404, 'not_found');
    expectProblem(
      await api.post(`/v1/workspaces/${workspace.id}/invitations`, { email: newEmail('z'), role: 'member' }),
      401,
      'unauthorized',
    );
  });

  it('10 parallel invitations with 3 free seats make exactly 3, and 10 parallel acceptances of those 3 make exactly 3 members', async () => {
    const workspace = await teamWorkspace(runtime, 4);
    const emails = Array.from({ length: 10 }, (_, i) => newEmail(`race${i}`));
    const invited = await Promise.all(emails.map((email) => invite(workspace, workspace.owner, email)));
    expect(invited.map((reply) => reply.status).sort()).toEqual([201, 201, 201, 403, 403, 403, 403, 403, 403, 403]);
    expect(await roster(workspace)).toEqual({ seats: 4, used: 4, owners: 1, members: 1 });
    const winners = emails.filter((_, i) => invited[i]!.status === 201);
    const people = await Promise.all(winners.map((email) => signIn(runtime, email)));
    // Each invitee accepts three or four times at once: 10 acceptances for 3 seats.
    const attempts = Array.from({ length: 10 }, (_, i) => i % 3).map((who) =>
      accept(people[who]!, invitationToken(runtime, winners[who]!)),
    );
    const answers = await Promise.all(attempts);
    expect(answers.filter((reply) => reply.status === 200)).toHaveLength(3);
    expect(answers.every((reply) => reply.status === 200 || reply.status === 410)).toBe(true);
    expect(await roster(workspace)).toEqual({ seats: 4, used: 4, owners: 1, members: 4 });
    expect((await members(workspace, workspace.owner)).body.items).toHaveLength(4);
  });

  it('10 parallel acceptances with 3 free seats make exactly 3 joins (seats lowered below the pending invitations, as a seat change may)', async () => {
    const workspace = await teamWorkspace(runtime, 11);
    const emails = Array.from({ length: 10 }, (_, i) => newEmail(`seat${i}`));
    for (const email of emails) expect((await invite(workspace, workspace.owner, email)).status).toBe(201);
    // Billing may lower the seats to the member count and no further: 4 seats, 1 member.
    await setWorkspace(runtime, workspace.id, { seats: 4 });
    const people = await Promise.all(emails.map((email) => signIn(runtime, email)));
    const answers = await Promise.all(people.map((person, i) => accept(person, invitationToken(runtime, emails[i]!))));
    expect(answers.filter((reply) => reply.status === 200)).toHaveLength(3);
    for (const refused of answers.filter((reply) => reply.status !== 200)) {
      expectProblem(refused, 403, 'forbidden');
      expect(refused.body.reason).toBe('no_free_seat');
    }
    expect(await roster(workspace)).toMatchObject({ seats: 4, members: 4 });
    expect((await members(workspace, workspace.owner)).body.items).toHaveLength(4);
  });
});

describe('members: removal, roles, transfer', () => {
  it('answers 409 when the last owner would be removed or leave, and 403 to a member removing someone', async () => {
    const workspace = await teamWorkspace(runtime, 5);
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    const admin = await joinAs(runtime, workspace, workspace.owner, 'admin');
    const last = await api.delete(`/v1/workspaces/${workspace.id}/members/${workspace.owner.user.id}`, workspace.owner.auth);
    expectProblem(last, 409, 'conflict');
    expect(last.body.reason).toBe('last_owner');
    expectProblem(await api.delete(`/v1/workspaces/${workspace.id}/members/${admin.user.id}`, member.auth), 403, 'forbidden');
    expectProblem(await api.delete(`/v1/workspaces/${workspace.id}/members/${member.user.id}`), 401, 'unauthorized');
  });

  it('changes roles (owners only), never demoting the last owner (409); 400 for an unknown role, 404 for a non-member', async () => {
    const workspace = await teamWorkspace(runtime, 5);
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    const admin = await joinAs(runtime, workspace, workspace.owner, 'admin');
    const path = (userId: string) => `/v1/workspaces/${workspace.id}/members/${userId}`;
    const promoted = await send(runtime, 'PATCH', path(member.user.id), { role: 'admin' }, workspace.owner.auth);
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual({ user_id: member.user.id, role: 'admin' });
    expectProblem(await send(runtime, 'PATCH', path(member.user.id), { role: 'member' }, admin.auth), 403, 'forbidden');
    const demoteSelf = await send(runtime, 'PATCH', path(workspace.owner.user.id), { role: 'admin' }, workspace.owner.auth);
    expectProblem(demoteSelf, 409, 'conflict');
    expect(demoteSelf.body.reason).toBe('last_owner');
    expectProblem(await send(runtime, 'PATCH', path(member.user.id), { role: 'king' }, workspace.owner.auth), 400, 'invalid_request');
    expectProblem(await send(runtime, 'PATCH', path('usr_nobody'), { role: 'admin' }, workspace.owner.auth), 404, 'not_found');
    expectProblem(await send(runtime, 'PATCH', path(member.user.id), { role: 'admin' }, {}), 401, 'unauthorized');
    const rows = await auditOf(workspace);
    expect(rows[0]).toMatchObject({
      action: 'member.role_changed',
      target: member.user.id,
      details: { from: 'member', to: 'admin' },
      actor: { user_id: workspace.owner.user.id, email: workspace.owner.user.email, via: 'session' },
    });
  });

  it('two owners demoting each other at once leave exactly one owner, in every round', async () => {
    for (let round = 0; round < 5; round++) {
      const workspace = await teamWorkspace(runtime, 3);
      const second = await joinAs(runtime, workspace, workspace.owner, 'admin');
      expect(
        (await send(runtime, 'PATCH', `/v1/workspaces/${workspace.id}/members/${second.user.id}`, { role: 'owner' }, workspace.owner.auth))
          .status,
      ).toBe(200);
      const [a, b] = await Promise.all([
        send(runtime, 'PATCH', `/v1/workspaces/${workspace.id}/members/${second.user.id}`, { role: 'admin' }, workspace.owner.auth),
        send(runtime, 'PATCH', `/v1/workspaces/${workspace.id}/members/${workspace.owner.user.id}`, { role: 'admin' }, second.auth),
      ]);
      // The loser is no longer an owner (403) or would have been the last one (409).
      expect([a.status, b.status].filter((status) => status === 200)).toHaveLength(1);
      expect([a.status, b.status].every((status) => [200, 403, 409].includes(status))).toBe(true);
      const roll = (await members(workspace, workspace.owner)).body.items as any[];
      expect(roll.filter((member) => member.role === 'owner')).toHaveLength(1);
      expect(await roster(workspace)).toMatchObject({ owners: 1 });
    }
  });

  it('transfers: the target becomes owner, the previous owner an admin; both are mailed; 403 for a non-owner, 404 for a non-member, 400 to oneself', async () => {
    const workspace = await teamWorkspace(runtime, 5);
    const admin = await joinAs(runtime, workspace, workspace.owner, 'admin');
    const transferPath = `/v1/workspaces/${workspace.id}/transfer`;
    expectProblem(await api.post(transferPath, { user_id: workspace.owner.user.id }, admin.auth), 403, 'forbidden');
    expectProblem(await api.post(transferPath, { user_id: 'usr_nobody' }, workspace.owner.auth), 404, 'not_found');
    expectProblem(await api.post(transferPath, { user_id: workspace.owner.user.id }, workspace.owner.auth), 400, 'invalid_request');
    expectProblem(await api.post(transferPath, {}, workspace.owner.auth), 400, 'invalid_request');
    const moved = await api.post(transferPath, { user_id: admin.user.id }, workspace.owner.auth);
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({ owner: admin.user.id });
    const roles = Object.fromEntries(
      ((await members(workspace, admin)).body.items as any[]).map((member) => [member.user_id, member.role]),
    );
    expect(roles).toEqual({ [workspace.owner.user.id]: 'admin', [admin.user.id]: 'owner' });
    expect(mailsTo(runtime, admin.user.email)[0]!.subject).toMatch(/^You now own /);
    expect(mailsTo(runtime, workspace.owner.user.email)[0]!.subject).toMatch(/^You handed /);
    expect(await roster(workspace)).toMatchObject({ owners: 1 });
    expectProblem(await api.post(transferPath, { user_id: admin.user.id }, workspace.owner.auth), 403, 'forbidden');
  });
});

describe('GET /v1/workspaces/{id}/members', () => {
  it('lists for any member; 404 for a non-member and an unknown id, 401 without a session, 403 to an API key', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    expect((await members(workspace, member)).status).toBe(200);
    const outsider = await signIn(runtime, newEmail('outsider'));
    expectProblem(await members(workspace, outsider), 404, 'not_found');
    expectProblem(await members({ id: 'wks_unknown' }, workspace.owner), 404, 'not_found');
    expectProblem(await api.get(`/v1/workspaces/${workspace.id}/members`), 401, 'unauthorized');
    const key = await createKey(runtime, workspace.owner, ['secrets:read']);
    expectProblem(await api.get(`/v1/workspaces/${workspace.id}/members`, key.auth), 403, 'forbidden');
  });
});

describe('policy and branding', () => {
  it('sets the policy (admins and owners, Team only) and answers it; 400 for bad rules; 403 without Team', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const admin = await joinAs(runtime, workspace, workspace.owner, 'admin');
    const path = `/v1/workspaces/${workspace.id}/policy`;
    const set = await send(
      runtime,
      'PUT',
      path,
      { max_views: 3, require_passphrase: true, allowed_recipient_domains: ['Example.COM.'] },
      admin.auth,
    );
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      max_expires_in: null,
      max_views: 3,
      require_passphrase: true,
      allowed_recipient_domains: ['example.com'],
      allow_files: null,
      max_file_bytes: null,
      allow_requests: null,
      scim_admin_group: null,
    });
    expect((await auditOf(workspace))[0]).toMatchObject({ action: 'policy.updated', target: workspace.id, details: { max_views: 3 } });
    expectProblem(await send(runtime, 'PUT', path, { max_views: 0 }, admin.auth), 400, 'invalid_request');
    expectProblem(await send(runtime, 'PUT', path, { allowed_recipient_domains: ['*.example.com'] }, admin.auth), 400, 'invalid_request');
    await setWorkspace(runtime, workspace.id, { plan: 'free' });
    const free = await send(runtime, 'PUT', path, { max_views: 3 }, admin.auth);
    expectProblem(free, 403, 'forbidden');
    expect(free.body.reason).toBe('plan');
    expectProblem(await send(runtime, 'PUT', `/v1/workspaces/wks_unknown/policy`, {}, admin.auth), 404, 'not_found');
    expectProblem(await send(runtime, 'PUT', path, {}, {}), 401, 'unauthorized');
  });

  it('sets branding with a checked logo and accent; refuses SVG and a low-contrast accent (400); 403 for a member', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    const path = `/v1/workspaces/${workspace.id}/branding`;
    const png = tinyPng();
    const set = await send(
      runtime,
      'PUT',
      path,
      { display_name: 'Acme Security', logo: `data:image/png;base64,${png}`, accent: '#1D4ED8' },
      workspace.owner.auth,
    );
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ display_name: 'Acme Security', logo: `data:image/png;base64,${png}`, accent: '#1d4ed8' });
    expect((await api.get('/v1/workspaces', member.auth)).body.items[0].branding).toEqual(set.body);
    const row = (await auditOf(workspace))[0];
    expect(row).toMatchObject({ action: 'branding.updated', details: { display_name: 'Acme Security', logo: 'set', accent: '#1d4ed8' } });
    expect(JSON.stringify(row)).not.toContain(png);
    const svg = await send(
      runtime,
      'PUT',
      path,
      { display_name: 'A', logo: `data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}` },
      workspace.owner.auth,
    );
    expectProblem(svg, 400, 'invalid_request');
    expect(svg.body.errors.map((error: any) => error.path)).toEqual(['body.logo']);
    const pale = await send(runtime, 'PUT', path, { display_name: 'A', accent: '#ffff00' }, workspace.owner.auth);
    expectProblem(pale, 400, 'invalid_request');
    expect(pale.body.errors.map((error: any) => error.path)).toEqual(['body.accent']);
    expectProblem(await send(runtime, 'PUT', path, { display_name: 'A' }, member.auth), 403, 'forbidden');
    expectProblem(await send(runtime, 'PUT', `/v1/workspaces/wks_unknown/branding`, { display_name: 'A' }, member.auth), 404, 'not_found');
    expectProblem(await send(runtime, 'PUT', path, { display_name: 'A' }, {}), 401, 'unauthorized');
  });

  it('shows on the metadata of a secret sent inside a Team workspace, and nowhere else', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const branding = { display_name: 'Acme Security', logo: `data:image/png;base64,${tinyPng()}`, accent: '#1d4ed8' };
    expect((await send(runtime, 'PUT', `/v1/workspaces/${workspace.id}/branding`, branding, workspace.owner.auth)).status).toBe(200);
    const body = { kind: 'text', envelope: Buffer.alloc(64).toString('base64'), salt: 'A'.repeat(22), size_bytes: 64 };
    const inside = await api.post('/v1/secrets', { ...body, workspace_id: workspace.id }, workspace.owner.auth);
    expect(inside.status).toBe(201);
    const outside = await api.post('/v1/secrets', body, workspace.owner.auth);
    expect((await api.get(`/v1/secrets/${inside.body.id}`)).body.branding).toEqual(branding);
    expect((await api.get(`/v1/secrets/${outside.body.id}`)).body).not.toHaveProperty('branding');
    // Never in the owner's listing, and not once the workspace's plan no longer includes it.
    const listed = (await api.get('/v1/secrets', workspace.owner.auth)).body.items as any[];
    expect(listed.find((item) => item.id === inside.body.id)).not.toHaveProperty('branding');
    await setWorkspace(runtime, workspace.id, { plan: 'free' });
    expect((await api.get(`/v1/secrets/${inside.body.id}`)).body).not.toHaveProperty('branding');
  });
});

describe('the audit trail', () => {
  it('has a row for every change, newest first, with no IP address; members and outsiders get 404', async () => {
    const workspace = await teamWorkspace(runtime, 4);
    const admin = await joinAs(runtime, workspace, workspace.owner, 'admin');
    const member = await joinAs(runtime, workspace, admin, 'member');
    await send(runtime, 'PATCH', `/v1/workspaces/${workspace.id}/members/${member.user.id}`, { role: 'admin' }, workspace.owner.auth);
    await send(runtime, 'PUT', `/v1/workspaces/${workspace.id}/policy`, { max_views: 2 }, admin.auth);
    await send(runtime, 'PUT', `/v1/workspaces/${workspace.id}/branding`, { display_name: 'Acme' }, admin.auth);
    await api.post(`/v1/workspaces/${workspace.id}/transfer`, { user_id: admin.user.id }, workspace.owner.auth);
    await api.delete(`/v1/workspaces/${workspace.id}/members/${member.user.id}`, admin.auth);
    const page = await api.get(`/v1/workspaces/${workspace.id}/audit`, admin.auth);
    expect(page.status).toBe(200);
    expect(page.body.items.map((row: any) => row.action)).toEqual([
      'member.removed',
      'workspace.transferred',
      'branding.updated',
      'policy.updated',
      'member.role_changed',
      'member.joined',
      'member.invited',
      'member.joined',
      'member.invited',
      'workspace.created',
    ]);
    expect(JSON.stringify(page.body)).not.toMatch(/127\.0\.0\.1|::1|::ffff/);
    for (const row of page.body.items) expect(row.actor.via).toBe('session');
    const first = await api.get(`/v1/workspaces/${workspace.id}/audit?limit=4`, admin.auth);
    const rest = await api.get(`/v1/workspaces/${workspace.id}/audit?limit=50&cursor=${first.body.next_cursor}`, admin.auth);
    expect([...first.body.items, ...rest.body.items]).toEqual(page.body.items);
    expectProblem(await api.get(`/v1/workspaces/${workspace.id}/audit?limit=0`, admin.auth), 400, 'invalid_request');
    const outsider = await signIn(runtime, newEmail('outsider'));
    expectProblem(await api.get(`/v1/workspaces/${workspace.id}/audit`, outsider.auth), 404, 'not_found');
    expectProblem(await api.get(`/v1/workspaces/${workspace.id}/audit`), 401, 'unauthorized');
  });
});

describe('a member’s tier', () => {
  it('is the highest of their own plan and their workspaces’: a free account in a Team workspace has Team’s flags and file size, until it leaves', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    const bigFile = { size_bytes: 200 * 1024 * 1024, salt: 'A'.repeat(22) };
    const flags = await api.get('/v1/flags', member.auth);
    expect(flags.body.flags).toMatchObject({ policy: true, receipts_device: true, signed_in: true });
    expect((await api.post('/v1/files/multipart', bigFile, member.auth)).status).toBe(200);
    expect((await api.get('/v1/usage', member.auth)).body.plan).toBe('team');
    // A free workspace gives nothing.
    await setWorkspace(runtime, workspace.id, { plan: 'free' });
    expect((await api.get('/v1/flags', member.auth)).body.flags).toMatchObject({ policy: false, receipts_device: false });
    await setWorkspace(runtime, workspace.id, { plan: 'team' });
    expect((await api.delete(`/v1/workspaces/${workspace.id}/members/${member.user.id}`, member.auth)).status).toBe(200);
    const left = await api.post('/v1/files/multipart', bigFile, member.auth);
    expectProblem(left, 403, 'forbidden');
    expect(left.body.reason).toBe('plan_limit');
    expect((await api.get('/v1/flags', member.auth)).body.flags).toMatchObject({ policy: false, receipts_device: false });
  });
});

describe('GET /v1/workspaces/{id}/audit/export', () => {
  it('answers the trail as a CSV attachment (RFC 4180, a byte order mark), cells that could start a formula escaped; and as JSON', async () => {
    // Addresses may begin with - or +: a spreadsheet would read such a cell as a formula.
    const owner = await signIn(runtime, `-2+3-${Date.now().toString(36)}@example.com`);
    const made = await api.post('/v1/workspaces', { name: '=HYPERLINK("https://evil.example")' }, owner.auth);
    await setWorkspace(runtime, made.body.id, { seats: 3, plan: 'team' });
    await send(runtime, 'PUT', `/v1/workspaces/${made.body.id}/branding`, { display_name: '@SUM(1+1)' }, owner.auth);
    const csv = await api.get(`/v1/workspaces/${made.body.id}/audit/export?format=csv`, owner.auth);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(csv.headers.get('content-disposition')).toMatch(
      /^attachment; filename="hushlink-audit-hyperlink-https-evil-example-\d{8}T\d{6}Z\.csv"$/,
    );
    expect(csv.headers.get('cache-control')).toBe('no-store');
    // The byte order mark (fetch's text() drops it, as every UTF-8 decoder does).
    const raw = Buffer.from(
      await (await fetch(`${runtime.url}/v1/workspaces/${made.body.id}/audit/export?format=csv`, { headers: owner.auth })).arrayBuffer(),
    );
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = csv.body as string;
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('id,at,actor_user_id,actor_email,via,action,target,details');
    expect(lines).toHaveLength(4); // the header, two rows, and the empty string after the last CRLF
    for (const line of lines.slice(1, 3)) expect(line).toContain(`,'${owner.user.email},session,`);
    expect(text).not.toMatch(/(^|,)[=+\-@]/m);

    const json = await api.get(`/v1/workspaces/${made.body.id}/audit/export?format=json`, owner.auth);
    expect(json.status).toBe(200);
    expect(json.headers.get('content-disposition')).toMatch(/\.json"$/);
    const trail = (await api.get(`/v1/workspaces/${made.body.id}/audit`, owner.auth)).body.items;
    expect(json.body).toEqual({ items: trail });
  });

  it('answers 404 to a member and a non-member, 400 for an unknown format', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    expectProblem(await api.get(`/v1/workspaces/${workspace.id}/audit/export`, member.auth), 404, 'not_found');
    expectProblem(await api.get(`/v1/workspaces/wks_unknown/audit/export`, member.auth), 404, 'not_found');
    expectProblem(await api.get(`/v1/workspaces/${workspace.id}/audit/export?format=xlsx`, workspace.owner.auth), 400, 'invalid_request');
    expectProblem(await api.get(`/v1/workspaces/${workspace.id}/audit/export`), 401, 'unauthorized');
  });

  it('exports a trail larger than a part in parts, each a whole file, the next named by link rel="next"; every row once', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    // Rows of about 1.6 KB (a policy naming 40 domains): 3,000 make a part of 4.8 MB, so 4,001
    // need two (24,000 rows of 180 bytes did it too, at six times the writes).
    await seedAuditRows(workspace.id, 4_000);
    const ids: string[] = [];
    let next: string | null = `/v1/workspaces/${workspace.id}/audit/export?format=csv`;
    let parts = 0;
    while (next) {
      const part: Reply = await api.get(next, workspace.owner.auth);
      expect(part.status).toBe(200);
      const lines = (part.body as string).split('\r\n');
      expect(lines[0]).toBe('id,at,actor_user_id,actor_email,via,action,target,details');
      ids.push(...lines.slice(1, -1).map((line) => line.split(',')[0]!));
      expect(Buffer.byteLength(part.body as string)).toBeLessThan(5 * 2 ** 20);
      next = /^<([^>]+)>; rel="next"$/.exec(part.headers.get('link') ?? '')?.[1] ?? null;
      parts++;
    }
    expect(parts).toBeGreaterThan(1);
    expect(ids).toHaveLength(4_001);
    expect(new Set(ids).size).toBe(4_001);
  }, 180_000); // 5 s alone, over 30 s in a full run here (6.4 MB through DynamoDB Local)
});

/** Audit rows written straight to the table, as policy changes over months would have left them. */
async function seedAuditRows(workspaceId: string, count: number): Promise<void> {
  const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  const start = runtime.clock.now() - count * 60_000;
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < count; i += 25) {
    batches.push(
      Array.from({ length: Math.min(25, count - i) }, (_, j) => {
        const at = start + (i + j) * 60_000;
        const id = `aud_seed${String(i + j).padStart(6, '0')}`;
        return {
          pk: `AUDIT#${workspaceId}`,
          sk: `${new Date(at).toISOString()}#${id}`,
          type: 'audit',
          id,
          workspace_id: workspaceId,
          at,
          actor_user_id: 'usr_seed',
          actor_email: 'admin@example.com',
          via: 'session',
          action: 'policy.updated',
          target: workspaceId,
          details: {
            allowed_recipient_domains: Array.from(
              { length: 40 },
              (_, d) => `mail-${String(d).padStart(2, '0')}.subsidiary${(i + j) % 10}.example.com`,
            ),
          },
        };
      }),
    );
  }
  try {
    for (let i = 0; i < batches.length; i += 8) {
      await Promise.all(
        batches.slice(i, i + 8).map(async (items) => {
          let pending = { [runtime.config.TABLE_NAME]: items.map((Item) => ({ PutRequest: { Item } })) };
          while (Object.keys(pending).length > 0) {
            const answer = await db.send(new BatchWriteCommand({ RequestItems: pending }));
            pending = (answer.UnprocessedItems ?? {}) as typeof pending;
          }
        }),
      );
    }
  } finally {
    db.destroy();
  }
}

/** A 1×1 PNG, built byte for byte (signature, IHDR, IDAT, IEND with their CRCs). */
function tinyPng(): string {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from([0, 0x1d, 0x4e, 0xd8, 0xff]))),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64');
}
