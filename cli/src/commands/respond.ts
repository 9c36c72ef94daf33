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
import { flag, text, type Command, type Context } from '../command.ts';
import { CliError, exitCodes, usageError } from '../errors.ts';
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
    summary: 'Answer a request link with a text or a file.',
    description: `Sends a secret to whoever made a request link, encrypted on this machine so only they can open it.
The link is checked first: the request's public key must be the one its #fragment names, or
nothing is sent (exit 4). Their question is shown on stderr. The answer is a text from stdin (or
typed, ended by Ctrl-D) or FILE: UTF-8 text up to 256 KiB is sent as text, any other file as a
file (uploaded in parts, with a progress bar on a terminal). No sign-in is needed. Nothing goes to
stdout unless --json.`,
    options: [
      ['--as-file', 'Send FILE as a file (with its name) even when it is short text.'],
      ['--name NAME', "The file name they see (default: FILE's own name)."],
    ],
    examples: [
      ['echo "hunter2" | hushlink respond "https://…/q/rql_…#…"', 'Answer with a text from stdin.'],
      ['hushlink respond "$LINK"', 'Show the question, then type the answer and press Ctrl-D.'],
      ['hushlink respond "$LINK" id_ed25519.pub', "Answer with a file's text (or the file, if it is not text)."],
      ['hushlink respond "$LINK" backup.tar.gz --json', 'Send a large file; print what was sent as JSON.'],
    ],
  },
  run: async (context) => {
    const given = context.positionals[0];
    if (given === undefined) throw usageError('Give the request link to answer: hushlink respond LINK [FILE|-].');
    const source = context.positionals[1] ?? '-';
    const ref = requestRef(given);
    const api = apiClient(text(context.values, 'api') ? context.api : ref.origin, context);
    if (source === '-' && (flag(context.values, 'as-file') || text(context.values, 'name')))
      throw usageError('--as-file and --name need a FILE.');
    const file = source === '-' ? undefined : await stat(source).catch(() => null);
    if (file !== undefined && !file?.isFile()) throw usageError(`${source} is not a file that can be read.`, 'no_such_file');

    const target = await checkedRequest(context, api, ref);
    context.stderr.write(
      target.prompt === null
        ? 'They sent no question with this link.\n'
        : `They ask:\n${indent(printable(target.prompt, { lines: true }))}\n`,
    );
    const left = target.served.responses_left;
    if (context.stderr.isTTY)
      context.stderr.write(
        `(${left === 1 ? 'yours may be the last response it takes' : `${left} responses left`}; open until ${target.served.expires_at})\n`,
      );
    const wrap = (responseKey: Uint8Array) =>
      wrapResponseKey({ ...ref.link, requestId: ref.id, kem: target.served.kem, publicKey: target.publicKey, responseKey });

    try {
      if (file) {
        const small =
          file.size <= secretLimits.textEnvelopeBytes && !flag(context.values, 'as-file') ? await readSmallText(source) : undefined;
        if (small === undefined) return void done(context, await sendFile(context, api, ref.id, source, file.size, wrap));
        return void done(context, await sendText(context, api, ref.id, small, wrap));
      }
      if (context.stdin.isTTY) context.stderr.write('Type your answer, then press Ctrl-D on a new line:\n');
      const typed = await readStdin(context.stdin, secretLimits.textEnvelopeBytes, context.signal);
      if (typed === undefined)
        throw usageError(
          `Text from stdin is limited to ${secretLimits.textEnvelopeBytes / 1024} KiB: save it to a file and run \`hushlink respond LINK FILE\`.`,
          'payload_too_large',
        );
      if (typed.length === 0) throw usageError('There was nothing to send (stdin was empty).', 'empty');
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
  const bad = () => usageError('That is not a Hushlink request link with its key (…/q/{id}#…).', 'bad_link');
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
    throw new CliError(
      exitCodes.wrongKey,
      'key_mismatch',
      "The request's key is not the one this link names, so nothing was sent: the link was altered, or the service is not the one it claims to be.",
    );
  }
  if (!served.open) {
    if (Date.parse(served.expires_at) <= Date.now())
      throw new CliError(exitCodes.refused, 'gone', `This request link expired at ${served.expires_at}; nothing was sent.`);
    if (served.responses_left <= 0)
      throw new CliError(exitCodes.refused, 'request_full', 'This request link has all the responses it asked for; nothing was sent.');
    throw new CliError(exitCodes.refused, 'gone', 'The person who asked closed this request link; nothing was sent.');
  }
  let prompt: string | null = null;
  if (served.prompt_envelope) {
    try {
      prompt = await openPrompt(fromBase64(served.prompt_envelope), ref.link);
    } catch {
      throw new CliError(
        exitCodes.wrongKey,
        'wrong_key',
        "The link's secret does not open the request's question: the link is damaged (check it was copied whole); nothing was sent.",
      );
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
    throw usageError(
      'This text is too long to send as text; save it to a file and run `hushlink respond LINK FILE --as-file`.',
      'payload_too_large',
    );
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
  const bar = progressBar('Uploading', size, context);
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
  const what = sent.kind === 'file' ? `Your file ${sent.name} (${formatBytes(sent.size ?? 0)})` : 'Your answer';
  context.stderr.write(`${what} was encrypted here and sent: only the person who asked can open it.\n`);
}

/** The service's refusals of a request link, said for a request (the generic sentences speak of secrets). */
function refusal(error: unknown): CliError | undefined {
  if (error instanceof EnvelopeError && error.code === 'key_mismatch') {
    return new CliError(exitCodes.wrongKey, 'key_mismatch', "The request's key is not the one this link names, so nothing was sent.");
  }
  if (!(error instanceof ApiError)) return undefined;
  const reason = error.problem.reason;
  const nothing = 'nothing was sent';
  if (error.status === 404 || reason === 'request_not_found')
    return new CliError(exitCodes.refused, 'not_found', `No request link has this id (check the link was copied whole); ${nothing}.`, {
      cause: error,
    });
  if (reason === 'closed' || reason === 'request_closed')
    return new CliError(exitCodes.refused, 'gone', `The person who asked closed this request link; ${nothing}.`, { cause: error });
  if (reason === 'expired' || reason === 'request_expired')
    return new CliError(exitCodes.refused, 'gone', `This request link has expired; ${nothing}.`, { cause: error });
  if (reason === 'request_full')
    return new CliError(exitCodes.refused, 'request_full', `This request link has all the responses it asked for; ${nothing}.`, {
      cause: error,
    });
  if (reason === 'plan_limit') {
    const limit = Number(error.problem.limit_bytes);
    return new CliError(
      exitCodes.refused,
      'plan_limit',
      `The person who asked can receive files up to ${Number.isFinite(limit) ? formatBytes(limit) : 'a smaller size'}; ${nothing}.`,
      { cause: error },
    );
  }
  return undefined;
}

const indent = (prompt: string) =>
  prompt
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
