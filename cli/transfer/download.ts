import { nodeCrypto } from '../src/nodeCrypto.ts';
import { link, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, extname, isAbsolute, join } from 'node:path';
import {
  claimTokenFor,
  EnvelopeError,
  fileOpener,
  filePrefixBytes,
  iterationRange,
  linkTokenFor,
  TAG_BYTES,
  type FileOpener,
} from '../../shared/envelope/index.ts';
import { clientHeaders, fetchOf, transferApi, type ClaimedSecret, type Fetch } from './api.ts';
import { BufferPool } from './buffers.ts';
import { TransferError } from './errors.ts';
import { attempts, defaultRetryDelay, pause } from './retry.ts';
import { nodeChunkCipher } from './nodeChunkCipher.ts';
import { exactChunks } from './sealedStream.ts';
import { t } from '../src/i18n.ts';

/**
 * Whole chunks per ranged GET, and GETs in flight: a few megabytes each, a few at once, each
 * held until written in order. Small beside the upload's parts: every decrypted chunk is a new
 * buffer left to the collector (garbage.ts bounds how many pile up; bench/files.ts).
 */
export const chunksPerRequest = 4;
export const requestsInFlight = 3;
/**
 * Chunks decrypted ahead of the one being written. node:crypto decrypts on this thread as it is
 * called, so one ahead is decrypted while the write before it runs on the thread pool; more
 * would only hold more plaintext.
 */
const decryptsInFlight = 2;

/**
 * The claim's URL works for 15 minutes, and S3 checks that when a request begins: this close
 * to its end, everything left is asked for in one open-ended GET, read as it arrives.
 */
const tailMarginMs = 2 * 60 * 1000;

export interface DownloadOptions {
  /** The link as given: `…/s/{id}#key`, or a recipient's `…/s/{id}/r/{recipientId}#key`. */
  link: string;
  /**
   * Where the file goes; it appears there only once its last chunk authenticated. A function is
   * given the name sealed inside the envelope (known only after the claim) and says where.
   */
  to: string | ((name: string) => string | Promise<string>);
  /** Where the API is; the link's origin when not given. */
  api?: string;
  passphrase?: string;
  credential?: string;
  /** A restricted link's gate session (`gate/verify`), presented with the claim. */
  gateToken?: string;
  /** Replace a file already at `to` (otherwise refused before the claim, so no view is used). */
  overwrite?: boolean;
  /** Where a file named by a `to` function goes (the working folder by default). */
  directory?: string;
  signal?: AbortSignal;
  onProgress?: (progress: { name: string; receivedBytes: number; totalBytes: number }) => void;
  fetch?: Fetch;
  retryDelay?: (attempt: number) => number;
}

export interface DownloadResult {
  path: string;
  /** As the sender named and typed it (inside the envelope). */
  name: string;
  type: string;
  size: number;
  viewsLeft: number;
}

/**
 * Claims a file secret and downloads it: the prefix by a ranged GET opens the envelope, then
 * ranged GETs of whole chunks, a few in flight, are decrypted chunk by chunk and written in
 * order to a temporary file beside `to`, renamed into place once the final chunk authenticated.
 * A tampered, truncated or reordered body deletes what was written and fails with the
 * envelope's `tampered` error.
 */
export async function downloadFile(options: DownloadOptions): Promise<DownloadResult> {
  options.signal?.throwIfAborted();
  const link = parseLink(options.link);
  if (typeof options.to === 'string' && !options.overwrite && (await stat(options.to).catch(() => null)))
    throw new TransferError('exists', t('cli.transfer.exists', { path: options.to }));
  const api = transferApi({ api: options.api ?? link.origin, credential: options.credential, fetch: options.fetch });
  const metadata = await api.readSecret(link.id, link.recipientId, options.signal);
  if (metadata.kind !== 'file') throw new TransferError('not_a_file', t('cli.transfer.notAFile'));
  const passphrase = options.passphrase === '' ? undefined : options.passphrase;
  // A claim refused for its proof counts towards the secret's lock: not one made without the passphrase it needs.
  if (metadata.passphrase === true && passphrase === undefined)
    throw new TransferError('passphrase_required', t('cli.transfer.passphraseRequired'));
  const [claimToken, linkToken] = await Promise.all([
    claimTokenFor({ key: link.key, salt: metadata.salt, passphrase, iterations: metadata.kdf_iterations || iterationRange.default }),
    linkTokenFor({ key: link.key, salt: metadata.salt }),
  ]);
  // The file it is written to exists before the claim: a folder that cannot take it fails while no view is used.
  const temporary = await openTemporary(typeof options.to === 'string' ? dirname(options.to) : (options.directory ?? '.'));
  let claimed: ClaimedSecret;
  try {
    claimed = await api.claimSecret(
      link.id,
      {
        claim_token: claimToken,
        link_token: linkToken,
        ...(link.recipientId ? { recipient_id: link.recipientId } : {}),
        ...(options.gateToken ? { gate_token: options.gateToken } : {}),
      },
      options.signal,
    );
    if (claimed.kind !== 'file') throw new TransferError('not_a_file', t('cli.transfer.notAFile'));
  } catch (error) {
    await temporary.discard();
    throw error;
  }
  const saved = await downloadEnvelope({
    ...options,
    download: claimed.download,
    sizeBytes: claimed.size_bytes,
    key: link.key,
    salt: claimed.salt,
    passphrase,
    temporary,
  });
  return { ...saved, viewsLeft: claimed.views_left };
}

interface Temporary {
  path: string;
  handle: FileHandle;
  discard(): Promise<void>;
}

/** A new file, only its owner's, for a download in progress in `folder`. */
async function openTemporary(folder: string): Promise<Temporary> {
  const path = join(folder, `.hushlink-${nodeCrypto().randomBytes(6).toString('hex')}.partial`);
  const handle = await open(path, 'wx', 0o600);
  return {
    path,
    handle,
    discard: async () => {
      await handle.close().catch(() => {});
      await rm(path, { force: true });
    },
  };
}

/**
 * The finished file moved to `to`. Without `overwrite`, never over a file: a hard link fails
 * when the name is taken (even by a file made during the download), and the next free name
 * (`name (1).ext`) is taken instead, so the view's file is never lost.
 */
async function place(temporary: string, to: string, overwrite: boolean): Promise<string> {
  if (overwrite) {
    await rename(temporary, to);
    return to;
  }
  const extension = extname(to);
  const stem = to.slice(0, to.length - extension.length);
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? to : `${stem} (${n})${extension}`;
    try {
      await link(temporary, candidate);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && n < 1000) continue;
      // A filesystem without hard links: a rename, after a last look.
      if ((code === 'EPERM' || code === 'ENOTSUP' || code === 'EXDEV') && !(await stat(candidate).catch(() => null))) {
        await rename(temporary, candidate);
        return candidate;
      }
      throw error;
    }
    await rm(temporary, { force: true });
    return candidate;
  }
}

export interface EnvelopeDownloadOptions
  extends Pick<DownloadOptions, 'to' | 'passphrase' | 'signal' | 'onProgress' | 'fetch' | 'retryDelay' | 'overwrite' | 'directory'> {
  /** The file to write into, when the caller opened it already (before a claim). */
  temporary?: Temporary;
  /** A presigned GET of the envelope (a claim's, or an inbox's for a request's file response). */
  download: { url: string; expires_at: string };
  sizeBytes: number;
  /** The envelope's URL key (base64url) and salt. */
  key: string;
  salt: string;
}

/** Downloads and opens an envelope already reachable by a presigned URL, as `downloadFile` does after its claim. */
export async function downloadEnvelope(options: EnvelopeDownloadOptions): Promise<Omit<DownloadResult, 'viewsLeft'>> {
  const temporary =
    options.temporary ?? (await openTemporary(typeof options.to === 'string' ? dirname(options.to) : (options.directory ?? '.')));
  const output = temporary.handle;
  let to: string;
  let name: string;
  let meta: FileOpener['meta'];
  try {
    const ranges = new RangeReader(
      options.download.url,
      options.sizeBytes,
      fetchOf(options.fetch),
      options.retryDelay ?? defaultRetryDelay,
      options.signal,
    );
    const opener = await fileOpener(
      await ranges.read(0, Math.min(filePrefixBytes, options.sizeBytes)),
      {
        key: options.key,
        salt: options.salt,
        passphrase: options.passphrase,
      },
      { chunkCipher: nodeChunkCipher },
    );
    meta = opener.meta;
    const chunkCount = opener.chunkCount(options.sizeBytes);
    if (options.sizeBytes - opener.bodyOffset - chunkCount * TAG_BYTES !== opener.meta.size) {
      throw new EnvelopeError('tampered', t('cli.transfer.sizeMismatch'));
    }
    name = opener.meta.name;
    const writer = new ChunkWriter(opener, output, chunkCount, (receivedBytes) =>
      options.onProgress?.({ name, receivedBytes, totalBytes: opener.meta.size }),
    );
    await downloadChunks(opener, ranges, chunkCount, writer, Date.parse(options.download.expires_at));
    await output.sync();
    await output.close();
    const named = typeof options.to === 'string' ? options.to : await options.to(name);
    const wanted = typeof options.to === 'string' || isAbsolute(named) ? named : join(options.directory ?? '.', named);
    to = await place(temporary.path, wanted, options.overwrite === true);
  } catch (error) {
    await temporary.discard();
    throw options.signal?.aborted ? options.signal.reason : error;
  }
  return { path: to, name, type: meta.type, size: meta.size };
}

/** `…/s/{id}#key` or `…/s/{id}/r/{recipientId}#key`. */
export function parseLink(text: string): { origin: string; id: string; recipientId?: string; key: string } {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new TransferError('bad_link', t('cli.transfer.notALink'));
  }
  const [, s, id, r, recipientId, ...rest] = url.pathname.split('/');
  const key = url.hash.slice(1);
  if (s !== 's' || !id || (r !== undefined && (r !== 'r' || !recipientId)) || rest.length > 0 || !/^[A-Za-z0-9_-]{43}$/.test(key)) {
    throw new TransferError('bad_link', t('cli.transfer.notHushlinkLink'));
  }
  return { origin: url.origin, id: decodeURIComponent(id), ...(recipientId ? { recipientId: decodeURIComponent(recipientId) } : {}), key };
}

/** Ranged GETs of the claim's URL, each tried up to 4 times; whatever S3 answers short or out of bounds is `tampered`. */
class RangeReader {
  constructor(
    readonly url: string,
    readonly size: number,
    private readonly fetch: Fetch,
    private readonly retryDelay: (attempt: number) => number,
    readonly signal: AbortSignal | undefined,
  ) {}

  /** Envelope bytes [start, end), into `target` when given. */
  async read(start: number, end: number, target: Uint8Array = new Uint8Array(end - start)): Promise<Uint8Array> {
    let last: unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await pause(this.retryDelay(attempt), this.signal ?? new AbortController().signal);
      try {
        const response = await this.request(start, end);
        return await readExactly(response.body!, target);
      } catch (error) {
        if (error instanceof EnvelopeError || error instanceof TransferError || this.signal?.aborted)
          throw this.signal?.aborted ? this.signal.reason : error;
        last = error;
      }
    }
    throw new TransferError('transfer_failed', t('cli.transfer.bytesFailed', { start, end: end - 1, attempts }), { cause: last });
  }

  /** A GET of [start, end) (to the end when `end` is undefined), its status and total checked; the body is the caller's. */
  async request(start: number, end?: number): Promise<Response> {
    const response = await this.fetch(this.url, {
      headers: { ...clientHeaders, range: `bytes=${start}-${end === undefined ? '' : end - 1}` },
      ...(this.signal ? { signal: this.signal } : {}),
    });
    if (response.status === 206) {
      const total = Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1]);
      if (total === this.size) return response;
      await response.body?.cancel();
      throw new EnvelopeError('tampered', t('cli.transfer.sizeNot', { total, size: this.size }));
    }
    const text = await response.text();
    if (response.status === 416) throw new EnvelopeError('tampered', t('cli.transfer.shorterThanSize'));
    if (response.status === 403)
      throw new TransferError('transfer_failed', t('cli.transfer.downloadRefused', { answer: text.slice(0, 200) }));
    throw new Error(`S3 answered ${response.status} ${text.slice(0, 200)}`);
  }
}

/** A body of exactly `bytes.length` bytes into `bytes`; a shorter one is a truncated file. */
async function readExactly(body: ReadableStream<Uint8Array>, bytes: Uint8Array): Promise<Uint8Array> {
  const length = bytes.length;
  let filled = 0;
  for await (const piece of body) {
    if (filled + piece.length > length) throw new EnvelopeError('tampered', t('cli.transfer.moreBytes'));
    bytes.set(piece, filled);
    filled += piece.length;
  }
  if (filled !== length) throw new EnvelopeError('tampered', t('cli.transfer.cutShortOf', { filled, length }));
  return bytes;
}

/** Decrypts chunks in order of index and writes their plaintext in that order. */
class ChunkWriter {
  private next = 0;
  private written = 0;

  constructor(
    private readonly opener: FileOpener,
    private readonly output: FileHandle,
    private readonly chunkCount: number,
    private readonly progress: (bytes: number) => void,
  ) {}

  /** Chunks `next` … `next + chunks.length - 1`, a few decrypting at once, each written as its turn comes. */
  async write(chunks: Uint8Array[]): Promise<void> {
    const first = this.next;
    const decrypt = (i: number) => {
      const plaintext = this.opener.decryptChunk(first + i, first + i === this.chunkCount - 1, chunks[i]!);
      plaintext.catch(() => {}); // awaited in turn below
      return plaintext;
    };
    const decrypting = chunks.slice(0, decryptsInFlight).map((_, i) => decrypt(i));
    for (let i = 0; i < chunks.length; i++) {
      const plaintext = await decrypting[i]!;
      const writing = this.output.write(plaintext);
      if (i + decryptsInFlight < chunks.length) decrypting.push(decrypt(i + decryptsInFlight));
      await writing;
      this.written += plaintext.length;
    }
    this.next += chunks.length;
    this.progress(this.written);
  }

  get done(): boolean {
    return this.next === this.chunkCount;
  }
}

type Pending = { kind: 'range'; bytes: Promise<Uint8Array> } | { kind: 'rest'; response: Promise<Response> };

/**
 * Every chunk, `requestsInFlight` ranged GETs of `chunksPerRequest` chunks ahead of the writer;
 * near the URL's expiry, one GET of all the rest, decrypted as it streams in.
 */
async function downloadChunks(
  opener: FileOpener,
  ranges: RangeReader,
  chunkCount: number,
  writer: ChunkWriter,
  urlExpiresAt: number,
): Promise<void> {
  const span = (index: number) => opener.bodyOffset + index * opener.chunkCipherBytes;
  const pending: Pending[] = [];
  const buffers = new BufferPool(Math.min(chunksPerRequest * opener.chunkCipherBytes, ranges.size - opener.bodyOffset));
  let asked = 0;
  // Each is awaited in turn below; none is an unhandled rejection meanwhile.
  const quiet = <T>(promise: Promise<T>) => (promise.catch(() => {}), promise);
  const ask = () => {
    while (pending.length < requestsInFlight && asked < chunkCount) {
      if (Date.now() > urlExpiresAt - tailMarginMs) {
        pending.push({ kind: 'rest', response: quiet(ranges.request(span(asked))) });
        asked = chunkCount;
        break;
      }
      const [start, end] = [span(asked), Math.min(ranges.size, span(Math.min(chunkCount, asked + chunksPerRequest)))];
      pending.push({ kind: 'range', bytes: quiet(ranges.read(start, end, buffers.take(end - start))) });
      asked = Math.min(chunkCount, asked + chunksPerRequest);
    }
  };
  ask();
  while (pending.length > 0) {
    const item = pending.shift()!;
    if (item.kind === 'range') {
      const bytes = await item.bytes;
      ask();
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; at += opener.chunkCipherBytes) chunks.push(bytes.subarray(at, at + opener.chunkCipherBytes));
      await writer.write(chunks);
      buffers.give(bytes);
    } else {
      const response = await item.response;
      let received = 0;
      for await (const chunk of exactChunks(response.body!, opener.chunkCipherBytes)) {
        if (writer.done) throw new EnvelopeError('tampered', t('cli.transfer.bytesAfterEnd'));
        await writer.write([chunk]);
        received += chunk.length;
      }
      if (!writer.done) throw new EnvelopeError('tampered', t('cli.transfer.cutShortAfter', { received }));
    }
  }
  if (!writer.done) throw new EnvelopeError('tampered', t('cli.transfer.cutShort'));
}
