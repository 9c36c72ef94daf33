import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { signSlashCommand, slashCommand } from '../../local/slack/signing.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime, textSecretBody } from '../support/runtime.ts';

/**
 * Slack's token rotation (issue 28) end to end: the emulator's app rotates tokens, as a Slack
 * app with "token rotation" on does (12-hour `xoxe.xoxb-…` bot tokens, a single-use refresh
 * token each). Installs are accepted and keep the refresh token sealed; the worker renews a
 * token in its last two hours, once however many notices need it, renews and sends again when
 * Slack says `token_expired`, and removes the installation when Slack refuses the renewal.
 * Installs with rotation off are chat-notices.test.ts's.
 */

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let db: DynamoDBDocumentClient;
let user: SignedIn;
let teams = 0;

const chatUser = 'U0ROTATE01';
const hour = 3600;

const installationItem = async (teamId: string) =>
  (await db.send(new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: { pk: `CHAT_TEAM#${teamId}`, sk: 'INSTALLATION' } }))).Item;

/** A new team with the app installed (rotation on at the emulator), approved by `chatUser`. */
async function install(): Promise<string> {
  const teamId = `T0ROT${process.pid}${++teams}`.slice(0, 20);
  // Signed in afresh: an earlier test moved the clock past the last session's tokens.
  user = await signIn(runtime, newEmail('chat-rotation'));
  const started = await api.post('/v1/chat/install', undefined, user.auth);
  const state = new URL(started.body.authorize_url).searchParams.get('state')!;
  const code = runtime.slack.authorize({ teamId, userId: chatUser });
  const callback = await api.get(`/v1/chat/callback?code=${code}&state=${state}`);
  expect(callback.status).toBe(200);
  return teamId;
}

/** A secret subscribed to `chatUser`'s notices in `teamId`, claimed once: one notice on its way. */
async function claimSubscribed(teamId: string): Promise<string> {
  const command = signSlashCommand(
    slashCommand({ team_id: teamId, user_id: chatUser }),
    runtime.config.SLACK_SIGNING_SECRET!,
    Math.floor(runtime.clock.now() / 1000),
  );
  const answered = await api.call('POST', '/v1/chat/commands', { body: command.body, headers: command.headers });
  const chatToken = /#chat=([^|>\s]+)/.exec(answered.body.text as string)![1]!;
  const created = await api.post('/v1/secrets', textSecretBody({ max_views: 2 }));
  const subscribed = await api.post('/v1/chat/subscribe', {
    secret_id: created.body.id,
    delete_token: created.body.delete_token,
    chat_token: chatToken,
  });
  expect(subscribed.status).toBe(200);
  expect((await api.post(`/v1/secrets/${created.body.id}/claim`)).status).toBe(200);
  return created.body.id as string;
}

const dmsIn = (teamId: string) => runtime.slack.messages().filter((message) => message.teamId === teamId);
const refreshCalls = () =>
  runtime.slack.calls().filter((call) => call.method === 'oauth.v2.access' && call.body.grant_type === 'refresh_token');
const sentWithTokens = () =>
  runtime.slack
    .calls()
    .filter((call) => call.method === 'conversations.open')
    .map((call) => (call.credential.kind === 'token' ? call.credential.fingerprint : null));
const tokensOf = (teamId: string) => runtime.slack.installations().find((installation) => installation.teamId === teamId)!.tokens;

beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  runtime.slack.setTokenRotation(true);
});
afterAll(async () => {
  db?.destroy();
  await runtime?.stop();
});
beforeEach(async () => {
  await runtime.drainWork();
  runtime.slack.clearCalls();
});

describe('Slack token rotation', () => {
  it('installs with an expiring token: the refresh token and expiry kept, both tokens sealed; a fresh token sends without renewing', async () => {
    const teamId = await install();
    const exchange = runtime.slack.calls().find((call) => call.method === 'oauth.v2.access')!;
    // What Slack answers with rotation on (its "Using token rotation" guide): the fault was a 403 here.
    expect(exchange.answer).toMatchObject({ ok: true, token_type: 'bot', refresh_token: '[redacted]', expires_in: 43_200 });
    const item = await installationItem(teamId);
    expect(item).toMatchObject({ sealed_bot_token: expect.any(String), sealed_refresh_token: expect.any(String) });
    expect(item!.token_expires_at).toBeGreaterThan(runtime.clock.now() + 12 * hour * 1000 - 60_000);
    expect(JSON.stringify(item)).not.toMatch(/xox[a-z]/);

    await claimSubscribed(teamId);
    await runtime.drainWork();
    expect(dmsIn(teamId)).toHaveLength(1);
    expect(refreshCalls()).toEqual([]);
  });

  it('renews a token in its last two hours before the DM, with the client credentials, and keeps the renewal', async () => {
    const teamId = await install();
    const [installed] = tokensOf(teamId);
    const before = await installationItem(teamId);
    runtime.clock.advance(10.5 * hour);
    await claimSubscribed(teamId);
    await runtime.drainWork();

    expect(dmsIn(teamId)).toHaveLength(1);
    const [refresh] = refreshCalls();
    expect(refreshCalls()).toHaveLength(1);
    expect(refresh).toMatchObject({
      httpMethod: 'POST',
      contentType: 'application/x-www-form-urlencoded',
      body: { grant_type: 'refresh_token', refresh_token: '[redacted]' },
      credential: { kind: 'client', via: 'basic', secretMatches: true },
      answer: { ok: true, access_token: '[redacted]', refresh_token: '[redacted]', expires_in: 43_200 },
    });
    const renewedToken = tokensOf(teamId).find((token) => token.fingerprint !== installed!.fingerprint)!;
    expect(sentWithTokens()).toEqual([renewedToken.fingerprint]);
    const after = await installationItem(teamId);
    expect(after!.sealed_bot_token).not.toBe(before!.sealed_bot_token);
    expect(after!.sealed_refresh_token).not.toBe(before!.sealed_refresh_token);
    // Slack's expiry as we reckon it from `expires_in` (the two clocks read a moment apart).
    expect(Math.abs(after!.token_expires_at - renewedToken.expiresAt!)).toBeLessThan(5_000);
    expect(after).not.toHaveProperty('renewing_until');

    // The next notice uses the renewed token as it is.
    runtime.slack.clearCalls();
    await claimSubscribed(teamId);
    await runtime.drainWork();
    expect(refreshCalls()).toEqual([]);
    expect(sentWithTokens()).toEqual([renewedToken.fingerprint]);
  });

  it('renews an expired token once however many notices need it at the same time, and sends them all', async () => {
    const teamId = await install();
    runtime.clock.advance(13 * hour);
    for (let i = 0; i < 6; i++) await claimSubscribed(teamId);
    await runtime.drainWork();

    expect(refreshCalls()).toHaveLength(1);
    expect(dmsIn(teamId)).toHaveLength(6);
    // No DM was tried with the expired token, and every one went with the single renewal.
    expect(new Set(sentWithTokens()).size).toBe(1);
    expect(runtime.slack.calls().filter((call) => call.credential.kind === 'token' && call.credential.state !== 'valid')).toEqual([]);
  });

  it('renews and sends again when Slack says token_expired before the stored expiry', async () => {
    const teamId = await install();
    // Our record of the expiry is a day late (a clock apart from Slack's): Slack is the judge.
    await db.send(
      new UpdateCommand({
        TableName: runtime.config.TABLE_NAME,
        Key: { pk: `CHAT_TEAM#${teamId}`, sk: 'INSTALLATION' },
        UpdateExpression: 'SET token_expires_at = token_expires_at + :day',
        ExpressionAttributeValues: { ':day': 24 * hour * 1000 },
      }),
    );
    runtime.clock.advance(12.5 * hour);
    runtime.slack.clearCalls();
    await claimSubscribed(teamId);
    await runtime.drainWork();

    const methods = runtime.slack.calls().map((call) => [call.method, call.credential.kind === 'token' ? call.credential.state : 'client']);
    expect(methods).toEqual([
      ['conversations.open', 'expired'],
      ['oauth.v2.access', 'client'],
      ['conversations.open', 'valid'],
      ['chat.postMessage', 'valid'],
    ]);
    expect(runtime.slack.calls()[0]!.answer).toEqual({ ok: false, error: 'token_expired' });
    expect(dmsIn(teamId)).toHaveLength(1);
  });

  it('removes the installation when Slack refuses the renewal (invalid_refresh_token), and drops the notice', async () => {
    const teamId = await install();
    // The app is removed from the workspace: Slack renews nothing for it from then on.
    runtime.slack.revokeTeam(teamId);
    runtime.clock.advance(13 * hour);
    await claimSubscribed(teamId);
    await runtime.drainWork();

    expect(refreshCalls().map((call) => call.answer)).toEqual([{ ok: false, error: 'invalid_refresh_token' }]);
    expect(dmsIn(teamId)).toEqual([]);
    const item = await installationItem(teamId);
    expect(item).toMatchObject({ removed: true });
    expect(item).not.toHaveProperty('sealed_refresh_token');
    expect(item).not.toHaveProperty('sealed_bot_token');
    // Nothing retried: the next notice finds no installation and calls Slack for nothing.
    runtime.slack.clearCalls();
    await claimSubscribed(teamId);
    await runtime.drainWork();
    expect(runtime.slack.calls()).toEqual([]);
  });
});
