import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod/mini';
import type { Config } from '../config.ts';
import type { ChatApp, ChatAppSource } from '../domain/chat/app.ts';
import { defaultSlackApiUrl, SlackWebApi } from './slackApi.ts';

/** The chat app's settings (issue 19): who it is to Slack, its secrets, and where Slack's API is. */
export interface ChatSettings {
  clientId: string;
  clientSecret: string;
  signingSecret: string;
  /** Slack's Web API base, ending in `/` (the local emulator's in `npm start` and the tests). */
  apiUrl: string;
}

const slackSecret = z.string().check(z.regex(/^[0-9a-f]{32}$/));
const storedSecrets = z.object({ client_secret: slackSecret, signing_secret: slackSecret });

type ChatConfig = Pick<
  Config,
  'REGION' | 'SLACK_CLIENT_ID' | 'SLACK_SECRETS_ARN' | 'SLACK_CLIENT_SECRET' | 'SLACK_SIGNING_SECRET' | 'SLACK_API_URL'
>;

/**
 * The chat app's settings, or null when the deployment has none (no client id: the chat routes
 * answer 403 `chat_not_configured`). Its secrets come from Secrets Manager in AWS (read once, at
 * the first request of a cold start), directly in local runs. A client id without its secrets
 * is a deployment's mistake: it throws, rather than answer as if unconfigured. Never logged.
 */
export async function chatSettings(config: ChatConfig): Promise<ChatSettings | null> {
  if (!config.SLACK_CLIENT_ID) return null;
  const apiUrl = (config.SLACK_API_URL ?? defaultSlackApiUrl).replace(/\/*$/, '/');
  if (config.SLACK_SECRETS_ARN) {
    const client = new SecretsManagerClient({ region: config.REGION });
    try {
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: config.SLACK_SECRETS_ARN }));
      // JSON.parse's own message quotes the text it failed on: a secret pasted bare would reach the logs.
      const parsed = storedSecrets.safeParse(parseQuietly(SecretString));
      if (!parsed.success) throw new Error('the chat app secret is not {client_secret, signing_secret}');
      return {
        clientId: config.SLACK_CLIENT_ID,
        clientSecret: parsed.data.client_secret,
        signingSecret: parsed.data.signing_secret,
        apiUrl,
      };
    } finally {
      client.destroy();
    }
  }
  if (!config.SLACK_CLIENT_SECRET || !config.SLACK_SIGNING_SECRET) {
    throw new Error(
      'the chat app is half configured: SLACK_CLIENT_ID needs SLACK_SECRETS_ARN, or SLACK_CLIENT_SECRET and SLACK_SIGNING_SECRET',
    );
  }
  return { clientId: config.SLACK_CLIENT_ID, clientSecret: config.SLACK_CLIENT_SECRET, signingSecret: config.SLACK_SIGNING_SECRET, apiUrl };
}

/**
 * The chat app of this deployment, read at its first use and kept for the instance (a failed
 * read is tried again next time): its settings and Slack's API with them.
 */
export function chatAppSource(settings: () => Promise<ChatSettings | null>): ChatAppSource {
  let app: Promise<ChatApp | null> | null = null;
  return () => {
    app ??= settings()
      .then((read) =>
        read ? { ...read, api: new SlackWebApi({ clientId: read.clientId, clientSecret: read.clientSecret, apiUrl: read.apiUrl }) } : null,
      )
      .catch((error: unknown) => {
        app = null;
        throw error;
      });
    return app;
  };
}

/** The stored secret as JSON, or null: never an error that quotes it. */
function parseQuietly(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? 'null');
  } catch {
    return null;
  }
}
