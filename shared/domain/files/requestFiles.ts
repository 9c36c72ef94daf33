import { newResponseId } from '../../ids.ts';
import type { HostClaim } from '../domains/model.ts';
import { Conflict, Forbidden } from '../refusals.ts';
import { findRequestLinkOn } from '../requests/links.ts';
import { keepUntil, refusalOf, type RequestLink, type SealedResponse, type WrappedKey } from '../requests/model.ts';
import type { RequestStore } from '../requests/ports.ts';
import { checkWrappedKey } from '../requests/responses.ts';
import { endSecret } from '../secrets/end.ts';
import type { Secret } from '../secrets/model.ts';
import type { SecretPorts } from '../secrets/ports.ts';
import { objectKeyOf, type MultipartUploads } from './ports.ts';

/** A file sent in response to a request link: the link's id, and the file's key wrapped to the requester. */
export interface FileResponse extends WrappedKey {
  requestId: string;
}

/** What a file response needs of the request links besides the secrets. */
export interface RequestFilePorts extends SecretPorts {
  requests: RequestStore;
  uploads: Pick<MultipartUploads, 'remove'>;
}

/**
 * The link a file response goes to, while it takes responses (as responders reach it on
 * `hostClaim`'s host). The files route lists no 404 or 410, so every refusal is forbidden with
 * its reason (`request_not_found`, `request_closed`, `request_expired`, `request_full`); the file
 * is the requester's, so their plan bounds it.
 */
export async function requestFileTarget(
  response: FileResponse,
  hostClaim: HostClaim | null,
  ports: RequestFilePorts,
): Promise<RequestLink> {
  const link = await findRequestLinkOn(response.requestId, hostClaim, ports);
  const refusal = link ? refusalOf(link, ports.clock.now()) : 'not_found';
  if (!link || refusal) {
    throw new Forbidden(`This request link takes no responses (${refusal}).`, { facts: { reason: `request_${refusal}` } });
  }
  checkWrappedKey(response, link.kem);
  return link;
}

/**
 * A file response's upload has completed (S3 made the object and it was measured): the link
 * counts it, the inbox lists it and its secret becomes active, in one write. A link that took
 * no more meanwhile (a conflict with why), an abort that won (`not_pending`) or a write that kept
 * meeting others (`busy`) leaves no object behind.
 */
export async function completeRequestFile(
  secret: Secret & { response: NonNullable<Secret['response']> },
  uploadId: string,
  envelopeFormat: Secret['envelopeFormat'],
  ports: RequestFilePorts,
): Promise<void> {
  const now = ports.clock.now();
  const link = await ports.requests.get(secret.response.requestId);
  const response: SealedResponse = {
    id: newResponseId(),
    requestId: secret.response.requestId,
    createdAt: now,
    salt: secret.salt,
    sizeBytes: secret.sizeBytes,
    enc: secret.response.enc,
    wrappedKey: secret.response.wrappedKey,
    sealed: { kind: 'file', secretId: secret.id },
  };
  const outcome = link
    ? await ports.requests.addFileResponse(response, { secret, uploadId, envelopeFormat }, keepUntil(link), now)
    : 'refused';
  if (outcome === 'added') return;
  if (outcome !== 'not_pending') await endSecret(secret.id, 'revoked', ports);
  await ports.uploads.remove(objectKeyOf(secret.id));
  const conflict = (reason: string, detail: string) => new Conflict(detail, { facts: { reason } });
  if (outcome === 'not_pending') throw conflict('not_pending', 'This upload was aborted while it was being completed.');
  if (outcome === 'busy') throw conflict('busy', 'Many responses reached this request link at once; send the file again.');
  const refusal =
    (await ports.requests.get(secret.response.requestId).then((again) => (again ? refusalOf(again, now) : 'not_found'))) ?? 'full';
  throw conflict(`request_${refusal}`, `The request link took no more responses (${refusal}); the file was not kept.`);
}
