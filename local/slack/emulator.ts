import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback, readBody } from '../loopbackServer.ts';
import { systemClock, type Clock } from '../../shared/clock.ts';
import { handleApi, tokenFingerprint, type ApiContext } from './api.ts';
import { handleControl, type SlackControls } from './controls.ts';
import { handleAuthorizePage } from './pages.ts';
import { SlackWorkspaces } from './workspaces.ts';

export { signSlashCommand, slashCommand } from './signing.ts';
export { tokenFingerprint } from './api.ts';

/** The local app's fixed client credentials: what the service's `SLACK_CLIENT_ID` and `SLACK_CLIENT_SECRET` must be. */
export const localSlackClientId = '1000000000001.1000000000002';
export const localSlackClientSecret = '0123456789abcdef0123456789abcdef';
export const localSlackAppId = 'A0LOCAL001';

export interface SlackEmulatorOptions {
  /** Slack's time: code expiry, message `ts`, DM `created`. */
  clock?: Clock;
  clientId?: string;
  clientSecret?: string;
  appId?: string;
  /** 0 or absent picks a free port. */
  port?: number;
  /** Slack's token rotation setting at the start (off, as Slack's default is); `setTokenRotation` changes it. */
  tokenRotation?: boolean;
}

export interface LocalSlack extends SlackControls {
  /** The Web API base, `http://127.0.0.1:<port>/api/`: `SLACK_API_URL`, and the SDK's `slackApiUrl`. */
  url: string;
  /** `http://127.0.0.1:<port>`: the API under `/api/`, the authorize page, and `/_emulator/`. */
  origin: string;
  /** Where "Add to Slack" sends the browser, in place of `https://slack.com/oauth/v2/authorize`. */
  authorizeUrl: string;
  host: string;
  port: number;
  clientId: string;
  clientSecret: string;
  appId: string;
  /** What `GET /_dev/chat` shows (see `renderChatCalls`). */
  listing(): string;
  close(): Promise<void>;
}

/** Requests with larger bodies are refused; the service's are a few hundred bytes. */

/**
 * Slack on this machine (issue 19): the three Web API methods the service calls
 * (`oauth.v2.access` for installs and, with token rotation on, renewals; `conversations.open`,
 * `chat.postMessage`) in Slack's wire format (form or
 * JSON arguments, the bot token as Bearer or a `token` field, HTTP 200 with `{ok, …}` or
 * `{ok:false, error}`, 429 with Retry-After when throttled), so the official `@slack/web-api`
 * talks to it through `slackApiUrl`; the install's authorize page; every call recorded without
 * its token; test controls under `/_emulator/`. Like the Stripe emulator it answers only to
 * loopback host names, and keeps nothing across runs (a restart forgets installs: install again).
 */
export async function startSlackEmulator(options: SlackEmulatorOptions = {}): Promise<LocalSlack> {
  const host = '127.0.0.1';
  const loopback = await listenOnLoopback(options.port);
  const { port } = loopback;
  const origin = loopback.origin;
  const clock = options.clock ?? systemClock;
  const clientId = options.clientId ?? localSlackClientId;
  const clientSecret = options.clientSecret ?? localSlackClientSecret;
  const appId = options.appId ?? localSlackAppId;
  const workspaces = new SlackWorkspaces(clock, appId);
  workspaces.rotation = options.tokenRotation ?? false;
  const context: ApiContext = {
    workspaces,
    clientId,
    clientSecret,
    clock,
    calls: [],
    throttle: { remaining: 0, retryAfterSeconds: 30, method: null },
  };

  const controls: SlackControls = {
    calls: () => [...context.calls],
    clearCalls: () => void context.calls.splice(0),
    messages: () => [...workspaces.messages],
    authorize: (authorizeOptions) => workspaces.authorize(authorizeOptions),
    addUser: (teamId, userId) => workspaces.addUser(teamId, userId),
    revokeTeam: (teamId) => workspaces.revokeTeam(teamId),
    installations: () =>
      [...workspaces.teams.values()].map((team) => ({
        teamId: team.id,
        teamName: team.name,
        botUserId: team.botUserId,
        users: [...team.users],
        tokens: [...workspaces.tokens]
          .filter(([, issued]) => issued.teamId === team.id)
          .map(([token, issued]) => ({
            fingerprint: tokenFingerprint(token),
            scopes: [...issued.scopes],
            revoked: issued.revoked,
            expiresAt: issued.expiresAt ?? null,
          })),
      })),
    throttleNext: (count, retryAfterSeconds = 30, method) =>
      void (context.throttle = { remaining: count, retryAfterSeconds, method: method ?? null }),
    setTokenRotation: (enabled) => void (workspaces.rotation = enabled),
  };

  loopback.serve((request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      response.end(
        JSON.stringify({ ok: false, error: 'fatal_error', detail: `The local Slack emulator failed: ${(error as Error).message}` }),
      );
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    const body = await readBody(request);
    if (body === undefined) return void response.writeHead(413).end();
    if (url.pathname.startsWith('/api/')) return handleApi(context, request, response, body);
    if (url.pathname.startsWith('/_emulator/') && handleControl(controls, method, url.pathname, body, response)) return;
    const params = method === 'POST' ? new URLSearchParams(body) : url.searchParams;
    if (handleAuthorizePage(workspaces, clientId, method, url.pathname, params, response)) return;
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
  }

  return {
    ...controls,
    url: `${origin}/api/`,
    origin,
    authorizeUrl: `${origin}/oauth/v2/authorize`,
    host,
    port,
    clientId,
    clientSecret,
    appId,
    listing() {
      let listing = JSON.stringify(
        { calls: controls.calls(), messages: controls.messages(), installations: controls.installations() },
        null,
        2,
      );
      for (const secret of [clientSecret, ...workspaces.tokens.keys(), ...workspaces.refreshTokens.keys()])
        listing = listing.replaceAll(secret, '[redacted]');
      return listing;
    },
    async close() {
      await loopback.close();
    },
  };
}

/**
 * What `GET /_dev/chat` shows: every Web API call (oldest first), the messages posted and the
 * installations, as JSON. Calls are recorded redacted; as a second guard, any token the
 * emulator issued and the client secret are blanked wherever they might still appear (a message
 * text, an unexpected field).
 */
export function renderChatCalls(slack: LocalSlack): string {
  return slack.listing();
}

export type { RecordedCall } from './api.ts';
export type { AuthorizeOptions, PostedMessage } from './workspaces.ts';
