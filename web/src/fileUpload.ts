/**
 * A file's upload: sealed chunk by chunk from `File.slice` (the file is never read whole),
 * its envelope cut into the parts the API asked for and PUT to their presigned URLs, four at
 * a time, each retried three times; then completed. Cancelled or failed, the upload is aborted
 * on the server once no part is in flight any more, so no part is left behind.
 *
 * Part p is envelope bytes [(p-1)·part_size, p·part_size): the header and meta block shift
 * the chunks, so a chunk may straddle two parts. Each chunk is encrypted once (a straddling one
 * is kept until both parts have it): its nonce is its index, and sealing other bytes under the
 * same index would reuse a GCM nonce.
 */
import { parseHeader, type FileSealer } from '../../shared/envelope/index.ts';
import { filesApi, type FileUpload, type FileUploadBody, type UploadRef } from './filesApi.ts';
import { t } from './i18n.ts';
import { untilCompleted } from './uploadCompletion.ts';
import { UploadCancelled, UploadFailed } from './uploadErrors.ts';

export const partsInFlight = 4;
/** Retries of a failed part, after its first attempt. */
export const partRetries = 3;
/** Part URLs this close to their end are renewed before use (`resume`). */
const urlMarginMs = 60_000;

export { UploadCancelled, UploadFailed } from './uploadErrors.ts';

/** What the sealer gives every upload's opening body. */
export type SealedUploadFields = Pick<
  FileUploadBody,
  'size_bytes' | 'salt' | 'claim_verifier' | 'link_verifier' | 'chunk_log2' | 'passphrase'
>;

/** A secret's settings by default; a request link's response passes its own fields instead. */
export interface UploadInput<Settings = Pick<FileUploadBody, 'expires_in' | 'max_views' | 'not_before' | 'recipients' | 'workspace_id'>> {
  file: File;
  sealer: FileSealer;
  /** Opens the upload (the page adds its access token when signed in, or keeps only what a response sends). */
  open(body: SealedUploadFields & Settings): Promise<FileUpload>;
  settings: Settings;
  signal: AbortSignal;
  /** The upload exists on the server: from now on leaving the page should abort it. */
  opened(ref: UploadRef): void;
  progress(sent: number, total: number): void;
  /** Every part is in: the service completes a large upload in the background, which may take a minute or more. */
  completing?(): void;
}

/** Uploads and completes; throws `UploadCancelled`, `UploadFailed` or the API's `ApiError`. */
export async function uploadFile<Settings>(input: UploadInput<Settings>): Promise<FileUpload> {
  const { file, sealer, signal } = input;
  const envelopeSize = sealer.envelopeSize(file.size);
  const upload = await input.open({
    size_bytes: envelopeSize,
    salt: sealer.salt,
    claim_verifier: sealer.claimVerifier,
    link_verifier: sealer.linkVerifier,
    chunk_log2: sealer.chunkLog2,
    // Read from the header being uploaded: a workspace's policy is checked on it, and completion
    // refuses a header that says otherwise.
    ...(parseHeader(sealer.prefix).passphrase ? { passphrase: true } : {}),
    ...input.settings,
  });
  const ref: UploadRef = { id: upload.id, upload_id: upload.upload_id, delete_token: upload.delete_token };
  input.opened(ref);
  // One controller for every part: the first part that fails for good stops the others.
  const stop = new AbortController();
  const onCancel = () => stop.abort(new UploadCancelled());
  if (signal.aborted) onCancel();
  signal.addEventListener('abort', onCancel, { once: true });
  let handedOver = false;
  try {
    const parts = await sendParts(upload, ref, new EnvelopeLayout(sealer, file, upload.part_size), stop, input.progress);
    const completed = await filesApi.completeUpload(ref, parts);
    if (completed.state === 'completing') {
      handedOver = true;
      input.completing?.();
      await untilCompleted(ref, parts, stop.signal);
    }
    return upload;
  } catch (error) {
    // Only now, with every part settled, can the abort take them all (docs/web.md). Once the
    // server took a completion (202) the upload is its own: only the person's Cancel aborts it.
    if (!handedOver || signal.aborted) await filesApi.abortUpload(ref).catch(() => undefined);
    throw signal.aborted ? new UploadCancelled() : error;
  } finally {
    signal.removeEventListener('abort', onCancel);
  }
}

async function sendParts(
  upload: FileUpload,
  ref: UploadRef,
  layout: EnvelopeLayout,
  stop: AbortController,
  progress: (sent: number, total: number) => void,
) {
  const urls = new Map(upload.parts.map((part) => [part.part_number, part.url]));
  let urlsExpireAt = Date.parse(upload.urls_expire_at);
  let renewing: Promise<void> | null = null;
  /** Fresh URLs for the parts the bucket does not have yet, once for all lanes. */
  const renewUrls = () =>
    (renewing ??= filesApi.resumeUpload(ref).then(
      (resumed) => {
        for (const part of resumed.parts) urls.set(part.part_number, part.url);
        urlsExpireAt = Date.parse(resumed.urls_expire_at);
        renewing = null;
      },
      (error: unknown) => {
        renewing = null;
        throw error;
      },
    ));
  const urlFor = async (number: number) => {
    if (Date.now() > urlsExpireAt - urlMarginMs) await renewUrls();
    return urls.get(number)!;
  };

  const sent = new Map<number, number>();
  const report = (number: number, bytes: number) => {
    sent.set(number, bytes);
    let total = 0;
    for (const value of sent.values()) total += value;
    progress(total, layout.envelopeSize);
  };

  const etags: Array<{ part_number: number; etag: string }> = [];
  let next = 1;
  const lane = async () => {
    try {
      await sendEach();
    } catch (error) {
      stop.abort(error);
      throw error;
    }
  };
  const sendEach = async () => {
    while (next <= upload.part_count) {
      stop.signal.throwIfAborted();
      const number = next++;
      const bytes = await layout.part(number);
      for (let attempt = 0; ; attempt++) {
        stop.signal.throwIfAborted();
        try {
          etags.push({
            part_number: number,
            etag: await putPart(await urlFor(number), bytes, stop.signal, (loaded) => report(number, loaded)),
          });
          report(number, bytes.length);
          break;
        } catch (error) {
          report(number, 0);
          if (stop.signal.aborted || (error instanceof UploadFailed && !error.retryable) || attempt === partRetries) throw error;
          // S3 refuses an expired URL with 403 (whatever this browser's clock says): renew them, then try again.
          if ((error instanceof UploadFailed && error.status === 403) || Date.now() > urlsExpireAt - urlMarginMs) await renewUrls();
          await delay(500 * 2 ** attempt, stop.signal);
        }
      }
    }
  };
  // Every lane settles (its XHR aborted) before this answers: the abort must come after the last part.
  await Promise.allSettled(Array.from({ length: Math.min(partsInFlight, upload.part_count) }, lane));
  if (stop.signal.aborted) throw stop.signal.reason;
  return etags.sort((a, b) => a.part_number - b.part_number);
}

/** PUTs one part by XHR, whose upload events give the progress fetch cannot; answers its ETag. */
function putPart(url: string, bytes: Uint8Array<ArrayBuffer>, signal: AbortSignal, onProgress: (loaded: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const abort = () => xhr.abort();
    const done = (settle: () => void) => {
      signal.removeEventListener('abort', abort);
      settle();
    };
    xhr.open('PUT', url);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () =>
      done(() => {
        if (xhr.status < 200 || xhr.status > 299)
          return reject(new UploadFailed(t('upload.failed.refused', { status: String(xhr.status) }), true, xhr.status));
        const etag = xhr.getResponseHeader('etag');
        // The bucket's CORS must expose ETag (docs/web.md): without it, no retry can help.
        if (!etag) return reject(new UploadFailed(t('upload.failed.noEtag'), false));
        resolve(etag);
      });
    xhr.onerror = () => done(() => reject(new UploadFailed(t('upload.failed.unreachable'))));
    xhr.onabort = () => done(() => reject(signal.reason));
    signal.addEventListener('abort', abort, { once: true });
    xhr.send(bytes);
  });
}

const delay = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = window.setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (window.clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** Where the envelope's bytes are: the prefix, then each chunk's ciphertext at its offset. */
class EnvelopeLayout {
  readonly envelopeSize: number;
  private readonly chunkCount: number;
  private readonly chunkCipherBytes: number;
  /** Chunks two parts need, encrypted once: the promise and how many parts still want it. */
  private readonly shared = new Map<number, { ciphertext: Promise<Uint8Array>; wanted: number }>();

  constructor(
    private readonly sealer: FileSealer,
    private readonly file: File,
    private readonly partSize: number,
  ) {
    this.envelopeSize = sealer.envelopeSize(file.size);
    this.chunkCount = sealer.chunkCount(file.size);
    this.chunkCipherBytes = sealer.chunkBytes + 16;
  }

  private chunkStart(index: number): number {
    return this.sealer.prefix.length + index * this.chunkCipherBytes;
  }

  private chunkEnd(index: number): number {
    return index === this.chunkCount - 1 ? this.envelopeSize : this.chunkStart(index + 1);
  }

  /** Part `number`'s bytes, built from the prefix and the chunks it overlaps. */
  async part(number: number): Promise<Uint8Array<ArrayBuffer>> {
    const start = (number - 1) * this.partSize;
    const end = Math.min(number * this.partSize, this.envelopeSize);
    const out = new Uint8Array(end - start);
    const { prefix } = this.sealer;
    if (start < prefix.length) out.set(prefix.subarray(start, Math.min(prefix.length, end)), 0);
    if (end <= prefix.length) return out;
    const first = Math.max(0, Math.floor((start - prefix.length) / this.chunkCipherBytes));
    const last = Math.min(this.chunkCount - 1, Math.floor((end - 1 - prefix.length) / this.chunkCipherBytes));
    for (let index = first; index <= last; index++) {
      const ciphertext = await this.chunk(index);
      const at = this.chunkStart(index);
      out.set(ciphertext.subarray(Math.max(0, start - at), Math.min(ciphertext.length, end - at)), Math.max(0, at - start));
    }
    return out;
  }

  private chunk(index: number): Promise<Uint8Array> {
    const partOf = (offset: number) => Math.floor(offset / this.partSize);
    const wanted = partOf(this.chunkEnd(index) - 1) - partOf(this.chunkStart(index)) + 1;
    if (wanted === 1) return this.encrypt(index);
    let entry = this.shared.get(index);
    if (!entry) this.shared.set(index, (entry = { ciphertext: this.encrypt(index), wanted }));
    if (--entry.wanted === 0) this.shared.delete(index);
    return entry.ciphertext;
  }

  private async encrypt(index: number): Promise<Uint8Array> {
    const { chunkBytes } = this.sealer;
    let plaintext: Uint8Array;
    try {
      plaintext = new Uint8Array(
        await this.file.slice(index * chunkBytes, Math.min((index + 1) * chunkBytes, this.file.size)).arrayBuffer(),
      );
    } catch {
      throw new UploadFailed(t('upload.failed.unreadable'), false);
    }
    return this.sealer.encryptChunk(index, index === this.chunkCount - 1, plaintext);
  }
}
