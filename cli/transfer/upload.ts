import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { fileSealer, fromBase64Url, type FileSealer } from '../../shared/envelope/index.ts';
import { nodeChunkCipher } from './nodeChunkCipher.ts';
import { fetchOf, transferApi, type ApiOptions, type FileUpload, type TransferApi, type UploadRef } from './api.ts';
import { TransferError } from './errors.ts';
import { envelopeLayout, partRange, type EnvelopeLayout } from './layout.ts';
import { PartUrls, sendParts } from './parts.ts';
import { untilCompleted } from './completion.ts';
import { defaultRetryDelay } from './retry.ts';
import { exactChunks, fileChunks, SealedReader } from './sealedStream.ts';
import { removeState, writeState, type UploadSettings, type UploadState } from './state.ts';
import { t } from '../src/i18n.ts';

export interface UploadOptions extends ApiOptions {
  /** A file's path, or a stream of `size` bytes (a stream cannot be resumed). */
  file: string | { stream: AsyncIterable<Uint8Array>; size: number };
  /** Inside the envelope only; the path's last segment when not given. */
  name?: string;
  type?: string;
  expiresIn?: number;
  maxViews?: number;
  notBefore?: string;
  passphrase?: string;
  recipients?: UploadSettings['recipients'];
  /** The envelope's chunk size, 2^chunkLog2 plaintext bytes (16…24; 20 by default). */
  chunkLog2?: number;
  /**
   * Where to keep what a resume needs (`resumeUpload`) while the upload runs: mode 0600, removed
   * once it completes or is aborted. Without it a failed upload is aborted, since nobody could
   * resume it.
   */
  statePath?: string;
  /** Aborts the upload: its parts are deleted and its secret revoked (POST .../abort). */
  signal?: AbortSignal;
  onProgress?: (progress: UploadProgress) => void;
  /** Milliseconds before retry 1, 2, 3 of a part (tests pass 0). */
  retryDelay?: (attempt: number) => number;
  /**
   * A large upload is completed by the service in the background (202 `completing`): the link
   * works once it is. Milliseconds between looks at the secret until then (5 s; tests pass 0), and
   * how long to wait in all (30 minutes).
   */
  completionPollMs?: number;
  completionWaitMs?: number;
  /**
   * A response to a request link: the file's key wrapped to the requester by `wrap`, sent with
   * the request's id instead of the verifiers (no claim ever reaches a response) and settings.
   */
  respondTo?: { requestId: string; wrap: (key: Uint8Array) => Promise<{ enc: string; wrappedKey: string }> };
}

export interface UploadProgress {
  id: string;
  uploadId: string;
  /** Envelope bytes S3 holds. */
  sentBytes: number;
  totalBytes: number;
}

export interface UploadResult {
  /** `url_base#key`: the link to give. */
  link: string;
  id: string;
  deleteToken: string;
  expiresAt: string;
  /** The envelope's length. */
  sizeBytes: number;
  /** One link per recipient asked for. */
  recipientLinks?: Array<{ recipientId: string; link: string }>;
}

/** What an upload needs beyond its parts: the file, its seal, its layout, the upload. */
export interface UploadContext {
  api: TransferApi;
  options: UploadOptions;
  sealer: FileSealer;
  /** The name and type sealed inside the envelope. */
  meta: { name: string; type: string };
  layout: EnvelopeLayout;
  reply: FileUpload;
  ref: UploadRef;
  /** A path's size and modification time when the upload began. */
  fileStat: { size: number; mtimeMs: number } | undefined;
}

/**
 * Seals a file chunk by chunk as it is read and uploads the envelope by presigned multipart:
 * parts are cut from the sealed stream at their byte offsets, `partsInFlight` at once, each
 * made only when a lane is free for it. Answers the link (`url_base#key`).
 */
export async function uploadFile(options: UploadOptions): Promise<UploadResult> {
  options.signal?.throwIfAborted();
  const path = typeof options.file === 'string' ? options.file : undefined;
  if (path === undefined && options.statePath !== undefined)
    throw new Error('only an upload from a path can be resumed, so only it keeps a state file');
  if (options.respondTo && options.statePath !== undefined)
    throw new Error('a response to a request link is not resumed, so it keeps no state file');
  const fileStat = path === undefined ? undefined : await regularFile(path);
  const size = fileStat?.size ?? (options.file as { size: number }).size;
  const meta = { name: options.name ?? (path === undefined ? 'file' : basename(path)), type: options.type ?? 'application/octet-stream' };
  const sealer = await fileSealer({
    chunkCipher: nodeChunkCipher,
    meta: { ...meta, size },
    passphrase: options.passphrase,
    ...(options.chunkLog2 === undefined ? {} : { chunkLog2: options.chunkLog2 }),
  });
  const api = transferApi(options);
  const respondTo = options.respondTo;
  const wrapped = respondTo ? await respondTo.wrap(fromBase64Url(sealer.key)) : undefined;
  const reply = await api.openUpload(
    {
      size_bytes: sealer.envelopeSize(size),
      salt: sealer.salt,
      chunk_log2: sealer.chunkLog2,
      ...(respondTo && wrapped
        ? { request_id: respondTo.requestId, enc: wrapped.enc, wrapped_key: wrapped.wrappedKey }
        : { claim_verifier: sealer.claimVerifier, link_verifier: sealer.linkVerifier, ...settingsOf(options) }),
    },
    options.signal,
  );
  const ref = { id: reply.id, upload_id: reply.upload_id, delete_token: reply.delete_token };
  const layout = envelopeLayout({ size, prefixBytes: sealer.prefix.length, chunkBytes: sealer.chunkBytes, partSize: reply.part_size });
  const context: UploadContext = { api, options, sealer, meta, layout, reply, ref, fileStat };
  return guarded(context, async () => {
    if (layout.partCount !== reply.part_count)
      throw new Error(`the server cut ${reply.part_count} parts where this client counts ${layout.partCount}`);
    if (options.statePath !== undefined) await writeState(options.statePath, stateOf(context));
    // One stream of the whole file, sealed in order: each part is made after the one before it.
    const chunks =
      path === undefined
        ? exactChunks((options.file as { stream: AsyncIterable<Uint8Array> }).stream, layout.chunkBytes)[Symbol.asyncIterator]()
        : fileChunks(path, layout, 0);
    const reader = new SealedReader(sealer, layout, chunks, 0, { mustEnd: path === undefined });
    let turn: Promise<unknown> = Promise.resolve();
    let nextPart = 1;
    const fill = (partNumber: number, target: Uint8Array, signal: AbortSignal) => {
      if (partNumber !== nextPart++) throw new Error(`part ${partNumber} asked for out of turn`);
      const mine = turn.then(() => {
        signal.throwIfAborted();
        return reader.read(target);
      });
      turn = mine.catch(() => {});
      return mine;
    };
    try {
      const numbers = Array.from({ length: layout.partCount }, (_, i) => i + 1);
      return await finishUpload(context, numbers, fill, new Map());
    } finally {
      await reader.close();
    }
  });
}

/**
 * Sends `partNumbers` (the others are `held`, with their ETags), checks the file did not change
 * under the upload, and completes it.
 */
export async function finishUpload(
  context: UploadContext,
  partNumbers: number[],
  fill: (partNumber: number, target: Uint8Array, signal: AbortSignal) => Promise<void>,
  held: Map<number, string>,
): Promise<UploadResult> {
  const { api, options, layout, reply, ref } = context;
  let sentBytes = [...held.keys()].reduce((sum, number) => sum + partRange(layout, number).end - partRange(layout, number).start, 0);
  const progress = () => options.onProgress?.({ id: ref.id, uploadId: ref.upload_id, sentBytes, totalBytes: layout.envelopeBytes });
  progress();
  const sent = await sendParts({
    partNumbers,
    partSize: layout.partSize,
    lengthOf: (partNumber) => partRange(layout, partNumber).end - partRange(layout, partNumber).start,
    fill,
    urls: new PartUrls(api, ref, reply),
    fetch: fetchOf(options.fetch),
    signal: options.signal,
    retryDelay: options.retryDelay ?? defaultRetryDelay,
    onPart: (_, bytes) => {
      sentBytes += bytes;
      progress();
    },
  });
  if (typeof options.file === 'string' && context.fileStat) {
    const now = await stat(options.file);
    if (now.size !== context.fileStat.size || now.mtimeMs !== context.fileStat.mtimeMs)
      throw new TransferError('file_changed', t('cli.transfer.changedWhileUploaded'));
  }
  const parts = [...held, ...sent].sort(([a], [b]) => a - b).map(([part_number, etag]) => ({ part_number, etag }));
  const completed = await api.completeUpload(ref, parts, options.signal);
  if (options.statePath !== undefined) await removeState(options.statePath);
  if (completed.state === 'completing') await untilCompleted(api, ref, parts, options);
  return {
    link: `${reply.url_base}#${context.sealer.key}`,
    id: reply.id,
    deleteToken: reply.delete_token,
    expiresAt: reply.expires_at,
    sizeBytes: completed.size_bytes,
    ...(reply.recipients
      ? {
          recipientLinks: reply.recipients.map((link) => ({
            recipientId: link.recipient_id,
            link: `${link.url_base}#${context.sealer.key}`,
          })),
        }
      : {}),
  };
}

/**
 * Runs an upload's sending, and on a failure leaves no upload behind that nobody can resume:
 * aborted by the signal, or the file changed, or without a state file, the upload is aborted
 * (its parts deleted, its secret revoked) and the state file removed; otherwise the state file
 * stays for `resumeUpload`.
 */
export async function guarded<T>(context: UploadContext, work: () => Promise<T>): Promise<T> {
  const { options } = context;
  try {
    return await work();
  } catch (error) {
    const aborted = options.signal?.aborted === true;
    const resumable = !aborted && options.statePath !== undefined && !(error instanceof TransferError && error.code === 'file_changed');
    // Once the service took the completion (202), the upload is its own: a wait that failed leaves it be.
    const handedOver =
      !aborted && error instanceof TransferError && (error.code === 'completion_failed' || error.code === 'completion_timeout');
    if (!resumable && !handedOver) {
      await context.api.abortUpload(context.ref).catch(() => {});
      if (options.statePath !== undefined) await removeState(options.statePath);
    }
    throw aborted ? options.signal!.reason : error;
  }
}

async function regularFile(path: string): Promise<{ size: number; mtimeMs: number }> {
  const found = await stat(path);
  if (!found.isFile()) throw new Error(t('cli.transfer.notRegularFile', { path }));
  return { size: found.size, mtimeMs: found.mtimeMs };
}

export const settingsOf = (options: UploadOptions): UploadSettings => ({
  ...(options.expiresIn === undefined ? {} : { expires_in: options.expiresIn }),
  ...(options.maxViews === undefined ? {} : { max_views: options.maxViews }),
  ...(options.notBefore === undefined ? {} : { not_before: options.notBefore }),
  ...(options.recipients === undefined ? {} : { recipients: options.recipients }),
});

export function stateOf(context: UploadContext): UploadState {
  const { options, sealer, meta, layout, reply, fileStat } = context;
  return {
    version: 1,
    api: options.api,
    id: reply.id,
    upload_id: reply.upload_id,
    delete_token: reply.delete_token,
    url_base: reply.url_base,
    expires_at: reply.expires_at,
    ...(reply.recipients
      ? { recipients: reply.recipients.map((link) => ({ recipient_id: link.recipient_id, url_base: link.url_base })) }
      : {}),
    key: sealer.key,
    salt: sealer.salt,
    chunk_log2: sealer.chunkLog2,
    passphrase: options.passphrase !== undefined && options.passphrase !== '',
    claim_verifier: sealer.claimVerifier,
    file: { path: resolve(options.file as string), size: fileStat!.size, mtime_ms: fileStat!.mtimeMs, ...meta },
    part_size: layout.partSize,
    part_count: layout.partCount,
    envelope_bytes: layout.envelopeBytes,
    settings: settingsOf(options),
  };
}
