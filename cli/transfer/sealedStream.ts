import { open } from 'node:fs/promises';
import type { FileSealer } from '../../shared/envelope/index.ts';
import { TransferError } from './errors.ts';
import { chunkAt, plaintextBytesOf, type EnvelopeLayout } from './layout.ts';
import { t } from '../src/i18n.ts';

/**
 * Chunks sealed ahead of the reader, each a chunk of plaintext and its ciphertext in memory.
 * node:crypto seals on this thread as it is asked, so ahead means only that the next chunk's
 * read (the thread pool's) overlaps this one's encryption; four ahead were no faster with
 * WebCrypto either (bench/files.ts) and cost some 10 MiB more at the peak.
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
 * The plaintext chunks `first` … `last` of the file at `path`, each read into one of a ring of
 * buffers while the chunk before it is sealed. A chunk's bytes hold until the chunk two after it
 * is asked for (its buffer is then read into again): its consumer must be done with them by then.
 * SealedReader seals each chunk as it takes it, and a chunk cipher reads its plaintext before its
 * call returns (ChunkCipher.encrypt), so it is. Reused buffers rather than a read stream's fresh ones:
 * allocating a chunk per read cost page faults and garbage collection of some 20 % of the seal
 * (ADR 0184). Nothing past `last` is read, so a file that grew is caught by its size (the
 * caller's stat), one that shrank by a short chunk.
 */
export function fileChunks(path: string, layout: EnvelopeLayout, first: number, last = layout.chunkCount - 1): AsyncIterator<Uint8Array> {
  const start = first * layout.chunkBytes;
  const end = Math.min(layout.size, (last + 1) * layout.chunkBytes);
  if (end <= start) return exactChunks([], layout.chunkBytes);
  return readChunks(path, start, end, layout.chunkBytes);
}

/**
 * Reads kept ahead of the chunk being sealed, and buffers: one being sealed, `readsAhead` being
 * read, one whose chunk was handed out before (its consumer may still hold it until the next is
 * asked for). Two ahead keep the thread pool's reads from ever making the seal wait.
 */
const readsAhead = 2;
const ringSize = readsAhead + 2;

async function* readChunks(path: string, start: number, end: number, chunkBytes: number): AsyncGenerator<Uint8Array> {
  const file = await open(path, 'r');
  const ring = Array.from({ length: ringSize }, () => Buffer.allocUnsafeSlow(Math.min(chunkBytes, end - start)));
  /** Fills `buffer` from `offset` up to a chunk (less at the end, or where the file ends sooner). */
  const readAt = async (offset: number, buffer: Buffer): Promise<Buffer> => {
    const length = Math.min(chunkBytes, end - offset);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await file.read(buffer, filled, length - filled, offset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  };
  const ahead = (offset: number, buffer: Buffer) => {
    const read = readAt(offset, buffer);
    read.catch(() => {}); // awaited in turn; never an unhandled rejection while a chunk is out
    return read;
  };
  /** Reads under way, in file order: the next chunk's first. */
  const pending: Array<Promise<Buffer>> = [];
  let nextOffset = start;
  let turn = 0;
  const readAhead = () => {
    while (pending.length < readsAhead && nextOffset < end) {
      pending.push(ahead(nextOffset, ring[turn++ % ringSize]!));
      nextOffset += chunkBytes;
    }
  };
  let closed: Promise<void> | undefined;
  const close = async () => {
    // Reads still under way must end before their file is closed.
    await Promise.all(pending.map((read) => read.catch(() => {})));
    await (closed ??= file.close());
  };
  try {
    readAhead();
    while (pending.length > 0) {
      const chunk: Buffer = await pending.shift()!;
      // A short chunk is the file's end (or it shrank): nothing after it is read.
      if (chunk.length === chunkBytes) readAhead();
      else nextOffset = end;
      // The last read done: the file is closed now, as its reader need not ask past the last chunk.
      if (pending.length === 0) await close();
      if (chunk.length === 0) return;
      yield chunk;
    }
  } finally {
    await close();
  }
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
  private readonly encrypting: Array<Promise<Uint8Array[]>> = [];
  /** The rest of the chunk last sealed: its pieces not yet begun. */
  private readonly ready: Uint8Array[] = [];

  /**
   * `chunks` holds the plaintext of the chunks from the one holding `from` to `lastChunk` (the
   * file's last by default): encryption runs ahead no further.
   */
  constructor(
    private readonly sealer: Pick<FileSealer, 'prefix' | 'encryptChunkPieces'>,
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
    const piece = this.ready.shift();
    if (piece) return piece;
    while (this.encrypting.length < encryptAhead && this.nextChunk <= this.lastChunk) {
      const index = this.nextChunk++;
      const final = index === this.layout.chunkCount - 1;
      const plaintext = await this.plaintextOf(index, final);
      const sealed = this.sealer.encryptChunkPieces(index, final, plaintext);
      sealed.catch(() => {}); // awaited in turn below; never an unhandled rejection meanwhile
      this.encrypting.push(sealed);
    }
    const next = this.encrypting.shift();
    if (!next) throw new Error('read past the end of the envelope');
    for (const sealed of await next) {
      // A part that begins inside this chunk: its first `skip` bytes were the part before's.
      const cut = Math.min(this.skip, sealed.length);
      this.skip -= cut;
      if (cut < sealed.length) this.ready.push(cut === 0 ? sealed : sealed.subarray(cut));
    }
    return this.ready.shift() ?? empty;
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
