/**
 * The calls of files (interface §4.2), on `api.ts`'s `call`: opening, completing and aborting
 * a multipart upload, and the caller's plan. The file's bytes never go through these: they go
 * to the files bucket by the presigned URLs the upload answers (`fileUpload.ts`), and come back
 * by the claim's presigned GET (`fileDownload.ts`).
 */
import { call, type CreatedLink, type RecipientRequest } from './api.ts';

export interface FileUploadBody {
  /** The whole envelope's length: header, encrypted meta block (name, type, size) and chunks. */
  size_bytes: number;
  salt: string;
  claim_verifier: string;
  link_verifier: string;
  expires_in: number;
  max_views: number;
  chunk_log2: number;
  not_before?: string;
  recipients?: RecipientRequest[];
  /** Sealed with a passphrase (the header says so too): what a workspace's policy is checked on. */
  passphrase?: boolean;
  /** Sent inside this workspace (the caller is a member): its policy must allow the file. */
  workspace_id?: string;
}

export interface FileUpload {
  id: string;
  upload_id: string;
  /** Every part but the last is this long: part p is envelope bytes [(p-1)·part_size, p·part_size). */
  part_size: number;
  part_count: number;
  /** A presigned UploadPart URL for each part still to send. */
  parts: Array<{ part_number: number; url: string }>;
  urls_expire_at: string;
  url_base: string;
  delete_token: string;
  expires_at: string;
  recipients?: CreatedLink[];
  /** Resuming: the parts the bucket holds already. */
  uploaded?: Array<{ part_number: number; etag: string; size: number }>;
}

export interface UploadRef {
  id: string;
  upload_id: string;
  delete_token: string;
}

/** A file's claim: the view is the presigned GET (it accepts `Range`), working until `download.expires_at`. */
export interface ClaimedFile {
  kind: 'file';
  id: string;
  salt: string;
  /** The whole envelope's length. */
  size_bytes: number;
  views_left: number;
  expires_at: string;
  download: { url: string; expires_at: string };
}

export type Plan = 'free' | 'pro' | 'team' | 'enterprise';

export const filesApi = {
  /** With an access token the caller owns the secret, and its plan sets the largest file. */
  openUpload: (body: FileUploadBody, token?: string) => call<FileUpload>('POST', '/v1/files/multipart', { json: body, token }),
  /** Fresh URLs for the parts the bucket does not have yet (the first ones ran out). */
  resumeUpload: (ref: UploadRef) => call<FileUpload>('POST', '/v1/files/multipart', { json: { resume: ref } }),
  completeUpload: (ref: UploadRef, parts: Array<{ part_number: number; etag: string }>) =>
    call<{ id: string; state: 'active'; size_bytes: number }>('POST', '/v1/files/multipart/complete', { json: { ...ref, parts } }),
  abortUpload: (ref: UploadRef) => call<{ id: string; state: 'revoked' }>('POST', '/v1/files/multipart/abort', { json: ref }),
  /** The signed-in caller's plan (and usage). */
  usage: (token: string) => call<{ plan: Plan }>('GET', '/v1/usage', { token }),
};

/**
 * Aborts an upload as the page goes away (closed, reloaded, navigated): a `keepalive` request
 * outlives the page, so the parts sent so far are deleted now rather than by the day-old sweep.
 */
export function abortOnLeave(ref: UploadRef): void {
  void fetch('/v1/files/multipart/abort', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(ref),
    keepalive: true,
    cache: 'no-store',
    credentials: 'same-origin',
    referrerPolicy: 'no-referrer',
    redirect: 'error',
  }).catch(() => undefined);
}
