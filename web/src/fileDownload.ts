/**
 * A file's download after its claim: the envelope's first bytes by a ranged GET (the header
 * and the encrypted name, type and size), then the chunks by ranged GETs of about 8 MB, each
 * chunk decrypted as soon as its bytes are in and handed to a sink (`saveFile.ts`) that writes
 * it to disk. At most one request's worth of the file is in the page at a time.
 *
 * Every chunk authenticates its index and whether it ends the file, so a tampered, truncated or
 * reordered file fails at the first bad chunk (`EnvelopeError` `tampered`); the sink is then
 * aborted, which deletes what it wrote.
 */
import {
  EnvelopeError,
  fileOpener,
  filePrefixBytes,
  TAG_BYTES,
  type FileMeta,
  type FileOpener,
  type OpenInput,
} from '../../shared/envelope/index.ts';
import { t } from './i18n.ts';

/** Bytes asked for in one ranged GET (whole chunks). */
const requestBytes = 8 * 1024 * 1024;
/**
 * S3 checks a presigned URL's expiry when a request begins, never while it streams: this close
 * to the claim URL's end, everything left is asked for in one request, so a download begun in
 * time finishes however long it takes.
 */
const tailMarginMs = 2 * 60 * 1000;
/** Retries of a request that failed on the network, after its first attempt. */
const requestRetries = 3;

/**
 * Why the file could not be fetched from the storage (not a fault of its bytes); its message is
 * in the page's language (pages show it). An `EnvelopeError`'s is not: pages say it by its `code`.
 */
export class DownloadFailed extends Error {
  constructor(
    readonly reason: 'network' | 'expired' | 'gone' | 'refused',
    message: string,
  ) {
    super(message);
    this.name = 'DownloadFailed';
  }
}

/** Where the person stopped the download: the browser's own Cancel, or the page's. */
export class DownloadStopped extends Error {
  constructor() {
    super(t('common.download.stopped'));
    this.name = 'DownloadStopped';
  }
}

/**
 * Where decrypted bytes go, in order; `abort` must leave none of them behind. `write` may take
 * the bytes over (a worker sink transfers their buffer away).
 */
export interface PlainSink {
  write(bytes: Uint8Array<ArrayBuffer>): Promise<void>;
  close(): Promise<void>;
  abort(reason: unknown): Promise<void>;
}

export interface OpenedFile {
  meta: FileMeta;
  url: string;
  /** When the claim's URL stops starting requests (ms). */
  urlExpiresAt: number;
  envelopeSize: number;
  opener: FileOpener;
  chunkCount: number;
}

/**
 * Reads the envelope's first bytes and opens them: the name, type and size, checked against
 * what the envelope's length says the file holds. `sizeBytes` is the claim's.
 */
export async function openFile(
  download: { url: string; expires_at: string },
  sizeBytes: number,
  input: OpenInput,
  signal?: AbortSignal,
): Promise<OpenedFile> {
  const { url } = download;
  const wanted = Math.min(filePrefixBytes, sizeBytes);
  const response = await get(url, 0, wanted - 1, signal);
  const total = totalOf(response) ?? sizeBytes;
  const first = new Uint8Array(await response.arrayBuffer()).subarray(0, wanted);
  // The object was measured when its upload completed: any other length now is damage.
  if (total !== sizeBytes) throw new EnvelopeError('tampered', `the stored file is ${total} bytes, not ${sizeBytes}`);
  const opener = await fileOpener(first, input);
  const { meta } = opener;
  if (typeof meta.name !== 'string' || typeof meta.size !== 'number' || !Number.isSafeInteger(meta.size) || meta.size < 0) {
    throw new EnvelopeError('malformed', 'the file details are not a name and a size');
  }
  const chunkCount = opener.chunkCount(total);
  if (total - opener.bodyOffset - chunkCount * TAG_BYTES !== meta.size)
    throw new EnvelopeError('tampered', 'the file is not the size its details say');
  return {
    meta: { name: meta.name, type: typeof meta.type === 'string' ? meta.type : '', size: meta.size },
    url,
    urlExpiresAt: Date.parse(download.expires_at),
    envelopeSize: total,
    opener,
    chunkCount,
  };
}

/** Downloads, decrypts and writes every chunk; on any failure the sink is aborted. */
export async function downloadFile(
  file: OpenedFile,
  sink: PlainSink,
  signal: AbortSignal,
  progress: (done: number) => void,
): Promise<void> {
  const { opener, chunkCount } = file;
  const perRequest = Math.max(1, Math.floor(requestBytes / opener.chunkCipherBytes));
  const start = (index: number) => opener.bodyOffset + index * opener.chunkCipherBytes;
  const end = (index: number) => (index === chunkCount - 1 ? file.envelopeSize : start(index + 1));
  let next = 0;
  let written = 0;
  try {
    while (next < chunkCount) {
      const last = Date.now() > file.urlExpiresAt - tailMarginMs ? chunkCount - 1 : Math.min(chunkCount, next + perRequest) - 1;
      for (let attempt = 0; ; attempt++) {
        try {
          const response = await get(file.url, start(next), end(last) - 1, signal);
          const reader = response.body!.getReader();
          try {
            // The chunk being filled from the body's pieces, decrypted and written once full.
            let chunk = new Uint8Array(end(next) - start(next));
            let filled = 0;
            while (next <= last) {
              const { done, value } = await reader.read();
              if (done) throw new DownloadFailed('network', t('common.download.cutShort'));
              let offset = 0;
              while (offset < value.length && next <= last) {
                const take = Math.min(chunk.length - filled, value.length - offset);
                chunk.set(value.subarray(offset, offset + take), filled);
                filled += take;
                offset += take;
                if (filled < chunk.length) continue;
                const plaintext = (await opener.decryptChunk(next, next === chunkCount - 1, chunk)) as Uint8Array<ArrayBuffer>;
                written += plaintext.length;
                await sink.write(plaintext);
                progress(written);
                next++;
                if (next <= last) {
                  chunk = new Uint8Array(end(next) - start(next));
                  filled = 0;
                }
              }
            }
          } finally {
            reader.cancel().catch(() => undefined);
          }
          break;
        } catch (error) {
          // A network hiccup is retried from the first chunk not yet written; anything else is final.
          if (!(error instanceof DownloadFailed && error.reason === 'network') || attempt === requestRetries || signal.aborted) throw error;
          await new Promise((resolve) => window.setTimeout(resolve, 500 * 2 ** attempt));
        }
      }
    }
    if (written !== file.meta.size) throw new EnvelopeError('tampered', 'the file is not the size its details say');
    await sink.close();
  } catch (error) {
    await sink.abort(error).catch(() => undefined);
    throw signal.aborted ? new DownloadStopped() : error;
  }
}

/** One ranged GET of the presigned URL: 206 with exactly the bytes asked for, or a `DownloadFailed`. */
async function get(url: string, first: number, last: number, signal?: AbortSignal): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { range: `bytes=${first}-${last}` },
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      redirect: 'error',
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new DownloadFailed('network', t('common.download.unreachable'));
  }
  // A 206 from elsewhere than asked is refused; a bucket whose CORS hides Content-Range is
  // trusted on its 206 (each chunk still authenticates its index).
  const start = startOf(response);
  if (response.status === 206 && (start === null || start === first)) return response;
  await response.body?.cancel().catch(() => undefined);
  // S3 answers an expired URL 403 and a deleted object 404; a range past the end is a short file.
  if (response.status === 403) throw new DownloadFailed('expired', t('common.download.expired'));
  if (response.status === 404) throw new DownloadFailed('gone', t('common.download.gone'));
  if (response.status === 416) throw new EnvelopeError('tampered', 'the stored file is shorter than it was');
  const status = String(response.status);
  if (response.status >= 500) throw new DownloadFailed('network', t('common.download.storageFailed', { status }));
  throw new DownloadFailed('refused', t('common.download.storageRefused', { status }));
}

/** `Content-Range: bytes 0-65535/67108880` → 0 and 67108880 (CORS must expose it). */
const contentRange = (response: Response) => /^bytes (\d+)-\d+\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
const startOf = (response: Response) => {
  const match = contentRange(response);
  return match ? Number(match[1]) : null;
};
const totalOf = (response: Response) => {
  const match = contentRange(response);
  return match ? Number(match[2]) : null;
};
