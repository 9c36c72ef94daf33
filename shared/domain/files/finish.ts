import { EnvelopeError } from '../../envelope/errors.ts';
import { FIXED_HEADER_BYTES, MAC_BYTES, parseHeader, startsWithMagic } from '../../envelope/format.ts';
import { Conflict, TooLarge } from '../refusals.ts';
import { endSecret } from '../secrets/end.ts';
import type { Secret } from '../secrets/model.ts';
import { objectKeyOf, type CompleteRefusal } from './ports.ts';
import { completeRequestFile } from './requestFiles.ts';
import { fileLimitOf, type FilePorts } from './upload.ts';

/**
 * The part of a completion after the request was checked, the same whether it runs inside the
 * request (small uploads) or in the completion sweep (large ones, completions.ts): S3 completes
 * the object from its parts, the object is measured and its envelope header read, and the secret
 * becomes active. Refusals are thrown as the request would answer them.
 */

/** What finishing needs: the bucket, the secrets, the plans the size is held to, and request links (file responses). */
export type FinishPorts = Pick<FilePorts, 'uploads' | 'secrets' | 'clock' | 'counters' | 'requests' | 'tiers'>;

const conflict = (reason: string, detail: string, facts: Record<string, unknown> = {}) =>
  new Conflict(detail, { facts: { reason, ...facts } });

export const refusalDetail: Record<CompleteRefusal, [string, string]> = {
  invalid_part: ['mismatched_part', 'A part’s ETag is not the one S3 has for it: send the ETags the part uploads answered.'],
  too_small: ['part_too_small', 'A part other than the last is smaller than 5 MiB: every part but the last must be part_size long.'],
  invalid_order: ['mismatched_part', 'The parts are not in order.'],
  no_such_upload: ['not_pending', 'This upload is no longer pending: it was completed or aborted.'],
};

/**
 * Completes the object from `parts` (or takes the object S3 already made: `parts` null, when a
 * sweep's earlier try got S3 to complete it and then died), then measures it: larger than
 * declared or than the plan allows is too large, any other size a conflict, and either way the
 * secret is revoked and its object deleted. Of a completion and an abort racing, one wins (the
 * activation is conditional on the upload still pending); a completion that lost deletes the
 * object it made.
 */
export async function finishCompletion(
  secret: Secret,
  uploadId: string,
  parts: ReadonlyArray<{ partNumber: number; etag: string }> | null,
  ports: FinishPorts,
): Promise<Secret> {
  const key = objectKeyOf(secret.id);
  if (parts) {
    const completed = await ports.uploads.complete(key, uploadId, [...parts]);
    if (!completed.completed) {
      const [reason, detail] = refusalDetail[completed.reason];
      throw conflict(reason, detail);
    }
  }
  const size = await ports.uploads.size(key);
  // A response is the requester's file, held to their plan as when it was opened.
  const limitOwner = secret.response ? ((await ports.requests.get(secret.response.requestId))?.ownerId ?? null) : (secret.ownerId ?? null);
  const limit = await fileLimitOf(limitOwner, ports);
  if (size === null || size !== secret.sizeBytes || size > limit) {
    // Nothing the declared size or the plan allows: the upload is over, and so is the secret.
    await endSecret(secret.id, 'revoked', ports);
    await ports.uploads.abort(key, uploadId);
    const bigger = size !== null && (size > secret.sizeBytes || size > limit);
    if (bigger) {
      throw new TooLarge(`The file is ${size} bytes: more than the ${Math.min(secret.sizeBytes, limit)} declared or allowed.`, {
        facts: { size_bytes: size },
      });
    }
    throw conflict('size_mismatch', `The file is ${size ?? 0} bytes, not the ${secret.sizeBytes} declared.`, { size_bytes: size ?? 0 });
  }
  const envelopeFormat = await fileEnvelopeFormat(key, secret, ports);
  if (envelopeFormat === 'mismatch' || !keepsDeclaredPassphrase(secret, envelopeFormat)) {
    await endSecret(secret.id, 'revoked', ports);
    await ports.uploads.remove(key);
    throw conflict(
      'envelope_mismatch',
      'The file’s envelope header does not match this upload: a file envelope with the salt and chunk size declared when it was opened (and, in a workspace, the passphrase).',
    );
  }
  if (secret.response) {
    await completeRequestFile({ ...secret, response: secret.response }, uploadId, envelopeFormat, ports);
    return { ...secret, state: 'active' };
  }
  if (!(await ports.secrets.activateFile(secret.id, uploadId, envelopeFormat))) {
    // An abort (or the stale-upload sweep) won the race, perhaps before S3 completed: the object
    // this completion made must go too.
    await ports.uploads.remove(key);
    throw conflict('not_pending', 'This upload was aborted while it was being completed.');
  }
  return { ...secret, state: 'active', ...(envelopeFormat ? { envelopeFormat } : {}) };
}

/**
 * Reads the completed object's envelope header (the server never sees a file's bytes otherwise;
 * the header is public): one in our format must be a file's, with the salt and chunk size this
 * upload declared, and its passphrase flag and KDF cost are kept for the reveal page, as for
 * text. An envelope of another format is stored as it is.
 */
async function fileEnvelopeFormat(key: string, secret: Secret, ports: FinishPorts): Promise<Secret['envelopeFormat'] | 'mismatch'> {
  let bytes = await ports.uploads.firstBytes(key, FIXED_HEADER_BYTES + MAC_BYTES);
  if (!startsWithMagic(bytes)) return undefined;
  // A header with a stanza is longer than the fixed part; its length is in bytes 10-11.
  const declared = bytes.length >= 12 ? (bytes[10]! << 8) | bytes[11]! : 0;
  if (declared > bytes.length) bytes = await ports.uploads.firstBytes(key, declared);
  try {
    const header = parseHeader(bytes);
    const salt = Buffer.from(header.salt).toString('base64url');
    if (header.kind !== 'file' || salt !== secret.salt || header.chunkLog2 !== secret.upload!.chunkLog2) return 'mismatch';
    return { passphrase: header.passphrase, kdfIterations: header.iterations };
  } catch (error) {
    if (error instanceof EnvelopeError) return 'mismatch';
    throw error;
  }
}

/**
 * A file sent in a workspace was held to its policy on the passphrase it declared: its header
 * must say the same, or a client could pass a passphrase rule by declaring one it never used.
 * An envelope of another format says nothing, so it cannot be the one that declared a passphrase.
 */
const keepsDeclaredPassphrase = (secret: Secret, envelopeFormat: Secret['envelopeFormat']): boolean =>
  secret.upload?.passphrase === undefined || (envelopeFormat?.passphrase ?? false) === secret.upload.passphrase;
