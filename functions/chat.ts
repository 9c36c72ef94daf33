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

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page Slack's redirect lands on: installed, and what to do next. Unstyled: the API's policy (`default-src 'none'`) allows no style. */
const installedPage = (teamName: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hushlink is installed</title></head>
<body>
<h1>Hushlink is installed in ${escapeHtml(teamName)}</h1>
<p>Type <code>/secret</code> in Slack for a link to write a secret in your browser. Slack never sees the secret, and you get a message when it is opened.</p>
<p><a href="/account">Back to your account</a></p>
</body></html>
`;

/** The chat group (interface §4.9): installing the Slack app, its slash command, and the composer's subscription. */
export const operations: Operations<'chat', ChatDeps> = {
  async startChatInstall(request, deps) {
    const { authorizeUrl } = await startChatInstall(requireSession(request.principal).userId, deps);
    return { status: 200, body: { authorize_url: authorizeUrl } };
  },

  async completeChatInstall(request, deps) {
    const { code, state, error } = request.query;
    const { teamName } = await completeChatInstall({ code, state, error }, deps);
    return { status: 200, body: undefined, text: installedPage(teamName), headers: { 'content-type': 'text/html; charset=utf-8' } };
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
