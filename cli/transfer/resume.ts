import { nodeCrypto } from '../src/nodeCrypto.ts';
import { stat } from 'node:fs/promises';
import { fileSealer, fromBase64Url, type FileSealer } from '../../shared/envelope/index.ts';
import { nodeChunkCipher } from './nodeChunkCipher.ts';
import { transferApi, type Fetch, type FileUpload } from './api.ts';
import { ApiError, TransferError } from './errors.ts';
import { chunkAt, envelopeLayout, partRange, type EnvelopeLayout } from './layout.ts';
import { partsInFlight, sameEtag } from './parts.ts';
import { inLanes } from './retry.ts';
import { fileChunks, SealedReader } from './sealedStream.ts';
import { readState, removeState, type UploadState } from './state.ts';
import {
  finishUpload,
  guarded,
  uploadFile,
  type UploadContext,
  type UploadOptions,
  type UploadProgress,
  type UploadResult,
} from './upload.ts';
import { t } from '../src/i18n.ts';

export interface ResumeOptions {
  /** The state file an upload kept (`UploadOptions.statePath`). */
  statePath: string;
  credential?: string;
  /** Given again when the upload had one: it is never written down. */
  passphrase?: string;
  signal?: AbortSignal;
  onProgress?: (progress: UploadProgress) => void;
  fetch?: Fetch;
  retryDelay?: (attempt: number) => number;
}

export interface ResumeResult extends UploadResult {
  /** The parts S3 kept and this resume proved and reused, or why it started over with a new key. */
  resumed: { reusedParts: number } | { startedOver: string };
}

/** An S3 ETag that is a part's MD5: 32 hex digits (under SSE-KMS it is not, and nothing can be proved). */
const md5Pattern = /^"?[0-9a-f]{32}"?$/i;

/**
 * Carries on with an upload whose process died, from its state file. Chunk nonces follow the
 * chunk index under one key, so sealing other bytes for a part would reuse a nonce: a part S3
 * holds is reused only when sealing the file's bytes for it again, under the same key and salt,
 * gives bytes of the MD5 S3 has as its ETag. The file must also have its size and modification
 * time of then, and S3 must hold at least one part (else nothing proves the file unchanged).
 * Any doubt starts over: the old upload aborted, a new one under a new key (a new link).
 */
export async function resumeUpload(options: ResumeOptions): Promise<ResumeResult> {
  options.signal?.throwIfAborted();
  const state = await readState(options.statePath);
  if (state.passphrase && !options.passphrase) throw new TransferError('passphrase_required', t('cli.transfer.resumePassphrase'));
  const api = transferApi({ api: state.api, credential: options.credential, fetch: options.fetch });
  const ref = { id: state.id, upload_id: state.upload_id, delete_token: state.delete_token };
  const uploadOptions: UploadOptions = {
    api: state.api,
    file: state.file.path,
    name: state.file.name,
    type: state.file.type,
    chunkLog2: state.chunk_log2,
    statePath: options.statePath,
    ...(state.settings.expires_in === undefined ? {} : { expiresIn: state.settings.expires_in }),
    ...(state.settings.max_views === undefined ? {} : { maxViews: state.settings.max_views }),
    ...(state.settings.not_before === undefined ? {} : { notBefore: state.settings.not_before }),
    ...(state.settings.recipients === undefined ? {} : { recipients: state.settings.recipients }),
    ...(options.credential === undefined ? {} : { credential: options.credential }),
    ...(state.passphrase && options.passphrase ? { passphrase: options.passphrase } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.retryDelay ? { retryDelay: options.retryDelay } : {}),
  };
  const startOver = async (reason: string, abortOld: boolean): Promise<ResumeResult> => {
    if (abortOld) await api.abortUpload(ref).catch(() => {});
    await removeState(options.statePath);
    return { ...(await uploadFile(uploadOptions)), resumed: { startedOver: reason } };
  };

  const sealer = await fileSealer({
    chunkCipher: nodeChunkCipher,
    meta: { name: state.file.name, type: state.file.type, size: state.file.size },
    urlKey: fromBase64Url(state.key),
    salt: fromBase64Url(state.salt),
    passphrase: uploadOptions.passphrase,
    chunkLog2: state.chunk_log2,
  });
  if (sealer.claimVerifier !== state.claim_verifier) throw new TransferError('wrong_passphrase', t('cli.transfer.resumeWrongPassphrase'));

  const now = await stat(state.file.path).catch(() => null);
  if (!now?.isFile()) {
    await api.abortUpload(ref).catch(() => {});
    await removeState(options.statePath);
    throw new TransferError('file_changed', t('cli.transfer.resumeFileGone', { path: state.file.path }));
  }
  if (now.size !== state.file.size || now.mtimeMs !== state.file.mtime_ms)
    return startOver('the file’s size or modification time changed', true);

  let reply: FileUpload;
  try {
    reply = await api.resumeUpload(ref, options.signal);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 403)) throw error;
    // Not pending: completed before the process died (its answer lost), or ended since.
    const secret = await api.readSecret(state.id, undefined, options.signal).catch(() => null);
    if (secret?.state === 'active' || secret?.state === 'burned') {
      await removeState(options.statePath);
      return { ...completedResult(state, sealer, secret.size_bytes), resumed: { reusedParts: state.part_count } };
    }
    return startOver('the upload is no longer pending', false);
  }
  const layout = envelopeLayout({
    size: state.file.size,
    prefixBytes: sealer.prefix.length,
    chunkBytes: sealer.chunkBytes,
    partSize: reply.part_size,
  });
  if (layout.partCount !== state.part_count || layout.envelopeBytes !== state.envelope_bytes)
    return startOver('the upload is not cut as it was', true);
  const stored = reply.uploaded ?? [];
  if (stored.length === 0) return startOver('S3 holds no part of it, so nothing proves the file unchanged', true);
  const doubt = await firstDoubt(stored, sealer, layout, state.file.path, options.signal);
  if (doubt !== undefined) return startOver(doubt, true);

  const context: UploadContext = {
    api,
    options: uploadOptions,
    sealer,
    meta: { name: state.file.name, type: state.file.type },
    layout,
    reply,
    ref,
    fileStat: { size: now.size, mtimeMs: now.mtimeMs },
  };
  const held = new Map(stored.map((part) => [part.part_number, part.etag]));
  const missing = reply.parts.map((part) => part.part_number);
  const result = await guarded(context, () =>
    finishUpload(context, missing, (partNumber, target) => sealPart(sealer, layout, state.file.path, partNumber, target), held),
  );
  return { ...result, resumed: { reusedParts: held.size } };
}

/** Why a stored part cannot be reused, for the first that cannot; undefined when every one is proved. */
async function firstDoubt(
  stored: Array<{ part_number: number; etag: string; size: number }>,
  sealer: FileSealer,
  layout: EnvelopeLayout,
  path: string,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  let doubt: string | undefined;
  const found = new Error('doubt');
  try {
    await inLanes(stored, partsInFlight, signal, async (part) => {
      const { start, end } = partRange(layout, part.part_number);
      if (part.part_number > layout.partCount || part.size !== end - start)
        doubt ??= `part ${part.part_number} is ${part.size} bytes, not ${end - start}`;
      else if (!md5Pattern.test(part.etag))
        doubt ??= `S3's ETag of part ${part.part_number} is not its MD5 (SSE-KMS), so it cannot be proved`;
      else if (!sameEtag(part.etag, await sealedMd5(sealer, layout, path, part.part_number)))
        doubt ??= `part ${part.part_number} is not what the file seals to now`;
      if (doubt !== undefined) throw found;
    });
  } catch (error) {
    if (error !== found) throw error;
  }
  return doubt;
}

/** A reader of part `partNumber`'s envelope bytes, sealing the file's chunks it spans. */
function partReader(sealer: FileSealer, layout: EnvelopeLayout, path: string, partNumber: number) {
  const { start, end } = partRange(layout, partNumber);
  const first = start === 0 ? 0 : chunkAt(layout, start).index;
  const last = chunkAt(layout, end - 1).index;
  return {
    reader: new SealedReader(sealer, layout, fileChunks(path, layout, first, last), start, { lastChunk: last }),
    length: end - start,
  };
}

async function sealedMd5(sealer: FileSealer, layout: EnvelopeLayout, path: string, partNumber: number): Promise<string> {
  const { reader, length } = partReader(sealer, layout, path, partNumber);
  const hash = nodeCrypto().createHash('md5');
  try {
    for await (const piece of reader.pieces(length)) hash.update(piece);
  } finally {
    await reader.close();
  }
  return hash.digest('hex');
}

/** Part `partNumber`'s envelope bytes into `target`, sealed from the file's chunks it spans. */
async function sealPart(sealer: FileSealer, layout: EnvelopeLayout, path: string, partNumber: number, target: Uint8Array): Promise<void> {
  const { reader } = partReader(sealer, layout, path, partNumber);
  try {
    await reader.read(target);
  } finally {
    await reader.close();
  }
}

function completedResult(state: UploadState, sealer: FileSealer, sizeBytes: number): UploadResult {
  return {
    link: `${state.url_base}#${sealer.key}`,
    id: state.id,
    deleteToken: state.delete_token,
    expiresAt: state.expires_at,
    sizeBytes,
    ...(state.recipients
      ? { recipientLinks: state.recipients.map((link) => ({ recipientId: link.recipient_id, link: `${link.url_base}#${sealer.key}` })) }
      : {}),
  };
}
