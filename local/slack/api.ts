import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { failure, type Answer, type ApiContext, type Args, type RecordedCall } from './context.ts';
import { oauthAccess } from './oauth.ts';

export type { ApiContext, RecordedCall } from './context.ts';

export const tokenFingerprint = (token: string): string => createHash('sha256').update(token).digest('hex').slice(0, 16);

const redacted = '[redacted]';
const secretKeys = new Set(['token', 'client_secret', 'access_token', 'refresh_token']);

/**
 * A copy with every token-bearing field replaced, however deep, and any issued token or the
 * client secret blanked wherever else it appears (a caller's bug putting one in a message).
 */
function redact(value: unknown, secrets: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => redact(item, secrets));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, secretKeys.has(key) && item !== null ? redacted : redact(item, secrets)]),
    );
  if (typeof value === 'string') return secrets.reduce((text, secret) => text.replaceAll(secret, redacted), value);
  return value;
}

const secretsOf = (context: ApiContext): string[] => [
  context.clientSecret,
  ...context.workspaces.tokens.keys(),
  ...context.workspaces.refreshTokens.keys(),
];

/** Answers one `/api/<method>` call (its body already read), and records it. */
export function handleApi(context: ApiContext, request: IncomingMessage, response: ServerResponse, rawBody: string): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const method = url.pathname.slice('/api/'.length);
  const contentType = typeof request.headers['content-type'] === 'string' ? request.headers['content-type'] : null;
  const headers = Object.fromEntries(
    Object.entries(request.headers)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      .map(([name, value]) => [name, name === 'authorization' ? `${value.split(' ')[0]} ${redacted}` : value]),
  );
  const recorded: RecordedCall = {
    method,
    httpMethod: request.method ?? 'GET',
    path: url.pathname,
    headers,
    contentType,
    body: {},
    credential: { kind: 'none' },
    status: 0,
    answer: {},
    at: context.clock.now(),
  };
  context.calls.push(recorded);

  const parsed = parseArgs(url, contentType, rawBody);
  let answer: Answer;
  if ('error' in parsed) {
    answer = failure(parsed.error);
  } else {
    recorded.body = redact(parsed.args, secretsOf(context)) as Record<string, unknown>;
    answer = answerCall(context, method, parsed.args, parsed.json, request.headers.authorization, recorded);
  }
  recorded.status = answer.status ?? 200;
  recorded.answer = redact(answer.body, secretsOf(context)) as Record<string, unknown>;
  response.writeHead(recorded.status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...answer.headers,
  });
  response.end(JSON.stringify(answer.body));
}

function answerCall(
  context: ApiContext,
  method: string,
  args: Args,
  json: boolean,
  authorization: string | undefined,
  recorded: RecordedCall,
): Answer {
  if (context.throttle.remaining > 0 && (context.throttle.method === null || context.throttle.method === method)) {
    context.throttle.remaining--;
    return {
      status: 429,
      body: { ok: false, error: 'ratelimited' },
      headers: { 'retry-after': String(context.throttle.retryAfterSeconds) },
    };
  }
  switch (method) {
    case 'oauth.v2.access':
      return oauthAccess(context, args, authorization, recorded);
    case 'conversations.open':
      return withBot(context, args, json, authorization, recorded, 'im:write', (team) => conversationsOpen(context, team, args));
    case 'chat.postMessage':
      return withBot(context, args, json, authorization, recorded, 'chat:write', (team) => postMessage(context, team, args));
    default:
      // Not verified against Slack: it is said to answer an unknown method with 404 and this body.
      return { status: 404, body: { ok: false, error: 'unknown_method', req_method: method } };
  }
}

/**
 * Slack reads arguments from the query and from a form or JSON body. A JSON body needs its
 * token in the Authorization header (Slack ignores a `token` in JSON).
 */
function parseArgs(url: URL, contentType: string | null, rawBody: string): { args: Args; json: boolean } | { error: string } {
  const args: Args = Object.fromEntries(url.searchParams);
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (rawBody === '') return { args, json: false };
  if (type === 'application/x-www-form-urlencoded')
    return { args: { ...args, ...Object.fromEntries(new URLSearchParams(rawBody)) }, json: false };
  if (type === 'application/json') {
    try {
      const body = JSON.parse(rawBody) as unknown;
      if (body && typeof body === 'object' && !Array.isArray(body)) return { args: { ...args, ...(body as Args) }, json: true };
    } catch {
      // answered below
    }
    return { error: 'invalid_json' };
  }
  return { error: type === '' ? 'missing_post_type' : 'invalid_post_type' };
}

/** A bot-token method: the token (Bearer, or a `token` form field) must be live and hold the method's scope. */
function withBot(
  context: ApiContext,
  args: Args,
  json: boolean,
  authorization: string | undefined,
  recorded: RecordedCall,
  scope: string,
  call: (teamId: string) => Answer,
): Answer {
  const bearer = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
  const field = !json && typeof args.token === 'string' && args.token !== '' ? args.token : undefined;
  const token = bearer ?? field;
  if (token === undefined) return failure('not_authed');
  const issued = context.workspaces.tokens.get(token);
  const state = context.workspaces.tokenState(token);
  recorded.credential = {
    kind: 'token',
    via: bearer !== undefined ? 'bearer' : 'field',
    fingerprint: tokenFingerprint(token),
    teamId: issued?.teamId ?? null,
    state,
  };
  if (!issued) return failure('invalid_auth');
  if (state === 'revoked') return failure('token_revoked');
  if (state === 'expired') return failure('token_expired');
  if (!issued.scopes.includes(scope)) return failure('missing_scope', { needed: scope, provided: issued.scopes.join(',') });
  return call(issued.teamId);
}

/** `conversations.open` with one user: the bot's DM with them. */
function conversationsOpen(context: ApiContext, teamId: string, args: Args): Answer {
  const users =
    typeof args.users === 'string'
      ? args.users
          .split(',')
          .map((user) => user.trim())
          .filter(Boolean)
      : [];
  if (users.length === 0) return failure(typeof args.channel === 'string' ? 'channel_not_found' : 'users_list_not_supplied');
  // Group DMs are outside what the service does: said plainly rather than imitated.
  if (users.length > 1)
    return { status: 501, body: { ok: false, error: 'emulator_unsupported', detail: 'The local Slack emulator opens 1:1 DMs only.' } };
  const team = context.workspaces.teams.get(teamId)!;
  const user = users[0]!;
  if (!team.users.has(user)) return failure('user_not_found');
  const channel = context.workspaces.openDm(teamId, user);
  if (!channel.alreadyOpen) return { body: { ok: true, channel: { id: channel.id } } };
  return {
    body: {
      ok: true,
      no_op: true,
      already_open: true,
      channel: {
        id: channel.id,
        created: channel.created,
        is_im: true,
        is_org_shared: false,
        user,
        last_read: '0000000000.000000',
        latest: null,
        unread_count: 0,
        unread_count_display: 0,
        is_open: true,
        priority: 0,
      },
    },
  };
}

/** Slack's limit on `text`; longer is refused here (Slack truncates past 40,000, refuses far past it). */
const maxTextLength = 40_000;

/** `chat.postMessage` to a DM the bot opened; `blocks` a JSON string in a form body, a list in a JSON one. */
function postMessage(context: ApiContext, teamId: string, args: Args): Answer {
  const channel = typeof args.channel === 'string' ? args.channel : '';
  const userId = context.workspaces.dmUser(teamId, channel);
  if (!userId) return failure('channel_not_found');
  let blocks: unknown[] | null = null;
  if (args.blocks !== undefined && args.blocks !== '') {
    try {
      const parsed = typeof args.blocks === 'string' ? (JSON.parse(args.blocks) as unknown) : args.blocks;
      if (!Array.isArray(parsed)) return failure('invalid_blocks_format');
      blocks = parsed;
    } catch {
      return failure('invalid_blocks_format');
    }
  }
  const text = typeof args.text === 'string' ? args.text : '';
  if (text === '' && !blocks?.length) return failure('no_text');
  if (text.length > maxTextLength) return failure('msg_too_long');
  const team = context.workspaces.teams.get(teamId)!;
  const ts = context.workspaces.nextTs();
  context.workspaces.messages.push({ teamId, channel, userId, text, blocks, ts });
  return {
    body: {
      ok: true,
      channel,
      ts,
      message: {
        user: team.botUserId,
        type: 'message',
        ts,
        bot_id: team.botId,
        app_id: context.workspaces.appId,
        text,
        team: teamId,
        ...(blocks ? { blocks } : {}),
      },
    },
  };
}
