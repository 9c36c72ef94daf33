/**
 * The calls of request links (interface §4.3), on `api.ts`'s `call`: the requester's (a session:
 * create, list, close, inbox) and the responder's two public ones (the link, a response), and a
 * file response's upload, which goes through the files routes with the link's id. Requests carry
 * public keys, sealed prompts, ciphertext and wrapped keys only; the link's fingerprint and
 * secret `s` stay in the fragment and in this browser.
 */
import { call, type Page } from './api.ts';
import type { FileUpload } from './filesApi.ts';

export type RequestKem = 'x25519' | 'p256';

export interface CreateRequestBody {
  public_key: string;
  kem: RequestKem;
  /** Standard base64 of the prompt's envelope, sealed under a key from `s`. */
  prompt_envelope?: string;
  expires_in: number;
  max_responses: number;
}

export interface CreatedRequest {
  id: string;
  /** `/q/<id>` on the web origin: the link is this, `#`, and the fragment. */
  url_base: string;
  expires_at: string;
}

/** A request link of the signed-in user, as `GET /v1/requests` lists it. */
export interface OwnedRequest {
  id: string;
  /** Taking responses: neither closed nor expired, and not full. */
  open: boolean;
  created_at: string;
  expires_at: string;
  responses: number;
  max_responses: number;
}

/** What a responder's page reads: never who asked. */
export interface ServedRequest {
  id: string;
  public_key: string;
  kem: RequestKem;
  prompt_envelope: string | null;
  open: boolean;
  expires_at: string;
  responses_left: number;
}

interface SealedResponseFields {
  response_id: string;
  created_at: string;
  salt: string;
  /** The envelope's length. */
  size_bytes: number;
  enc: string;
  wrapped_key: string;
}

/** A response in the inbox: a text's envelope, or a file's presigned download (15 minutes). */
export type InboxItem =
  | (SealedResponseFields & { kind: 'text'; envelope: string })
  | (SealedResponseFields & { kind: 'file'; download: { url: string; expires_at: string } });

export interface TextResponseBody {
  kind: 'text';
  envelope: string;
  salt: string;
  size_bytes: number;
  enc: string;
  wrapped_key: string;
}

/** A file response's upload: the envelope's length and salt, and the key wrapped to the requester (no verifiers: no claim reaches it). */
export interface FileResponseUploadBody {
  size_bytes: number;
  salt: string;
  chunk_log2: number;
  request_id: string;
  enc: string;
  wrapped_key: string;
}

export const requestPath = (id: string) => `/v1/requests/${encodeURIComponent(id)}`;

export const requestsApi = {
  create: (token: string, body: CreateRequestBody) => call<CreatedRequest>('POST', '/v1/requests', { json: body, token }),
  list: (token: string, limit: number, cursor: string | null) =>
    call<Page<OwnedRequest>>('GET', `/v1/requests?${new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) }).toString()}`, { token }),
  /** Responses already in stay readable. Closing a closed link answers the same. */
  close: (token: string, id: string) => call<{ id: string; open: false }>('DELETE', requestPath(id), { token }),
  inbox: (token: string, id: string, limit: number, cursor: string | null) =>
    call<Page<InboxItem>>('GET', `${requestPath(id)}/inbox?${new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) }).toString()}`, { token }),
  /** Public: the link's key and sealed prompt. 404, or 410 with `reason` closed or expired. */
  read: (id: string) => call<ServedRequest>('GET', requestPath(id)),
  /** Public: 409 `request_full`, 410 closed or expired, 429. */
  respond: (id: string, body: TextResponseBody) => call<{ response_id: string }>('POST', `${requestPath(id)}/responses`, { json: body }),
  /** Public: 403 with `reason` request_closed, request_full, request_expired, request_not_found or plan_limit. */
  openFileResponse: (body: FileResponseUploadBody) => call<FileUpload>('POST', '/v1/files/multipart', { json: body }),
};
