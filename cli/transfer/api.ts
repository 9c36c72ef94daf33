import type * as z from 'zod/mini';
import type { filesReplies } from '../../shared/api/filesReplies.ts';
import type { secretsReplies } from '../../shared/api/secretsReplies.ts';
import { ApiError } from './errors.ts';

export type FileUpload = z.output<typeof filesReplies.FileUpload>;
/** 200 `active`, or 202 `completing`: a large upload the service completes in the background. */
export type CompletedUpload = z.output<typeof filesReplies.CompletedUpload> | z.output<typeof filesReplies.CompletingUpload>;
export type SecretMetadata = z.output<typeof secretsReplies.SecretMetadata>;
export type ClaimedFile = Extract<z.output<typeof secretsReplies.ClaimedSecret>, { kind: 'file' }>;
export type ClaimedSecret = z.output<typeof secretsReplies.ClaimedSecret>;
export type UploadRef = { id: string; upload_id: string; delete_token: string };

/** Our clients name themselves on every request (the channel of a view's receipt). */
export const clientHeaders = { 'x-hushlink-client': 'cli' } as const;

/**
 * `fetch` as the caller gives it, else the global one looked up at each call (so whatever
 * wraps the global, as the test suites' contract check does, sees every request).
 */
export type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;
export const fetchOf = (given: Fetch | undefined): Fetch => given ?? ((input, init) => globalThis.fetch(input, init));

export interface ApiOptions {
  /** Where the API is: its origin (`https://hushlink.example`), the `/v1` routes under it. */
  api: string;
  /** An API key or access token, sent as `authorization: Bearer`; uploads without one are anonymous. */
  credential?: string | undefined;
  fetch?: Fetch | undefined;
}

/** The few routes a transfer uses, JSON in and out; a refusal is an ApiError. */
export function transferApi(options: ApiOptions) {
  const fetch = fetchOf(options.fetch);
  const base = options.api.replace(/\/+$/, '');
  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { ...clientHeaders, accept: 'application/json' };
    if (options.credential) headers.authorization = `Bearer ${options.credential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal ? { signal } : {}),
    });
    return answerOf<T>(response, `${method} ${path}`);
  }
  const secretPath = (id: string) => `/v1/secrets/${encodeURIComponent(id)}`;
  return {
    openUpload: (body: Record<string, unknown>, signal?: AbortSignal) => call<FileUpload>('POST', '/v1/files/multipart', body, signal),
    resumeUpload: (resume: UploadRef, signal?: AbortSignal) => call<FileUpload>('POST', '/v1/files/multipart', { resume }, signal),
    completeUpload: (ref: UploadRef, parts: Array<{ part_number: number; etag: string }>, signal?: AbortSignal) =>
      call<CompletedUpload>('POST', '/v1/files/multipart/complete', { ...ref, parts }, signal),
    /** Never under the caller's signal: an abort is what runs after the signal fired. */
    abortUpload: (ref: UploadRef) => call<{ id: string; state: 'revoked' }>('POST', '/v1/files/multipart/abort', ref),
    readSecret: (id: string, recipientId?: string, signal?: AbortSignal) =>
      call<SecretMetadata>(
        'GET',
        `${secretPath(id)}${recipientId ? `?${new URLSearchParams({ recipient_id: recipientId }).toString()}` : ''}`,
        undefined,
        signal,
      ),
    claimSecret: (id: string, body: Record<string, string>, signal?: AbortSignal) =>
      call<ClaimedSecret>('POST', `${secretPath(id)}/claim`, body, signal),
  };
}

export type TransferApi = ReturnType<typeof transferApi>;

/**
 * The JSON body of a 2xx, else an ApiError carrying the problem, with `retry_after` from its
 * header (the one place a Node client reads the API's answers: the transfers' and the CLI's).
 */
export async function answerOf<T>(response: Response, what: string): Promise<T> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.ok) return parsed as T;
  const problem = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? { ...(parsed as Record<string, unknown>) } : {};
  const retryAfter = Number(response.headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) problem.retry_after = retryAfter;
  throw new ApiError(response.status, typeof problem.code === 'string' ? problem.code : `http_${response.status}`, problem, what);
}
