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
import { text, type Command, type CommandHelp, type Context } from '../command.ts';
import { countWithin, durationWithin } from '../duration.ts';
import { usageError } from '../errors.ts';
import { t } from '../i18n.ts';
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
    get summary() {
      return t('cli.request.summary');
    },
    get description() {
      return t('cli.request.description');
    },
    get options(): CommandHelp['options'] {
      const { min, max, default: byDefault } = requestLimits.maxResponses;
      return [
        ['--prompt TEXT', t('cli.request.optionPrompt')],
        ['--expires DURATION', t('cli.request.optionExpires')],
        ['--max-responses N', t('cli.request.optionMaxResponses', { min, max, default: byDefault })],
        ['--workspace ID', t('cli.request.optionWorkspace')],
        ['--hostname HOST', t('cli.request.optionHostname')],
      ];
    },
    get examples(): CommandHelp['examples'] {
      return [
        ['hushlink request --prompt "The staging database password"', t('cli.request.examplePrompt')],
        ['hushlink request --prompt "Your SSH public key" --expires 1d --max-responses 5', t('cli.request.exampleSeveral')],
        ['hushlink request --prompt "API token" --json', t('cli.request.exampleJson')],
        ['hushlink inbox --open', t('cli.request.exampleInbox')],
      ];
    },
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
      throw usageError(t('cli.request.promptTooLong', { size: requestLimits.promptEnvelopeBytes / 1024 }), 'payload_too_large');
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
    context.stderr.write(`${t('cli.request.made', { id: created.id, expires: created.expires_at, count: settings.maxResponses })}\n`);
    context.stderr.write(`${t('cli.request.keyKept', { file: keyFile, id: created.id })}\n`);
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
  if (hostname !== undefined && workspace === undefined) throw usageError(t('cli.request.hostnameNeedsWorkspace'));
  if (workspace !== undefined) settings.workspace = workspace;
  if (hostname !== undefined) settings.hostname = hostname;
  return settings;
}
