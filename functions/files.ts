import { awsBucket } from '../shared/adapters/fileObjects.ts';
import { defaultProvider } from '../shared/adapters/lambdaCredentials.ts';
import { S3MultipartUploads, s3Client } from '../shared/adapters/s3Uploads.ts';
import { filesRequests } from '../shared/api/files.ts';
import { toIso } from '../shared/clock.ts';
import { abortFileUpload, completeFileUpload } from '../shared/domain/files/complete.ts';
import { resumeFileUpload, startFileUpload, type FilePorts, type OpenedUpload } from '../shared/domain/files/upload.ts';
import { apiDeps, type ApiDeps } from './shared/apiDeps.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { secretLimits } from '../shared/limits.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { filesRoutes } from '../shared/routes.ts';
import { DynamoCounters } from '../shared/store/counters.ts';
import { DynamoHostClaims } from '../shared/store/hostClaims.ts';
import { linkOrigin } from '../shared/domain/domains/linkHosts.ts';
import type { Config } from '../shared/config.ts';
import { DynamoRequestStore } from '../shared/store/requests.ts';
import { DynamoSecretStore } from '../shared/store/secrets.ts';
import { DynamoTierSource } from '../shared/store/tiers.ts';
import { DynamoWorkspaceMembership } from '../shared/store/workspaceMembership.ts';
import { createdLink } from './secrets/replies.ts';
import { completedParts, newFileUpload, uploadRef } from './files/inputs.ts';

/** An upload as the client gets it: every part's URL, and where the secret will be. */
const uploadReply = (opened: OpenedUpload, config: Config) => {
  const { secret } = opened;
  const origin = linkOrigin(secret.linkHost, config);
  return {
    id: secret.id,
    upload_id: secret.upload!.id,
    part_size: secret.upload!.partSize,
    part_count: secret.upload!.partCount,
    parts: opened.parts.map((part) => ({ part_number: part.partNumber, url: part.url })),
    urls_expire_at: toIso(opened.urlsExpireAt),
    url_base: `${origin}/s/${secret.id}`,
    delete_token: opened.deleteToken,
    expires_at: toIso(secret.expiresAt),
    ...(secret.recipients ? { recipients: secret.recipients.map(createdLink(origin, secret.id)) } : {}),
    ...(opened.uploaded
      ? { uploaded: opened.uploaded.map((part) => ({ part_number: part.partNumber, etag: part.etag, size: part.size })) }
      : {}),
  };
};

export const operations: Operations<'files', FilesDeps> = {
  async openFileUpload(request, deps) {
    const opened =
      'resume' in request.body
        ? await resumeFileUpload(uploadRef(request.body.resume), deps)
        : await startFileUpload(newFileUpload(request.body), request.principal?.userId ?? null, request.hostClaim, deps);
    return { status: 200, body: uploadReply(opened, deps.config) };
  },

  async completeFileUpload(request, deps) {
    const { state, secret } = await completeFileUpload(completedParts(request.body), deps);
    // A large upload: the completion sweep finishes it, and the secret's metadata says pending until then.
    if (state === 'completing') return { status: 202, body: { id: secret.id, state: 'completing', size_bytes: secret.sizeBytes } };
    return { status: 200, body: { id: secret.id, state: 'active', size_bytes: secret.sizeBytes } };
  },

  async abortFileUpload(request, deps) {
    await abortFileUpload(uploadRef(request.body), deps);
    return { status: 200, body: { id: request.body.id, state: 'revoked' } };
  },
};

/**
 * The files group's wiring: the secret store, the callers' plans, request links (file
 * responses), the membership read of files sent inside a workspace with its verified
 * hostnames, and the bucket's multipart uploads (its S3 client).
 */
export type FilesDeps = ApiDeps & FilePorts;

export function compose(platform: Platform, adapters: Pick<Adapters, 'uploads'>): FilesDeps {
  const { db, config } = platform;
  return {
    ...apiDeps(platform),
    secrets: new DynamoSecretStore(db, config.TABLE_NAME, secretLimits.tombstoneSeconds),
    counters: new DynamoCounters(db, config.TABLE_NAME),
    tiers: new DynamoTierSource(db, config.TABLE_NAME),
    requests: new DynamoRequestStore(db, config.TABLE_NAME),
    workspaceMembership: new DynamoWorkspaceMembership(db, config.TABLE_NAME),
    hostClaims: new DynamoHostClaims(db, config.TABLE_NAME),
    uploads: adapters.uploads,
  };
}

export const createHandler = (deps: FilesDeps) => groupHandler(filesRoutes, operations, filesRequests, deps);
export const handler = lambdaEntry((platform) => {
  const bucket = awsBucket(platform.config, defaultProvider());
  return createHandler(compose(platform, { uploads: new S3MultipartUploads(s3Client(bucket), bucket.bucket) }));
});
