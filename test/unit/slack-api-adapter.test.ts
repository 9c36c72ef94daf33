import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSlackEmulator, tokenFingerprint, type LocalSlack } from '../../local/slack/emulator.ts';
import { defaultSlackApiUrl, SlackWebApi } from '../../shared/adapters/slackApi.ts';
import { AdjustableClock } from '../../shared/clock.ts';

// The adapter against the local emulator: the exact requests it sends, and every outcome.
let slack: LocalSlack;
let api: SlackWebApi;
const clock = new AdjustableClock();
const redirectUri = 'http://localhost:3000/v1/chat/callback';

beforeAll(async () => {
  slack = await startSlackEmulator({ clock });
  api = new SlackWebApi({ clientId: slack.clientId, clientSecret: slack.clientSecret, apiUrl: slack.url });
});
afterAll(() => slack.close());
beforeEach(() => slack.clearCalls());

/** An install through the adapter: the bot token the service would seal and keep. */
async function installed(teamId: string, userId: string): Promise<string> {
  const exchange = await api.exchangeCode({ code: slack.authorize({ teamId, userId, redirectUri }), redirectUri });
  if (exchange.outcome !== 'installed') throw new Error(`install failed: ${JSON.stringify(exchange)}`);
  return exchange.installation.botToken;
}

describe('exchangeCode (oauth.v2.access)', () => {
  it('posts the code and redirect URI form-encoded, the client credentials by HTTP Basic, and reads the grant', async () => {
    const code = slack.authorize({ teamId: 'T0ADAPT001', teamName: 'Acme', userId: 'U0ANA00001', redirectUri });
    const exchange = await api.exchangeCode({ code, redirectUri });
    expect(exchange).toEqual({
      outcome: 'installed',
      installation: {
        teamId: 'T0ADAPT001',
        teamName: 'Acme',
        botToken: expect.stringMatching(/^xoxb-/),
        botUserId: expect.stringMatching(/^U0/),
        appId: slack.appId,
        scopes: ['commands', 'chat:write', 'im:write'],
        installerSlackUserId: 'U0ANA00001',
      },
    });
    const calls = slack.calls();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      method: 'oauth.v2.access',
      httpMethod: 'POST',
      path: '/api/oauth.v2.access',
      contentType: 'application/x-www-form-urlencoded',
      headers: { authorization: 'Basic [redacted]', accept: 'application/json' },
      credential: { kind: 'client', via: 'basic', clientId: slack.clientId, secretMatches: true },
      status: 200,
    });
    // Neither credential travels in the body.
    expect(calls[0]!.body).toEqual({ code, redirect_uri: redirectUri });
  });

  it("passes Slack's refusals on as reasons: a code used twice or expired, another redirect URI, a wrong secret", async () => {
    const code = slack.authorize({ teamId: 'T0ADAPT002', redirectUri });
    expect(await api.exchangeCode({ code, redirectUri: 'http://localhost:3000/elsewhere' })).toEqual({
      outcome: 'refused',
      reason: 'bad_redirect_uri',
    });
    expect((await api.exchangeCode({ code, redirectUri })).outcome).toBe('installed');
    expect(await api.exchangeCode({ code, redirectUri })).toEqual({ outcome: 'refused', reason: 'invalid_code' });
    const expiring = slack.authorize({ teamId: 'T0ADAPT002', redirectUri });
    clock.advance(601);
    expect(await api.exchangeCode({ code: expiring, redirectUri })).toEqual({ outcome: 'refused', reason: 'invalid_code' });
    const wrongSecret = new SlackWebApi({ clientId: slack.clientId, clientSecret: 'f'.repeat(32), apiUrl: slack.url });
    expect(await wrongSecret.exchangeCode({ code: slack.authorize({ redirectUri }), redirectUri })).toEqual({
      outcome: 'refused',
      reason: 'bad_client_secret',
    });
    const wrongId = new SlackWebApi({ clientId: '1.2', clientSecret: slack.clientSecret, apiUrl: slack.url });
    expect(await wrongId.exchangeCode({ code: slack.authorize({ redirectUri }), redirectUri })).toEqual({
      outcome: 'refused',
      reason: 'invalid_client_id',
    });
  });

  it('refuses an org-wide install, which names no workspace', async () => {
    const code = slack.authorize({ teamId: 'T0ADAPT003', enterprise: { id: 'E0ORG00001', name: 'Org' }, redirectUri });
    expect(await api.exchangeCode({ code, redirectUri })).toEqual({ outcome: 'refused', reason: 'enterprise_install' });
  });

  it('fails, not refuses, when Slack throttles', async () => {
    slack.throttleNext(1, 12);
    expect(await api.exchangeCode({ code: slack.authorize({ redirectUri }), redirectUri })).toEqual({
      outcome: 'failed',
      reason: 'rate_limited',
    });
  });
});

describe('sendDirectMessage (conversations.open, then chat.postMessage)', () => {
  it('opens the DM with the user and posts the text into it, both with the bot token as Bearer, form-encoded', async () => {
    const token = await installed('T0ADAPT010', 'U0ADAPT010');
    slack.clearCalls();
    const text = 'Your secret sec_abcd… was opened at 14:02 UTC (2 views left)';
    const sent = await api.sendDirectMessage(token, 'U0ADAPT010', text);
    expect(sent).toEqual({ outcome: 'sent', channelId: expect.stringMatching(/^D0/), ts: expect.stringMatching(/^\d+\.\d{6}$/) });
    const channelId = (sent as { channelId: string }).channelId;
    const bearer = { kind: 'token', via: 'bearer', fingerprint: tokenFingerprint(token), teamId: 'T0ADAPT010', state: 'valid' };
    const exact = (call: ReturnType<LocalSlack['calls']>[number]) => ({
      httpMethod: call.httpMethod,
      path: call.path,
      contentType: call.contentType,
      authorization: call.headers.authorization,
      body: call.body,
      credential: call.credential,
    });
    expect(slack.calls().map(exact)).toEqual([
      {
        httpMethod: 'POST',
        path: '/api/conversations.open',
        contentType: 'application/x-www-form-urlencoded',
        authorization: 'Bearer [redacted]',
        body: { users: 'U0ADAPT010' },
        credential: bearer,
      },
      {
        httpMethod: 'POST',
        path: '/api/chat.postMessage',
        contentType: 'application/x-www-form-urlencoded',
        authorization: 'Bearer [redacted]',
        body: { channel: channelId, text },
        credential: bearer,
      },
    ]);
    expect(slack.messages().filter((message) => message.teamId === 'T0ADAPT010')).toEqual([
      { teamId: 'T0ADAPT010', channel: channelId, userId: 'U0ADAPT010', text, blocks: null, ts: (sent as { ts: string }).ts },
    ]);
    // The DM is the same one the next time (Slack answers already_open).
    expect(await api.sendDirectMessage(token, 'U0ADAPT010', text)).toMatchObject({ outcome: 'sent', channelId });
  });

  it('reports a revoked or unknown token as token_dead, and other refusals as failed, never with the token', async () => {
    const token = await installed('T0ADAPT011', 'U0ADAPT011');
    const stranger = await api.sendDirectMessage(token, 'U0STRANGER', 'x');
    expect(stranger).toEqual({ outcome: 'failed', error: 'user_not_found' });
    expect(await api.sendDirectMessage('xoxb-1-2-unknown', 'U0ADAPT011', 'x')).toEqual({ outcome: 'token_dead', error: 'invalid_auth' });
    slack.revokeTeam('T0ADAPT011');
    const revoked = await api.sendDirectMessage(token, 'U0ADAPT011', 'x');
    expect(revoked).toEqual({ outcome: 'token_dead', error: 'token_revoked' });
    for (const outcome of [stranger, revoked]) expect(JSON.stringify(outcome)).not.toContain(token);
  });

  it('reports 429 as rate_limited with the Retry-After seconds, at either call', async () => {
    const token = await installed('T0ADAPT012', 'U0ADAPT012');
    slack.throttleNext(1, 9);
    expect(await api.sendDirectMessage(token, 'U0ADAPT012', 'x')).toEqual({ outcome: 'rate_limited', retryAfterSeconds: 9 });
    // The open goes through, the post is throttled: nothing was posted.
    const before = slack.messages().length;
    slack.throttleNext(1, 3, 'chat.postMessage');
    expect(await api.sendDirectMessage(token, 'U0ADAPT012', 'y')).toEqual({ outcome: 'rate_limited', retryAfterSeconds: 3 });
    expect(
      slack
        .calls()
        .slice(-2)
        .map((call) => [call.method, call.status]),
    ).toEqual([
      ['conversations.open', 200],
      ['chat.postMessage', 429],
    ]);
    expect(slack.messages().length).toBe(before);
  });

  it('reports a network failure and a timeout as failed', async () => {
    const closed = await listening(createServer());
    const closedUrl = urlOf(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = new SlackWebApi({ clientId: slack.clientId, clientSecret: slack.clientSecret, apiUrl: closedUrl });
    expect(await unreachable.sendDirectMessage('xoxb-1-2-x', 'U0X', 'x')).toEqual({ outcome: 'failed', error: 'network' });
    expect(await unreachable.exchangeCode({ code: 'c', redirectUri })).toEqual({ outcome: 'failed', reason: 'network' });

    // A server that takes the request and never answers.
    const silent = await listening(createServer(() => undefined));
    try {
      const stalled = new SlackWebApi({
        clientId: slack.clientId,
        clientSecret: slack.clientSecret,
        apiUrl: urlOf(silent),
        timeoutMs: 100,
      });
      expect(await stalled.sendDirectMessage('xoxb-1-2-x', 'U0X', 'x')).toEqual({ outcome: 'failed', error: 'timeout' });
      expect(await stalled.exchangeCode({ code: 'c', redirectUri })).toEqual({ outcome: 'failed', reason: 'timeout' });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('reports an answer that is not Slack JSON, or not 200, as failed', async () => {
    const odd = await listening(
      createServer((request, response) => {
        if (request.url!.endsWith('conversations.open')) response.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
        else response.writeHead(503).end();
      }),
    );
    try {
      const confused = new SlackWebApi({ clientId: slack.clientId, clientSecret: slack.clientSecret, apiUrl: urlOf(odd) });
      expect(await confused.sendDirectMessage('xoxb-1-2-x', 'U0X', 'x')).toEqual({ outcome: 'failed', error: 'bad_response' });
      expect(await confused.exchangeCode({ code: 'c', redirectUri })).toEqual({ outcome: 'failed', reason: 'http_503' });
    } finally {
      await new Promise<void>((resolve) => odd.close(() => resolve()));
    }
  });
});

describe('token rotation (oauth.v2.access, grant_type refresh_token)', () => {
  /** A server answering every call with `body`: Slack's documented answers the emulator never gives. */
  async function answering(body: unknown): Promise<{ api: SlackWebApi; close: () => Promise<void> }> {
    const server = await listening(
      createServer((_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))),
    );
    return {
      api: new SlackWebApi({ clientId: slack.clientId, clientSecret: slack.clientSecret, apiUrl: urlOf(server) }),
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it('reads an install with rotation on: the expiring token with its refresh token and lifetime (the fault: refused as not xoxb-)', async () => {
    slack.setTokenRotation(true);
    try {
      const exchange = await api.exchangeCode({ code: slack.authorize({ teamId: 'T0ADAPT010', redirectUri }), redirectUri });
      expect(exchange).toMatchObject({
        outcome: 'installed',
        installation: {
          botToken: expect.stringMatching(/^xoxe\.xoxb-1-/),
          rotation: { refreshToken: expect.stringMatching(/^xoxe-1-/), expiresInSeconds: 43_200 },
        },
      });
      if (exchange.outcome !== 'installed') throw new Error('not installed');
      const refreshToken = exchange.installation.rotation!.refreshToken;

      slack.clearCalls();
      const renewal = await api.refreshBotToken(refreshToken);
      expect(renewal).toEqual({
        outcome: 'refreshed',
        botToken: expect.stringMatching(/^xoxe\.xoxb-1-/),
        rotation: { refreshToken: expect.stringMatching(/^xoxe-1-/), expiresInSeconds: 43_200 },
      });
      const [call] = slack.calls();
      expect(call).toMatchObject({
        method: 'oauth.v2.access',
        httpMethod: 'POST',
        contentType: 'application/x-www-form-urlencoded',
        headers: { authorization: 'Basic [redacted]' },
        credential: { kind: 'client', via: 'basic', clientId: slack.clientId, secretMatches: true },
      });
      expect(call!.body).toEqual({ grant_type: 'refresh_token', refresh_token: '[redacted]' });
      // Spent: Slack refuses it for good.
      expect(await api.refreshBotToken(refreshToken)).toEqual({ outcome: 'refused', reason: 'invalid_refresh_token' });
    } finally {
      slack.setTokenRotation(false);
    }
  });

  it('refuses half answers: an expiring token without its renewal, a renewal without a lifetime, a user token', async () => {
    const base = { ok: true, app_id: 'A0X', scope: 'commands', token_type: 'bot', bot_user_id: 'U0BOT', team: { id: 'T0X', name: 'X' } };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, access_token: 'xoxe.xoxb-1-abc' }, 'no refresh token'],
      [{ ...base, access_token: 'xoxe.xoxb-1-abc', refresh_token: 'xoxe-1-def' }, 'no lifetime'],
      [{ ...base, access_token: 'xoxe.xoxb-1-abc', refresh_token: 'xoxe-1-def', expires_in: -5 }, 'a negative lifetime'],
      [{ ...base, access_token: 'xoxe.xoxb-1-abc', refresh_token: 'xoxb-def', expires_in: 43_200 }, 'not a refresh token'],
      [{ ...base, access_token: 'xoxe.xoxp-1-abc', refresh_token: 'xoxe-1-def', expires_in: 43_200 }, 'a user token'],
    ];
    for (const [body, why] of cases) {
      const server = await answering({ ...body, authed_user: { id: 'U0ME' } });
      try {
        expect(await server.api.exchangeCode({ code: 'c', redirectUri }), why).toEqual({ outcome: 'failed', reason: 'bad_response' });
        expect(await server.api.refreshBotToken('xoxe-1-x'), why).toEqual({ outcome: 'failed', reason: 'bad_response' });
      } finally {
        await server.close();
      }
    }
    // Slack's documented refusals pass on as reasons.
    const refused = await answering({ ok: false, error: 'invalid_refresh_token' });
    try {
      expect(await refused.api.refreshBotToken('xoxe-1-x')).toEqual({ outcome: 'refused', reason: 'invalid_refresh_token' });
    } finally {
      await refused.close();
    }
    // Not a dead token: a wrong client secret (a rotation half done) or Slack's own trouble is tried again, never uninstalled.
    for (const error of ['bad_client_secret', 'invalid_client_id', 'internal_error', 'service_unavailable', 'ratelimited']) {
      const passing = await answering({ ok: false, error });
      try {
        expect(await passing.api.refreshBotToken('xoxe-1-x'), error).toEqual({ outcome: 'failed', reason: error });
      } finally {
        await passing.close();
      }
    }
  });
});

describe('settings', () => {
  it("defaults to Slack's API and adds a missing trailing slash to a given base", async () => {
    expect(defaultSlackApiUrl).toBe('https://slack.com/api/');
    const noSlash = new SlackWebApi({ clientId: slack.clientId, clientSecret: slack.clientSecret, apiUrl: slack.url.replace(/\/$/, '') });
    const code = slack.authorize({ redirectUri });
    expect((await noSlash.exchangeCode({ code, redirectUri })).outcome).toBe('installed');
    expect(slack.calls().at(-1)!.path).toBe('/api/oauth.v2.access');
  });
});

async function listening(server: Server): Promise<Server> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return server;
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
