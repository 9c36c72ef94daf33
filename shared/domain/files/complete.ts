import { EnvelopeError } from '../../envelope/errors.ts';
import { FIXED_HEADER_BYTES, MAC_BYTES, parseHeader, startsWithMagic } from '../../envelope/format.ts';
import { Conflict, NotFound, TooLarge } from '../refusals.ts';
import { endSecret } from '../secrets/end.ts';
import type { Secret } from '../secrets/model.ts';
import { holdsDeleteToken } from '../secrets/read.ts';
import { secretIdPattern } from '../secrets/rules.ts';
import { objectKeyOf, type CompleteRefusal } from './ports.ts';
import { completeRequestFile } from './requestFiles.ts';
import { fileLimitOf, partLength, type FilePorts, type UploadRef } from './upload.ts';

/** A completion: the upload, and the ETag S3 answered each part's upload with. */
export interface CompletedParts extends UploadRef {
  parts: ReadonlyArray<{ partNumber: number; etag: string }>;
}

/** The pending file an upload reference names, if its delete token holds; null for anything else. */
async function pendingUpload(ref: UploadRef, ports: FilePorts): Promise<Secret | null> {
  const secret = secretIdPattern.test(ref.id) ? await ports.secrets.get(ref.id) : null;
  if (!secret || !holdsDeleteToken(secret, ref.deleteToken) || secret.upload?.id !== ref.uploadId || secret.state !== 'pending')
    return null;
  return secret;
}

const conflict = (reason: string, detail: string, facts: Record<string, unknown> = {}) =>
  new Conflict(detail, { facts: { reason, ...facts } });

const refusalDetail: Record<CompleteRefusal, [string, string]> = {
  invalid_part: ['mismatched_part', 'A part’s ETag is not the one S3 has for it: send the ETags the part uploads answered.'],
  too_small: ['part_too_small', 'A part other than the last is smaller than 5 MiB: every part but the last must be part_size long.'],
  invalid_order: ['mismatched_part', 'The parts are not in order.'],
  no_such_upload: ['not_pending', 'This upload is no longer pending: it was completed or aborted.'],
};

/**
 * Completes a file's upload and activates its secret. The parts must be exactly 1…part_count,
 * each once (a conflict otherwise, as for an ETag S3 does not know), and each S3 holds exactly its
 * share of the declared size (`checkPartSizes`); S3 then checks the ETags. The object S3 made
 * is measured (HeadObject: never trusted from the client): larger than declared or than the
 * plan allows is too large, any other size a conflict, and either way the secret is revoked and its object
 * deleted. Of a completion and an abort racing, one wins (the activation is conditional on the
 * upload still pending); a completion that lost deletes the object it made.
 */
export async function completeFileUpload(ref: CompletedParts, ports: FilePorts): Promise<Secret> {
  const secret = await pendingUpload(ref, ports);
  if (!secret) throw conflict('not_pending', 'No upload of yours is pending under these ids.');
  const { partCount } = secret.upload!;
  const numbers = ref.parts.map((part) => part.partNumber);
  const duplicate = numbers.find((number, i) => numbers.indexOf(number) !== i);
  if (duplicate !== undefined) throw conflict('duplicate_part', `Part ${duplicate} is listed twice.`, { part_number: duplicate });
  const missing = Array.from({ length: partCount }, (_, i) => i + 1).filter((number) => !numbers.includes(number));
  if (missing.length > 0)
    throw conflict('missing_part', `Parts ${missing.slice(0, 10).join(', ')} are missing.`, { missing_parts: missing.slice(0, 100) });
  const unknown = numbers.find((number) => number > partCount);
  if (unknown !== undefined)
    throw conflict('mismatched_part', `This upload has ${partCount} parts, not ${unknown}.`, { part_number: unknown });

  const key = objectKeyOf(secret.id);
  await checkPartSizes(secret, ref.uploadId, ports);
  const parts = [...ref.parts]
    .sort((a, b) => a.partNumber - b.partNumber)
    .map((part) => ({ partNumber: part.partNumber, etag: part.etag }));
  const completed = await ports.uploads.complete(key, ref.uploadId, parts);
  if (!completed.completed) {
    const [reason, detail] = refusalDetail[completed.reason];
    throw conflict(reason, detail);
  }
  const size = await ports.uploads.size(key);
  // A response is the requester's file, held to their plan as when it was opened.
  const limitOwner = secret.response ? ((await ports.requests.get(secret.response.requestId))?.ownerId ?? null) : (secret.ownerId ?? null);
  const limit = await fileLimitOf(limitOwner, ports);
  if (size === null || size !== secret.sizeBytes || size > limit) {
    // Nothing the declared size or the plan allows: the upload is over, and so is the secret.
    await endSecret(secret.id, 'revoked', ports);
    await ports.uploads.abort(key, ref.uploadId);
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
    await completeRequestFile({ ...secret, response: secret.response }, ref.uploadId, envelopeFormat, ports);
    return { ...secret, state: 'active' };
  }
  if (!(await ports.secrets.activateFile(secret.id, ref.uploadId, envelopeFormat))) {
    // An abort (or the stale-upload sweep) won the race, perhaps before S3 completed: the object
    // this completion made must go too.
    await ports.uploads.remove(key);
    throw conflict('not_pending', 'This upload was aborted while it was being completed.');
  }
  return { ...secret, state: 'active', ...(envelopeFormat ? { envelopeFormat } : {}) };
}

/**
 * Every part S3 holds of 1…part_count must be exactly its share of the declared envelope (its
 * URL was signed for that length; one signed before lengths were, or a part sent another way,
 * could hold anything). One that is not ends the upload at once, as an object of the wrong size
 * does, so its bytes go now and not with the stale-upload sweep a day later: too large when it
 * is longer than its share, else a conflict, `size_mismatch`. A part S3 does not hold is S3's to refuse.
 */
async function checkPartSizes(secret: Secret, uploadId: string, ports: FilePorts): Promise<void> {
  const key = objectKeyOf(secret.id);
  const { partSize, partCount } = secret.upload!;
  const stored = await ports.uploads.parts(key, uploadId);
  if (stored === null) throw conflict(...refusalDetail.no_such_upload);
  const expected = (partNumber: number) => partLength(secret.sizeBytes, partSize, partNumber);
  const wrong = stored.find((part) => part.partNumber <= partCount && part.size !== expected(part.partNumber));
  if (!wrong) return;
  await endSecret(secret.id, 'revoked', ports);
  await ports.uploads.abort(key, uploadId);
  const facts = { part_number: wrong.partNumber, part_bytes: wrong.size, expected_bytes: expected(wrong.partNumber) };
  if (wrong.size > facts.expected_bytes) {
    throw new TooLarge(
      `Part ${wrong.partNumber} is ${wrong.size} bytes: more than the ${facts.expected_bytes} its place in the ${secret.sizeBytes} declared takes.`,
      { facts },
    );
  }
  throw conflict(
    'size_mismatch',
    `Part ${wrong.partNumber} is ${wrong.size} bytes, not the ${facts.expected_bytes} its place in the ${secret.sizeBytes} declared takes.`,
    facts,
  );
}

/**
 * Reads the completed object's envelope header (the server never sees a file's bytes otherwise;
 * the header is public): one in our format must be a file's, with the salt and chunk size this
 * upload declared, and its passphrase flag and KDF cost are kept for the reveal page, as for
 * text. An envelope of another format is stored as it is.
 */
async function fileEnvelopeFormat(key: string, secret: Secret, ports: FilePorts): Promise<Secret['envelopeFormat'] | 'mismatch'> {
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

/** Aborts a file's upload: its parts are deleted and its secret revoked. Not found for an upload that is not pending. */
export async function abortFileUpload(ref: UploadRef, ports: FilePorts): Promise<void> {
  const secret = await pendingUpload(ref, ports);
  if (!secret || !(await endSecret(secret.id, 'revoked', ports))) throw new NotFound('No upload of yours is pending under these ids.');
  // At once, as asked; the relay also removes what a completion racing this one might have made.
  await ports.uploads.abort(objectKeyOf(secret.id), ref.uploadId);
}
