/**
 * `hushlink respond LINK [FILE|-]`: answers a request link as the web's responder page does.
 * The request is read (public) and its served key checked against the link's fingerprint before
 * anything is read or sealed: a key that does not match ends it with nothing sent. The prompt is
 * opened with a key from the link's `s` and shown on stderr; the answer (a text, or a file
 * through multipart) is sealed under a fresh key, which is wrapped to the requester with HPKE
 * (PSK from `s`) and sent with it.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  checkServedKey,
  decodePublicKey,
  EnvelopeError,
  fromBase64,
  fromBase64Url,
  openPrompt,
  parseRequestFragment,
  sealText,
  toBase64,
  wrapResponseKey,
  type RequestKem,
  type RequestLink,
} from '../../../shared/envelope/index.ts';
import { secretLimits } from '../../../shared/limits.ts';
import { ApiError, uploadFile } from '../../transfer/index.ts';
import { apiClient, type ApiClient } from '../api.ts';
import { flag, text, type Command, type CommandHelp, type Context } from '../command.ts';
import { CliError, exitCodes, usageError } from '../errors.ts';
import { t } from '../i18n.ts';
import { formatBytes, progressBar } from '../progress.ts';
import { readSmallText, readStdin } from '../input.ts';
import { printable } from '../printable.ts';

/** What the responder reads: never who asked. */
interface ServedRequest {
  id: string;
  public_key: string;
  kem: RequestKem;
  prompt_envelope: string | null;
  open: boolean;
  expires_at: string;
  responses_left: number;
}

export const respond: Command = {
  name: 'respond',
  positionals: 2,
  options: {
    'as-file': { type: 'boolean' },
    name: { type: 'string' },
  },
  help: {
    usage: 'hushlink respond LINK [FILE|-] [options]',
    get summary() {
      return t('cli.respond.summary');
    },
    get description() {
      return t('cli.respond.description');
    },
    get options(): CommandHelp['options'] {
      return [
        ['--as-file', t('cli.respond.optionAsFile')],
        ['--name NAME', t('cli.respond.optionName')],
      ];
    },
    get examples(): CommandHelp['examples'] {
      return [
        ['echo "hunter2" | hushlink respond "https://…/q/rql_…#…"', t('cli.respond.exampleStdin')],
        ['hushlink respond "$LINK"', t('cli.respond.exampleTyped')],
        ['hushlink respond "$LINK" id_ed25519.pub', t('cli.respond.exampleFile')],
        ['hushlink respond "$LINK" backup.tar.gz --json', t('cli.respond.exampleLarge')],
      ];
    },
  },
  run: async (context) => {
    const given = context.positionals[0];
    if (given === undefined) throw usageError(t('cli.respond.missingLink'));
    const source = context.positionals[1] ?? '-';
    const ref = requestRef(given);
    const api = apiClient(text(context.values, 'api') ? context.api : ref.origin, context);
    if (source === '-' && (flag(context.values, 'as-file') || text(context.values, 'name')))
      throw usageError(t('cli.common.asFileNeedsFile'));
    const file = source === '-' ? undefined : await stat(source).catch(() => null);
    if (file !== undefined && !file?.isFile()) throw usageError(t('cli.common.notAFile', { path: source }), 'no_such_file');

    const target = await checkedRequest(context, api, ref);
    context.stderr.write(
      target.prompt === null
        ? `${t('cli.respond.noQuestion')}\n`
        : `${t('cli.respond.theyAsk')}\n${indent(printable(target.prompt, { lines: true }))}\n`,
    );
    if (context.stderr.isTTY)
      context.stderr.write(`${t('cli.respond.left', { left: target.served.responses_left, expires: target.served.expires_at })}\n`);
    const wrap = (responseKey: Uint8Array) =>
      wrapResponseKey({ ...ref.link, requestId: ref.id, kem: target.served.kem, publicKey: target.publicKey, responseKey });

    try {
      if (file) {
        const small =
          file.size <= secretLimits.textEnvelopeBytes && !flag(context.values, 'as-file') ? await readSmallText(source) : undefined;
        if (small === undefined) return void done(context, await sendFile(context, api, ref.id, source, file.size, wrap));
        return void done(context, await sendText(context, api, ref.id, small, wrap));
      }
      if (context.stdin.isTTY) context.stderr.write(`${t('cli.respond.typeAnswer')}\n`);
      const typed = await readStdin(context.stdin, secretLimits.textEnvelopeBytes, context.signal);
      if (typed === undefined)
        throw usageError(t('cli.respond.stdinLimit', { size: secretLimits.textEnvelopeBytes / 1024 }), 'payload_too_large');
      if (typed.length === 0) throw usageError(t('cli.common.emptyStdin'), 'empty');
      done(context, await sendText(context, api, ref.id, typed, wrap));
    } catch (error) {
      throw refusal(error) ?? error;
    }
  },
};

interface RequestRef {
  id: string;
  origin: string;
  link: RequestLink;
}

/** `…/q/{id}#<fingerprint>.<s>`: anything else is not a request link with its key. */
function requestRef(given: string): RequestRef {
  // Not echoed: what was given may hold a key.
  const bad = () => usageError(t('cli.respond.badLink'), 'bad_link');
  let url: URL;
  try {
    url = new URL(given.trim());
  } catch {
    throw bad();
  }
  const [, q, id, ...rest] = url.pathname.split('/');
  if (q !== 'q' || !id || rest.length > 0) throw bad();
  let link: RequestLink;
  try {
    link = parseRequestFragment(decodeURIComponent(url.hash));
  } catch {
    throw bad();
  }
  return { id: decodeURIComponent(id), origin: url.origin, link };
}

/** The request, its key proved to be the link's, still taking responses; its prompt opened. */
async function checkedRequest(
  context: Context,
  api: ApiClient,
  ref: RequestRef,
): Promise<{ served: ServedRequest; publicKey: Uint8Array; prompt: string | null }> {
  let served: ServedRequest;
  try {
    served = await api.call<ServedRequest>('GET', `/v1/requests/${encodeURIComponent(ref.id)}`, { signal: context.signal });
  } catch (error) {
    throw refusal(error) ?? error;
  }
  // The key first: a request whose key is not the link's gets no answer, whatever else it says.
  let publicKey: Uint8Array;
  try {
    publicKey = decodePublicKey(served.kem, served.public_key);
    await checkServedKey(publicKey, ref.link.fingerprint);
  } catch {
    throw new CliError(exitCodes.wrongKey, 'key_mismatch', t('cli.respond.keyMismatchAltered'));
  }
  if (!served.open) {
    if (Date.parse(served.expires_at) <= Date.now())
      throw new CliError(exitCodes.refused, 'gone', t('cli.respond.expiredAt', { time: served.expires_at }));
    if (served.responses_left <= 0) throw new CliError(exitCodes.refused, 'request_full', t('cli.respond.full'));
    throw new CliError(exitCodes.refused, 'gone', t('cli.respond.closed'));
  }
  let prompt: string | null = null;
  if (served.prompt_envelope) {
    try {
      prompt = await openPrompt(fromBase64(served.prompt_envelope), ref.link);
    } catch {
      throw new CliError(exitCodes.wrongKey, 'wrong_key', t('cli.respond.promptUnreadable'));
    }
  }
  return { served, publicKey, prompt };
}

type Wrap = (responseKey: Uint8Array) => Promise<{ enc: string; wrappedKey: string }>;

interface Sent {
  request_id: string;
  kind: 'text' | 'file';
  response_id?: string;
  name?: string;
  size?: number;
}

async function sendText(context: Context, api: ApiClient, requestId: string, plaintext: string, wrap: Wrap): Promise<Sent> {
  const sealed = await sealText(plaintext);
  if (sealed.envelope.length > secretLimits.textEnvelopeBytes) {
    throw usageError(t('cli.respond.textTooLong'), 'payload_too_large');
  }
  const wrapped = await wrap(fromBase64Url(sealed.key));
  const created = await api.call<{ response_id: string }>('POST', `/v1/requests/${encodeURIComponent(requestId)}/responses`, {
    signal: context.signal,
    json: {
      kind: 'text',
      envelope: toBase64(sealed.envelope),
      salt: sealed.salt,
      size_bytes: sealed.envelope.length,
      enc: wrapped.enc,
      wrapped_key: wrapped.wrappedKey,
    },
  });
  return { request_id: requestId, kind: 'text', response_id: created.response_id };
}

async function sendFile(context: Context, api: ApiClient, requestId: string, path: string, size: number, wrap: Wrap): Promise<Sent> {
  const name = text(context.values, 'name') ?? basename(path);
  const bar = progressBar(t('cli.progress.uploading'), size, context);
  try {
    await uploadFile({
      api: api.base,
      file: path,
      name,
      signal: context.signal,
      onProgress: (step) => bar.update(step.sentBytes, step.totalBytes),
      respondTo: { requestId, wrap },
    });
  } finally {
    bar.stop();
  }
  return { request_id: requestId, kind: 'file', name, size };
}

function done(context: Context, sent: Sent): void {
  if (context.json) {
    context.stdout.write(`${JSON.stringify(sent, null, 2)}\n`);
    return;
  }
  const said =
    sent.kind === 'file'
      ? t('cli.respond.sentFile', { name: sent.name ?? '', size: formatBytes(sent.size ?? 0) })
      : t('cli.respond.sentText');
  context.stderr.write(`${said}\n`);
}

/** The service's refusals of a request link, said for a request (the generic sentences speak of secrets). */
function refusal(error: unknown): CliError | undefined {
  if (error instanceof EnvelopeError && error.code === 'key_mismatch') {
    return new CliError(exitCodes.wrongKey, 'key_mismatch', t('cli.respond.keyMismatch'));
  }
  if (!(error instanceof ApiError)) return undefined;
  const reason = error.problem.reason;
  if (error.status === 404 || reason === 'request_not_found')
    return new CliError(exitCodes.refused, 'not_found', t('cli.respond.notFound'), { cause: error });
  if (reason === 'closed' || reason === 'request_closed')
    return new CliError(exitCodes.refused, 'gone', t('cli.respond.closed'), { cause: error });
  if (reason === 'expired' || reason === 'request_expired')
    return new CliError(exitCodes.refused, 'gone', t('cli.respond.expired'), { cause: error });
  if (reason === 'request_full') return new CliError(exitCodes.refused, 'request_full', t('cli.respond.full'), { cause: error });
  if (reason === 'plan_limit') {
    const limit = Number(error.problem.limit_bytes);
    const said = Number.isFinite(limit) ? t('cli.respond.planLimit', { size: formatBytes(limit) }) : t('cli.respond.planLimitUnknown');
    return new CliError(exitCodes.refused, 'plan_limit', said, { cause: error });
  }
  return undefined;
}

const indent = (prompt: string) =>
  prompt
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
