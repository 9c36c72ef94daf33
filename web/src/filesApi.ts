/**
 * The calls of files (interface §4.2), on `api.ts`'s `call`: opening, completing and aborting
 * a multipart upload, and the caller's plan. The file's bytes never go through these: they go
 * to the files bucket by the presigned URLs the upload answers (`fileUpload.ts`), and come back
 * by the claim's presigned GET (`fileDownload.ts`).
 */
import type * as z from 'zod/mini';
import type { accountReplies } from '../../shared/api/accountReplies.ts';
import type { filesRequests } from '../../shared/api/files.ts';
import type { filesReplies } from '../../shared/api/filesReplies.ts';
import { call, type ClaimedSecret } from './api.ts';

type NewUploadRequest = Exclude<z.input<typeof filesRequests.FileUploadRequest>, { resume: unknown }>;
/**
 * A new upload's body (not a `resume`): the envelope's length and the secret's public parameters;
 * the page always sends both verifiers (a claim must prove the link), which the contract leaves optional.
 */
export type FileUploadBody = NewUploadRequest & Required<Pick<NewUploadRequest, 'claim_verifier' | 'link_verifier'>>;
export type FileUpload = z.output<typeof filesReplies.FileUpload>;
/** An upload as it is named again (complete, abort, resume): the secret, its upload and its delete token. */
export type UploadRef = z.input<typeof filesRequests.AbortUploadRequest>;
/** A file's claim: the view is the presigned GET (it accepts `Range`), working until `download.expires_at`. */
export type ClaimedFile = Extract<ClaimedSecret, { kind: 'file' }>;
export type Plan = z.output<typeof accountReplies.Usage>['plan'];

export const filesApi = {
  /** With an access token the caller owns the secret, and its plan sets the largest file. */
  openUpload: (body: FileUploadBody, token?: string) => call<FileUpload>('POST', '/v1/files/multipart', { json: body, token }),
  /** Fresh URLs for the parts the bucket does not have yet (the first ones ran out). */
  resumeUpload: (ref: UploadRef) => call<FileUpload>('POST', '/v1/files/multipart', { json: { resume: ref } }),
  /** 200 `active`; or 202 `completing`: a large upload the service completes in the background (poll the secret). */
  completeUpload: (ref: UploadRef, parts: z.input<typeof filesRequests.CompleteUploadRequest>['parts']) =>
    call<z.output<typeof filesReplies.CompletedUpload> | z.output<typeof filesReplies.CompletingUpload>>(
      'POST',
      '/v1/files/multipart/complete',
      { json: { ...ref, parts } },
    ),
  abortUpload: (ref: UploadRef) => call<z.output<typeof filesReplies.AbortedUpload>>('POST', '/v1/files/multipart/abort', { json: ref }),
  /** The signed-in caller's plan (and usage). */
  usage: (token: string) => call<z.output<typeof accountReplies.Usage>>('GET', '/v1/usage', { token }),
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
