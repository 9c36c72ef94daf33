import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { signSlashCommand, slashCommand } from '../../local/slack/signing.ts';
import { newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime, textSecretBody } from '../support/runtime.ts';

/**
 * "Your secret was opened" (issue 19) end to end on the local runtime: the app installed over
 * HTTP through the Slack emulator, a secret subscribed from a slash command's chat token, its
 * claims and expiry carried by the table's stream through the relay and the work queue to the
 * real worker, whose DMs the emulator records with every request it was sent.
 */

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let user: SignedIn;
/** Every body put on the work queue, to hand the worker the same message again, as SQS may. */
const sentWork: string[] = [];

const team = 'T0LOCAL001';
const chatUser = 'U0LOCAL001';

/** Installs the app in `teamId`, approved there by `userId`, as `user` started it. */
async function install(teamId: string, userId: string): Promise<void> {
  const started = await api.post('/v1/chat/install', undefined, user.auth);
  const state = new URL(started.body.authorize_url).searchParams.get('state')!;
  const code = runtime.slack.authorize({ teamId, userId });
  expect((await api.get(`/v1/chat/callback?code=${code}&state=${state}`)).status).toBe(200);
}

/** A new anonymous secret, subscribed to `userId`'s notices with the chat token their /hushlink command answered. */
async function subscribedSecret(
  body: Record<string, unknown> = {},
  teamId = team,
  userId = chatUser,
): Promise<{ id: string; deleteToken: string; recipients: Array<{ id: string }> }> {
  const command = signSlashCommand(
    slashCommand({ team_id: teamId, user_id: userId }),
    runtime.config.SLACK_SIGNING_SECRET!,
    Math.floor(runtime.clock.now() / 1000),
  );
  const answered = await api.call('POST', '/v1/chat/commands', { body: command.body, headers: command.headers });
  const chatToken = /#chat=([^|>\s]+)/.exec(answered.body.text as string)![1]!;
  const created = await api.post('/v1/secrets', textSecretBody(body));
  expect(created.status).toBe(201);
  const subscribed = await api.post('/v1/chat/subscribe', {
    secret_id: created.body.id,
    delete_token: created.body.delete_token,
    chat_token: chatToken,
  });
  expect(subscribed.status).toBe(200);
  return {
    id: created.body.id,
    deleteToken: created.body.delete_token as string,
    recipients: ((created.body.recipients ?? []) as Array<{ recipient_id: string }>).map((link) => ({ id: link.recipient_id })),
  };
}

const claim = async (id: string) => expect((await api.post(`/v1/secrets/${id}/claim`)).status).toBe(200);
const dmsTo = (userId: string) => runtime.slack.messages().filter((message) => message.userId === userId);
const chatNoticesQueued = () => sentWork.filter((body) => JSON.parse(body).kind === 'chat_notice');
const shortId = (id: string) => `${id.slice(0, 8)}…`;
/** "14:02 UTC" for now on the runtime's clock. */
const clockTime = () => `${new Date(runtime.clock.now()).toISOString().slice(11, 16)} UTC`;
/** To one second into the next minute, so everything a test does next happens within one minute. */
const toMinuteStart = () => runtime.clock.advance(61 - ((runtime.clock.now() / 1000) % 60));

beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  user = await signIn(runtime, newEmail('chat-notices'));
  const send = runtime.queue.send.bind(runtime.queue);
  runtime.queue.send = (body, options) => (sentWork.push(body), send(body, options));
  await install(team, chatUser);
});
afterAll(() => runtime?.stop());
beforeEach(async () => {
  // Each test starts with nothing in flight and the emulator's record empty.
  await runtime.drainWork();
  runtime.slack.clearCalls();
  sentWork.splice(0);
  toMinuteStart();
});

describe('chat notices', () => {
  it('tells the subscribed user of a view in exactly one DM, through the requests Slack documents, and once however often the queue delivers it', async () => {
    const secret = await subscribedSecret({ max_views: 3 });
    const before = dmsTo(chatUser).length;
    await claim(secret.id);
    const openedAt = clockTime();
    // Relayed, then the same message twice more in the worker's one batch, handled at once.
    await runtime.stream.drain();
    expect(chatNoticesQueued()).toHaveLength(1);
    const [message] = chatNoticesQueued();
    await runtime.queue.send(message!);
    await runtime.drainWork();

    const dms = dmsTo(chatUser).slice(before);
    expect(dms.map((dm) => [dm.teamId, dm.text])).toEqual([
      [team, `Your secret ${shortId(secret.id)} was opened at ${openedAt} (2 views left).`],
    ]);
    const calls = runtime.slack.calls();
    expect(calls.map((call) => call.method)).toEqual(['conversations.open', 'chat.postMessage']);
    expect(calls[0]).toMatchObject({ httpMethod: 'POST', contentType: 'application/x-www-form-urlencoded', body: { users: chatUser } });
    expect(calls[0]!.headers.authorization).toBe('Bearer [redacted]');
    expect(calls[0]!.credential).toMatchObject({ kind: 'token', via: 'bearer', teamId: team, state: 'valid' });
    expect(calls[1]).toMatchObject({ httpMethod: 'POST', body: { channel: dms[0]!.channel, text: dms[0]!.text } });
    expect(calls[1]!.headers.authorization).toBe('Bearer [redacted]');

    // SQS redelivers it after the DM was sent: nothing more.
    await runtime.queue.send(message!);
    await runtime.queue.send(message!);
    await runtime.drainWork();
    expect(dmsTo(chatUser).slice(before)).toHaveLength(1);
    expect(runtime.slack.calls()).toHaveLength(2);
  });

  it('tells of the last view once, saying the secret is gone, and nothing more for its burn', async () => {
    const secret = await subscribedSecret({ max_views: 1 });
    const before = dmsTo(chatUser).length;
    await claim(secret.id);
    const openedAt = clockTime();
    await runtime.drainWork();
    expect(
      dmsTo(chatUser)
        .slice(before)
        .map((dm) => dm.text),
    ).toEqual([`Your secret ${shortId(secret.id)} was opened at ${openedAt} (no views left; it is gone now).`]);
    expect(chatNoticesQueued()).toHaveLength(1);
  });

  it('tells of an expiry, and whether the secret was ever opened', async () => {
    const unopened = await subscribedSecret({ expires_in: 60 });
    const opened = await subscribedSecret({ expires_in: 60, max_views: 2 });
    await claim(opened.id);
    await runtime.drainWork();
    const before = dmsTo(chatUser).length;
    runtime.clock.advance(60);
    toMinuteStart();
    await runtime.scheduler.run('expire-secrets');
    const expiredAt = clockTime();
    await runtime.drainWork();
    expect(
      new Set(
        dmsTo(chatUser)
          .slice(before)
          .map((dm) => dm.text),
      ),
    ).toEqual(
      new Set([
        `Your secret ${shortId(unopened.id)} expired at ${expiredAt} without being opened.`,
        `Your secret ${shortId(opened.id)} expired at ${expiredAt}.`,
      ]),
    );
  });

  it('tells an expiry "without being opened" after a link was revoked unopened (revoking lowers views left, not views taken)', async () => {
    const secret = await subscribedSecret({ expires_in: 60, max_views: 1, recipients: [{ label: 'Alice' }, { label: 'Bob' }] });
    expect(secret.recipients).toHaveLength(2);
    expect(
      (await api.delete(`/v1/secrets/${secret.id}/recipients/${secret.recipients[0]!.id}`, { 'x-delete-token': secret.deleteToken }))
        .status,
    ).toBe(200);
    await runtime.drainWork();
    const before = dmsTo(chatUser).length;
    runtime.clock.advance(60);
    toMinuteStart();
    await runtime.scheduler.run('expire-secrets');
    const expiredAt = clockTime();
    await runtime.drainWork();
    expect(
      dmsTo(chatUser)
        .slice(before)
        .map((dm) => dm.text),
    ).toEqual([`Your secret ${shortId(secret.id)} expired at ${expiredAt} without being opened.`]);
  });

  it('sends nothing for a secret nobody subscribed', async () => {
    const created = await api.post('/v1/secrets', textSecretBody({ max_views: 2 }));
    await claim(created.body.id);
    await runtime.drainWork();
    expect(chatNoticesQueued()).toEqual([]);
    expect(runtime.slack.calls()).toEqual([]);
  });

  it('sends the DM after the wait Slack asks for when it answers 429, and once', async () => {
    const secret = await subscribedSecret({ max_views: 2 });
    const before = dmsTo(chatUser).length;
    runtime.slack.throttleNext(1, 30, 'conversations.open');
    await claim(secret.id);
    const openedAt = clockTime();
    await runtime.drainWork();
    expect(dmsTo(chatUser).slice(before)).toHaveLength(0);
    // Queued again for Slack's Retry-After, not before (5 s short: the clock also follows real
    // time, which a loaded machine spends between the steps).
    runtime.clock.advance(25);
    await runtime.drainWork();
    expect(dmsTo(chatUser).slice(before)).toHaveLength(0);
    runtime.clock.advance(5);
    await runtime.drainWork();
    expect(
      dmsTo(chatUser)
        .slice(before)
        .map((dm) => dm.text),
    ).toEqual([`Your secret ${shortId(secret.id)} was opened at ${openedAt} (1 view left).`]);
    expect(runtime.slack.calls().map((call) => call.method)).toEqual(['conversations.open', 'conversations.open', 'chat.postMessage']);
    expect(runtime.queue.deadLetters).toEqual([]);
  });

  it('drops a DM Slack refuses for good (a user it does not know): one attempt, no retry, no dead letter', async () => {
    const stranger = 'U0STRANGER';
    const secret = await subscribedSecret({ max_views: 2 }, team, stranger);
    runtime.slack.clearCalls();
    await claim(secret.id);
    await runtime.drainWork();
    expect(runtime.slack.calls().map((call) => [call.method, call.answer.error])).toEqual([['conversations.open', 'user_not_found']]);
    // Known later, the same event is not sent again: it was dropped as undeliverable.
    runtime.slack.addUser(team, stranger);
    runtime.clock.advance(30);
    await runtime.drainWork();
    expect(dmsTo(stranger)).toEqual([]);
    expect(runtime.queue.deadLetters).toEqual([]);
  });

  it('leaves a failure of ours (the token would not open) to the queue to retry, and sends once it passes', async () => {
    const secret = await subscribedSecret({ max_views: 2 });
    const deliveries = runtime.functions.deliveries;
    const sealer = deliveries.chatSealer;
    let failures = 1;
    deliveries.chatSealer = {
      seal: (plaintext, id) => sealer.seal(plaintext, id),
      open: (sealed, id) =>
        failures-- > 0 ? Promise.reject(new Error('injected: the key service did not answer')) : sealer.open(sealed, id),
    };
    try {
      const before = dmsTo(chatUser).length;
      await claim(secret.id);
      const openedAt = clockTime();
      await runtime.drainWork();
      expect(dmsTo(chatUser).length).toBe(before);
      // Visible again after the queue's visibility timeout: the claim was given back, so this delivery sends.
      runtime.clock.advance(30);
      await runtime.drainWork();
      expect(
        dmsTo(chatUser)
          .slice(before)
          .map((dm) => dm.text),
      ).toEqual([`Your secret ${shortId(secret.id)} was opened at ${openedAt} (1 view left).`]);
      expect(runtime.queue.deadLetters).toEqual([]);
    } finally {
      deliveries.chatSealer = sealer;
    }
  });

  it('removes the installation when Slack says its token was revoked, and sends nothing to that team after', async () => {
    const [revokedTeam, revokedUser] = ['T0REVOKED1', 'U0REVOKED1'];
    await install(revokedTeam, revokedUser);
    const first = await subscribedSecret({ max_views: 3 }, revokedTeam, revokedUser);
    const second = await subscribedSecret({ max_views: 3 }, revokedTeam, revokedUser);
    expect(runtime.slack.revokeTeam(revokedTeam)).toBe(1);
    runtime.slack.clearCalls();

    await claim(first.id);
    await runtime.drainWork();
    expect(await runtime.functions.deliveries.chatInstallations.installation(revokedTeam)).toBeNull();
    expect(dmsTo(revokedUser)).toEqual([]);
    expect(runtime.slack.calls().map((call) => [call.method, call.answer.error])).toEqual([['conversations.open', 'token_revoked']]);
    // The other team's installation is untouched.
    expect(await runtime.functions.deliveries.chatInstallations.installation(team)).not.toBeNull();

    // Uninstalled: the notice is dropped without a call.
    await claim(second.id);
    await runtime.drainWork();
    expect(chatNoticesQueued()).toHaveLength(2);
    expect(runtime.slack.calls()).toHaveLength(1);
    expect(runtime.queue.deadLetters).toEqual([]);
  });

  it('never puts a link, a URL or a whole secret id in any message it sent', async () => {
    const secret = await subscribedSecret({ max_views: 2 });
    await claim(secret.id);
    await runtime.drainWork();
    const messages = runtime.slack.messages();
    expect(messages.length).toBeGreaterThanOrEqual(5);
    for (const message of messages) {
      expect(message.text).not.toMatch(/http|:\/\/|www\.|<|>/i);
      expect(message.text).not.toMatch(/sec_[A-Za-z0-9_-]{5}/);
      expect(message.blocks).toBeNull();
    }
  });
});
