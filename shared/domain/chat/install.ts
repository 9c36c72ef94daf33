import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { chatLimits } from '../../limits.ts';
import { Forbidden, Invalid, Unauthenticated } from '../refusals.ts';
import type { SecretSealer } from '../webhooks/ports.ts';
import { configuredApp, type ChatAppSource } from './app.ts';
import type { ChatInstallationStore } from './installations.ts';
import { issueInstallState, readInstallState } from './tokens.ts';

/** What the bot needs: the slash command, messages, and opening a DM with the user to notify. */
export const chatScopes = ['commands', 'chat:write', 'im:write'] as const;

export interface ChatInstallPorts {
  chatApp: ChatAppSource;
  installations: ChatInstallationStore;
  /** Seals bot tokens for their team (KMS context `chat_team`). */
  tokenSealer: SecretSealer;
  clock: Clock;
  config: Pick<Config, 'WEB_ORIGIN'>;
}

/** Where Slack sends the browser back: registered as the app's redirect URL. */
export const chatCallbackUrl = (config: Pick<Config, 'WEB_ORIGIN'>) => `${config.WEB_ORIGIN.replace(/\/+$/, '')}/v1/chat/callback`;

/** `POST /v1/chat/install`: Slack's authorize page for this user, with a state naming them (10 minutes, once). */
export async function startChatInstall(userId: string, ports: ChatInstallPorts): Promise<{ authorizeUrl: string }> {
  const app = await configuredApp(ports.chatApp);
  const state = await issueInstallState(userId, ports.clock.now(), app.clientSecret);
  const url = new URL('../oauth/v2/authorize', app.apiUrl);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    scope: chatScopes.join(','),
    state: state.token,
    redirect_uri: chatCallbackUrl(ports.config),
  }).toString();
  return { authorizeUrl: url.toString() };
}

/** What Slack's redirect back carries, by Slack's names: the code to exchange, the state we sent, or why not. */
export interface InstallRedirect {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
}

const badState = (why: string) =>
  new Unauthenticated(`This install link ${why}: start again from your account page.`, { facts: { reason: 'install_state' } });

/**
 * `GET /v1/chat/callback`: Slack's redirect. The state first (401 when missing, not ours,
 * expired or used), then Slack's answer: the user's refusal or a refused exchange is 403; an
 * exchanged code makes the team's installation, its bot token (and with rotation, its refresh token) sealed for the team.
 */
export async function completeChatInstall(redirect: InstallRedirect, ports: ChatInstallPorts): Promise<{ teamName: string }> {
  const app = await configuredApp(ports.chatApp);
  if (!redirect.state) throw badState('carries no state');
  const state = await readInstallState(redirect.state, ports.clock.now(), app.clientSecret);
  if (!state) throw badState('is not valid or has expired');
  if (!redirect.code && redirect.error === undefined) {
    throw new Invalid('Slack’s redirect carries no code.', [{ field: 'code', message: 'is required', in: 'query' }]);
  }
  // Spent by Slack's answer either way: a replayed redirect, refusal or not, is a used state (401).
  if ((await ports.installations.useInstallState(state.jti, state.expiresAt)) === 'used') throw badState('was used already');
  if (redirect.error !== undefined) {
    throw new Forbidden(redirect.error === 'access_denied' ? 'The install was cancelled in Slack.' : 'Slack did not install the app.', {
      facts: { reason: 'install_refused', slack_error: redirect.error.slice(0, chatLimits.slackErrorChars) },
    });
  }
  const code = redirect.code!;
  const exchange = await app.api.exchangeCode({ code, redirectUri: chatCallbackUrl(ports.config) });
  if (exchange.outcome !== 'installed') {
    const reason = exchange.outcome === 'refused' ? 'install_refused' : 'slack_unavailable';
    const detail = exchange.outcome === 'refused' ? 'Slack refused the install.' : 'Slack did not answer: start the install again.';
    throw new Forbidden(detail, { facts: { reason, slack_error: exchange.reason } });
  }
  const grant = exchange.installation;
  // With token rotation on, the token lasts 12 hours: its renewal is kept beside it, sealed the same way.
  const rotation = grant.rotation && {
    sealedRefreshToken: await ports.tokenSealer.seal(grant.rotation.refreshToken, grant.teamId),
    expiresAt: ports.clock.now() + grant.rotation.expiresInSeconds * 1000,
  };
  await ports.installations.save({
    teamId: grant.teamId,
    teamName: grant.teamName,
    sealedBotToken: await ports.tokenSealer.seal(grant.botToken, grant.teamId),
    botUserId: grant.botUserId,
    scopes: grant.scopes,
    installerUserId: state.userId,
    installerChatUserId: grant.installerSlackUserId,
    installedAt: ports.clock.now(),
    ...(rotation ? { rotation } : {}),
  });
  return { teamName: grant.teamName };
}
