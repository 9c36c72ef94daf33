/**
 * The chat integration's web parts end to end (issue 19): My secrets' "Add to Slack" through the
 * Slack emulator's authorize page to the installed page; a slash command signed here as Slack
 * signs it, whose link opens the composer with "You'll get a Slack message when it's opened",
 * the chat token taken off the address bar; the secret made there subscribed (its item names the
 * Slack team and user), the chat token sent to `POST /v1/chat/subscribe` alone and no link sent
 * to any chat route; an expired chat link said as such; and a deployment without a chat app.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { signSlashCommand, slashCommand } from '../../local/slack/signing.ts';
import { chatLimits } from '../../shared/limits.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { secretKey as key } from '../../shared/store/items/index.ts';
import { newEmail } from '../support/accounts.ts';
import { startTestRuntime } from '../support/runtime.ts';
import { findLeaks, guard as guardValue, launchChromium, Session, settleTraffic, signInThroughPage } from './harness.ts';

let runtime: Runtime;
let browser: Browser;
/** Link keys, texts, a command's typed text: none may be sent by a browser. Chat tokens: to subscribe only. */
const guarded = new Map<string, string>();
const guard = (label: string, value: string) => guardValue(guarded, label, value);
const sessions: Session[] = [];

beforeAll(async () => {
  [runtime, browser] = await Promise.all([startTestRuntime(), launchChromium()]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

async function session(name: string): Promise<Session> {
  const opened = await Session.open(browser, name);
  sessions.push(opened);
  return opened;
}

/** `/secret` run in Slack, signed now with the runtime's signing secret: the link its ephemeral reply carries. */
async function chatLink(text = ''): Promise<{ link: string; chatToken: string; reply: string }> {
  const signed = signSlashCommand(slashCommand({ text }), runtime.config.SLACK_SIGNING_SECRET!, Math.floor(runtime.clock.now() / 1000));
  const response = await fetch(`${runtime.url}/v1/chat/commands`, { method: 'POST', headers: signed.headers, body: signed.body });
  expect(response.status).toBe(200);
  const reply = ((await response.json()) as { text: string }).text;
  const link = /<([^|>]+)\|/.exec(reply)?.[1];
  if (!link) throw new Error(`no link in the command's reply: ${reply}`);
  expect(link.startsWith(`${runtime.url}/#chat=`)).toBe(true);
  const chatToken = new URLSearchParams(new URL(link).hash.slice(1)).get('chat')!;
  guard('chat token', chatToken);
  return { link, chatToken, reply };
}

/** Writes a text on the composer and creates it: the link shown (its key guarded). */
async function compose(s: Session): Promise<{ id: string; link: string }> {
  const text = `chat e2e secret ${randomUUID()}`;
  guard('plaintext', text);
  await s.page.fill('#secret-text', text);
  await s.page.click('#create-button');
  await s.page.waitForSelector('#result:not([hidden])');
  const link = await s.page.inputValue('#share-link');
  const url = new URL(link);
  guard('link key', url.hash.slice(1));
  return { id: url.pathname.split('/').pop()!, link };
}

async function secretItem(id: string): Promise<Record<string, unknown> | undefined> {
  const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  return (await db.send(new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: key(id), ConsistentRead: true }))).Item;
}

describe('Add to Slack (My secrets)', () => {
  it('goes through Slack’s authorize page and, after Allow, lands on the installed page', async () => {
    const s = await session('installer');
    await signInThroughPage(s, runtime, newEmail('chat-installer'));
    await s.ready('account');
    expect(await s.page.isVisible('#chat-install')).toBe(true);
    await s.screenshot('account-chat');
    await s.page.click('#chat-install');
    await s.page.waitForURL((url) => url.origin === runtime.slack.origin && url.pathname === '/oauth/v2/authorize');
    expect(await s.problems()).toEqual([]);
    await s.page.click('button[value="allow"]');
    // The callback redirects to the web client's own page (styled, with the site's header): Slack's code and the state left behind.
    await s.page.waitForURL((url) => url.origin === runtime.url && url.pathname === '/chat/installed');
    await s.page.waitForSelector('html[data-ready="chat-installed"]');
    expect(new URL(s.page.url()).searchParams.get('team')).toBe('Hushlink local workspace');
    expect(await s.page.textContent('h1')).toBe('Hushlink is installed in Hushlink local workspace');
    expect(await s.page.isVisible('header.site-header')).toBe(true);
    expect(await s.page.textContent('.chat-installed-steps')).toContain('/secret');
    await s.screenshot('chat-installed');
    expect(await s.problems(), 'the installed page: no CSP violation or page error').toEqual([]);
    await settleTraffic();
    const install = s.apiRequests().filter((request) => new URL(request.url).pathname === '/v1/chat/install');
    expect(install.map((request) => request.method)).toEqual(['POST']);
    // The team's installation names the signed-in user who asked for it as its installer.
    const accessToken = /^Bearer (\S+)$/.exec(install[0]!.headers.authorization ?? '')![1]!;
    const userId = (JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string }).sub;
    const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    const { Item } = await db.send(
      new GetCommand({
        TableName: runtime.config.TABLE_NAME,
        Key: { pk: 'CHAT_TEAM#T0LOCAL001', sk: 'INSTALLATION' },
        ConsistentRead: true,
      }),
    );
    expect({ installer: Item?.installer_user_id, chatUser: Item?.installer_chat_user_id }).toEqual({
      installer: userId,
      chatUser: 'U0LOCAL001',
    });
    await s.close();
  });
});

describe('the composer opened from a chat link', () => {
  it('says a Slack message will come, takes the token off the address bar, and subscribes the secret it makes', async () => {
    const typed = `hunter2 typed into Slack ${randomUUID()}`;
    guard('typed command text', typed);
    const { link, chatToken, reply } = await chatLink(typed);
    expect(reply).not.toContain(typed);
    const s = await session('slack-user');
    await s.page.goto(link);
    await s.ready('compose');
    expect(s.page.url()).toBe(`${runtime.url}/`);
    expect((await s.page.textContent('#compose-chat'))?.trim()).toBe('You’ll get a Slack message when it’s opened.');
    expect(await s.page.isVisible('#compose-chat')).toBe(true);
    await s.screenshot('compose-chat');

    const secret = await compose(s);
    await s.page.waitForSelector('#result-chat[data-chat="subscribed"]');
    expect(await s.page.textContent('#result-chat-text')).toContain('Slack will send you a message when it is opened.');
    await s.screenshot('compose-chat-subscribed');
    const item = await secretItem(secret.id);
    expect({ team: item?.chat_team, user: item?.chat_user }).toEqual({ team: 'T0LOCAL001', user: 'U0LOCAL001' });

    await settleTraffic();
    const chatCalls = s.apiRequests().filter((request) => new URL(request.url).pathname.startsWith('/v1/chat/'));
    expect(chatCalls.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual(['POST /v1/chat/subscribe']);
    const sent = JSON.parse(chatCalls[0]!.body) as Record<string, string>;
    expect(Object.keys(sent).sort()).toEqual(['chat_token', 'delete_token', 'secret_id']);
    expect(sent).toMatchObject({ secret_id: secret.id, chat_token: chatToken });
    // No link, and nothing of one, goes to a chat route.
    for (const call of chatCalls) expect(call.body).not.toMatch(/\/s\/|#/);
    expect(await s.problems()).toEqual([]);
    expect(await s.storage()).toEqual({ local: 0, session: 0, cookies: '' });

    // "Create another" is a plain composer again: the chat link was for that secret.
    await s.page.click('#create-another');
    expect(await s.page.isVisible('#compose-chat')).toBe(false);
    expect(await s.page.isVisible('#result-chat')).toBe(false);
    // The chat link's entry was replaced, not kept behind: Back leaves the site.
    await s.page.goBack();
    expect(s.page.url()).toBe('about:blank');
    await s.close();
  });

  it('says an expired chat link has expired, and the secret is made all the same', async () => {
    const { link } = await chatLink();
    const s = await session('slack-user-late');
    await s.page.goto(link);
    await s.ready('compose');
    expect(await s.page.isVisible('#compose-chat')).toBe(true);
    runtime.clock.advance(chatLimits.chatTokenSeconds + 1);
    const secret = await compose(s);
    await s.page.waitForSelector('#result-chat[data-chat="expired"]');
    expect(await s.page.textContent('#result-chat-text')).toBe(
      'The Slack link has expired: run /secret again to be told when it is opened. The secret itself is fine.',
    );
    expect(await s.page.isVisible('#result-chat-retry')).toBe(false);
    expect(await s.page.inputValue('#share-link')).toBe(secret.link);
    expect((await secretItem(secret.id))?.chat_team).toBeUndefined();
    expect(await s.problems()).toEqual([]);
    await s.close();
  });

  it('sends nothing to the chat routes for a page opened without a chat link', async () => {
    const s = await session('plain-composer');
    await s.page.goto(`${runtime.url}/`);
    await s.ready('compose');
    expect(await s.page.isVisible('#compose-chat')).toBe(false);
    await compose(s);
    await settleTraffic();
    expect(s.apiRequests().filter((request) => new URL(request.url).pathname.startsWith('/v1/chat/'))).toEqual([]);
    expect(await s.page.isVisible('#result-chat')).toBe(false);
    await s.close();
  });
});

describe('a deployment without a chat app', () => {
  it('keeps Add to Slack from leading anywhere and says the operator has not set it up', async () => {
    const bare = await startTestRuntime({ chat: false });
    try {
      const s = await Session.open(browser, 'no-chat-app');
      await signInThroughPage(s, bare, newEmail('chat-none'));
      await s.ready('account');
      await s.page.click('#chat-install');
      await s.page.waitForSelector('#chat-unavailable:not([hidden])');
      expect(await s.page.isVisible('#chat-install')).toBe(false);
      expect(await s.page.textContent('#chat-unavailable')).toBe(
        'Slack is not set up on this Hushlink: its operator has not added a Slack app.',
      );
      expect(new URL(s.page.url()).pathname).toBe('/account');
      expect(await s.problems()).toEqual([]);
      await s.close();
    } finally {
      await bare.stop();
    }
  }, 180_000);
});

describe('what the browsers sent', () => {
  it('never sent a link key, a text or typed command text, and a chat token to POST /v1/chat/subscribe alone', async () => {
    const requests = await settleTraffic();
    expect(requests.length).toBeGreaterThan(0);
    expect(findLeaks(requests, guarded, [{ label: 'chat token', method: 'POST', path: /^\/v1\/chat\/subscribe$/ }])).toEqual([]);
  });
});
