import { Forbidden } from '../refusals.ts';
import type { ChatApi } from './ports.ts';

/** The chat app as a deployment configured it (shared/adapters/chatSecrets.ts): its settings, and Slack's API with them. */
export interface ChatApp {
  clientId: string;
  clientSecret: string;
  signingSecret: string;
  /** Slack's Web API base (`…/api/`); the authorize page is beside it (`…/oauth/v2/authorize`). */
  apiUrl: string;
  api: ChatApi;
}

/** The app, or null when this deployment has none; read once per instance. */
export type ChatAppSource = () => Promise<ChatApp | null>;

/** What every chat route answers on a deployment without the chat app (no SLACK_CLIENT_ID). */
export async function configuredApp(source: ChatAppSource): Promise<ChatApp> {
  const app = await source();
  if (!app)
    throw new Forbidden('This deployment has no chat app: its operator sets SLACK_CLIENT_ID and the Slack secrets to turn it on.', {
      code: 'chat_not_configured',
    });
  return app;
}
