/** What Slack's OAuth exchange grants for one install: the workspace, its bot, and who installed. */
export interface ChatInstallationGrant {
  teamId: string;
  teamName: string;
  /** `xoxb-…`, or `xoxe.xoxb-…` when the app rotates tokens: sealed before it is stored, never logged. */
  botToken: string;
  /** With token rotation on: the bot token expires, and this renews it (once). Absent when rotation is off. */
  rotation?: TokenRotation;
  botUserId: string;
  appId: string;
  /** The scopes Slack granted the bot, as it lists them. */
  scopes: string[];
  /** The Slack user who approved the install (`authed_user.id`). */
  installerSlackUserId: string;
}

/** An expiring bot token's renewal: the refresh token (`xoxe-1-…`, sealed at rest) and the token's lifetime as Slack gave it. */
export interface TokenRotation {
  refreshToken: string;
  expiresInSeconds: number;
}

/**
 * - `refreshed`: a new bot token and the refresh token for the next renewal (Slack's old one is spent);
 * - `refused`: Slack will never renew with this refresh token (`invalid_refresh_token`, the app
 *   removed: `token_revoked`, `app_uninstalled`, `account_inactive`): the installation is dead;
 * - `failed`: no usable answer (as for `CodeExchange`): try again later.
 */
export type TokenRefresh =
  | { outcome: 'refreshed'; botToken: string; rotation: TokenRotation }
  | { outcome: 'refused'; reason: string }
  | { outcome: 'failed'; reason: string };

/**
 * - `installed`: the code was exchanged;
 * - `refused`: Slack said no (its error code, e.g. `invalid_code` for a code used, expired or
 *   unknown, `bad_redirect_uri`, `bad_client_secret`), or the install is one the service does not
 *   take (`enterprise_install`: an org-wide install names no single workspace);
 * - `failed`: no usable answer (`timeout`, `network`, `rate_limited`, `http_<status>`,
 *   `bad_response`): the user may try again.
 */
export type CodeExchange =
  | { outcome: 'installed'; installation: ChatInstallationGrant }
  | { outcome: 'refused'; reason: string }
  | { outcome: 'failed'; reason: string };

/**
 * - `sent`: the message is in the user's DM with the bot;
 * - `token_dead`: the bot token no longer works (`invalid_auth`, `token_revoked`,
 *   `account_inactive`, `token_expired`): the installation is to be removed, unless the error is
 *   `token_expired` and the installation rotates tokens (then it is renewed and the DM sent again);
 * - `rate_limited`: Slack answered 429; try again after `retryAfterSeconds`;
 * - `failed`: any other refusal (its Slack error code) or no usable answer (as for `CodeExchange`).
 */
export type DirectMessageOutcome =
  | { outcome: 'sent'; channelId: string; ts: string }
  | { outcome: 'token_dead'; error: string }
  | { outcome: 'rate_limited'; retryAfterSeconds: number }
  | { outcome: 'failed'; error: string };

/** Slack's Web API, as the service uses it (shared/adapters/slackApi.ts). Never throws for Slack's refusals. */
export interface ChatApi {
  /** `oauth.v2.access`: the code Slack's redirect carried, and the redirect URI the install started with. */
  exchangeCode(request: { code: string; redirectUri: string }): Promise<CodeExchange>;
  /** A direct message from the bot to one user of its workspace (`conversations.open`, then `chat.postMessage`). */
  sendDirectMessage(botToken: string, slackUserId: string, text: string): Promise<DirectMessageOutcome>;
  /** `oauth.v2.access` with `grant_type=refresh_token`: needs the app's client credentials. */
  refreshBotToken(refreshToken: string): Promise<TokenRefresh>;
}
