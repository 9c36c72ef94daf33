import type { Config } from '../../config.ts';
import type { Clock } from '../../clock.ts';
import { TAG_BYTES } from '../../envelope/format.ts';
import { fileLimits } from '../../limits.ts';
import { effectiveTier, type TierSource } from '../billing/tier.ts';
import { planTable } from '../plans.ts';
import { Forbidden } from '../refusals.ts';
import {
  secretSettings,
  sentIn,
  storeSecret,
  type CreatedSecret,
  type NewSecretFields,
  type SecretSettings,
  type SendingPlace,
} from '../secrets/create.ts';
import { holdsDeleteToken } from '../secrets/read.ts';
import { secretIdPattern } from '../secrets/rules.ts';
import type { Secret } from '../secrets/model.ts';
import type { SecretPorts } from '../secrets/ports.ts';
import { keepUntil } from '../requests/model.ts';
import { assertSendInWorkspace, type WorkspaceMembershipPorts } from '../workspaces/membership.ts';
import type { LinkHostPorts } from '../domains/linkHosts.ts';
import type { HostClaim } from '../domains/model.ts';
import { objectKeyOf, type MultipartUploads, type StoredPart } from './ports.ts';
import { requestFileTarget, type FileResponse, type RequestFilePorts } from './requestFiles.ts';

export interface FilePorts extends SecretPorts, RequestFilePorts, WorkspaceMembershipPorts, LinkHostPorts {
  uploads: MultipartUploads;
  tiers: TierSource;
  clock: Clock;
  /** Where links point, and the largest upload completed inside the request. */
  config: LinkHostPorts['config'] & Pick<Config, 'INLINE_COMPLETION_BYTES'>;
}

/**
 * A file as its sender asks to upload it: the envelope's length and chunk size, the secret's
 * settings, where it is sent, and whether it is sealed with a passphrase, as its header will say
 * (a workspace's policy is checked on this at opening; completion holds the header to it). Or
 * a response to a request link, which is the requester's: no recipients, no workspace.
 */
export interface NewFileUpload extends SecretSettings, SendingPlace {
  sizeBytes: number;
  chunkLog2: number;
  passphrase: boolean;
  response?: FileResponse | undefined;
}

/** An upload as its holder names it again: the secret, its multipart upload, and the delete token. */
export interface UploadRef {
  id: string;
  uploadId: string;
  deleteToken: string;
}

/** How an envelope of `sizeBytes` is cut: whole chunks per part, at least 8 MiB, at most 1,000 parts. */
export function partsOf(sizeBytes: number, chunkLog2: number): { partSize: number; partCount: number } {
  const chunkBytes = 2 ** chunkLog2 + TAG_BYTES;
  const chunksPerPart = Math.max(Math.ceil(fileLimits.minPartBytes / chunkBytes), Math.ceil(sizeBytes / fileLimits.maxParts / chunkBytes));
  const partSize = chunksPerPart * chunkBytes;
  return { partSize, partCount: Math.max(1, Math.ceil(sizeBytes / partSize)) };
}

/** Part `partNumber`'s exact length in an envelope of `sizeBytes` cut in `partSize` parts: the last holds the rest. */
export const partLength = (sizeBytes: number, partSize: number, partNumber: number): number =>
  Math.max(0, Math.min(partSize, sizeBytes - (partNumber - 1) * partSize));

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
 * With a `workspaceId` the caller must be a member and the file satisfy the workspace's
 * policy, before anything is uploaded; its passphrase is the one declared, which completion
 * holds its header to. With a `hostname` too, its links are on that hostname of the workspace's.
 * A response goes to a request link as its responders reach it on `hostClaim`'s host.
 */
export async function startFileUpload(
  input: NewFileUpload,
  caller: string | null,
  hostClaim: HostClaim | null,
  ports: FilePorts,
): Promise<OpenedUpload> {
  // A response to a request link is the requester's file: their plan bounds it, nobody owns its secret.
  const { response } = input;
  const link = response ? await requestFileTarget(response, hostClaim, ports) : null;
  const ownerId = link ? null : caller;
  const limit = await fileLimitOf(link?.ownerId ?? ownerId, ports);
  if (input.sizeBytes > limit) {
    throw new Forbidden(`Files are limited to ${limit} bytes on your plan.`, { facts: { reason: 'plan_limit', limit_bytes: limit } });
  }
  const settings = secretSettings(
    link ? { ...input, expiresInSeconds: Math.ceil((keepUntil(link) - ports.clock.now()) / 1000) } : input,
    ports,
  );
  const { workspaceId } = input;
  let inWorkspace: Pick<NewSecretFields, 'workspaceId' | 'linkHost'> = {};
  if (workspaceId !== undefined) {
    const { expiresInSeconds: expiresIn, maxViews, passphrase, recipients = [], sizeBytes } = input;
    await assertSendInWorkspace(workspaceId, caller, { kind: 'file', expiresIn, maxViews, passphrase, recipients, sizeBytes }, ports);
    inWorkspace = await sentIn(workspaceId, input.hostname, ports);
  }
  // In a workspace the passphrase declared is kept: completion holds the header to it.
  const declared = workspaceId === undefined ? {} : { passphrase: input.passphrase };
  const { partSize, partCount } = partsOf(input.sizeBytes, input.chunkLog2);
  const created: CreatedSecret = await storeSecret(
    {
      kind: 'file',
      sizeBytes: input.sizeBytes,
      ...settings,
      ...(response ? { response: { requestId: response.requestId, enc: response.enc, wrappedKey: response.wrappedKey } } : {}),
      upload: (secretId) =>
        ports.uploads.start(objectKeyOf(secretId)).then((id) => ({ id, partSize, partCount, chunkLog2: input.chunkLog2, ...declared })),
      ...inWorkspace,
    },
    ownerId,
    ports,
  );
  return {
    ...created,
    ...(await partUrls(
      created.secret,
      Array.from({ length: partCount }, (_, i) => i + 1),
      ports,
    )),
  };
}

/**
 * Carries on with an upload: fresh URLs for the parts S3 does not have, and those it has. Only
 * the holder of the delete token may, and only while the file is still uploading (else
 * forbidden: the interface lists no 404 here).
 */
export async function resumeFileUpload(ref: UploadRef, ports: FilePorts): Promise<OpenedUpload> {
  const refused = () => new Forbidden('No upload of yours is pending under these ids.', { facts: { reason: 'no_pending_upload' } });
  const secret = secretIdPattern.test(ref.id) ? await ports.secrets.get(ref.id) : null;
  if (!secret || !holdsDeleteToken(secret, ref.deleteToken) || secret.state !== 'pending' || secret.upload?.id !== ref.uploadId)
    throw refused();
  const uploaded = await ports.uploads.parts(objectKeyOf(secret.id), ref.uploadId);
  if (!uploaded) throw refused();
  const have = new Set(uploaded.map((part) => part.partNumber));
  const missing = Array.from({ length: secret.upload.partCount }, (_, i) => i + 1).filter((number) => !have.has(number));
  return { secret, deleteToken: ref.deleteToken, uploaded, ...(await partUrls(secret, missing, ports)) };
}

/** Each URL is signed for its part's exact length: S3 stores nothing longer (or shorter) under it. */
async function partUrls(secret: Secret, numbers: number[], ports: FilePorts) {
  const urlsExpireAt = ports.clock.now() + fileLimits.partUrlSeconds * 1000;
  const { id: uploadId, partSize } = secret.upload!;
  const parts = await Promise.all(
    numbers.map(async (partNumber) => ({
      partNumber,
      url: await ports.uploads.partUrl(
        objectKeyOf(secret.id),
        uploadId,
        partNumber,
        partLength(secret.sizeBytes, partSize, partNumber),
        fileLimits.partUrlSeconds,
      ),
    })),
  );
  return { parts, urlsExpireAt };
}
