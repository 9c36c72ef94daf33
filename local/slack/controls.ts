import type { ServerResponse } from 'node:http';
import type { RecordedCall } from './api.ts';
import type { AuthorizeOptions, PostedMessage } from './workspaces.ts';

/** A workspace the app is installed in, as the controls show it: its tokens by fingerprint only. */
export interface InstallationView {
  teamId: string;
  teamName: string;
  botUserId: string;
  users: string[];
  tokens: Array<{ fingerprint: string; scopes: string[]; revoked: boolean; expiresAt: number | null }>;
}

/**
 * What scripts and tests may do that Slack's API does not offer: the same actions as the
 * emulator's methods (local/slack/emulator.ts), over HTTP under `/_emulator/`, JSON in and out.
 */
export interface SlackControls {
  /** Every Web API call, oldest first: tokens and the client secret redacted. */
  calls(): RecordedCall[];
  clearCalls(): void;
  /** Every message the bot posted, oldest first. */
  messages(): PostedMessage[];
  /** A code for `oauth.v2.access`, as if a user approved the install: usable once, for 10 minutes. */
  authorize(options?: AuthorizeOptions): string;
  addUser(teamId: string, userId: string): void;
  /** The app is uninstalled from the team: its tokens answer `token_revoked`. The count revoked. */
  revokeTeam(teamId: string): number;
  installations(): InstallationView[];
  /** The next `count` Web API calls (of `method` only, when given) answer 429 with `Retry-After: retryAfterSeconds`. */
  throttleNext(count: number, retryAfterSeconds?: number, method?: string): void;
  /** Slack's "token rotation" setting for the app: on, installs grant 12-hour tokens with a refresh token (renewals always do: Slack cannot turn it off again). */
  setTokenRotation(enabled: boolean): void;
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body, null, 2));
};

const teamPath = /^teams\/(T[A-Z0-9]{2,20})\/(revoke|users)$/;

/**
 * - `GET /_emulator/calls` (every Web API call), `DELETE` to forget them; `GET /_emulator/messages`;
 * - `GET /_emulator/installations`;
 * - `POST /_emulator/authorize` `{teamId?, teamName?, userId?, scopes?, redirectUri?}` → `{code}`;
 * - `POST /_emulator/teams/{id}/users` `{userId}`: a member the bot may DM;
 * - `POST /_emulator/teams/{id}/revoke`: the app is uninstalled there;
 * - `POST /_emulator/throttle` `{count, retryAfterSeconds?, method?}`: the next calls answer 429;
 * - `POST /_emulator/rotation` `{enabled}`: token rotation on or off for installs from now on.
 */
export function handleControl(controls: SlackControls, method: string, path: string, rawBody: string, response: ServerResponse): boolean {
  const route = path.slice('/_emulator/'.length);
  let body: Record<string, unknown>;
  try {
    const parsed = rawBody ? (JSON.parse(rawBody) as unknown) : {};
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error();
    body = parsed as Record<string, unknown>;
  } catch {
    return (json(response, 400, { error: 'The body must be a JSON object.' }), true);
  }
  const string = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
  const team = teamPath.exec(route);
  if (method === 'GET' && route === 'calls') return (json(response, 200, controls.calls()), true);
  if (method === 'DELETE' && route === 'calls') return (controls.clearCalls(), json(response, 200, { deleted: true }), true);
  if (method === 'GET' && route === 'messages') return (json(response, 200, controls.messages()), true);
  if (method === 'GET' && route === 'installations') return (json(response, 200, controls.installations()), true);
  if (method === 'POST' && route === 'authorize') {
    const scopes =
      Array.isArray(body.scopes) && body.scopes.every((scope) => typeof scope === 'string') ? (body.scopes as string[]) : undefined;
    const options: AuthorizeOptions = {
      teamId: string('teamId'),
      teamName: string('teamName'),
      userId: string('userId'),
      scopes,
      redirectUri: string('redirectUri'),
    };
    const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as AuthorizeOptions;
    return (json(response, 200, { code: controls.authorize(defined) }), true);
  }
  if (method === 'POST' && team?.[2] === 'users') {
    const userId = string('userId');
    if (!userId || !/^[UW][A-Z0-9]{2,20}$/.test(userId))
      return (json(response, 400, { error: 'userId must be a Slack user id (U…).' }), true);
    try {
      controls.addUser(team[1]!, userId);
    } catch (error) {
      return (json(response, 404, { error: (error as Error).message }), true);
    }
    return (json(response, 200, { added: userId }), true);
  }
  if (method === 'POST' && team?.[2] === 'revoke') return (json(response, 200, { revoked: controls.revokeTeam(team[1]!) }), true);
  if (method === 'POST' && route === 'throttle') {
    const count = body.count;
    const retryAfter = body.retryAfterSeconds ?? 30;
    if (!Number.isInteger(count) || (count as number) < 0 || !Number.isInteger(retryAfter) || (retryAfter as number) < 1) {
      return (json(response, 400, { error: 'count must be an integer ≥ 0 and retryAfterSeconds one ≥ 1.' }), true);
    }
    controls.throttleNext(count as number, retryAfter as number, string('method'));
    return (json(response, 200, { count, retryAfterSeconds: retryAfter, method: string('method') ?? null }), true);
  }
  if (method === 'POST' && route === 'rotation') {
    if (typeof body.enabled !== 'boolean') return (json(response, 400, { error: 'enabled must be true or false.' }), true);
    controls.setTokenRotation(body.enabled);
    return (json(response, 200, { enabled: body.enabled }), true);
  }
  return false;
}
