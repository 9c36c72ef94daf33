import { createHmac } from 'node:crypto';

/** A slash command's fields, as Slack POSTs them (form-encoded, in this order). */
export type SlashCommandFields = Record<string, string>;

/**
 * Slack's field set for `/hushlink` run by the local workspace's installer (the emulator's
 * default team and user), with `overrides` laid over it. `token` is Slack's deprecated
 * verification token: sent, as Slack still sends it, and meant to be ignored.
 */
export function slashCommand(overrides: Partial<SlashCommandFields> = {}): SlashCommandFields {
  const fields: SlashCommandFields = {
    token: 'gIkuvaNzQIHg97ATvDxqgjtO',
    team_id: 'T0LOCAL001',
    team_domain: 'hushlink-local',
    channel_id: 'C0LOCAL001',
    channel_name: 'general',
    user_id: 'U0LOCAL001',
    user_name: 'local',
    command: '/hushlink',
    text: '',
    api_app_id: 'A0LOCAL001',
    is_enterprise_install: 'false',
    response_url: 'https://hooks.slack.com/commands/T0LOCAL001/1000000000001/LocalResponseUrlSecret0',
    trigger_id: '1000000000001.1000000000002.0123456789abcdef0123456789abcdef',
  };
  for (const [name, value] of Object.entries(overrides)) if (value !== undefined) fields[name] = value;
  return fields;
}

/**
 * A slash command signed as Slack signs it: `X-Slack-Signature: v0=<hex HMAC-SHA256 of
 * "v0:<timestamp>:<body>">` keyed by the signing secret as UTF-8, over the exact bytes of the
 * body sent; `X-Slack-Request-Timestamp` in seconds. The body is form-encoded as Slack's
 * (`%2F` for `/`, `+` for a space); send it as is, since any re-encoding breaks the signature.
 */
export function signSlashCommand(
  fields: SlashCommandFields,
  signingSecret: string,
  timestampSeconds: number,
): { body: string; headers: Record<string, string> } {
  const body = new URLSearchParams(fields).toString();
  const signature = createHmac('sha256', signingSecret).update(`v0:${timestampSeconds}:${body}`).digest('hex');
  return {
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestampSeconds),
      'x-slack-signature': `v0=${signature}`,
    },
  };
}
