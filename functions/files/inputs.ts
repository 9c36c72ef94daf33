import type { NewUploadRequest } from '../../shared/api/files.ts';
import type { CompletedParts } from '../../shared/domain/files/complete.ts';
import type { NewFileUpload, UploadRef } from '../../shared/domain/files/upload.ts';
import { settingsOf } from '../secrets/inputs.ts';

/** A new upload in the domain's words; a response to a request link when the body names one (the schema takes all three or none). */
export const newFileUpload = (body: NewUploadRequest): NewFileUpload => {
  const { request_id: requestId, enc, wrapped_key: wrappedKey } = body;
  return {
    ...settingsOf(body),
    sizeBytes: body.size_bytes,
    chunkLog2: body.chunk_log2,
    passphrase: body.passphrase,
    workspaceId: body.workspace_id,
    hostname: body.hostname,
    response: requestId === undefined || enc === undefined || wrappedKey === undefined ? undefined : { requestId, enc, wrappedKey },
  };
};

export const uploadRef = (body: { id: string; upload_id: string; delete_token: string }): UploadRef => ({
  id: body.id,
  uploadId: body.upload_id,
  deleteToken: body.delete_token,
});

export const completedParts = (
  body: Parameters<typeof uploadRef>[0] & { parts: Array<{ part_number: number; etag: string }> },
): CompletedParts => ({
  ...uploadRef(body),
  parts: body.parts.map((part) => ({ partNumber: part.part_number, etag: part.etag })),
});
