import { Conflict, NotFound, TooLarge } from '../refusals.ts';
import { endSecret } from '../secrets/end.ts';
import type { Secret } from '../secrets/model.ts';
import { holdsDeleteToken } from '../secrets/read.ts';
import { secretIdPattern } from '../secrets/rules.ts';
import { finishCompletion, refusalDetail } from './finish.ts';
import { objectKeyOf, type StoredPart } from './ports.ts';
import { partLength, type FilePorts, type UploadRef } from './upload.ts';

/** A completion: the upload, and the ETag S3 answered each part's upload with. */
export interface CompletedParts extends UploadRef {
  parts: ReadonlyArray<{ partNumber: number; etag: string }>;
}

/** The file an upload reference names, if its delete token holds, in whatever state; null for anything else. */
async function uploadOf(ref: UploadRef, ports: FilePorts): Promise<Secret | null> {
  const secret = secretIdPattern.test(ref.id) ? await ports.secrets.get(ref.id) : null;
  return secret && holdsDeleteToken(secret, ref.deleteToken) && secret.upload?.id === ref.uploadId ? secret : null;
}

/** The pending file an upload reference names, if its delete token holds; null for anything else. */
async function pendingUpload(ref: UploadRef, ports: FilePorts): Promise<Secret | null> {
  const secret = await uploadOf(ref, ports);
  return secret?.state === 'pending' ? secret : null;
}

const conflict = (reason: string, detail: string, facts: Record<string, unknown> = {}) =>
  new Conflict(detail, { facts: { reason, ...facts } });

/**
 * A completion's answer: `active` when it finished inside the request; `completing` when the
 * upload is large and the completion sweep finishes it (completions.ts), the secret pending
 * until then.
 */
export type CompletionOutcome = { state: 'active'; secret: Secret } | { state: 'completing'; secret: Secret };

/** S3 answers an ETag quoted; a client may send it bare. */
const bareEtag = (etag: string) => etag.replace(/^"(.*)"$/, '$1');

/**
 * Completes a file's upload and activates its secret. The parts must be exactly 1…part_count,
 * each once (a conflict otherwise, as for an ETag S3 does not know), and each S3 holds exactly
 * its share of the declared size (`checkPartSizes`); S3 then checks the ETags, and the object is
 * measured and read (finish.ts). An upload larger than `INLINE_COMPLETION_BYTES` is left to the
 * completion sweep once its ETags match the parts S3 holds, since S3 may take minutes to
 * complete it: the answer is `completing`, and asking again while it is says the same; once done,
 * `active`, as for an upload completed inside its request and asked again. So a client waits on
 * a background completion by asking again (a response's secret has no metadata to look at).
 */
export async function completeFileUpload(ref: CompletedParts, ports: FilePorts): Promise<CompletionOutcome> {
  const secret = await uploadOf(ref, ports);
  // Asked again once done (a retry after a lost answer, or a client waiting on a background
  // completion): the same answer. Ended in any other way, it is no longer pending.
  if (secret?.state === 'active') return { state: 'active', secret };
  if (secret?.state !== 'pending') throw conflict('not_pending', 'No upload of yours is pending under these ids.');
  if (secret.upload!.completion) return { state: 'completing', secret };
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

  const stored = await checkPartSizes(secret, ref.uploadId, ports);
  const parts = [...ref.parts]
    .sort((a, b) => a.partNumber - b.partNumber)
    .map((part) => ({ partNumber: part.partNumber, etag: part.etag }));
  if (secret.sizeBytes <= ports.config.INLINE_COMPLETION_BYTES) {
    return { state: 'active', secret: await finishCompletion(secret, ref.uploadId, parts, ports) };
  }
  // Checked here, as S3 would: a wrong ETag is still this request's conflict, not a failure later.
  const held = new Map(stored.map((part) => [part.partNumber, bareEtag(part.etag)]));
  if (parts.some((part) => held.get(part.partNumber) !== bareEtag(part.etag))) throw conflict(...refusalDetail.invalid_part);
  if (!(await ports.secrets.markCompleting(secret.id, ref.uploadId, ports.clock.now()))) {
    // A completion asked for at the same moment, or an abort, got there first.
    const now = await pendingUpload(ref, ports);
    if (now?.upload?.completion) return { state: 'completing', secret: now };
    throw conflict('not_pending', 'This upload was aborted while it was being completed.');
  }
  return { state: 'completing', secret };
}

/**
 * Every part S3 holds of 1…part_count must be exactly its share of the declared envelope (its
 * URL was signed for that length; one signed before lengths were, or a part sent another way,
 * could hold anything). One that is not ends the upload at once, as an object of the wrong size
 * does, so its bytes go now and not with the stale-upload sweep a day later: too large when it
 * is longer than its share, else a conflict, `size_mismatch`. A part S3 does not hold is S3's to refuse.
 */
async function checkPartSizes(secret: Secret, uploadId: string, ports: FilePorts): Promise<StoredPart[]> {
  const key = objectKeyOf(secret.id);
  const { partSize, partCount } = secret.upload!;
  const stored = await ports.uploads.parts(key, uploadId);
  if (stored === null) throw conflict(...refusalDetail.no_such_upload);
  const expected = (partNumber: number) => partLength(secret.sizeBytes, partSize, partNumber);
  const wrong = stored.find((part) => part.partNumber <= partCount && part.size !== expected(part.partNumber));
  if (!wrong) return stored;
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

/** Aborts a file's upload: its parts are deleted and its secret revoked. Not found for an upload that is not pending. */
export async function abortFileUpload(ref: UploadRef, ports: FilePorts): Promise<void> {
  const secret = await pendingUpload(ref, ports);
  if (!secret || !(await endSecret(secret.id, 'revoked', ports))) throw new NotFound('No upload of yours is pending under these ids.');
  // At once, as asked; the relay also removes what a completion racing this one might have made.
  await ports.uploads.abort(objectKeyOf(secret.id), ref.uploadId);
}
