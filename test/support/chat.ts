import type { Runtime } from '../../local/runtime.ts';
import { signSlashCommand, slashCommand, type SlashCommandFields } from '../../local/slack/signing.ts';
import type { apiClient, Reply } from './runtime.ts';

/** The runtime's clock in whole seconds, as Slack's `X-Slack-Request-Timestamp` has it. */
export const nowSeconds = (runtime: Pick<Runtime, 'clock'>) => Math.floor(runtime.clock.now() / 1000);

/** The `state` of Slack's authorize URL that `POST /v1/chat/install` answered. */
export const stateOf = (authorizeUrl: string) => new URL(authorizeUrl).searchParams.get('state')!;

/** The chat token of the composer link in a command's reply (`<…/#chat=<token>|…>`). */
export const chatTokenOf = (replyText: string) => /#chat=([^|>\s]+)/.exec(replyText)![1]!;

/** `POST /v1/chat/commands` with Slack's form for `fields`, signed now with the runtime's signing secret unless told otherwise. */
export function sendCommand(
  runtime: Pick<Runtime, 'clock' | 'config'>,
  api: ReturnType<typeof apiClient>,
  fields: Partial<SlashCommandFields> = {},
  signing: { secret?: string; timestampSeconds?: number } = {},
): Promise<Reply> {
  const signed = signSlashCommand(
    slashCommand(fields),
    signing.secret ?? runtime.config.SLACK_SIGNING_SECRET!,
    signing.timestampSeconds ?? nowSeconds(runtime),
  );
  return api.call('POST', '/v1/chat/commands', { body: signed.body, headers: signed.headers });
}
