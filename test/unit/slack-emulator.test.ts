import { ErrorCode, WebClient, type WebAPIPlatformError, type WebAPIRateLimitedError } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  renderChatCalls,
  signSlashCommand,
  slashCommand,
  startSlackEmulator,
  tokenFingerprint,
  type LocalSlack,
} from '../../local/slack/emulator.ts';
import { AdjustableClock } from '../../shared/clock.ts';

// Slack's official client, pointed at the emulator: if it reads the emulator's answers as Slack's,
// the emulator speaks Slack's wire format. No retries and no waiting on 429, as the service would set it.
let slack: LocalSlack;
const clock = new AdjustableClock();
const client = (token?: string) =>
  new WebClient(token, { slackApiUrl: slack.url, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true });
const redirectUri = 'http://localhost:3000/v1/chat/callback';

beforeAll(async () => {
  slack = await startSlackEmulator({ clock });
});
afterAll(() => slack.close());
beforeEach(() => slack.clearCalls());

/** The Slack error code a call failed with, as the SDK reports it. */
async function platformError(call: Promise<unknown>): Promise<string> {
  const error = (await call.then(
    () => {
      throw new Error('expected Slack to refuse the call');
    },
    (caught: unknown) => caught,
  )) as WebAPIPlatformError;
  expect(error.code).toBe(ErrorCode.PlatformError);
  return error.data.error;
}

async function install(teamId: string, userId = 'U0INSTALL1'): Promise<string> {
  const code = slack.authorize({ teamId, teamName: `Team ${teamId}`, userId, redirectUri });
  const answer = await client().oauth.v2.access({
    client_id: slack.clientId,
    client_secret: slack.clientSecret,
    code,
    redirect_uri: redirectUri,
  });
  return answer.access_token!;
}

describe('oauth.v2.access through @slack/web-api', () => {
  it("exchanges a code the authorize step issued for Slack's answer: a fresh bot token, the team, the installer", async () => {
    const code = slack.authorize({ teamId: 'T0OAUTH001', teamName: 'Acme', userId: 'U0ANA00001', redirectUri });
    const answer = await client().oauth.v2.access({
      client_id: slack.clientId,
      client_secret: slack.clientSecret,
      code,
      redirect_uri: redirectUri,
    });
    expect(answer).toMatchObject({
      ok: true,
      token_type: 'bot',
      scope: 'commands,chat:write,im:write',
      app_id: slack.appId,
      team: { id: 'T0OAUTH001', name: 'Acme' },
      enterprise: null,
      is_enterprise_install: false,
      authed_user: { id: 'U0ANA00001' },
    });
    expect(answer.access_token).toMatch(/^xoxb-\d{11}-\d{13}-[A-Za-z0-9]{24}$/);
    expect(answer.bot_user_id).toMatch(/^U0[A-Z0-9]{9}$/);
    // The SDK sends the client credentials as form fields; the emulator records them without the secret.
    const [call] = slack.calls();
    expect(call).toMatchObject({
      method: 'oauth.v2.access',
      httpMethod: 'POST',
      path: '/api/oauth.v2.access',
      status: 200,
      credential: { kind: 'client', via: 'form', clientId: slack.clientId, secretMatches: true },
    });
    expect(call!.body).toEqual({ client_id: slack.clientId, client_secret: '[redacted]', code, redirect_uri: redirectUri });
    expect(call!.answer.access_token).toBe('[redacted]');
  });

  it('answers invalid_code for a code used, expired or never issued, and checks the client and the redirect URI', async () => {
    const args = (code: string) => ({ client_id: slack.clientId, client_secret: slack.clientSecret, code, redirect_uri: redirectUri });
    const used = slack.authorize({ teamId: 'T0OAUTH002', redirectUri });
    await client().oauth.v2.access(args(used));
    expect(await platformError(client().oauth.v2.access(args(used)))).toBe('invalid_code');
    const expiring = slack.authorize({ teamId: 'T0OAUTH002', redirectUri });
    clock.advance(600);
    expect(await platformError(client().oauth.v2.access(args(expiring)))).toBe('invalid_code');
    expect(await platformError(client().oauth.v2.access(args('123.456.abc')))).toBe('invalid_code');

    const code = slack.authorize({ teamId: 'T0OAUTH002', redirectUri });
    expect(await platformError(client().oauth.v2.access({ ...args(code), client_secret: 'f'.repeat(32) }))).toBe('bad_client_secret');
    expect(await platformError(client().oauth.v2.access({ ...args(code), client_id: '1.2' }))).toBe('invalid_client_id');
    expect(await platformError(client().oauth.v2.access({ ...args(code), redirect_uri: 'http://localhost:3000/elsewhere' }))).toBe(
      'bad_redirect_uri',
    );
    // None of those refusals used the code up.
    expect((await client().oauth.v2.access(args(code))).ok).toBe(true);
  });

  it('names the enterprise and no team for an org-wide install, as Slack does', async () => {
    const code = slack.authorize({ teamId: 'T0OAUTH003', enterprise: { id: 'E0ORG00001', name: 'Org' } });
    const answer = await client().oauth.v2.access({ client_id: slack.clientId, client_secret: slack.clientSecret, code });
    expect(answer).toMatchObject({ ok: true, team: null, enterprise: { id: 'E0ORG00001', name: 'Org' }, is_enterprise_install: true });
  });
});

describe('token rotation through @slack/web-api', () => {
  const refresh = (refreshToken: string) =>
    client().oauth.v2.access({
      client_id: slack.clientId,
      client_secret: slack.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
  const postAs = (token: string) => client(token).conversations.open({ users: 'U0ROTATE01' });

  it('grants 12-hour xoxe.xoxb tokens with a single-use refresh token; an expired one answers token_expired', async () => {
    slack.setTokenRotation(true);
    try {
      const code = slack.authorize({ teamId: 'T0ROTATE01', userId: 'U0ROTATE01', redirectUri });
      const installed = await client().oauth.v2.access({
        client_id: slack.clientId,
        client_secret: slack.clientSecret,
        code,
        redirect_uri: redirectUri,
      });
      // The shape of Slack's answer in its "Using token rotation" guide.
      expect(installed).toMatchObject({ ok: true, token_type: 'bot', expires_in: 43_200, team: { id: 'T0ROTATE01' } });
      expect(installed.access_token).toMatch(/^xoxe\.xoxb-1-/);
      expect(installed.refresh_token).toMatch(/^xoxe-1-[0-9a-f]{96}$/);
      expect((await postAs(installed.access_token!)).ok).toBe(true);

      clock.advance(6 * 3600);
      const renewed = await refresh(installed.refresh_token!);
      expect(renewed).toMatchObject({
        ok: true,
        token_type: 'bot',
        expires_in: 43_200,
        team: { id: 'T0ROTATE01' },
        bot_user_id: installed.bot_user_id,
      });
      expect(renewed.access_token).not.toBe(installed.access_token);
      expect(renewed.refresh_token).not.toBe(installed.refresh_token);
      // A refresh token works once; one never issued, the same.
      expect(await platformError(refresh(installed.refresh_token!))).toBe('invalid_refresh_token');
      expect(await platformError(refresh('xoxe-1-unknown'))).toBe('invalid_refresh_token');
      // The old token lasts until its own expiry; then each answers token_expired, the renewed one after its 12 hours.
      expect((await postAs(installed.access_token!)).ok).toBe(true);
      clock.advance(6 * 3600);
      expect(await platformError(postAs(installed.access_token!))).toBe('token_expired');
      expect((await postAs(renewed.access_token!)).ok).toBe(true);
      clock.advance(6 * 3600);
      expect(await platformError(postAs(renewed.access_token!))).toBe('token_expired');
      // Calls and the listing show no refresh token.
      expect(JSON.stringify(slack.calls())).not.toContain(renewed.refresh_token!);
      expect(slack.listing()).not.toContain(renewed.refresh_token!);
      // Once the app is removed from the workspace, its refresh tokens renew nothing.
      slack.revokeTeam('T0ROTATE01');
      expect(await platformError(refresh(renewed.refresh_token!))).toBe('invalid_refresh_token');
    } finally {
      slack.setTokenRotation(false);
    }
  });

  it('turns rotation on and off over HTTP; installs without it keep plain tokens', async () => {
    const rotation = (body: unknown) =>
      fetch(`${slack.origin}/_emulator/rotation`, { method: 'POST', body: JSON.stringify(body) }).then(async (response) => [
        response.status,
        await response.json(),
      ]);
    expect(await rotation({ enabled: 'yes' })).toEqual([400, { error: 'enabled must be true or false.' }]);
    expect(await rotation({ enabled: true })).toEqual([200, { enabled: true }]);
    expect(await install('T0ROTATE02')).toMatch(/^xoxe\.xoxb-/);
    expect(await rotation({ enabled: false })).toEqual([200, { enabled: false }]);
    expect(await install('T0ROTATE03')).toMatch(/^xoxb-/);
    expect(await platformError(refresh('xoxe-1-unknown'))).toBe('invalid_refresh_token');
  });
});

describe('conversations.open and chat.postMessage through @slack/web-api', () => {
  it('opens the DM (the same channel again, already_open) and posts into it, blocks sent as a JSON string', async () => {
    const token = await install('T0DM000001', 'U0DM000001');
    slack.clearCalls();
    const bot = client(token);
    const opened = await bot.conversations.open({ users: 'U0DM000001' });
    expect(opened).toMatchObject({ ok: true, channel: { id: expect.stringMatching(/^D0[A-Z0-9]{9}$/) } });
    expect(slack.calls().at(-1)!.answer).toEqual({ ok: true, channel: { id: opened.channel!.id } });
    const again = await bot.conversations.open({ users: 'U0DM000001' });
    expect(again).toMatchObject({
      ok: true,
      no_op: true,
      already_open: true,
      channel: { id: opened.channel!.id, is_im: true, user: 'U0DM000001' },
    });

    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*Opened*' } }];
    const posted = await bot.chat.postMessage({ channel: opened.channel!.id!, text: 'Your secret was opened', blocks });
    expect(posted).toMatchObject({
      ok: true,
      channel: opened.channel!.id,
      ts: expect.stringMatching(/^\d{10}\.\d{6}$/),
      message: { type: 'message', text: 'Your secret was opened', team: 'T0DM000001', blocks },
    });
    expect(slack.messages().at(-1)).toEqual({
      teamId: 'T0DM000001',
      channel: opened.channel!.id,
      userId: 'U0DM000001',
      text: 'Your secret was opened',
      blocks,
      ts: posted.ts,
    });

    const calls = slack.calls();
    expect(calls.map((call) => call.method)).toEqual(['conversations.open', 'conversations.open', 'chat.postMessage']);
    expect(calls[2]!.headers).toMatchObject({ 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer [redacted]' });
    expect(calls[2]!.body).toEqual({ channel: opened.channel!.id, text: 'Your secret was opened', blocks: JSON.stringify(blocks) });
    expect(calls[2]!.credential).toEqual({
      kind: 'token',
      via: 'bearer',
      fingerprint: tokenFingerprint(token),
      teamId: 'T0DM000001',
      state: 'valid',
    });
  });

  it("refuses with Slack's codes: no token, an unknown one, a revoked one, a stranger, an unknown channel, no text", async () => {
    const token = await install('T0DM000002', 'U0DM000002');
    expect(await platformError(client().conversations.open({ users: 'U0DM000002' }))).toBe('not_authed');
    expect(await platformError(client('xoxb-1-2-nope').conversations.open({ users: 'U0DM000002' }))).toBe('invalid_auth');
    expect(await platformError(client(token).conversations.open({ users: 'U0STRANGER' }))).toBe('user_not_found');
    slack.addUser('T0DM000002', 'U0STRANGER');
    expect((await client(token).conversations.open({ users: 'U0STRANGER' })).ok).toBe(true);
    expect(await platformError(client(token).chat.postMessage({ channel: 'D0NOTOPEN1', text: 'x' }))).toBe('channel_not_found');
    const { channel } = await client(token).conversations.open({ users: 'U0DM000002' });
    expect(await platformError(client(token).chat.postMessage({ channel: channel!.id!, text: '' }))).toBe('no_text');

    expect(slack.revokeTeam('T0DM000002')).toBe(1);
    expect(await platformError(client(token).conversations.open({ users: 'U0DM000002' }))).toBe('token_revoked');
    expect(await platformError(client(token).chat.postMessage({ channel: channel!.id!, text: 'x' }))).toBe('token_revoked');
    expect(slack.calls().at(-1)!.credential).toMatchObject({ kind: 'token', state: 'revoked', teamId: 'T0DM000002' });
  });

  it('answers missing_scope when the install lacks the method’s scope', async () => {
    const code = slack.authorize({ teamId: 'T0DM000003', userId: 'U0DM000003', scopes: ['commands'] });
    const { access_token: token } = await client().oauth.v2.access({ client_id: slack.clientId, client_secret: slack.clientSecret, code });
    expect(await platformError(client(token).conversations.open({ users: 'U0DM000003' }))).toBe('missing_scope');
    expect(slack.calls().at(-1)!.answer).toEqual({ ok: false, error: 'missing_scope', needed: 'im:write', provided: 'commands' });
  });

  it('answers 429 with Retry-After for the next calls it is told to throttle', async () => {
    const token = await install('T0DM000004', 'U0DM000004');
    slack.throttleNext(1, 7);
    const error = (await client(token)
      .conversations.open({ users: 'U0DM000004' })
      .catch((caught: unknown) => caught)) as WebAPIRateLimitedError;
    expect(error.code).toBe(ErrorCode.RateLimitedError);
    expect(error.retryAfter).toBe(7);
    expect(slack.calls().at(-1)).toMatchObject({ status: 429, answer: { ok: false, error: 'ratelimited' } });
    expect((await client(token).conversations.open({ users: 'U0DM000004' })).ok).toBe(true);
  });

  it('takes the token as a form field, and a JSON body with the token as Bearer', async () => {
    const token = await install('T0DM000005', 'U0DM000005');
    const byField = await fetch(`${slack.url}conversations.open`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, users: 'U0DM000005' }),
    });
    expect(byField.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const opened = (await byField.json()) as { ok: boolean; channel: { id: string } };
    expect(opened.ok).toBe(true);
    expect(slack.calls().at(-1)).toMatchObject({
      credential: { via: 'field', state: 'valid' },
      body: { token: '[redacted]', users: 'U0DM000005' },
    });
    const json = await fetch(`${slack.url}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${token}` },
      body: JSON.stringify({ channel: opened.channel.id, text: 'hi', blocks: [{ type: 'divider' }] }),
    });
    expect(await json.json()).toMatchObject({ ok: true, message: { text: 'hi', blocks: [{ type: 'divider' }] } });
    // Slack ignores a token inside a JSON body.
    const tokenInJson = await fetch(`${slack.url}conversations.open`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, users: 'U0DM000005' }),
    });
    expect(await tokenInJson.json()).toEqual({ ok: false, error: 'not_authed' });
  });
});

describe('the listing (GET /_dev/chat) and the controls', () => {
  it('shows every call, message and installation, and no token or client secret', async () => {
    const token = await install('T0LIST0001', 'U0LIST0001');
    const bot = client(token);
    const { channel } = await bot.conversations.open({ users: 'U0LIST0001' });
    // Even a token put in a message's text (a bug in a caller) is blanked in the listing.
    await bot.chat.postMessage({ channel: channel!.id!, text: `oops ${token}` });
    const listing = renderChatCalls(slack);
    expect(JSON.parse(listing)).toMatchObject({
      calls: expect.any(Array),
      messages: expect.any(Array),
      installations: expect.arrayContaining([
        expect.objectContaining({
          teamId: 'T0LIST0001',
          tokens: [
            { fingerprint: tokenFingerprint(token), scopes: ['commands', 'chat:write', 'im:write'], revoked: false, expiresAt: null },
          ],
        }),
      ]),
    });
    expect(listing).toContain('oauth.v2.access');
    expect(listing).not.toContain(token);
    expect(listing).not.toContain(slack.clientSecret);
    expect(listing).not.toMatch(/xoxb-\d/);
    const viaHttp = await (await fetch(`${slack.origin}/_emulator/calls`)).text();
    expect(viaHttp).not.toContain(token);
    expect(viaHttp).not.toContain(slack.clientSecret);
  });

  it('serves the authorize page, whose Allow and Cancel redirect with a code or access_denied and the state', async () => {
    const query = new URLSearchParams({
      client_id: slack.clientId,
      scope: 'commands,chat:write,im:write',
      redirect_uri: redirectUri,
      state: 'st.ate',
    });
    const shown = await fetch(`${slack.authorizeUrl}?${query}`);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('commands, chat:write, im:write');
    const decide = (decision: string) =>
      fetch(slack.authorizeUrl, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({
          ...Object.fromEntries(query),
          team_id: 'T0PAGE0001',
          team_name: 'Page',
          user_id: 'U0PAGE0001',
          decision,
        }),
      });
    const allowed = new URL((await decide('allow')).headers.get('location')!);
    expect(`${allowed.origin}${allowed.pathname}`).toBe(redirectUri);
    expect(allowed.searchParams.get('state')).toBe('st.ate');
    const answer = await client().oauth.v2.access({
      client_id: slack.clientId,
      client_secret: slack.clientSecret,
      code: allowed.searchParams.get('code')!,
      redirect_uri: redirectUri,
    });
    expect(answer).toMatchObject({ team: { id: 'T0PAGE0001', name: 'Page' }, authed_user: { id: 'U0PAGE0001' } });
    const cancelled = new URL((await decide('cancel')).headers.get('location')!);
    expect(Object.fromEntries(cancelled.searchParams)).toEqual({ error: 'access_denied', state: 'st.ate' });
    expect((await fetch(`${slack.authorizeUrl}?${new URLSearchParams({ ...Object.fromEntries(query), client_id: 'other' })}`)).status).toBe(
      400,
    );
  });

  it('answers only loopback host names', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      request(`${slack.origin}/_emulator/calls`, { headers: { host: 'attacker.example' } }, (response) => resolve(response.statusCode!))
        .on('error', reject)
        .end();
    });
    expect(status).toBe(404);
  });
});

describe('signSlashCommand', () => {
  it("reproduces Slack's published example signature byte for byte", () => {
    // https://docs.slack.dev/authentication/verifying-requests-from-slack
    const fields = {
      token: 'xyzz0WbapA4vBCDEFasx0q6G',
      team_id: 'T1DC2JH3J',
      team_domain: 'testteamnow',
      channel_id: 'G8PSS9T3V',
      channel_name: 'foobar',
      user_id: 'U2CERLKJA',
      user_name: 'roadrunner',
      command: '/webhook-collect',
      text: '',
      response_url: 'https://hooks.slack.com/commands/T1DC2JH3J/397700885554/96rGlfmibIGlgcZRskXaIFfN',
      trigger_id: '398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    };
    const signed = signSlashCommand(fields, '8f742231b10e8888abcd99yyyzzz85a5', 1531420618);
    expect(signed.body).toBe(
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    );
    expect(signed.headers).toEqual({
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': '1531420618',
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    });
  });

  it("builds Slack's field set for /hushlink, with overrides, spaces encoded as Slack sends them", () => {
    const fields = slashCommand({ text: 'my password', user_id: 'U0OTHER001' });
    expect(fields).toMatchObject({
      command: '/hushlink',
      team_id: 'T0LOCAL001',
      user_id: 'U0OTHER001',
      text: 'my password',
      api_app_id: 'A0LOCAL001',
    });
    expect(signSlashCommand(fields, 'secret', 1).body).toContain('&text=my+password&');
  });
});
