import { createReadStream } from 'node:fs';
import type { FileSealer } from '../../shared/envelope/index.ts';
import { TransferError } from './errors.ts';
import { chunkAt, plaintextBytesOf, type EnvelopeLayout } from './layout.ts';
import { t } from '../src/i18n.ts';

/**
 * Encryptions kept running ahead of the reader: WebCrypto runs each off the main thread, so one
 * ahead keeps a core busy while the reader copies, and each is a chunk of plaintext, a copy of
 * it and its ciphertext in memory. Four ahead were no faster here (bench/files.ts: the local S3
 * and the network are slower than sealing) and cost some 10 MiB more at the peak.
 */
const encryptAhead = 2;

const empty: Uint8Array = new Uint8Array(0);

/** A stream's bytes in pieces of exactly `chunkBytes`, the last shorter; a piece already that long is passed on without a copy. */
export async function* exactChunks(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  chunkBytes: number,
): AsyncGenerator<Uint8Array> {
  let pending: Uint8Array | null = null;
  let filled = 0;
  for await (const piece of source) {
    let at = 0;
    while (at < piece.length) {
      if (pending === null && piece.length - at >= chunkBytes) {
        yield piece.subarray(at, at + chunkBytes);
        at += chunkBytes;
        continue;
      }
      pending ??= new Uint8Array(chunkBytes);
      const take = Math.min(chunkBytes - filled, piece.length - at);
      pending.set(piece.subarray(at, at + take), filled);
      filled += take;
      at += take;
      if (filled === chunkBytes) {
        yield pending;
        pending = null;
        filled = 0;
      }
    }
  }
  if (pending !== null) yield pending.subarray(0, filled);
}

/**
 * The plaintext chunks `first` … `last` of the file at `path`, read with
 * `fs.createReadStream` in reads of one chunk. Nothing past `last` is read, so a file that
 * grew is caught by its size (the caller's stat), one that shrank by a short chunk.
 */
export function fileChunks(path: string, layout: EnvelopeLayout, first: number, last = layout.chunkCount - 1): AsyncIterator<Uint8Array> {
  const start = first * layout.chunkBytes;
  const end = Math.min(layout.size, (last + 1) * layout.chunkBytes) - 1;
  if (end < start) return exactChunks([], layout.chunkBytes);
  return exactChunks(createReadStream(path, { start, end, highWaterMark: layout.chunkBytes }), layout.chunkBytes);
}

const changed = (what: string) => new TransferError('file_changed', t('cli.transfer.changedWhileRead', { what }));

/**
 * The envelope's bytes from envelope offset `from` on, made as they are read: the prefix, then
 * each plaintext chunk of `chunks` (which starts at the chunk holding `from`) sealed with its
 * index. Nothing is held but the chunks being encrypted ahead, so a reader cuts parts of any
 * size out of a file of any size. `mustEnd`: the source must end with the file's last chunk (a
 * whole file's stream, where a file that grew shows as more bytes).
 */
export class SealedReader {
  private segment: Uint8Array = empty;
  private at = 0;
  private prefixDue: boolean;
  private skip: number;
  private nextChunk: number;
  private readonly mustEnd: boolean;
  private readonly lastChunk: number;
  private readonly encrypting: Array<Promise<Uint8Array>> = [];

  /**
   * `chunks` holds the plaintext of the chunks from the one holding `from` to `lastChunk` (the
   * file's last by default): encryption runs ahead no further.
   */
  constructor(
    private readonly sealer: Pick<FileSealer, 'prefix' | 'encryptChunk'>,
    private readonly layout: EnvelopeLayout,
    private readonly chunks: AsyncIterator<Uint8Array>,
    from: number,
    options: { mustEnd?: boolean; lastChunk?: number } = {},
  ) {
    this.mustEnd = options.mustEnd ?? false;
    this.lastChunk = options.lastChunk ?? layout.chunkCount - 1;
    if (from > 0 && from < layout.prefixBytes) throw new Error('a part cannot begin inside the prefix');
    this.prefixDue = from === 0;
    const start = from === 0 ? { index: 0, skip: 0 } : chunkAt(layout, from);
    this.nextChunk = start.index;
    this.skip = start.skip;
  }

  /** The next `length` envelope bytes, in pieces (views of the reader's buffers: use each before asking for the next). */
  async *pieces(length: number): AsyncGenerator<Uint8Array> {
    let left = length;
    while (left > 0) {
      if (this.at === this.segment.length) {
        this.segment = await this.nextSegment();
        this.at = 0;
        continue;
      }
      const take = Math.min(left, this.segment.length - this.at);
      yield this.segment.subarray(this.at, this.at + take);
      this.at += take;
      left -= take;
    }
  }

  /** Fills `target` with the next envelope bytes. */
  async read(target: Uint8Array): Promise<void> {
    let offset = 0;
    for await (const piece of this.pieces(target.length)) {
      target.set(piece, offset);
      offset += piece.length;
    }
  }

  /** Stops reading the file (its stream is closed); encryptions under way finish unheard. */
  async close(): Promise<void> {
    await this.chunks.return?.();
  }

  private async nextSegment(): Promise<Uint8Array> {
    if (this.prefixDue) {
      this.prefixDue = false;
      return this.sealer.prefix;
    }
    while (this.encrypting.length < encryptAhead && this.nextChunk <= this.lastChunk) {
      const index = this.nextChunk++;
      const final = index === this.layout.chunkCount - 1;
      const plaintext = await this.plaintextOf(index, final);
      const sealed = this.sealer.encryptChunk(index, final, plaintext);
      sealed.catch(() => {}); // awaited in turn below; never an unhandled rejection meanwhile
      this.encrypting.push(sealed);
    }
    const next = this.encrypting.shift();
    if (!next) throw new Error('read past the end of the envelope');
    const sealed = await next;
    if (this.skip === 0) return sealed;
    const rest = sealed.subarray(this.skip);
    this.skip = 0;
    return rest;
  }

  private async plaintextOf(index: number, final: boolean): Promise<Uint8Array> {
    const expected = plaintextBytesOf(this.layout, index);
    let plaintext: Uint8Array = empty;
    if (expected > 0) {
      const read = await this.chunks.next();
      if (read.done || read.value.length !== expected)
        throw changed(t('cli.transfer.chunkSize', { index, actual: read.done ? 0 : read.value.length, expected }));
      plaintext = read.value;
    }
    if (final && this.mustEnd && !(await this.chunks.next()).done) throw changed(t('cli.transfer.longerThan', { size: this.layout.size }));
    return plaintext;
  }
}
