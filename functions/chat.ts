import { kmsSealer } from '../shared/adapters/kms.ts';
import { chatAppSource, chatSettings } from '../shared/adapters/chatSecrets.ts';
import { chatRequests } from '../shared/api/chat.ts';
import type { ChatAppSource } from '../shared/domain/chat/app.ts';
import { answerChatCommand, type ChatCommandPorts } from '../shared/domain/chat/command.ts';
import { completeChatInstall, startChatInstall, type ChatInstallPorts } from '../shared/domain/chat/install.ts';
import { slackSignatureHeader, slackTimestampHeader } from '../shared/domain/chat/requestSignature.ts';
import { subscribeChat, type ChatSubscribePorts } from '../shared/domain/chat/subscribe.ts';
import type { SecretSealer } from '../shared/domain/webhooks/ports.ts';
import { apiDeps, type ApiDeps } from './shared/apiDeps.ts';
import { requireSession } from '../shared/http/auth.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { lambdaEntry, type Platform } from '../shared/platform.ts';
import { chatRoutes } from '../shared/routes.ts';
import { DynamoChatInstallationStore } from '../shared/store/chatInstallations.ts';
import { DynamoChatSubscriptions } from '../shared/store/chatSubscriptions.ts';

/**
 * Where Slack's redirect is sent once the app is installed: the web client's own page, styled
 * and with the site's header (the API's policy, `default-src 'none'`, allows no style on a page
 * of its own). The team's name goes in the query, for the page to say where it was installed.
 */
const installedLocation = (config: ChatDeps['config'], teamName: string) =>
  `${config.WEB_ORIGIN.replace(/\/+$/, '')}/chat/installed?${new URLSearchParams({ team: teamName }).toString()}`;

/** The chat group (interface §4.9): installing the Slack app, its slash command, and the composer's subscription. */
export const operations: Operations<'chat', ChatDeps> = {
  async startChatInstall(request, deps) {
    const { authorizeUrl } = await startChatInstall(requireSession(request.principal).userId, deps);
    return { status: 200, body: { authorize_url: authorizeUrl } };
  },

  async completeChatInstall(request, deps) {
    const { code, state, error } = request.query;
    const { teamName } = await completeChatInstall({ code, state, error }, deps);
    // The redirect carried Slack's one-time code and the state: nothing keeps this answer or its referrer.
    return {
      status: 302,
      body: undefined,
      headers: { location: installedLocation(deps.config, teamName), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    };
  },

  async answerChatCommand(request, deps) {
    const text = await answerChatCommand(
      { rawBody: request.rawBody, timestamp: request.headers[slackTimestampHeader], signature: request.headers[slackSignatureHeader] },
      deps,
    );
    return { status: 200, body: { response_type: 'ephemeral', text } };
  },

  async subscribeChat(request, deps) {
    const { secret_id: secretId, delete_token: deleteToken, chat_token: chatToken } = request.body;
    await subscribeChat({ secretId, deleteToken, chatToken }, deps);
    return { status: 200, body: { subscribed: true } };
  },
};

/** The chat function's wiring: the app (its secrets read at first use), installations, the token sealer, subscriptions. */
export type ChatDeps = ApiDeps & ChatInstallPorts & ChatCommandPorts & ChatSubscribePorts;

export function compose(platform: Platform, adapters: { chatApp: ChatAppSource; tokenSealer: SecretSealer }): ChatDeps {
  const { db, config } = platform;
  return {
    ...apiDeps(platform),
    chatApp: adapters.chatApp,
    tokenSealer: adapters.tokenSealer,
    installations: new DynamoChatInstallationStore(db, config.TABLE_NAME),
    subscriptions: new DynamoChatSubscriptions(db, config.TABLE_NAME),
  };
}

export const createHandler = (deps: ChatDeps) => groupHandler(chatRoutes, operations, chatRequests, deps);
export const handler = lambdaEntry((platform) =>
  createHandler(
    compose(platform, {
      chatApp: chatAppSource(() => chatSettings(platform.config)),
      tokenSealer: kmsSealer(platform.config, 'chat_team'),
    }),
  ),
);
