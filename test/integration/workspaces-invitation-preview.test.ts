import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { newEmail, signIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, generousRateLimits, startTestRuntime, toFreshWindow } from '../support/runtime.ts';
import { invitationToken, send, setWorkspace, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// The invitation page's preview (ADR 0181): `POST /v1/workspaces/invitations/preview` names the
// workspace, the inviter, the address and the role of an invitation's token without accepting
// it, to anyone holding the token; the same 404 and 410 (with the reason) as accepting; per address.

const windowSeconds = 60;
const previewsPerWindow = 12;

/** What the service writes to stdout while this file runs (its access log), as logs.test.ts reads it. */
const captured: string[] = [];
const write = process.stdout.write.bind(process.stdout);

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  process.stdout.write = ((chunk: unknown) => {
    captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  runtime = await startTestRuntime({
    logLevel: 'INFO',
    rateLimits: { ...generousRateLimits, invitation_preview: { perIp: { limit: previewsPerWindow, windowSeconds } } },
  });
  api = apiClient(runtime);
});
afterAll(async () => {
  await runtime?.stop();
  process.stdout.write = write;
});
// Every test starts a fresh window, so only the rate limit's own test meets the limit.
beforeEach(() => toFreshWindow(runtime.clock, windowSeconds));

const preview = (token: unknown) => api.post('/v1/workspaces/invitations/preview', { token });

async function invited(workspace: TeamWorkspace, role: 'admin' | 'member' = 'member') {
  const email = newEmail('invitee');
  const answer = await api.post(`/v1/workspaces/${workspace.id}/invitations`, { email, role }, workspace.owner.auth);
  expect(answer.status).toBe(201);
  return { email, id: answer.body.id as string, token: invitationToken(runtime, email), expiresAt: answer.body.expires_at as string };
}

describe('POST /v1/workspaces/invitations/preview', () => {
  it('answers 200 with the workspace, the inviter, the address and the role, to no credential, and accepts nothing', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const invitation = await invited(workspace, 'admin');
    const answer = await preview(invitation.token);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toMatch(/no-store/);
    const listed = (await api.get('/v1/workspaces', workspace.owner.auth)).body.items[0];
    expect(answer.body).toEqual({
      workspace: { name: listed.name, branding: null },
      inviter: { email: workspace.owner.user.email },
      email: invitation.email,
      role: 'admin',
      expires_at: invitation.expiresAt,
    });
    // Still pending: listed, and accepted afterwards by its address.
    const members = await api.get(`/v1/workspaces/${workspace.id}/members`, workspace.owner.auth);
    expect(members.body.invitations.map((pending: any) => pending.id)).toEqual([invitation.id]);
    const person = await signIn(runtime, invitation.email);
    expect((await api.post('/v1/workspaces/invitations/accept', { token: invitation.token }, person.auth)).status).toBe(200);
  });

  it('shows the branding only while the workspace’s plan has it, as the reveal page does', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const branding = { display_name: 'Acme Security', logo: null, accent: '#1d4ed8' };
    expect((await send(runtime, 'PUT', `/v1/workspaces/${workspace.id}/branding`, branding, workspace.owner.auth)).status).toBe(200);
    const invitation = await invited(workspace);
    expect((await preview(invitation.token)).body.workspace.branding).toEqual(branding);
    await setWorkspace(runtime, workspace.id, { plan: 'free' });
    expect((await preview(invitation.token)).body.workspace.branding).toBeNull();
  });

  it('answers 410 with the reason for a token used, revoked or expired, and 404 for an unknown one', async () => {
    const workspace = await teamWorkspace(runtime, 5);
    const used = await invited(workspace);
    const person = await signIn(runtime, used.email);
    expect((await api.post('/v1/workspaces/invitations/accept', { token: used.token }, person.auth)).status).toBe(200);
    const usedAnswer = await preview(used.token);
    expectProblem(usedAnswer, 410, 'gone');
    expect(usedAnswer.body.reason).toBe('used');

    const revoked = await invited(workspace);
    expect((await api.delete(`/v1/workspaces/${workspace.id}/members/${revoked.id}`, workspace.owner.auth)).status).toBe(200);
    const revokedAnswer = await preview(revoked.token);
    expectProblem(revokedAnswer, 410, 'gone');
    expect(revokedAnswer.body.reason).toBe('revoked');

    const expiring = await invited(workspace);
    runtime.clock.advance(workspaceLimits.invitationSeconds * 1000 + 1000);
    const expiredAnswer = await preview(expiring.token);
    expectProblem(expiredAnswer, 410, 'gone');
    expect(expiredAnswer.body.reason).toBe('expired');
    // Nothing of the invitation is told once it cannot be used.
    expect(JSON.stringify([usedAnswer.body, revokedAnswer.body, expiredAnswer.body])).not.toMatch(/@/);

    const unknown = await preview(`hli_${'A'.repeat(43)}`);
    expectProblem(unknown, 404, 'not_found');
  });

  it('answers 400 for no token, an empty one, a number or an unknown field', async () => {
    expectProblem(await api.post('/v1/workspaces/invitations/preview', {}), 400, 'invalid_request');
    expectProblem(await preview(''), 400, 'invalid_request');
    expectProblem(await preview(42), 400, 'invalid_request');
    expectProblem(await api.post('/v1/workspaces/invitations/preview', { token: 'hli_x', email: 'a@example.com' }), 400, 'invalid_request');
  });

  it('logs the route, never the token or the invited address (as logs.test.ts checks of every route)', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const invitation = await invited(workspace);
    const from = captured.length;
    expect((await preview(invitation.token)).status).toBe(200);
    // Another last character: 'A' itself ends one token in 16 (43 base64url characters carry 256 bits).
    const altered = `${invitation.token.slice(0, -1)}${invitation.token.endsWith('A') ? 'Q' : 'A'}`;
    expect((await preview(altered)).status).toBe(404);
    const logs = captured.slice(from).join('');
    expect(logs).toContain('"route":"POST /v1/workspaces/invitations/preview"');
    for (const secret of [invitation.token, invitation.token.slice(4), invitation.token.slice(0, -1), invitation.email])
      expect(logs).not.toContain(secret);
  });

  it('answers 429 per address past its rate class, with retry-after', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= previewsPerWindow; i++) statuses.push((await preview(`hli_${'B'.repeat(43)}`)).status);
    expect(statuses.slice(0, previewsPerWindow)).toEqual(Array(previewsPerWindow).fill(404));
    const refused = await preview(`hli_${'B'.repeat(43)}`);
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
