/**
 * `hushlink request`: makes a request link (docs/envelope.md, "Request links") as the web's
 * request page does: the key pair made here, the prompt sealed under a key from the link's
 * secret `s`, so the service stores a public key and ciphertext only. The pair and `s` are kept
 * in the config folder (requestKeys.ts); the link `url_base#<fp>.<s>` goes alone to stdout.
 */
import {
  encodePublicKey,
  generateRequesterKeys,
  newLinkSecret,
  publicKeyFingerprint,
  sealPrompt,
  toBase64,
} from '../../../shared/envelope/index.ts';
import { requestLimits } from '../../../shared/limits.ts';
import { apiClient } from '../api.ts';
import { text, type Command, type Context } from '../command.ts';
import { countWithin, durationWithin } from '../duration.ts';
import { usageError } from '../errors.ts';
import { keepRequest, requestKeysFile, requestLinkOf } from '../requestKeys.ts';

interface Created {
  id: string;
  url_base: string;
  expires_at: string;
}

export const request: Command = {
  name: 'request',
  positionals: 0,
  options: {
    prompt: { type: 'string' },
    expires: { type: 'string' },
    'max-responses': { type: 'string' },
    workspace: { type: 'string' },
    hostname: { type: 'string' },
  },
  help: {
    usage: 'hushlink request [--prompt TEXT] [options]',
    summary: 'Ask someone to send you a secret: prints a request link.',
    description: `Makes a request link: whoever has it can send you a text or a file that only you can open. A key
pair is made on this machine; its private key never leaves it, kept with the link's secret in the
config folder (requests.json, mode 0600). Your question is sealed into the link, so the service
never reads it. Only the link goes to stdout; read the responses with \`hushlink inbox --open\`,
here and with this config folder only. Needs \`hushlink login\` (an API key cannot make requests).`,
    options: [
      ['--prompt TEXT', 'What you are asking for, shown to whoever opens the link (sealed; at most about 8 KB).'],
      ['--expires DURATION', 'How long it takes responses: 1h, 2d, 1w… from 1 minute to 30 days (default 7 days).'],
      [
        '--max-responses N',
        `How many responses it takes, ${requestLimits.maxResponses.min} to ${requestLimits.maxResponses.max} (default ${requestLimits.maxResponses.default}).`,
      ],
      ['--workspace ID', 'Make it in a workspace you are a member of (its policy applies).'],
      ['--hostname HOST', 'With --workspace: the link on this hostname the workspace verified.'],
    ],
    examples: [
      ['hushlink request --prompt "The staging database password"', 'Prints the link to send to whoever has it.'],
      ['hushlink request --prompt "Your SSH public key" --expires 1d --max-responses 5', 'Open for a day, for up to five people.'],
      ['hushlink request --prompt "API token" --json', 'Print the id, link, expiry and key file as JSON.'],
      ['hushlink inbox --open', 'Then read what was sent.'],
    ],
  },
  run: async (context) => {
    const settings = requestSettings(context);
    const api = apiClient(context.api, context);
    // Asked before a key is made: without a session nothing is made at all.
    await api.bearer('session');
    const keys = await generateRequesterKeys({ extractable: true });
    const link = { fingerprint: await publicKeyFingerprint(keys.publicKey), linkSecret: newLinkSecret() };
    const sealed = settings.prompt === undefined ? undefined : await sealPrompt(settings.prompt, link);
    if (sealed && sealed.envelope.length > requestLimits.promptEnvelopeBytes) {
      throw usageError(
        `--prompt is too long: sealed, it must fit in ${requestLimits.promptEnvelopeBytes / 1024} KiB.`,
        'payload_too_large',
      );
    }
    const created = await api.call<Created>('POST', '/v1/requests', {
      auth: 'session',
      signal: context.signal,
      json: {
        public_key: encodePublicKey(keys.publicKey),
        kem: keys.kem,
        ...(sealed ? { prompt_envelope: toBase64(sealed.envelope) } : {}),
        expires_in: settings.expiresIn,
        max_responses: settings.maxResponses,
        ...(settings.workspace === undefined ? {} : { workspace_id: settings.workspace }),
        ...(settings.hostname === undefined ? {} : { hostname: settings.hostname }),
      },
    });
    try {
      await keepRequest(context.env, context.api, created.id, { keys, link, urlBase: created.url_base });
    } catch (error) {
      // Nobody could ever open its responses: take the link down again.
      await api.call('DELETE', `/v1/requests/${encodeURIComponent(created.id)}`, { auth: 'session' }).catch(() => undefined);
      throw error;
    }
    const shown = requestLinkOf({ link, urlBase: created.url_base });
    const keyFile = requestKeysFile(context.env).path;
    if (context.json) {
      const answer = {
        id: created.id,
        link: shown,
        expires_at: created.expires_at,
        max_responses: settings.maxResponses,
        kem: keys.kem,
        key_file: keyFile,
      };
      context.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      return;
    }
    context.stdout.write(`${shown}\n`);
    const responses = `${settings.maxResponses} response${settings.maxResponses === 1 ? '' : 's'}`;
    context.stderr.write(`Request ${created.id}: open until ${created.expires_at} or ${responses}.\n`);
    context.stderr.write(`Its key is in ${keyFile}; read the responses here with: hushlink inbox ${created.id} --open\n`);
  },
};

interface Settings {
  prompt?: string;
  expiresIn: number;
  maxResponses: number;
  workspace?: string;
  hostname?: string;
}

function requestSettings(context: Context): Settings {
  const values = context.values;
  const prompt = text(values, 'prompt')?.trim();
  const settings: Settings = { expiresIn: requestLimits.expiresInSeconds.default, maxResponses: requestLimits.maxResponses.default };
  if (prompt) settings.prompt = prompt;
  const expiresIn = durationWithin(text(values, 'expires'), '--expires', requestLimits.expiresInSeconds);
  if (expiresIn !== undefined) settings.expiresIn = expiresIn;
  const maxResponses = countWithin(text(values, 'max-responses'), '--max-responses', requestLimits.maxResponses);
  if (maxResponses !== undefined) settings.maxResponses = maxResponses;
  const workspace = text(values, 'workspace');
  const hostname = text(values, 'hostname');
  if (hostname !== undefined && workspace === undefined)
    throw usageError('--hostname needs --workspace: a link is on a hostname its workspace verified.');
  if (workspace !== undefined) settings.workspace = workspace;
  if (hostname !== undefined) settings.hostname = hostname;
  return settings;
}
