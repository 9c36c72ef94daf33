import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { tokenFingerprint } from '../../local/slack/api.ts';
import { signSlashCommand, slashCommand } from '../../local/slack/signing.ts';
import { issueChatToken, issueInstallState } from '../../shared/domain/chat/tokens.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { secretKey } from '../../shared/store/items/index.ts';
import { createKey, keptSignedIn, newEmail } from '../support/accounts.ts';
import { chatTokenOf, nowSeconds, sendCommand, stateOf } from '../support/chat.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime, textSecretBody } from '../support/runtime.ts';

/**
 * The chat routes over HTTP (issue 19, interface §4.9) against the local runtime and its Slack
 * emulator: the install from its start to the stored installation, the slash command and its
 * signature, the composer's subscription; every status their route rows list.
 */

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let db: DynamoDBDocumentClient;
type Account = ReturnType<typeof keptSignedIn>;
/** Signed in again whenever the clock moved past their access token (the tests move it by minutes). */
let ada: Account;
let bob: Account;

beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  ada = keptSignedIn(runtime, newEmail('chat-ada'));
  bob = keptSignedIn(runtime, newEmail('chat-bob'));
  await Promise.all([ada.ensure(), bob.ensure()]);
});
afterAll(async () => {
  db?.destroy();
  await runtime?.stop();
});

const clientSecret = () => runtime.config.SLACK_CLIENT_SECRET!;
/** Slack's redirect as a browser makes it, the answer read as it comes (a 302 is not followed). */
async function callback(query: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${runtime.url}/v1/chat/callback?${new URLSearchParams(query)}`, { headers, redirect: 'manual' });
  const text = await response.text();
  const body = /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, body };
}
const startInstall = async (who: Account = ada) =>
  stateOf((await api.post('/v1/chat/install', undefined, (await who.ensure()).auth)).body.authorize_url);
const installationItem = async (teamId: string) =>
  (await db.send(new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: { pk: `CHAT_TEAM#${teamId}`, sk: 'INSTALLATION' } }))).Item;
const secretItem = async (id: string) => (await db.send(new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: secretKey(id) }))).Item;

let teams = 0;
/** A team id of Slack's shape, new to this file's runtime. */
const newTeam = () => `T0CHAT${String(++teams).padStart(4, '0')}`;

async function chatTokenFromCommand(fields: Record<string, string> = {}): Promise<string> {
  const reply = await sendCommand(runtime, api, fields);
  expect(reply.status).toBe(200);
  return chatTokenOf(reply.body.text);
}

async function createdSecret(): Promise<{ id: string; delete_token: string }> {
  const created = await api.post('/v1/secrets', textSecretBody());
  expect(created.status).toBe(201);
  return created.body;
}

describe('POST /v1/chat/install', () => {
  it('answers Slack’s authorize page (the emulator’s) for the app, its scopes, a state and the callback', async () => {
    const reply = await api.post('/v1/chat/install', undefined, (await ada.ensure()).auth);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['authorize_url']);
    const url = new URL(reply.body.authorize_url);
    expect(`${url.origin}${url.pathname}`).toBe(runtime.slack.authorizeUrl);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'redirect_uri', 'scope', 'state']);
    expect(url.searchParams.get('client_id')).toBe(runtime.config.SLACK_CLIENT_ID);
    expect(url.searchParams.get('scope')).toBe('commands,chat:write,im:write');
    expect(url.searchParams.get('redirect_uri')).toBe(`${runtime.config.WEB_ORIGIN.replace(/\/+$/, '')}/v1/chat/callback`);
    expect(url.searchParams.get('state')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('is 401 without a session and 403 with an API key', async () => {
    expectProblem(await api.post('/v1/chat/install'), 401, 'unauthorized');
    const key = await createKey(runtime, await ada.ensure(), ['secrets:write']);
    const reply = await api.post('/v1/chat/install', undefined, { authorization: `Bearer ${key.key}` });
    expect(reply.status, JSON.stringify(reply.body)).toBe(403);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('GET /v1/chat/callback', () => {
  it('installs the app: to the web client’s installed page naming the team, the installation stored with the state’s user as installer and the bot token sealed for the team', async () => {
    const teamId = newTeam();
    const state = await startInstall(ada);
    const code = runtime.slack.authorize({ teamId, teamName: 'Acme & Co <Ops>', userId: 'U0CHATADA' });
    const reply = await callback({ code, state });
    expect(reply.status).toBe(302);
    const location = new URL(reply.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(`${runtime.config.WEB_ORIGIN.replace(/\/+$/, '')}/chat/installed`);
    expect(location.searchParams.get('team')).toBe('Acme & Co <Ops>');
    expect([...location.searchParams.keys()]).toEqual(['team']);
    // The redirect carried Slack's code and the state: kept by nothing, sent on to no one.
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('referrer-policy')).toBe('no-referrer');
    // The page it names is the web client's, styled (the site's stylesheet) and with its header.
    const page = await fetch(location.href.replace(runtime.config.WEB_ORIGIN.replace(/\/+$/, ''), runtime.url));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<link rel="stylesheet" href="/styles.css">');
    expect(html).toContain('id="installed-title"');

    const item = (await installationItem(teamId))!;
    expect(item).toMatchObject({ installer_user_id: ada.session.user.id });
    const stored = await runtime.functions.chat.installations.installation(teamId);
    expect(stored).toMatchObject({
      teamId,
      teamName: 'Acme & Co <Ops>',
      installerUserId: ada.session.user.id,
      installerChatUserId: 'U0CHATADA',
      scopes: ['commands', 'chat:write', 'im:write'],
    });
    // The token the emulator issued (it shows a fingerprint only) opens from the seal, with this team only.
    const sealer = runtime.functions.chat.tokenSealer;
    const botToken = await sealer.open(stored!.sealedBotToken, teamId);
    expect(botToken).toMatch(/^xoxb-/);
    const issued = runtime.slack.installations().find((installation) => installation.teamId === teamId)!;
    expect(issued.tokens.map((token) => token.fingerprint)).toEqual([tokenFingerprint(botToken)]);
    expect(JSON.stringify(item)).not.toContain(botToken);
    expect(JSON.stringify(item)).not.toContain(botToken.split('-').at(-1));
    await expect(sealer.open(stored!.sealedBotToken, newTeam())).rejects.toThrow();

    // The exchange Slack was asked for: the code, the redirect URI, the app's credentials.
    const exchange = runtime.slack
      .calls()
      .filter((call) => call.method === 'oauth.v2.access')
      .at(-1)!;
    expect(exchange.body).toMatchObject({ code, redirect_uri: `${runtime.config.WEB_ORIGIN.replace(/\/+$/, '')}/v1/chat/callback` });
  });

  it('lists the emulator’s calls at /_dev/chat (on this machine’s own name), never a token or the app’s secret', async () => {
    const teamId = newTeam();
    expect((await callback({ code: runtime.slack.authorize({ teamId }), state: await startInstall(ada) })).status).toBe(302);
    const stored = await runtime.functions.chat.installations.installation(teamId);
    const botToken = await runtime.functions.chat.tokenSealer.open(stored!.sealedBotToken, teamId);
    const listed = await fetch(`${runtime.url}/_dev/chat`);
    expect(listed.status).toBe(200);
    const text = await listed.text();
    const listing = JSON.parse(text) as { calls: Array<{ method: string }>; installations: Array<{ teamId: string }> };
    expect(listing.calls.some((call) => call.method === 'oauth.v2.access')).toBe(true);
    expect(listing.installations.map((installation) => installation.teamId)).toContain(teamId);
    expect(text).not.toContain(botToken);
    expect(text).not.toContain(runtime.config.SLACK_CLIENT_SECRET!);
  });

  it('makes the user the state names the installer, whoever completes it: nothing of the browser is trusted', async () => {
    const teamId = newTeam();
    const state = await startInstall(bob);
    // Ada's browser (her session cookie or token is not even looked at) completes Bob's state.
    const reply = await callback({ code: runtime.slack.authorize({ teamId }), state }, (await ada.ensure()).auth);
    expect(reply.status).toBe(302);
    expect((await installationItem(teamId))!.installer_user_id).toBe(bob.session.user.id);
  });

  it('replaces the team’s installation when it installs again', async () => {
    const teamId = newTeam();
    expect((await callback({ code: runtime.slack.authorize({ teamId }), state: await startInstall(ada) })).status).toBe(302);
    const first = await runtime.functions.chat.installations.installation(teamId);
    expect(
      (await callback({ code: runtime.slack.authorize({ teamId, userId: 'U0CHATBOB' }), state: await startInstall(bob) })).status,
    ).toBe(302);
    const second = await runtime.functions.chat.installations.installation(teamId);
    expect(second).toMatchObject({ installerUserId: bob.session.user.id, installerChatUserId: 'U0CHATBOB' });
    const sealer = runtime.functions.chat.tokenSealer;
    expect(await sealer.open(second!.sealedBotToken, teamId)).not.toBe(await sealer.open(first!.sealedBotToken, teamId));
  });

  it('is 401 for a state missing, garbage, signed with another secret, of the other kind, expired or used', async () => {
    const code = () => runtime.slack.authorize({ teamId: newTeam() });
    expectProblem(await callback({ code: code() }), 401, 'unauthorized');
    expectProblem(await callback({ code: code(), state: '' }), 401, 'unauthorized');
    expectProblem(await callback({ code: code(), state: 'not-a-state' }), 401, 'unauthorized');
    const forged = await issueInstallState(ada.session.user.id, runtime.clock.now(), 'another-client-secret-0123456789');
    expectProblem(await callback({ code: code(), state: forged.token }), 401, 'unauthorized');
    const chatToken = await issueChatToken({ teamId: 'T0LOCAL001', slackUserId: 'U0LOCAL001' }, runtime.clock.now(), clientSecret());
    expectProblem(await callback({ code: code(), state: chatToken.token }), 401, 'unauthorized');
    expectProblem(await callback({ code: code(), state: await chatTokenFromCommand() }), 401, 'unauthorized');
    // One byte of a good state changed.
    const good = await startInstall(ada);
    const flipped = `${good.slice(0, -2)}${good.at(-2) === 'A' ? 'B' : 'A'}${good.at(-1)}`;
    expectProblem(await callback({ code: code(), state: flipped }), 401, 'unauthorized');

    const expiring = await startInstall(ada);
    runtime.clock.advance(601);
    expectProblem(await callback({ code: code(), state: expiring }), 401, 'unauthorized');

    const state = await startInstall(ada);
    const teamId = newTeam();
    expect((await callback({ code: runtime.slack.authorize({ teamId }), state })).status).toBe(302);
    const replayed = await callback({ code: runtime.slack.authorize({ teamId: newTeam() }), state });
    expectProblem(replayed, 401, 'unauthorized');
    expect(replayed.body.detail).toMatch(/used already/);
  });

  it('a state is good until its tenth minute ends', async () => {
    const state = await startInstall(ada);
    // The runtime's clock also follows real time: 5 s short of the end leaves room for a loaded
    // machine between the two requests (at 599 s, a CI run under load crossed it).
    runtime.clock.advance(595);
    expect((await callback({ code: runtime.slack.authorize({ teamId: newTeam() }), state })).status).toBe(302);
  });

  it('is 403 when the user cancels in Slack, or Slack refuses the code: made up, or used already', async () => {
    const deniedState = await startInstall(ada);
    const denied = await callback({ error: 'access_denied', state: deniedState });
    expectProblem(denied, 403, 'forbidden');
    expect(denied.body).toMatchObject({ reason: 'install_refused', slack_error: 'access_denied' });
    // Slack's answer spends the state, refusal or not: its redirect replayed is a used state.
    expectProblem(await callback({ error: 'access_denied', state: deniedState }), 401, 'unauthorized');

    const madeUp = await callback({ code: '1000000000001.1000000000002.madeupcode', state: await startInstall(ada) });
    expectProblem(madeUp, 403, 'forbidden');
    expect(madeUp.body).toMatchObject({ reason: 'install_refused', slack_error: 'invalid_code' });

    const teamId = newTeam();
    const code = runtime.slack.authorize({ teamId });
    expect((await callback({ code, state: await startInstall(ada) })).status).toBe(302);
    const reused = await callback({ code, state: await startInstall(ada) });
    expectProblem(reused, 403, 'forbidden');
    expect(reused.body).toMatchObject({ reason: 'install_refused' });
  });

  it('is 400 for a good state without a code or an error, or an over-long parameter', async () => {
    expectProblem(await callback({ state: await startInstall(ada) }), 400, 'invalid_request');
    expectProblem(await callback({ code: 'c'.repeat(2049), state: await startInstall(ada) }), 400, 'invalid_request');
    expectProblem(await callback({ state: 's'.repeat(2049) }), 400, 'invalid_request');
    // The state the first one carried was not spent by the refusal.
    const state = await startInstall(ada);
    expectProblem(await callback({ state }), 400, 'invalid_request');
    expect((await callback({ code: runtime.slack.authorize({ teamId: newTeam() }), state })).status).toBe(302);
  });
});

describe('POST /v1/chat/commands', () => {
  it('answers an ephemeral link to the composer with a chat token, and the line about never typing a secret into Slack', async () => {
    const reply = await sendCommand(runtime, api);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['response_type', 'text']);
    expect(reply.body.response_type).toBe('ephemeral');
    const origin = runtime.config.WEB_ORIGIN.replace(/\/+$/, '');
    expect(reply.body.text).toContain(`<${origin}/#chat=`);
    expect(reply.body.text).toContain('Never type a secret into Slack');
    expect(reply.body.text).not.toContain('ignored');
    // The only link is the composer's.
    expect(reply.body.text.match(/https?:\/\/[^\s|>]+/g)).toEqual([`${origin}/#chat=${chatTokenOf(reply.body.text)}`]);
  });

  it('says typed text was ignored and never echoes it', async () => {
    const typed = 'hunter2-Zq8vXk3p-correct horse battery staple';
    const reply = await sendCommand(runtime, api, { text: typed });
    expect(reply.status).toBe(200);
    expect(reply.body.text).toContain('What you typed after the command was ignored');
    for (const part of [typed, 'hunter2', 'Zq8vXk3p', 'battery staple']) expect(reply.body.text).not.toContain(part);
    expect(JSON.stringify(reply.body)).not.toContain('Zq8vXk3p');
  });

  it('answers Slack’s certificate check with 200', async () => {
    const signed = signSlashCommand(
      { ssl_check: '1', token: 'gIkuvaNzQIHg97ATvDxqgjtO' },
      runtime.config.SLACK_SIGNING_SECRET!,
      nowSeconds(runtime),
    );
    const reply = await api.call('POST', '/v1/chat/commands', { body: signed.body, headers: signed.headers });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ response_type: 'ephemeral', text: '' });
  });

  it('accepts a signature up to 300 s either way of now', async () => {
    expect((await sendCommand(runtime, api, {}, { timestampSeconds: nowSeconds(runtime) - 300 })).status).toBe(200);
    expect((await sendCommand(runtime, api, {}, { timestampSeconds: nowSeconds(runtime) + 300 })).status).toBe(200);
  });

  it('is 403 for a stale or future timestamp, a tampered body, the wrong secret or a missing header', async () => {
    const refused = (reply: Awaited<ReturnType<typeof sendCommand>>) => {
      expectProblem(reply, 403, 'forbidden');
      expect(reply.body.reason).toBe('slack_signature');
    };
    refused(await sendCommand(runtime, api, {}, { timestampSeconds: nowSeconds(runtime) - 301 }));
    refused(await sendCommand(runtime, api, {}, { timestampSeconds: nowSeconds(runtime) + 301 }));
    refused(await sendCommand(runtime, api, {}, { secret: 'f'.repeat(32) }));
    refused(await sendCommand(runtime, api, {}, { secret: clientSecret() }));

    const signed = signSlashCommand(slashCommand({ user_id: 'U0CHATADA' }), runtime.config.SLACK_SIGNING_SECRET!, nowSeconds(runtime));
    const send = (body: string, headers: Record<string, string>) => api.call('POST', '/v1/chat/commands', { body, headers });
    const tampered = signed.body.replace('U0CHATADA', 'U0CHATADB');
    expect(tampered).not.toBe(signed.body);
    refused(await send(tampered, signed.headers));
    const { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp, ...rest } = signed.headers;
    refused(await send(signed.body, { ...rest, 'x-slack-request-timestamp': timestamp! }));
    refused(await send(signed.body, { ...rest, 'x-slack-signature': signature! }));
    refused(await send(signed.body, rest));
    // The same request, untouched, is good: what failed above was the change alone.
    expect((await send(signed.body, signed.headers)).status).toBe(200);
  });

  it('is 400 for a signed form naming no team or no user', async () => {
    expectProblem(await sendCommand(runtime, api, { team_id: '' }), 400, 'invalid_request');
    expectProblem(await sendCommand(runtime, api, { user_id: '' }), 400, 'invalid_request');
    const signed = signSlashCommand({ command: '/hushlink', text: '' }, runtime.config.SLACK_SIGNING_SECRET!, nowSeconds(runtime));
    expectProblem(await api.call('POST', '/v1/chat/commands', { body: signed.body, headers: signed.headers }), 400, 'invalid_request');
  });
});

describe('POST /v1/chat/subscribe', () => {
  it('subscribes the command’s user to a secret its delete token proves, and answers no link', async () => {
    const chatToken = await chatTokenFromCommand({ team_id: 'T0CHATSUB1', user_id: 'U0CHATSUB1' });
    const secret = await createdSecret();
    const reply = await api.post('/v1/chat/subscribe', { secret_id: secret.id, delete_token: secret.delete_token, chat_token: chatToken });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ subscribed: true });
    expect(await secretItem(secret.id)).toMatchObject({ chat_team: 'T0CHATSUB1', chat_user: 'U0CHATSUB1' });
  });

  it('is 403 for a chat token expired, garbage or a state, or a delete token of another secret', async () => {
    const secret = await createdSecret();
    const other = await createdSecret();
    const subscribe = (chat_token: string, delete_token = secret.delete_token) =>
      api.post('/v1/chat/subscribe', { secret_id: secret.id, delete_token, chat_token });
    const chatToken = await chatTokenFromCommand();

    const wrongDelete = await subscribe(chatToken, other.delete_token);
    expectProblem(wrongDelete, 403, 'forbidden');
    expect(wrongDelete.body.reason).toBe('delete_token');
    for (const bad of [
      'garbage',
      await startInstall(ada),
      (await issueChatToken({ teamId: 'T0LOCAL001', slackUserId: 'U0LOCAL001' }, runtime.clock.now(), 'another-client-secret-0123456789'))
        .token,
    ]) {
      const reply = await subscribe(bad);
      expectProblem(reply, 403, 'forbidden');
      expect(reply.body.reason).toBe('chat_token');
    }
    runtime.clock.advance(901);
    const expired = await subscribe(chatToken);
    expectProblem(expired, 403, 'forbidden');
    expect(expired.body.reason).toBe('chat_token');
    expect(await secretItem(secret.id)).not.toHaveProperty('chat_team');
  });

  it('is 404 for an unknown secret', async () => {
    const created = await createdSecret();
    const unknown = `${created.id.slice(0, -4)}${created.id.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    expectProblem(
      await api.post('/v1/chat/subscribe', {
        secret_id: unknown,
        delete_token: created.delete_token,
        chat_token: await chatTokenFromCommand(),
      }),
      404,
      'not_found',
    );
  });

  it('is 400 for a body missing a field, with an unknown one, or not JSON', async () => {
    const secret = await createdSecret();
    const body = { secret_id: secret.id, delete_token: secret.delete_token, chat_token: await chatTokenFromCommand() };
    const { chat_token: _, ...missing } = body;
    expectProblem(await api.post('/v1/chat/subscribe', missing), 400, 'invalid_request');
    expectProblem(await api.post('/v1/chat/subscribe', { ...body, link: 'https://example.com/' }), 400, 'invalid_request');
    expectProblem(
      await api.call('POST', '/v1/chat/subscribe', { body: '{"secret_id":', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_json',
    );
    expect(await secretItem(secret.id)).not.toHaveProperty('chat_team');
  });
});
