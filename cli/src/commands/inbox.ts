/**
 * `hushlink inbox [REQUEST_ID] [--open]`: the caller's request links and their responses, as
 * the web's "Your requests" lists them. With --open each response is opened here, as the web's
 * inbox does: the wrapped key unwrapped with the private key this config folder keeps and the
 * PSK from the link's `s`, then the envelope opened as any secret's. A response that does not
 * open says why and the others open all the same.
 */
import { EnvelopeError, fromBase64, openText, toBase64Url, unwrapResponseKey } from '../../../shared/envelope/index.ts';
import { requestLimits } from '../../../shared/limits.ts';
import { ApiError, downloadEnvelope } from '../../transfer/index.ts';
import { apiClient, type ApiClient } from '../api.ts';
import { flag, text, type Command, type Context } from '../command.ts';
import { CliError, exitCodes, explain, usageError } from '../errors.ts';
import { printable } from '../printable.ts';
import { formatBytes, progressBar } from '../progress.ts';
import { keptRequestIds, loadRequest, type KeptRequest } from '../requestKeys.ts';
import { safeName } from './open.ts';

interface OwnedRequest {
  id: string;
  open: boolean;
  created_at: string;
  expires_at: string;
  responses: number;
  max_responses: number;
}

interface SealedResponse {
  response_id: string;
  created_at: string;
  salt: string;
  size_bytes: number;
  enc: string;
  wrapped_key: string;
}

type InboxItem =
  | (SealedResponse & { kind: 'text'; envelope: string })
  | (SealedResponse & { kind: 'file'; download: { url: string; expires_at: string } });

interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** A response as shown: opened (its text, or where its file was saved), or why it did not open. */
interface ShownResponse {
  response_id: string;
  kind: 'text' | 'file';
  created_at: string;
  size_bytes: number;
  text?: string;
  path?: string;
  name?: string;
  size?: number;
  error?: { code: string; message: string };
}

const elsewhere = 'its key is not in this config folder (made in a browser or with another one): its responses open only there';

export const inbox: Command = {
  name: 'inbox',
  positionals: 1,
  options: {
    open: { type: 'boolean' },
  },
  help: {
    usage: 'hushlink inbox [REQUEST_ID] [--open]',
    summary: 'List your request links and their responses; --open reads them.',
    description: `Lists your request links (state, responses received, expiry) and the responses each has received,
newest first; with REQUEST_ID (or its link), that one only. With --open the responses are
decrypted here with the key \`hushlink request\` kept in the config folder: texts are printed to
stdout, files saved in the current folder under the name they were sent with (as "name (1).ext"
when that exists, never overwriting). A request made in a browser, or with another config folder,
is listed, but its responses open only where it was made. A response that was not made with
your link (or was altered) is not shown; the others open, and the exit code is 4. Needs
\`hushlink login\`.`,
    options: [['--open', 'Decrypt the responses: texts to stdout, files to the current folder.']],
    examples: [
      ['hushlink inbox', 'Your request links, and what each received.'],
      ['hushlink inbox rql_… --open', 'Print the texts sent to that request; save its files here.'],
      ['hushlink inbox rql_… --open > answer.txt', 'Save a text answer to a file.'],
      ['hushlink inbox --open --json', 'Every response opened, as JSON (texts inline, files as paths).'],
    ],
  },
  run: async (context) => {
    const named = requestIdOf(context.positionals[0]);
    const only = named?.id;
    const opening = flag(context.values, 'open');
    // A link names its deployment; an id is looked up at --api (HUSHLINK_API).
    const base = named?.origin && text(context.values, 'api') === undefined ? named.origin : context.api;
    const api = apiClient(base, context);
    const kept = await keptRequestIds(context.env, base);
    const requests = only ? [await ownRequest(context, api, only)] : await allRequests(context, api);
    if (only && opening && !kept.has(only)) {
      throw new CliError(exitCodes.wrongKey, 'no_request_key', `Request ${only}: ${elsewhere}.`);
    }
    let unopened = 0;
    const shown: Array<OwnedRequest & { key_here: boolean; responses_received: ShownResponse[] }> = [];
    // Texts exactly as sent, unless there are several to tell apart (or a terminal to keep tidy).
    const several = requests.reduce((count, request) => count + (kept.has(request.id) ? request.responses : 0), 0) > 1;
    for (const request of requests) {
      const keyHere = kept.has(request.id);
      const received: ShownResponse[] = [];
      if (!opening) {
        if (!context.json) context.stdout.write(`${requestLine(request, keyHere)}\n`);
        if (request.responses > 0) {
          for await (const item of inboxOf(context, api, request.id)) {
            received.push(summaryOf(item));
            if (!context.json)
              context.stdout.write(
                `  ${item.response_id}  ${item.kind.padEnd(4)}  ${formatBytes(item.size_bytes).padStart(9)}  received ${item.created_at}\n`,
              );
          }
        }
      } else if (request.responses > 0 && !keyHere) {
        context.stderr.write(
          `Request ${request.id} has ${request.responses} response${request.responses === 1 ? '' : 's'}, but ${elsewhere}.\n`,
        );
      } else if (request.responses > 0) {
        const device = await loadRequest(context.env, api.base, request.id);
        for await (const item of inboxOf(context, api, request.id)) {
          const opened = await openResponse(context, request.id, device!, item);
          if (opened.error) {
            unopened += 1;
            context.stderr.write(
              `Response ${item.response_id} to ${request.id} (received ${item.created_at}) was not opened: ${opened.error.message} [${opened.error.code}]\n`,
            );
          } else if (opened.text !== undefined && !context.json) {
            if (several || context.stderr.isTTY)
              context.stderr.write(`— ${item.response_id}, a text to ${request.id}, received ${item.created_at}:\n`);
            context.stdout.write(several || context.stdout.isTTY ? withNewline(opened.text) : opened.text);
          } else if (opened.path !== undefined && !context.json) {
            context.stderr.write(
              `Saved ${printable(opened.name ?? '')} (${formatBytes(opened.size ?? 0)}), sent to ${request.id}, to ${printable(opened.path)}.\n`,
            );
          }
          received.push(opened);
        }
      }
      shown.push({ ...request, key_here: keyHere, responses_received: received });
    }
    if (context.json) context.stdout.write(`${JSON.stringify({ requests: shown }, null, 2)}\n`);
    else if (requests.length === 0) context.stderr.write('You have no request links: make one with `hushlink request --prompt …`.\n');
    else if (opening && shown.every((request) => request.responses_received.length === 0) && unopened === 0)
      context.stderr.write('No responses to open yet.\n');
    return unopened > 0 ? exitCodes.wrongKey : exitCodes.ok;
  },
};

/** `rql_…`, or a request link (its id; the fragment is not needed here). */
/** A request named by id, or by its link (whose origin is then the deployment asked). */
function requestIdOf(given: string | undefined): { id: string; origin?: string } | undefined {
  if (given === undefined) return undefined;
  if (/^rql_[A-Za-z0-9_-]+$/.test(given)) return { id: given };
  let url: URL | undefined;
  try {
    url = new URL(given);
  } catch {
    url = undefined;
  }
  const [, q, id] = url?.pathname.split('/') ?? [];
  if (q === 'q' && id) return { id: decodeURIComponent(id), origin: url!.origin };
  // Not echoed: what was given may be a link with its secret.
  throw usageError('That is neither a request id (rql_…) nor a request link (…/q/rql_…).', 'bad_link');
}

async function ownRequest(context: Context, api: ApiClient, id: string): Promise<OwnedRequest> {
  // The list is the only read of one's own links: a link of someone else's is not in it either.
  for await (const request of pages<OwnedRequest>(context, api, '/v1/requests', requestLimits.listPageSize.max))
    if (request.id === id) return request;
  throw new CliError(exitCodes.refused, 'not_found', `You have no request link ${id} (at ${api.base}).`);
}

async function allRequests(context: Context, api: ApiClient): Promise<OwnedRequest[]> {
  const all: OwnedRequest[] = [];
  for await (const request of pages<OwnedRequest>(context, api, '/v1/requests', requestLimits.listPageSize.max)) all.push(request);
  return all;
}

function inboxOf(context: Context, api: ApiClient, id: string): AsyncGenerator<InboxItem> {
  return pages<InboxItem>(context, api, `/v1/requests/${encodeURIComponent(id)}/inbox`, requestLimits.inboxPageSize.max);
}

/** Every item of a paged list, a page read only once the one before is used (a file's download URL is good for 15 minutes). */
async function* pages<T>(context: Context, api: ApiClient, path: string, limit: number): AsyncGenerator<T> {
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) }).toString();
    let page: Page<T>;
    try {
      page = await api.call<Page<T>>('GET', `${path}?${query}`, { auth: 'session', signal: context.signal });
    } catch (error) {
      if (error instanceof ApiError && error.status === 404)
        throw new CliError(exitCodes.refused, 'not_found', 'This request link is gone: it was removed after its retention ended.', {
          cause: error,
        });
      throw error;
    }
    yield* page.items;
    cursor = page.next_cursor;
  } while (cursor);
}

function requestLine(request: OwnedRequest, keyHere: boolean): string {
  const state = stateOf(request);
  return [
    request.id,
    state.padEnd(7),
    `${request.responses} of ${request.max_responses} responses`,
    `${state === 'expired' ? 'expired' : 'expires'} ${request.expires_at}`,
    ...(keyHere ? [] : ['(key not here: made in a browser or another config folder)']),
  ].join('  ');
}

/** The list says only `open`; why a link is not open follows from its expiry and counts (as the web tells it). */
function stateOf(request: OwnedRequest, now = Date.now()): 'open' | 'full' | 'expired' | 'closed' {
  if (request.open) return 'open';
  if (Date.parse(request.expires_at) <= now) return 'expired';
  if (request.responses >= request.max_responses) return 'full';
  return 'closed';
}

const summaryOf = (item: InboxItem): ShownResponse => ({
  response_id: item.response_id,
  kind: item.kind,
  created_at: item.created_at,
  size_bytes: item.size_bytes,
});

/** One response opened; never throws for the response itself (a refusal of the service or Ctrl-C does). */
async function openResponse(context: Context, requestId: string, device: KeptRequest, item: InboxItem): Promise<ShownResponse> {
  const shown = summaryOf(item);
  const failed = (error: unknown): ShownResponse => {
    const explained = explain(error);
    return { ...shown, error: { code: explained.code, message: unreadable[explained.code] ?? explained.message } };
  };
  let key: Uint8Array;
  try {
    key = await unwrapResponseKey({ ...device.link, requestId, keys: device.keys, enc: item.enc, wrappedKey: item.wrapped_key });
  } catch (error) {
    return failed(error);
  }
  if (item.kind === 'text') {
    try {
      return { ...shown, text: await openText(fromBase64(item.envelope), { key, salt: item.salt }) };
    } catch (error) {
      return failed(error);
    }
  }
  const bar = progressBar('Downloading', item.size_bytes, context);
  try {
    const saved = await downloadEnvelope({
      download: item.download,
      sizeBytes: item.size_bytes,
      key: toBase64Url(key),
      salt: item.salt,
      // A taken name becomes `name (1).ext` as the file is put in place.
      to: (name) => safeName(name, item.response_id),
      signal: context.signal,
      onProgress: (step) => bar.update(step.receivedBytes, step.totalBytes),
    });
    return { ...shown, path: saved.path, name: saved.name, size: saved.size };
  } catch (error) {
    if (!(error instanceof EnvelopeError)) throw error;
    return failed(error);
  } finally {
    bar.stop();
  }
}

/** Why a response did not open, for its owner (the web's inbox says the same). */
const unreadable: Partial<Record<string, string>> = {
  forged:
    'it cannot be trusted, so it is not shown: it was not made with your link (someone with only the public key made it, or it was changed on the way).',
  tampered: 'it was altered or cut short after it was sent, so it cannot be trusted; nothing of it was kept.',
  wrong_key: 'it does not open with the key it came with: it was altered after it was sent.',
  key_mismatch: "the key this config folder keeps is not the one this request's link names.",
};

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
