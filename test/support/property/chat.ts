import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { signSlashCommand, slashCommand } from '../../../local/slack/signing.ts';
import { issueChatToken, issueInstallState } from '../../../shared/domain/chat/tokens.ts';
import { chatLimits } from '../../../shared/limits.ts';
import { textSecretBody } from '../runtime.ts';
import {
  encode,
  hostileJson,
  hostileStrings,
  invalidPercentEncodings,
  mutate,
  mutations,
  prototypeKeys,
  rawBodies,
  type JsonText,
  type Mutation,
} from './arbitraries.ts';
import type { Fixtures, Seeder, Who } from './fixtures.ts';

/**
 * What the chat group's runs send beyond what its schemas say: its successes need values only
 * the live service, Slack's emulator or the app's secrets make, so a run names the kind it
 * wants and the value is made when the run is sent (`mintQueryValue`, `mintBody`): an install's
 * state from POST /v1/chat/install and a code from the emulator's authorize step for the
 * callback; a slash command signed with the signing secret and a timestamp of now; a chat token
 * and a seeded secret with its delete token for the subscription. Each with its near misses:
 * used, expired, forged, of the other kind, changed, stale, tampered. Registered in fixtures.ts.
 */

const tolerance = chatLimits.signatureToleranceSeconds;

// --- Identities -------------------------------------------------------------------------------

// A few teams, so installs replace each other, and new ones.
const teamIds = fc.oneof(fc.constantFrom('T0LOCAL001', 'T0PROP0001', 'T0PROP0002'), fc.stringMatching(/^T[A-Z0-9]{8,10}$/));
const userIds = fc.oneof(fc.constant('U0LOCAL001'), fc.stringMatching(/^U[A-Z0-9]{8,10}$/));
/** What no Slack id looks like, yet non-empty: a command or a token may still carry it. */
const oddIds = hostileStrings.filter((text) => text !== '');

interface ChatIdentity {
  teamId: string;
  userId: string;
}
const identities: fc.Arbitrary<ChatIdentity> = fc.record({ teamId: teamIds, userId: userIds });

// --- The callback's query ---------------------------------------------------------------------

/** An install's state as the callback gets it: fresh from POST /v1/chat/install, or one of its near misses. */
export type StateMint =
  | { of: 'state'; how: 'fresh'; who: Who }
  /** Fresh, then spent on a callback whose code Slack refused (the state is marked before the exchange). */
  | { of: 'state'; how: 'used' }
  | { of: 'state'; how: 'expired' | 'forged' | 'future' | 'chat_token' }
  | { of: 'state'; how: 'changed'; mutation: Mutation; at: number };

/** An authorization code as Slack's redirect carries it: live at the emulator, or refused there. */
export type CodeMint =
  | { of: 'code'; how: 'live'; identity: ChatIdentity }
  | { of: 'code'; how: 'used' | 'other_redirect' | 'enterprise' | 'made_up' };

export type QueryMint = StateMint | CodeMint;
/** A query value made when the run is sent. */
export interface MintedQueryValue {
  kind: 'minted';
  mint: QueryMint;
}
const minted = (mint: QueryMint): MintedQueryValue => ({ kind: 'minted', mint });
type QueryValue = MintedQueryValue | { value: string; raw: true };
const rawValue = (value: string): QueryValue => ({ value: encode(value), raw: true });

const freshState = fc.constantFrom<Who>('a', 'b').map((who) => minted({ of: 'state', how: 'fresh', who }));
const liveCode = identities.map((identity) => minted({ of: 'code', how: 'live', identity }));

/** The query Slack's redirect carries: a state and a code (either order), or the user's refusal with the state. */
export const chatCallbackQueries = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(freshState, liveCode, fc.boolean()).map(
      ([state, code, codeFirst]): Array<[string, QueryValue]> =>
        codeFirst
          ? [
              ['code', code],
              ['state', state],
            ]
          : [
              ['state', state],
              ['code', code],
            ],
    ),
  },
  {
    weight: 1,
    arbitrary: freshState.map(
      (state): Array<[string, QueryValue]> => [
        ['error', rawValue('access_denied')],
        ['state', state],
      ],
    ),
  },
);

const badStates: fc.Arbitrary<QueryValue> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('used', 'expired', 'forged', 'future', 'chat_token').map((how) => minted({ of: 'state', how } as StateMint)),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ mutation: mutations, at: fc.nat(400) })
      .map(({ mutation, at }) => minted({ of: 'state', how: 'changed', mutation, at })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(hostileStrings, fc.constantFrom('a.b.c', 'eyJhbGciOiJub25lIn0.e30.', 'x'.repeat(chatLimits.tokenChars + 1)))
      .map(rawValue),
  },
);
const badCodes: fc.Arbitrary<QueryValue> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('used', 'other_redirect', 'enterprise', 'made_up').map((how) => minted({ of: 'code', how } as CodeMint)),
  },
  { weight: 1, arbitrary: hostileStrings.map(rawValue) },
);
const slackErrors = fc
  .oneof(fc.constantFrom('access_denied', 'invalid_scope', 'invalid_team_for_non_distributed_app', ''), hostileStrings)
  .map(rawValue);

/** Per parameter, for the generic bad query (one parameter replaced, repeated, or renamed in another case). */
export const chatCallbackValues = {
  state: { good: freshState, bad: badStates },
  code: { good: liveCode, bad: badCodes },
  error: { good: fc.constant(rawValue('access_denied')), bad: slackErrors },
};

/** The value of a minted query choice, made now. */
export async function mintQueryValue(mint: QueryMint, fixtures: Fixtures): Promise<string> {
  const runtime = fixtures.runtimeOf();
  const now = runtime.clock.now();
  const clientSecret = runtime.config.SLACK_CLIENT_SECRET!;
  const userId = fixtures.sessions.get('a')!.user.id;
  if (mint.of === 'state') {
    switch (mint.how) {
      case 'fresh':
        return freshInstallState(fixtures, mint.who);
      case 'used': {
        const state = await freshInstallState(fixtures, 'a');
        const spent = await fixtures.api().get(`/v1/chat/callback?state=${state}&code=made-up-${randomBytes(8).toString('hex')}`);
        if (spent.status !== 403) throw new Error(`spending an install state: ${spent.status} ${JSON.stringify(spent.body)}`);
        return state;
      }
      case 'expired':
        return (await issueInstallState(userId, now - (chatLimits.stateSeconds + 60) * 1000, clientSecret)).token;
      case 'forged':
        return (await issueInstallState(userId, now, randomBytes(16).toString('hex'))).token;
      case 'future':
        return (await issueInstallState(userId, now + 600_000, clientSecret)).token;
      case 'chat_token':
        return (await issueChatToken({ teamId: 'T0LOCAL001', slackUserId: 'U0LOCAL001' }, now, clientSecret)).token;
      case 'changed':
        return mutate(await freshInstallState(fixtures, 'a'), mint.mutation, mint.at);
    }
  }
  const slack = runtime.slack;
  switch (mint.how) {
    case 'live':
      return slack.authorize({ teamId: mint.identity.teamId, userId: mint.identity.userId, teamName: `Property ${mint.identity.teamId}` });
    case 'used': {
      // Redeemed at the emulator as the service would: unknown, used and expired codes are all `invalid_code` at Slack.
      const code = slack.authorize();
      const redeemed = await fetch(`${slack.url}oauth.v2.access`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${slack.clientId}:${slack.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ code }).toString(),
      });
      if (!((await redeemed.json()) as { ok: boolean }).ok) throw new Error('redeeming an emulator code');
      return code;
    }
    case 'other_redirect':
      return slack.authorize({ redirectUri: 'https://elsewhere.property.example/v1/chat/callback' });
    case 'enterprise':
      return slack.authorize({ enterprise: { id: 'E0PROP0001', name: 'Property Org' } });
    case 'made_up':
      return `${Date.now()}.${randomBytes(6).readUIntBE(0, 6)}.${randomBytes(32).toString('hex')}`;
  }
}

async function freshInstallState(fixtures: Fixtures, who: Who): Promise<string> {
  // The session as it is now: a run that ends it is answered 401, and the suite heals it.
  const started = await fixtures.api().post('/v1/chat/install', undefined, fixtures.sessions.get(who)!.auth);
  if (started.status !== 200) throw new Error(`starting an install: ${started.status} ${JSON.stringify(started.body)}`);
  return new URL((started.body as { authorize_url: string }).authorize_url).searchParams.get('state')!;
}

// --- The slash command ------------------------------------------------------------------------

/** How a command is signed: as Slack does (near the window's edges too), or one thing off. */
export type CommandSigning =
  | 'fresh'
  | 'near_past'
  | 'near_future'
  | 'upper_hex'
  | 'stale'
  | 'future'
  | 'tampered'
  | 'wrong_secret'
  | 'client_secret'
  | 'no_timestamp'
  | 'no_signature'
  | 'no_headers'
  | 'padded_timestamp'
  | 'fraction_timestamp'
  | 'millisecond_timestamp'
  | 'v1_scheme'
  | 'bare_hex'
  | 'short_hex'
  | 'other_body';
const goodSignings = fc.constantFrom<CommandSigning>('fresh', 'fresh', 'fresh', 'near_past', 'near_future', 'upper_hex');
/** Every way a slash command's signing can be wrong: each must be refused. */
export const badCommandSignings = [
  'stale',
  'future',
  'tampered',
  'wrong_secret',
  'client_secret',
  'no_timestamp',
  'no_signature',
  'no_headers',
  'padded_timestamp',
  'fraction_timestamp',
  'millisecond_timestamp',
  'v1_scheme',
  'bare_hex',
  'short_hex',
  'other_body',
] as const satisfies readonly CommandSigning[];
const badSignings = fc.constantFrom<CommandSigning>(...badCommandSignings);

/** A command's body: Slack's fields (a form, encoded as Slack does), or any bytes (signed all the same). */
export type CommandBody = { form: Record<string, string> } | { bytes: string | Uint8Array };

export interface SignedCommand {
  kind: 'slack_command';
  body: CommandBody;
  signing: CommandSigning;
  /** How far out of the window (seconds), or where a tampered body changes. */
  by: number;
}

// What people type after `/hushlink`: nothing, words, a secret they should not have typed.
const typedText = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('hunter2', 'my password is Tr0ub4dor&3', '   ', 'help', '@channel') },
  { weight: 2, arbitrary: hostileStrings },
);
const goodForms = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .record({ identity: identities, text: typedText })
      .map(({ identity, text }) => slashCommand({ team_id: identity.teamId, user_id: identity.userId, text })),
  },
  // Slack checks a distributed app's certificate now and then with a signed `ssl_check=1`.
  { weight: 1, arbitrary: fc.constant({ ssl_check: '1', token: slashCommand().token! }) },
);
/** Forms Slack never sends: no team or user, odd ids, a prototype key, a huge field. */
const oddForms = fc.oneof(
  fc
    .constantFrom('team_id', 'user_id')
    .map((name) => Object.fromEntries(Object.entries(slashCommand()).filter(([field]) => field !== name))),
  fc
    .record({ team_id: fc.oneof(oddIds, fc.constant('')), user_id: fc.oneof(userIds, oddIds, fc.constant('')) })
    .map((ids) => slashCommand(ids)),
  fc.tuple(prototypeKeys, hostileStrings).map(([name, value]) => slashCommand({ [name]: value })),
  fc
    .constantFrom(['text', 'x'.repeat(70_000)], ['team_id', 'T'.repeat(5000)], ['user_id', '中'.repeat(2000)])
    .map(([name, value]) => slashCommand({ [name!]: value! })),
);
/** Bytes that are no form of Slack's, signed as if they were: JSON, binary, percent-encodings of no text, a field twice. */
const oddBytes = fc.oneof(
  rawBodies,
  hostileJson,
  invalidPercentEncodings.map((encoding) => `team_id=${encoding}&user_id=U0LOCAL001`),
  fc.constant('team_id=T0LOCAL001&team_id=T0PROP0001&user_id=U0LOCAL001&user_id=&text=x'),
);

export const signedCommands = {
  good: fc
    .record({ form: goodForms, signing: goodSignings, by: fc.nat(1000) })
    .map(({ form, signing, by }): SignedCommand => ({ kind: 'slack_command', body: { form }, signing, by })),
  bad: fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record({ form: goodForms, signing: badSignings, by: fc.nat(100_000) })
        .map(({ form, signing, by }): SignedCommand => ({ kind: 'slack_command', body: { form }, signing, by })),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({ form: oddForms, signing: goodSignings, by: fc.nat(1000) })
        .map(({ form, signing, by }): SignedCommand => ({ kind: 'slack_command', body: { form }, signing, by })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ bytes: oddBytes, signing: goodSignings, by: fc.nat(1000) })
        .map(({ bytes, signing, by }): SignedCommand => ({ kind: 'slack_command', body: { bytes }, signing, by })),
    },
  ),
};

/** The headers a command is sent with, besides the form's content type. */
export const slackCommandHeaders = ['x-slack-signature', 'x-slack-request-timestamp'];

/** A Slack signature over raw bytes, as signSlashCommand makes one over a form. */
const signatureOver = (body: string | Uint8Array, secret: string, timestamp: string) =>
  createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex');

/** The command's bytes and headers, signed now as the choice says. */
function signCommand(command: SignedCommand, fixtures: Fixtures): { body: string | Uint8Array; headers: Record<string, string> } {
  const runtime = fixtures.runtimeOf();
  const signingSecret = runtime.config.SLACK_SIGNING_SECRET!;
  const now = Math.floor(runtime.clock.now() / 1000);
  const { signing, by } = command;
  const seconds =
    signing === 'near_past'
      ? now - tolerance + 10
      : signing === 'near_future'
        ? now + tolerance - 10
        : signing === 'stale'
          ? now - tolerance - 5 - by
          : signing === 'future'
            ? now + tolerance + 5 + by
            : now;
  const secret =
    signing === 'wrong_secret'
      ? randomBytes(16).toString('hex')
      : signing === 'client_secret'
        ? runtime.config.SLACK_CLIENT_SECRET!
        : signingSecret;
  let body: string | Uint8Array;
  let signature: string;
  if ('form' in command.body) {
    const signed = signSlashCommand(command.body.form, secret, seconds);
    body = signed.body;
    signature = signed.headers['x-slack-signature']!.slice('v0='.length);
  } else {
    body = command.body.bytes;
    signature = signatureOver(body, secret, String(seconds));
  }
  if (signing === 'tampered') body = tamper(body, by);
  if (signing === 'other_body') signature = signatureOver(`${typeof body === 'string' ? body : ''}&text=x`, secret, String(seconds));
  const timestamp =
    signing === 'padded_timestamp'
      ? `0${seconds}`
      : signing === 'fraction_timestamp'
        ? `${seconds}.0`
        : signing === 'millisecond_timestamp'
          ? String(runtime.clock.now())
          : String(seconds);
  const written =
    signing === 'upper_hex'
      ? `v0=${signature.toUpperCase()}`
      : signing === 'v1_scheme'
        ? `v1=${signature}`
        : signing === 'bare_hex'
          ? signature
          : signing === 'short_hex'
            ? `v0=${signature.slice(0, 63)}`
            : `v0=${signature}`;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (signing !== 'no_timestamp' && signing !== 'no_headers') headers['x-slack-request-timestamp'] = timestamp;
  if (signing !== 'no_signature' && signing !== 'no_headers') headers['x-slack-signature'] = written;
  return { body, headers };
}

/** The body with one byte changed (or one added to an empty body): what a proxy between Slack and the service might do. */
function tamper(body: string | Uint8Array, at: number): Uint8Array {
  const bytes = Buffer.from(body);
  if (bytes.length === 0) return Buffer.from('x');
  const i = at % bytes.length;
  bytes[i] = bytes[i] === 0x41 ? 0x42 : 0x41;
  return bytes;
}

// --- The composer's subscription --------------------------------------------------------------

/** The chat token the composer carries: from a signed command's link, issued with the app's secret, or a near miss. */
export type ChatTokenMint =
  | { how: 'from_command' | 'issued'; identity: ChatIdentity }
  | { how: 'expired' | 'forged' | 'future' | 'install_state' | 'alg_none' }
  | { how: 'changed'; mutation: Mutation; at: number }
  | { how: 'given'; value: string };

/** The secret named and the delete token sent for it. */
export type SecretMint =
  | { how: 'seeded'; index: number; deleteToken: 'its' | 'another' | { mutation: Mutation; at: number } }
  /** A secret revoked after it was seeded: a tombstone, its delete token still its own. */
  | { how: 'revoked'; index: number }
  | { how: 'given'; id: string; deleteToken: string };

export interface Subscription {
  kind: 'chat_subscription';
  secret: SecretMint;
  chatToken: ChatTokenMint;
  /** A member replaced or added (`withMember`), for hostile bodies that are otherwise live. */
  member: { at: number; value: JsonText } | null;
}

const goodChatTokens = fc.oneof(
  { weight: 3, arbitrary: identities.map((identity): ChatTokenMint => ({ how: 'issued', identity })) },
  { weight: 1, arbitrary: identities.map((identity): ChatTokenMint => ({ how: 'from_command', identity })) },
  // A command from an id no Slack user has still makes a token that reads back.
  { weight: 1, arbitrary: fc.record({ teamId: oddIds, userId: oddIds }).map((identity): ChatTokenMint => ({ how: 'issued', identity })) },
);
const badChatTokens = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('expired', 'forged', 'future', 'install_state', 'alg_none').map((how) => ({ how }) as ChatTokenMint),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ mutation: mutations, at: fc.nat(400) })
      .map(({ mutation, at }): ChatTokenMint => ({ how: 'changed', mutation, at })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(hostileStrings, fc.constantFrom('a.b.c', 'x'.repeat(chatLimits.tokenChars + 1)))
      .map((value): ChatTokenMint => ({ how: 'given', value })),
  },
);
const seededSecret = fc.nat(64).map((index): SecretMint => ({ how: 'seeded', index, deleteToken: 'its' }));
const badSecrets = fc.oneof(
  { weight: 2, arbitrary: fc.nat(64).map((index): SecretMint => ({ how: 'seeded', index, deleteToken: 'another' })) },
  {
    weight: 2,
    arbitrary: fc
      .record({ index: fc.nat(64), mutation: mutations, at: fc.nat(64) })
      .map(({ index, mutation, at }): SecretMint => ({ how: 'seeded', index, deleteToken: { mutation, at } })),
  },
  { weight: 1, arbitrary: fc.nat(8).map((index): SecretMint => ({ how: 'revoked', index })) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        id: fc.oneof(
          fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => `sec_${Buffer.from(bytes).toString('base64url')}`),
          oddIds,
        ),
        deleteToken: fc.oneof(fc.constant('dt'), oddIds),
      })
      .map(({ id, deleteToken }): SecretMint => ({ how: 'given', id, deleteToken })),
  },
);

export const chatSubscriptions = {
  good: fc
    .record({ secret: seededSecret, chatToken: goodChatTokens })
    .map(({ secret, chatToken }): Subscription => ({ kind: 'chat_subscription', secret, chatToken, member: null })),
  bad: fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .record({ secret: seededSecret, chatToken: badChatTokens })
        .map(({ secret, chatToken }): Subscription => ({ kind: 'chat_subscription', secret, chatToken, member: null })),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({ secret: badSecrets, chatToken: goodChatTokens })
        .map(({ secret, chatToken }): Subscription => ({ kind: 'chat_subscription', secret, chatToken, member: null })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ secret: seededSecret, chatToken: goodChatTokens, at: fc.nat(20), value: hostileJson })
        .map(({ secret, chatToken, at, value }): Subscription => ({ kind: 'chat_subscription', secret, chatToken, member: { at, value } })),
    },
  ),
};

/** The chat token of a choice, made now. */
async function mintChatToken(mint: ChatTokenMint, fixtures: Fixtures): Promise<string> {
  const runtime = fixtures.runtimeOf();
  const now = runtime.clock.now();
  const clientSecret = runtime.config.SLACK_CLIENT_SECRET!;
  const local = { teamId: 'T0LOCAL001', slackUserId: 'U0LOCAL001' };
  switch (mint.how) {
    case 'issued':
      return (await issueChatToken({ teamId: mint.identity.teamId, slackUserId: mint.identity.userId }, now, clientSecret)).token;
    case 'from_command': {
      const command = signCommand(
        {
          kind: 'slack_command',
          body: { form: slashCommand({ team_id: mint.identity.teamId, user_id: mint.identity.userId }) },
          signing: 'fresh',
          by: 0,
        },
        fixtures,
      );
      const answered = await fixtures.api().call('POST', '/v1/chat/commands', { body: command.body as string, headers: command.headers });
      const token = /#chat=([A-Za-z0-9_.-]+)/.exec((answered.body as { text?: string }).text ?? '')?.[1];
      if (answered.status !== 200 || !token)
        throw new Error(`a chat token from a command: ${answered.status} ${JSON.stringify(answered.body)}`);
      return token;
    }
    case 'expired':
      return (await issueChatToken(local, now - (chatLimits.chatTokenSeconds + 60) * 1000, clientSecret)).token;
    case 'forged':
      return (await issueChatToken(local, now, randomBytes(16).toString('hex'))).token;
    case 'future':
      return (await issueChatToken(local, now + 600_000, clientSecret)).token;
    case 'install_state':
      return (await issueInstallState(fixtures.sessions.get('a')!.user.id, now, clientSecret)).token;
    case 'alg_none': {
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      return `${part({ alg: 'none', typ: 'hushlink-chat+jwt' })}.${part({ sub: 'U0LOCAL001', team_id: 'T0LOCAL001', aud: 'hushlink:chat:composer', exp: Math.floor(now / 1000) + 60 })}.`;
    }
    case 'changed':
      return mutate((await issueChatToken(local, now, clientSecret)).token, mint.mutation, mint.at);
    case 'given':
      return mint.value;
  }
}

/** The secret id and the delete token a choice sends. */
function secretOf(mint: SecretMint, fixtures: Fixtures): { id: string; deleteToken: string } {
  if (mint.how === 'given') return { id: mint.id, deleteToken: mint.deleteToken };
  const seeded = mint.how === 'revoked' ? fixtures.revokedSecrets : fixtures.secretsWithDeleteTokens;
  const secret = seeded[mint.index % seeded.length]!;
  if (mint.how === 'revoked' || mint.deleteToken === 'its') return secret;
  if (mint.deleteToken === 'another') return { id: secret.id, deleteToken: seeded[(mint.index + 1) % seeded.length]!.deleteToken };
  return { id: secret.id, deleteToken: mutate(secret.deleteToken, mint.deleteToken.mutation, mint.deleteToken.at) };
}

// --- Bodies made at send time -----------------------------------------------------------------

export type MintedBody = SignedCommand | Subscription;

/**
 * The bytes of a minted body, and the headers it carries (a command's signature, timestamp and
 * form type); `withMember` edits a live body for the hostile ones.
 */
export async function mintBody(
  body: MintedBody,
  fixtures: Fixtures,
  withMember: (value: Record<string, unknown>, at: number, member: JsonText) => string,
): Promise<{ body: string | Uint8Array; headers: Record<string, string> }> {
  if (body.kind === 'slack_command') return signCommand(body, fixtures);
  const { id, deleteToken } = secretOf(body.secret, fixtures);
  const value = { secret_id: id, delete_token: deleteToken, chat_token: await mintChatToken(body.chatToken, fixtures) };
  return { body: body.member === null ? JSON.stringify(value) : withMember(value, body.member.at, body.member.value), headers: {} };
}

/**
 * The subscription's secrets: the users' and an anonymous one, each with its delete token, and
 * a few revoked after they were made (tombstones).
 */
export const seedChatSecrets: Seeder = async (fixtures) => {
  const api = fixtures.api();
  for (const who of ['a', 'a', 'b', null, 'revoked', 'revoked'] as const) {
    const session = who === 'a' || who === 'b' ? fixtures.sessions.get(who)!.auth : {};
    const created = await api.post('/v1/secrets', textSecretBody({ max_views: 100, expires_in: 30 * 24 * 3600 }), session);
    if (created.status !== 201) throw new Error(`seeding a secret: ${created.status} ${JSON.stringify(created.body)}`);
    const secret = { id: created.body.id as string, deleteToken: created.body.delete_token as string };
    if (who !== 'revoked') {
      fixtures.secretsWithDeleteTokens.push(secret);
      continue;
    }
    const revoked = await api.delete(`/v1/secrets/${secret.id}`, { 'x-delete-token': secret.deleteToken });
    if (revoked.status !== 204) throw new Error(`revoking a seeded secret: ${revoked.status} ${JSON.stringify(revoked.body)}`);
    fixtures.revokedSecrets.push(secret);
  }
};
