import { describe, expect, it } from 'vitest';
import { slashCommand } from '../../local/slack/signing.ts';
import { encode } from '../support/property/arbitraries.ts';
import {
  mintBody,
  mintQueryValue,
  type ChatTokenMint,
  type CommandBody,
  type CommandSigning,
  type QueryMint,
  type SecretMint,
  badCommandSignings,
} from '../support/property/chat.ts';
import { withMember } from '../support/property/plans.ts';
import { propertySuite } from '../support/property/suite.ts';

// The chat routes' successes need live values (an install's state and Slack's code, a signature of now, a chat token): the runs make them.
const suite = propertySuite('chat', { everyRouteSucceeds: true });

// What each kind of made value is, pinned to its answer: a good kind must succeed and a near miss must not, or the runs test less than they say.
describe('chat: the values the generators make', () => {
  const identity = { teamId: 'T0PROP0001', userId: 'U0PROP0001' };
  const callback = async (query: Array<[string, QueryMint | string]>) => {
    const pairs = await Promise.all(
      query.map(
        async ([name, value]) => `${name}=${encode(typeof value === 'string' ? value : await mintQueryValue(value, suite.fixtures()))}`,
      ),
    );
    return suite.send({ method: 'GET', path: `/v1/chat/callback?${pairs.join('&')}`, headers: {} });
  };
  const post = async (path: string, made: { body: string | Uint8Array; headers: Record<string, string> }) =>
    suite.send({ method: 'POST', path, headers: { 'content-type': 'application/json', ...made.headers }, body: made.body });
  const command = async (body: CommandBody, signing: CommandSigning, by = 0) =>
    post('/v1/chat/commands', await mintBody({ kind: 'slack_command', body, signing, by }, suite.fixtures(), withMember));
  const subscribe = async (secret: SecretMint, chatToken: ChatTokenMint) =>
    post(
      '/v1/chat/subscribe',
      await mintBody({ kind: 'chat_subscription', secret, chatToken, member: null }, suite.fixtures(), withMember),
    );

  it('the callback: a fresh state with a live code installs; a state used, expired, forged, not yet issued or of the other kind is 401; a code used, for another redirect or org-wide, or the user’s refusal, 403', async () => {
    const installed = await callback([
      ['state', { of: 'state', how: 'fresh', who: 'a' }],
      ['code', { of: 'code', how: 'live', identity }],
    ]);
    // Installed: to the web client's landing page (ADR 0182), which names the team.
    expect(installed.status, installed.text.slice(0, 200)).toBe(302);
    expect(installed.headers.location).toMatch(/\/chat\/installed\?team=/);
    for (const how of ['used', 'expired', 'forged', 'future', 'chat_token'] as const) {
      const refused = await callback([
        ['state', { of: 'state', how }],
        ['code', { of: 'code', how: 'live', identity }],
      ]);
      expect(refused.status, `${how}: ${refused.text.slice(0, 200)}`).toBe(401);
    }
    for (const how of ['used', 'other_redirect', 'enterprise', 'made_up'] as const) {
      const refused = await callback([
        ['state', { of: 'state', how: 'fresh', who: 'b' }],
        ['code', { of: 'code', how }],
      ]);
      expect(refused.status, `${how}: ${refused.text.slice(0, 200)}`).toBe(403);
    }
    const denied = await callback([
      ['error', 'access_denied'],
      ['state', { of: 'state', how: 'fresh', who: 'a' }],
    ]);
    expect(JSON.parse(denied.text)).toMatchObject({ status: 403, reason: 'install_refused' });
  });

  it('the command: signed as Slack signs (near either edge of the window, hex in capitals) is answered; stale, from the future, tampered, with another secret, without a header, or written otherwise, 403', async () => {
    const form = { form: slashCommand({ team_id: identity.teamId, user_id: identity.userId, text: 'hunter2' }) };
    for (const signing of ['fresh', 'near_past', 'near_future', 'upper_hex'] as const) {
      const answered = await command(form, signing);
      expect(answered.status, `${signing}: ${answered.text.slice(0, 200)}`).toBe(200);
      expect(JSON.parse(answered.text).text).toContain('#chat=');
    }
    for (const signing of badCommandSignings) {
      const refused = await command(form, signing, 7);
      expect(refused.status, `${signing}: ${refused.text.slice(0, 200)}`).toBe(403);
    }
    // Signed, but not what the route can answer: no user (400); Slack's certificate check (200, nothing to say).
    expect((await command({ form: slashCommand({ user_id: '' }) }, 'fresh')).status).toBe(400);
    expect((await command({ bytes: 'team_id=%FF&user_id=U0LOCAL001' }, 'fresh')).status).toBe(200);
    const checked = await command({ form: { ssl_check: '1', token: 'x' } }, 'fresh');
    expect(JSON.parse(checked.text)).toEqual({ response_type: 'ephemeral', text: '' });
  });

  it('the subscription: a seeded secret, its delete token and a chat token (issued, or from a command’s link) subscribe; another’s or a changed delete token, or a chat token expired, forged, not yet issued, of the other kind, unsigned or changed, 403; an unknown secret, 404', async () => {
    for (const how of ['issued', 'from_command'] as const) {
      const subscribed = await subscribe({ how: 'seeded', index: 0, deleteToken: 'its' }, { how, identity });
      expect(subscribed.status, `${how}: ${subscribed.text.slice(0, 200)}`).toBe(200);
    }
    for (const chatToken of [
      { how: 'expired' },
      { how: 'forged' },
      { how: 'future' },
      { how: 'install_state' },
      { how: 'alg_none' },
      { how: 'changed', mutation: 'char', at: 40 },
    ] as ChatTokenMint[]) {
      const refused = await subscribe({ how: 'seeded', index: 1, deleteToken: 'its' }, chatToken);
      expect(refused.status, `${chatToken.how}: ${refused.text.slice(0, 200)}`).toBe(403);
    }
    for (const deleteToken of ['another', { mutation: 'char', at: 5 }] as const) {
      const refused = await subscribe({ how: 'seeded', index: 2, deleteToken }, { how: 'issued', identity });
      expect(refused.status, refused.text.slice(0, 200)).toBe(403);
    }
    // A revoked secret (a tombstone, its delete token still its own) is left to the runs: it answers 200 now, a subscription no event will ever reach.
    const missing = await subscribe({ how: 'given', id: 'sec_AAAAAAAAAAAAAAAAAAAAAA', deleteToken: 'dt' }, { how: 'issued', identity });
    expect(missing.status, missing.text.slice(0, 200)).toBe(404);
  });
});
