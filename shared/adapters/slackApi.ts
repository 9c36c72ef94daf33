import { chatLimits } from '../limits.ts';
import type {
  ChatApi,
  ChatInstallationGrant,
  CodeExchange,
  DirectMessageOutcome,
  TokenRefresh,
  TokenRotation,
} from '../domain/chat/ports.ts';

/** Slack's Web API; the local emulator's `url` (local/slack/) in `npm start` and the tests. */
export const defaultSlackApiUrl = 'https://slack.com/api/';
/** When a 429 carries no usable Retry-After (Slack always sends one). */
const fallbackRetryAfterSeconds = 60;

export interface SlackApiSettings {
  clientId: string;
  clientSecret: string;
  /** `SLACK_API_URL`; a missing trailing slash is added, as Slack's SDK does. */
  apiUrl?: string | undefined;
  timeoutMs?: number;
}

/** Errors meaning the bot token will not work again (Slack's tables; `token_expired` only with rotation, when a renewal mends it). */
const deadTokenErrors = new Set(['invalid_auth', 'token_revoked', 'account_inactive', 'token_expired']);

/** Slack's answers to a renewal that mean the refresh token (or the app's install) is gone for good. */
const deadRefreshErrors = new Set(['invalid_refresh_token', 'token_revoked', 'app_uninstalled', 'account_inactive']);

type SlackAnswer =
  | { kind: 'ok'; body: Record<string, unknown> }
  | { kind: 'refused'; error: string }
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  | { kind: 'failed'; reason: string };

/**
 * Slack's Web API over plain fetch: three methods do not warrant @slack/web-api (18 KiB gzip in a
 * bundle, and retry defaults that would hold a Lambda for half an hour). As Slack documents:
 * POST, form-encoded, `Authorization: Bearer`, client credentials by HTTP Basic; no retries (the
 * queue retries) and no redirects (one would carry the token elsewhere). Slack's `ok:false` is an
 * outcome, never a throw; a token never appears in an outcome, since only Slack's error codes do.
 */
export class SlackWebApi implements ChatApi {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(private readonly settings: SlackApiSettings) {
    const url = settings.apiUrl ?? defaultSlackApiUrl;
    this.baseUrl = url.endsWith('/') ? url : `${url}/`;
    this.timeoutMs = settings.timeoutMs ?? chatLimits.slackCallTimeoutMs;
  }

  async exchangeCode({ code, redirectUri }: { code: string; redirectUri: string }): Promise<CodeExchange> {
    const answer = await this.call('oauth.v2.access', { code, redirect_uri: redirectUri }, this.basic());
    if (answer.kind === 'refused') return { outcome: 'refused', reason: answer.error };
    if (answer.kind === 'rate_limited') return { outcome: 'failed', reason: 'rate_limited' };
    if (answer.kind === 'failed') return { outcome: 'failed', reason: answer.reason };
    const { body } = answer;
    // An org-wide install has no team (or Slack says so outright): nothing here to key it by.
    if (body.is_enterprise_install === true || body.team === null) return { outcome: 'refused', reason: 'enterprise_install' };
    const installation = grantOf(body);
    return installation ? { outcome: 'installed', installation } : { outcome: 'failed', reason: 'bad_response' };
  }

  async refreshBotToken(refreshToken: string): Promise<TokenRefresh> {
    const answer = await this.call('oauth.v2.access', { grant_type: 'refresh_token', refresh_token: refreshToken }, this.basic());
    // Only a refresh token Slack will never honour ends the installation; a wrong client secret
    // (an operator's rotation half done) or Slack's own trouble is tried again later.
    if (answer.kind === 'refused') {
      return deadRefreshErrors.has(answer.error)
        ? { outcome: 'refused', reason: answer.error }
        : { outcome: 'failed', reason: answer.error };
    }
    if (answer.kind === 'rate_limited') return { outcome: 'failed', reason: 'rate_limited' };
    if (answer.kind === 'failed') return { outcome: 'failed', reason: answer.reason };
    const botToken = botTokenOf(answer.body);
    const rotation = rotationOf(answer.body);
    return botToken && rotation && answer.body.token_type === 'bot'
      ? { outcome: 'refreshed', botToken, rotation }
      : { outcome: 'failed', reason: 'bad_response' };
  }

  /** The app's client credentials: Slack's client ids (digits and a dot) and secrets (hex) need no escaping before Basic's base64. */
  private basic(): string {
    return `Basic ${Buffer.from(`${this.settings.clientId}:${this.settings.clientSecret}`).toString('base64')}`;
  }

  async sendDirectMessage(botToken: string, slackUserId: string, text: string): Promise<DirectMessageOutcome> {
    const bearer = `Bearer ${botToken}`;
    const opened = await this.call('conversations.open', { users: slackUserId }, bearer);
    if (opened.kind !== 'ok') return messageOutcome(opened);
    const channelId = stringAt(opened.body.channel, 'id');
    if (!channelId) return { outcome: 'failed', error: 'bad_response' };
    const posted = await this.call('chat.postMessage', { channel: channelId, text }, bearer);
    if (posted.kind !== 'ok') return messageOutcome(posted);
    const ts = posted.body.ts;
    return typeof ts === 'string' ? { outcome: 'sent', channelId, ts } : { outcome: 'failed', error: 'bad_response' };
  }

  private async call(method: string, fields: Record<string, string>, authorization: string): Promise<SlackAnswer> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization },
        body: new URLSearchParams(fields).toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      // fetch's errors name the URL at most, never the headers; still, only a fixed word leaves here.
      return { kind: 'failed', reason: (error as Error).name === 'TimeoutError' ? 'timeout' : 'network' };
    }
    if (response.status === 429) {
      await response.body?.cancel();
      return { kind: 'rate_limited', retryAfterSeconds: retryAfterOf(response.headers.get('retry-after')) };
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      return { kind: 'failed', reason: `http_${response.status}` };
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      return { kind: 'failed', reason: (error as Error).name === 'TimeoutError' ? 'timeout' : 'bad_response' };
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return { kind: 'failed', reason: 'bad_response' };
    const answer = body as Record<string, unknown>;
    if (answer.ok === true) return { kind: 'ok', body: answer };
    // Slack's error is a code; anything else in its place is not repeated.
    return {
      kind: 'refused',
      error: typeof answer.error === 'string' && /^[a-z0-9_.]{1,64}$/.test(answer.error) ? answer.error : 'unknown_error',
    };
  }
}

function messageOutcome(answer: Exclude<SlackAnswer, { kind: 'ok' }>): DirectMessageOutcome {
  if (answer.kind === 'rate_limited') return { outcome: 'rate_limited', retryAfterSeconds: answer.retryAfterSeconds };
  if (answer.kind === 'failed') return { outcome: 'failed', error: answer.reason };
  return deadTokenErrors.has(answer.error) ? { outcome: 'token_dead', error: answer.error } : { outcome: 'failed', error: answer.error };
}

/** Retry-After in seconds (Slack's form); an HTTP date or garbage falls back. */
function retryAfterOf(header: string | null): number {
  const seconds = header !== null && /^\d{1,6}$/.test(header.trim()) ? Number(header.trim()) : NaN;
  return Number.isFinite(seconds) ? Math.max(1, seconds) : fallbackRetryAfterSeconds;
}

const stringAt = (value: unknown, key: string): string | null => {
  const field = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === 'string' && field !== '' ? field : null;
};

/** A bot token: `xoxb-…`, or with rotation on its expiring form `xoxe.xoxb-…` (never a user's `xoxp-`). */
const botTokenOf = (body: Record<string, unknown>): string | null =>
  typeof body.access_token === 'string' && /^(xoxe\.)?xoxb-/.test(body.access_token) ? body.access_token : null;

/**
 * With rotation on, Slack's answer carries `refresh_token` (`xoxe-1-…`) and `expires_in`
 * (seconds, 43,200 today); without it, neither. One without the other is not a usable answer.
 */
function rotationOf(body: Record<string, unknown>): TokenRotation | null | undefined {
  const { refresh_token: refreshToken, expires_in: expiresIn } = body;
  if (refreshToken === undefined && expiresIn === undefined) return undefined;
  if (typeof refreshToken !== 'string' || !refreshToken.startsWith('xoxe-')) return null;
  if (typeof expiresIn !== 'number' || !Number.isInteger(expiresIn) || expiresIn <= 0) return null;
  return { refreshToken, expiresInSeconds: expiresIn };
}

/** `oauth.v2.access`'s success, read field by field; null when any part the service needs is missing. */
function grantOf(body: Record<string, unknown>): ChatInstallationGrant | null {
  const botToken = botTokenOf(body);
  const rotation = rotationOf(body);
  const teamId = stringAt(body.team, 'id');
  const teamName = stringAt(body.team, 'name');
  const installerSlackUserId = stringAt(body.authed_user, 'id');
  const botUserId = typeof body.bot_user_id === 'string' ? body.bot_user_id : null;
  const appId = typeof body.app_id === 'string' ? body.app_id : null;
  const scope = typeof body.scope === 'string' ? body.scope : null;
  if (body.token_type !== 'bot' || !botToken || !teamId || !teamName || !installerSlackUserId || !botUserId || !appId || scope === null)
    return null;
  // An expiring token without its renewal would stop in 12 hours: a half answer, as is a malformed renewal.
  if (rotation === null || (botToken.startsWith('xoxe.') && !rotation)) return null;
  return {
    teamId,
    teamName,
    botToken,
    botUserId,
    appId,
    scopes: scope.split(',').filter(Boolean),
    installerSlackUserId,
    ...(rotation ? { rotation } : {}),
  };
}
