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
import { flag, text, type Command, type CommandHelp, type Context } from '../command.ts';
import { CliError, exitCodes, explain, usageError } from '../errors.ts';
import { columns, type MessageKey, padColumns, t } from '../i18n.ts';
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

export const inbox: Command = {
  name: 'inbox',
  positionals: 1,
  options: {
    open: { type: 'boolean' },
  },
  help: {
    usage: 'hushlink inbox [REQUEST_ID] [--open]',
    get summary() {
      return t('cli.inbox.summary');
    },
    get description() {
      return t('cli.inbox.description');
    },
    get options(): CommandHelp['options'] {
      return [['--open', t('cli.inbox.optionOpen')]];
    },
    get examples(): CommandHelp['examples'] {
      return [
        ['hushlink inbox', t('cli.inbox.exampleList')],
        ['hushlink inbox rql_… --open', t('cli.inbox.exampleOpen')],
        ['hushlink inbox rql_… --open > answer.txt', t('cli.inbox.exampleSave')],
        ['hushlink inbox --open --json', t('cli.inbox.exampleJson')],
      ];
    },
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
      throw new CliError(exitCodes.wrongKey, 'no_request_key', t('cli.inbox.keyElsewhere', { id: only }));
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
                `  ${item.response_id}  ${padColumns(kindOf(item.kind), kindWidth())}  ${formatBytes(item.size_bytes).padStart(9)}  ${t('cli.inbox.received', { time: item.created_at })}\n`,
              );
          }
        }
      } else if (request.responses > 0 && !keyHere) {
        context.stderr.write(`${t('cli.inbox.responsesElsewhere', { id: request.id, count: request.responses })}\n`);
      } else if (request.responses > 0) {
        const device = await loadRequest(context.env, api.base, request.id);
        for await (const item of inboxOf(context, api, request.id)) {
          const opened = await openResponse(context, request.id, device!, item);
          if (opened.error) {
            unopened += 1;
            const { code, message } = opened.error;
            const said = { response: item.response_id, request: request.id, time: item.created_at, reason: message, code };
            context.stderr.write(`${t('cli.inbox.notOpened', said)}\n`);
          } else if (opened.text !== undefined && !context.json) {
            if (several || context.stderr.isTTY)
              context.stderr.write(
                `${t('cli.inbox.textHeader', { response: item.response_id, request: request.id, time: item.created_at })}\n`,
              );
            context.stdout.write(several || context.stdout.isTTY ? withNewline(opened.text) : opened.text);
          } else if (opened.path !== undefined && !context.json) {
            const saved = { name: printable(opened.name ?? ''), size: formatBytes(opened.size ?? 0), path: printable(opened.path) };
            context.stderr.write(`${t('cli.inbox.saved', { ...saved, request: request.id })}\n`);
          }
          received.push(opened);
        }
      }
      shown.push({ ...request, key_here: keyHere, responses_received: received });
    }
    if (context.json) context.stdout.write(`${JSON.stringify({ requests: shown }, null, 2)}\n`);
    else if (requests.length === 0) context.stderr.write(`${t('cli.inbox.none')}\n`);
    else if (opening && shown.every((request) => request.responses_received.length === 0) && unopened === 0)
      context.stderr.write(`${t('cli.inbox.noResponses')}\n`);
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
  throw usageError(t('cli.inbox.badId'), 'bad_link');
}

async function ownRequest(context: Context, api: ApiClient, id: string): Promise<OwnedRequest> {
  // The list is the only read of one's own links: a link of someone else's is not in it either.
  for await (const request of pages<OwnedRequest>(context, api, '/v1/requests', requestLimits.listPageSize.max))
    if (request.id === id) return request;
  throw new CliError(exitCodes.refused, 'not_found', t('cli.inbox.noSuchRequest', { id, api: api.base }));
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
        throw new CliError(exitCodes.refused, 'not_found', t('cli.inbox.gone'), { cause: error });
      throw error;
    }
    yield* page.items;
    cursor = page.next_cursor;
  } while (cursor);
}

function requestLine(request: OwnedRequest, keyHere: boolean): string {
  const state = stateOf(request);
  const time = request.expires_at;
  return [
    request.id,
    padColumns(t(requestStates[state]), Math.max(7, ...Object.values(requestStates).map((key) => columns(t(key))))),
    t('cli.inbox.responsesOf', { count: request.responses, max: request.max_responses }),
    state === 'expired' ? t('cli.inbox.expiredAt', { time }) : t('cli.inbox.expiresAt', { time }),
    ...(keyHere ? [] : [t('cli.inbox.keyNotHere')]),
  ].join('  ');
}

/** A request link's state as the list says it (the JSON keeps the English word). */
const requestStates: Record<ReturnType<typeof stateOf>, MessageKey> = {
  open: 'cli.requestState.open',
  full: 'cli.requestState.full',
  expired: 'cli.requestState.expired',
  closed: 'cli.requestState.closed',
};

const kindOf = (kind: 'text' | 'file') => t(kind === 'text' ? 'cli.kind.text' : 'cli.kind.file');
/** The kind column: as wide as the wider of the two words, and at least 4. */
const kindWidth = () => Math.max(4, columns(t('cli.kind.text')), columns(t('cli.kind.file')));

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
    const why = unreadable[explained.code];
    return { ...shown, error: { code: explained.code, message: why ? t(why) : explained.message } };
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
  const bar = progressBar(t('cli.progress.downloading'), item.size_bytes, context);
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
const unreadable: Partial<Record<string, MessageKey>> = {
  forged: 'cli.inbox.forged',
  tampered: 'cli.inbox.tampered',
  wrong_key: 'cli.inbox.wrongKey',
  key_mismatch: 'cli.inbox.keyMismatch',
};

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
