import { nodeCrypto } from '../src/nodeCrypto.ts';
import { BufferPool } from './buffers.ts';
import { clientHeaders, type FileUpload, type Fetch, type TransferApi, type UploadRef } from './api.ts';
import { TransferError } from './errors.ts';
import { attempts, inLanes, pause } from './retry.ts';
import { t } from '../src/i18n.ts';

/** Parts sent at once, as the web client does: each is held in memory until S3 has it. */
export const partsInFlight = 4;

/** URLs are renewed this long before the server says they expire (clocks differ; a part takes time). */
const renewMarginMs = 5 * 60 * 1000;

/** An ETag S3 computed as the part's MD5 (not so under SSE-KMS): hex, quoted. */
export const md5Etag = (bytes: Uint8Array) => `"${nodeCrypto().createHash('md5').update(bytes).digest('hex')}"`;
export const sameEtag = (a: string, b: string) => a.replaceAll('"', '').toLowerCase() === b.replaceAll('"', '').toLowerCase();

/**
 * The presigned UploadPart URLs of an upload, renewed through the resume route when they are
 * about to expire or S3 refused one; renewing also says which parts S3 already holds.
 */
export class PartUrls {
  private readonly urls = new Map<number, string>();
  private readonly held = new Map<number, string>();
  private expiresAt = 0;
  private renewing: Promise<void> | undefined;

  constructor(
    private readonly api: TransferApi,
    private readonly ref: UploadRef,
    reply: FileUpload,
  ) {
    this.take(reply);
  }

  async urlOf(partNumber: number, signal: AbortSignal): Promise<string | undefined> {
    if (Date.now() > this.expiresAt - renewMarginMs) await this.renew(signal);
    return this.urls.get(partNumber);
  }

  /** The ETag S3 holds for a part (known after a renewal), for a part whose answer was lost. */
  heldEtag = (partNumber: number) => this.held.get(partNumber);

  renew(signal: AbortSignal): Promise<void> {
    this.renewing ??= this.api
      .resumeUpload(this.ref, signal)
      .then((reply) => this.take(reply))
      .finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private take(reply: FileUpload): void {
    this.urls.clear();
    for (const part of reply.parts) this.urls.set(part.part_number, part.url);
    for (const part of reply.uploaded ?? []) this.held.set(part.part_number, part.etag);
    this.expiresAt = Date.parse(reply.urls_expire_at);
  }
}

export interface SendPartsOptions {
  partNumbers: readonly number[];
  /** Every part's length but the last's. */
  partSize: number;
  lengthOf(partNumber: number): number;
  /** Makes a part's bytes when a lane is free for it, into that lane's buffer (so only `partsInFlight` are ever held). */
  fill(partNumber: number, target: Uint8Array, signal: AbortSignal): Promise<void>;
  urls: PartUrls;
  fetch: Fetch;
  signal?: AbortSignal | undefined;
  retryDelay: (attempt: number) => number;
  /** Each part once S3 has it. */
  onPart?: (partNumber: number, bytes: number) => void;
}

/** PUTs the parts, `partsInFlight` at once, each tried up to 4 times; answers their ETags. */
export async function sendParts(options: SendPartsOptions): Promise<Map<number, string>> {
  const etags = new Map<number, string>();
  // A file smaller than a part needs no part's worth of buffer.
  const buffers = new BufferPool(Math.max(0, ...options.partNumbers.map((partNumber) => options.lengthOf(partNumber))));
  await inLanes(options.partNumbers, partsInFlight, options.signal, async (partNumber, signal) => {
    const bytes = buffers.take(options.lengthOf(partNumber));
    try {
      await options.fill(partNumber, bytes, signal);
      etags.set(partNumber, await putPart(partNumber, bytes, options, signal));
    } finally {
      buffers.give(bytes);
    }
    options.onPart?.(partNumber, bytes.length);
  });
  return etags;
}

async function putPart(partNumber: number, bytes: Uint8Array, options: SendPartsOptions, signal: AbortSignal): Promise<string> {
  let last: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await pause(options.retryDelay(attempt), signal);
    try {
      const url = await options.urls.urlOf(partNumber, signal);
      if (url === undefined) {
        // S3 holds it already: a PUT that arrived but whose answer was lost. It is this part if its bytes are.
        const held = options.urls.heldEtag(partNumber);
        if (held !== undefined && sameEtag(held, md5Etag(bytes))) return held;
        throw new Error(`no URL for part ${partNumber}`);
      }
      const response = await options.fetch(url, {
        method: 'PUT',
        // A stream of the one buffer with its length said: fetch copies an array body whole first.
        body: new ReadableStream({ start: (controller) => (controller.enqueue(bytes), controller.close()) }),
        duplex: 'half',
        headers: { ...clientHeaders, 'content-length': String(bytes.length) },
        signal,
      } as RequestInit);
      const answer = await response.text();
      const etag = response.headers.get('etag');
      if (response.ok && etag) return etag;
      last = new Error(`part ${partNumber}: S3 answered ${response.status} ${answer.slice(0, 200)}`);
      // An expired URL (or one S3 no longer takes): the next try asks for fresh ones.
      if (response.status === 403) await options.urls.renew(signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      last = error;
    }
  }
  throw new TransferError('transfer_failed', t('cli.transfer.partFailed', { part: partNumber, attempts }), { cause: last });
}
