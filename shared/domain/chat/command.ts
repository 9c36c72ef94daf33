import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { Forbidden, Invalid } from '../refusals.ts';
import { configuredApp, type ChatAppSource } from './app.ts';
import { verifySlackRequest } from './requestSignature.ts';
import { issueChatToken } from './tokens.ts';

export interface ChatCommandPorts {
  chatApp: ChatAppSource;
  clock: Clock;
  config: Pick<Config, 'WEB_ORIGIN'>;
}

export interface SlashCommand {
  rawBody: Buffer;
  timestamp: string | undefined;
  signature: string | undefined;
}

/**
 * `POST /v1/chat/commands` (`/secret`): a link to the composer carrying a chat token (the team
 * and the user, 15 minutes), never a secret. Slack's signature is checked on the raw body before
 * anything of it is read (403 otherwise). What was typed after the command is read only to say
 * it was ignored: it is not echoed, stored or logged, since Slack has it already and a secret
 * typed there is no longer one.
 */
export async function answerChatCommand(command: SlashCommand, ports: ChatCommandPorts): Promise<string> {
  const app = await configuredApp(ports.chatApp);
  const verified = verifySlackRequest({
    rawBody: command.rawBody,
    timestamp: command.timestamp,
    signature: command.signature,
    signingSecret: app.signingSecret,
    now: ports.clock.now(),
  });
  if (!verified.ok) throw new Forbidden('This request is not signed by Slack, or not recently.', { facts: { reason: 'slack_signature' } });
  const form = new URLSearchParams(command.rawBody.toString('utf8'));
  // Slack checks the certificate of a distributed app's command URL now and then: nothing to answer.
  if (form.get('ssl_check') === '1') return '';
  const teamId = form.get('team_id');
  const userId = form.get('user_id');
  if (!teamId || !userId) {
    // The form as a whole (no one field of it): the issue names the body itself.
    throw new Invalid('The command names no team or user.', [{ field: '', message: 'team_id and user_id are required' }]);
  }
  const token = await issueChatToken({ teamId, slackUserId: userId }, ports.clock.now(), app.clientSecret);
  const link = `${ports.config.WEB_ORIGIN.replace(/\/+$/, '')}/#chat=${token.token}`;
  const lines = [
    `<${link}|Write your secret in Hushlink> (this link works for 15 minutes). It is encrypted in your browser; you will get a message here when it is opened.`,
    'Never type a secret into Slack: Slack keeps what you type.',
  ];
  if ((form.get('text') ?? '').trim() !== '')
    lines.push('What you typed after the command was ignored: it was not stored or sent anywhere.');
  return lines.join('\n');
}
