import type { NewUploadRequest } from '../../api/files.ts';
import type { Clock } from '../../clock.ts';
import { TAG_BYTES } from '../../envelope/format.ts';
import { HttpError } from '../../http/errors.ts';
import { fileLimits } from '../../limits.ts';
import { effectiveTier, type TierSource } from '../billing/tier.ts';
import { planTable } from '../plans.ts';
import { secretSettings, sentIn, storeSecret, type CreatedSecret, type NewSecretFields } from '../secrets/create.ts';
import { holdsDeleteToken } from '../secrets/read.ts';
import { secretIdPattern } from '../secrets/rules.ts';
import type { Secret } from '../secrets/model.ts';
import type { SecretPorts } from '../secrets/ports.ts';
import { keepUntil } from '../requests/model.ts';
import { assertSendInWorkspace, type WorkspaceMembershipPorts } from '../workspaces/membership.ts';
import type { LinkHostPorts } from '../domains/linkHosts.ts';
import type { HostClaim } from '../domains/model.ts';
import { objectKeyOf, type MultipartUploads, type StoredPart } from './ports.ts';
import { requestFileTarget, type RequestFilePorts } from './requestFiles.ts';

export interface FilePorts extends SecretPorts, RequestFilePorts, WorkspaceMembershipPorts, LinkHostPorts {
  uploads: MultipartUploads;
  tiers: TierSource;
  clock: Clock;
}

const isResponse = (request: NewUploadRequest): request is NewUploadRequest & { request_id: string; enc: string; wrapped_key: string } => request.request_id !== undefined;

/** How an envelope of `sizeBytes` is cut: whole chunks per part, at least 8 MiB, at most 1,000 parts. */
export function partsOf(sizeBytes: number, chunkLog2: number): { partSize: number; partCount: number } {
  const chunkBytes = 2 ** chunkLog2 + TAG_BYTES;
  const chunksPerPart = Math.max(Math.ceil(fileLimits.minPartBytes / chunkBytes), Math.ceil(sizeBytes / fileLimits.maxParts / chunkBytes));
  const partSize = chunksPerPart * chunkBytes;
  return { partSize, partCount: Math.max(1, Math.ceil(sizeBytes / partSize)) };
}

/** Part `partNumber`'s exact length in an envelope of `sizeBytes` cut in `partSize` parts: the last holds the rest. */
export const partLength = (sizeBytes: number, partSize: number, partNumber: number): number => Math.max(0, Math.min(partSize, sizeBytes - (partNumber - 1) * partSize));

/** The largest file the caller's tier allows (their plan or a workspace's; anonymous callers: Free's). */
export async function fileLimitOf(ownerId: string | null, ports: Pick<FilePorts, 'tiers'>): Promise<number> {
  return planTable[await effectiveTier(ownerId, ports)].fileBytes;
}

export interface OpenedUpload {
  secret: Secret;
  deleteToken: string;
  parts: Array<{ partNumber: number; url: string }>;
  urlsExpireAt: number;
  /** Resuming: what S3 holds already. */
  uploaded?: StoredPart[];
}

/**
 * Opens a file secret's upload: the secret, `pending` until its upload completes, with a
 * multipart upload begun in the files bucket and a presigned UploadPart URL for each part.
 * The file bytes never pass through the API, and its name and type are inside the envelope.
 * With a `workspace_id` the caller must be a member and the file satisfy the workspace's
 * policy, before anything is uploaded; its passphrase is the one declared, which completion
 * holds its header to. With a `hostname` too, its links are on that hostname of the workspace's.
 * A response goes to a request link as its responders reach it on `hostClaim`'s host.
 */
export async function startFileUpload(request: NewUploadRequest, caller: string | null, hostClaim: HostClaim | null, ports: FilePorts): Promise<OpenedUpload> {
  // A response to a request link is the requester's file: their plan bounds it, nobody owns its secret.
  const link = isResponse(request) ? await requestFileTarget(request, hostClaim, ports) : null;
  const ownerId = link ? null : caller;
  const limit = await fileLimitOf(link?.ownerId ?? ownerId, ports);
  if (request.size_bytes > limit) {
    throw new HttpError(403, 'forbidden', `Files are limited to ${limit} bytes on your plan.`, { members: { reason: 'plan_limit', limit_bytes: limit } });
  }
  const settings = secretSettings(link ? { ...request, expires_in: Math.ceil((keepUntil(link) - ports.clock.now()) / 1000) } : request, ports);
  const workspaceId = request.workspace_id;
  let inWorkspace: Pick<NewSecretFields, 'workspaceId' | 'linkHost'> = {};
  if (workspaceId !== undefined) {
    const { expires_in: expiresIn, max_views: maxViews, passphrase, recipients = [], size_bytes: sizeBytes } = request;
    await assertSendInWorkspace(workspaceId, caller, { kind: 'file', expiresIn, maxViews, passphrase, recipients, sizeBytes }, ports);
    inWorkspace = await sentIn(workspaceId, request.hostname, ports);
  }
  // In a workspace the passphrase declared is kept: completion holds the header to it.
  const declared = workspaceId === undefined ? {} : { passphrase: request.passphrase };
  const { partSize, partCount } = partsOf(request.size_bytes, request.chunk_log2);
  const created: CreatedSecret = await storeSecret(
    {
      kind: 'file',
      sizeBytes: request.size_bytes,
      ...settings,
      ...(isResponse(request) ? { response: { requestId: request.request_id, enc: request.enc, wrappedKey: request.wrapped_key } } : {}),
      upload: (secretId) => ports.uploads.start(objectKeyOf(secretId)).then((id) => ({ id, partSize, partCount, chunkLog2: request.chunk_log2, ...declared })),
      ...inWorkspace,
    },
    ownerId,
    ports,
  );
  return { ...created, ...(await partUrls(created.secret, Array.from({ length: partCount }, (_, i) => i + 1), ports)) };
}

/**
 * Carries on with an upload: fresh URLs for the parts S3 does not have, and those it has. Only
 * the holder of the delete token may, and only while the file is still uploading (else 403:
 * the interface lists no 404 here).
 */
export async function resumeFileUpload(ref: { id: string; upload_id: string; delete_token: string }, ports: FilePorts): Promise<OpenedUpload> {
  const refused = () => new HttpError(403, 'forbidden', 'No upload of yours is pending under these ids.', { members: { reason: 'no_pending_upload' } });
  const secret = secretIdPattern.test(ref.id) ? await ports.secrets.get(ref.id) : null;
  if (!secret || !holdsDeleteToken(secret, ref.delete_token) || secret.state !== 'pending' || secret.upload?.id !== ref.upload_id) throw refused();
  const uploaded = await ports.uploads.parts(objectKeyOf(secret.id), ref.upload_id);
  if (!uploaded) throw refused();
  const have = new Set(uploaded.map((part) => part.partNumber));
  const missing = Array.from({ length: secret.upload.partCount }, (_, i) => i + 1).filter((number) => !have.has(number));
  return { secret, deleteToken: ref.delete_token, uploaded, ...(await partUrls(secret, missing, ports)) };
}

/** Each URL is signed for its part's exact length: S3 stores nothing longer (or shorter) under it. */
async function partUrls(secret: Secret, numbers: number[], ports: FilePorts) {
  const urlsExpireAt = ports.clock.now() + fileLimits.partUrlSeconds * 1000;
  const { id: uploadId, partSize } = secret.upload!;
  const parts = await Promise.all(
    numbers.map(async (partNumber) => ({
      partNumber,
      url: await ports.uploads.partUrl(objectKeyOf(secret.id), uploadId, partNumber, partLength(secret.sizeBytes, partSize, partNumber), fileLimits.partUrlSeconds),
    })),
  );
  return { parts, urlsExpireAt };
}
