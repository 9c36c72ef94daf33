/**
 * The calls of request links (interface §4.3), on `api.ts`'s `call`: the requester's (a session:
 * create, list, close, inbox) and the responder's two public ones (the link, a response), and a
 * file response's upload, which goes through the files routes with the link's id. Requests carry
 * public keys, sealed prompts, ciphertext and wrapped keys only; the link's fingerprint and
 * secret `s` stay in the fragment and in this browser.
 */
import type * as z from 'zod/mini';
import type { requestsRequests } from '../../shared/api/requests.ts';
import type { requestsReplies } from '../../shared/api/requestsReplies.ts';
import { call, pageQuery } from './api.ts';
import type { FileUpload, FileUploadBody } from './filesApi.ts';

type Reply<K extends keyof typeof requestsReplies> = z.output<(typeof requestsReplies)[K]>;

export type CreateRequestBody = z.input<typeof requestsRequests.CreateRequestRequest>;
/** `url_base` is `/q/<id>` on the web origin: the link is it, `#`, and the fragment. */
export type CreatedRequest = Reply<'RequestCreated'>;
/** A request link of the signed-in user, as `GET /v1/requests` lists it. */
export type OwnedRequest = Reply<'RequestList'>['items'][number];
/** What a responder's page reads: never who asked. */
export type ServedRequest = Reply<'RequestLink'>;
export type RequestKem = ServedRequest['kem'];
/** A response in the inbox: a text's envelope, or a file's presigned download (15 minutes). */
export type InboxItem = Reply<'Inbox'>['items'][number];
export type TextResponseBody = z.input<typeof requestsRequests.ResponseRequest>;
/** A file response's upload: the envelope's length and salt, and the key wrapped to the requester (no verifiers: no claim reaches it). */
export type FileResponseUploadBody = Pick<FileUploadBody, 'size_bytes' | 'salt' | 'chunk_log2'> &
  Required<Pick<FileUploadBody, 'request_id' | 'enc' | 'wrapped_key'>>;

export const requestPath = (id: string) => `/v1/requests/${encodeURIComponent(id)}`;

export const requestsApi = {
  create: (token: string, body: CreateRequestBody) => call<CreatedRequest>('POST', '/v1/requests', { json: body, token }),
  list: (token: string, limit: number, cursor: string | null) =>
    call<Reply<'RequestList'>>('GET', `/v1/requests?${pageQuery(limit, cursor)}`, { token }),
  /** Responses already in stay readable. Closing a closed link answers the same. */
  close: (token: string, id: string) => call<Reply<'RequestClosed'>>('DELETE', requestPath(id), { token }),
  inbox: (token: string, id: string, limit: number, cursor: string | null) =>
    call<Reply<'Inbox'>>('GET', `${requestPath(id)}/inbox?${pageQuery(limit, cursor)}`, { token }),
  /** Public: the link's key and sealed prompt. 404, or 410 with `reason` closed or expired. */
  read: (id: string) => call<ServedRequest>('GET', requestPath(id)),
  /** Public: 409 `request_full`, 410 closed or expired, 429. */
  respond: (id: string, body: TextResponseBody) => call<Reply<'ResponseCreated'>>('POST', `${requestPath(id)}/responses`, { json: body }),
  /** Public: 403 with `reason` request_closed, request_full, request_expired, request_not_found or plan_limit. */
  openFileResponse: (body: FileResponseUploadBody) => call<FileUpload>('POST', '/v1/files/multipart', { json: body }),
};
